"""Scenes «approx» and «analogies»: what they draw and say matches ffn_core, and their scripts
have every beat and bookmark their sources wait for. Nothing here renders video."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ffn_core.approx import NEURON_COUNTS, fit_all
from ffn_core.examples import word_walkthrough
from ffn_core.ffn import key_value_reading
from ffn_core.numbers import number
from voiceover.script import load_script

ROOT = Path(__file__).resolve().parents[1]
SCENES = {"approx": ROOT / "scenes" / "approx.py", "analogies": ROOT / "scenes" / "analogies.py"}


def _literal_waits(source: str) -> tuple[set[str], set[str]]:
    beats = set(re.findall(r"self\.beat\(\"([a-z0-9_]+)\"\)", source))
    bookmarks = set(re.findall(r"until\(\"([a-z0-9_]+)\"\)", source))
    return beats, bookmarks


def test_approx_doubling_steps_name_bookmarks_of_their_own_beat():
    from scenes.approx import DOUBLINGS

    script = load_script("approx")
    for beat, steps in DOUBLINGS.items():
        marks = set(script.beat(beat).bookmarks)
        for _, start, end in steps:
            assert start in marks and (end is None or end in marks), (beat, start, end)


@pytest.mark.parametrize("scene", sorted(SCENES))
def test_narration_lasts_between_80_and_150_seconds(scene):
    from voiceover.timeline import build_timeline

    speech = sum(b.speech_s for b in build_timeline(scene).beats)
    assert 80 <= speech <= 150, f"{scene}: {speech:.1f} s of speech"


# -- approx ----------------------------------------------------------------------------
def test_approx_doublings_show_every_computed_fit_after_the_first():
    from scenes.approx import DOUBLINGS

    shown = [n for steps in DOUBLINGS.values() for n, _, _ in steps]
    counts = number("approx.neuron_counts").value
    assert (counts[0], *shown) == counts == NEURON_COUNTS
    # Each step doubles, so every fold splits into exactly two new ones on screen.
    assert all(b == 2 * a for a, b in zip(counts, counts[1:]))


def test_approx_counter_and_error_chart_read_ffn_core_values():
    result = fit_all()
    for fit in result.fits:
        n = fit.n_neurons
        assert number(f"approx.n{n}.rms_error").value == fit.rms_error
        assert number(f"approx.n{n}.folds").value == len(fit.folds) == n
        assert number(f"approx.n{n}.neurons").value == n
    ratio = result.fits[0].rms_error / result.fits[-1].rms_error
    assert number("approx.rms_shrink_factor").value == round(ratio)


def test_approx_error_shrinks_at_every_doubling_as_the_scene_says():
    errors = number("approx.rms_error").value
    assert all(b < a for a, b in zip(errors, errors[1:])), errors


def test_fold_markers_sit_on_the_fitted_curve():
    from scenes.kit.curves import fit_heights

    result = fit_all()
    x = np.asarray(result.x)
    for fit in result.fits:
        on_curve = np.interp(fit.folds, x, fit.curve)
        assert np.allclose(fit_heights(fit), on_curve, atol=0.03), fit.n_neurons


def test_error_chart_bars_are_proportional_to_the_errors():
    from scenes.kit.curves import ErrorChart

    errors = number("approx.rms_error").value
    chart = ErrorChart(number("approx.neuron_counts").value, errors, max_length=2.6)
    widths = np.array([chart.bar(i).width for i in range(len(errors))])
    big = widths > 0.05  # the thinnest bars are clamped to stay visible
    assert np.allclose(widths[big] / 2.6, np.asarray(errors)[big] / max(errors), rtol=1e-6)


def test_split_dots_gives_two_starting_points_per_fold():
    from manim import Dot, VGroup

    from scenes.kit.curves import split_dots

    dots = VGroup(Dot((0, 0, 0)), Dot((1, 0, 0)))
    split = split_dots(dots, 2)
    assert [tuple(d.get_center()) for d in split] == [(0, 0, 0), (0, 0, 0), (1, 0, 0), (1, 0, 0)]


# -- analogies -------------------------------------------------------------------------
def test_jurors_votes_and_verdict_are_the_perro_network():
    walk = word_walkthrough()
    reading = key_value_reading(walk.trace.x, walk.w_in, walk.w_out)
    assert number("perro.d_model").value == len(walk.trace.x)
    assert number("perro.d_ff").value == len(walk.expanded)
    # One neuron at a time (the reading) and all at once (the matrix product) agree.
    assert np.allclose(number("perro.expanded").value, reading.match, atol=1e-12)
    assert np.allclose(number("perro.activated").value, reading.coefficient, atol=1e-12)
    for i, term in enumerate(reading.terms):
        assert number(f"perro.contribution.n{i + 1}").value == term


def test_the_votes_add_up_to_the_layer_output():
    d_ff = number("perro.d_ff").value
    terms = np.array([number(f"perro.contribution.n{i + 1}").value for i in range(d_ff)])
    assert np.allclose(terms.sum(axis=0), number("perro.contracted").value, atol=1e-12)


def test_silenced_jurors_add_nothing_and_the_speakers_are_counted_right():
    activated = number("perro.activated").value
    for i, a in enumerate(activated):
        term = number(f"perro.contribution.n{i + 1}").value
        assert (a > 0) or not any(term), f"silenced juror {i + 1} contributes {term}"
    assert number("perro.n_active").value == sum(a > 0 for a in activated)


def test_the_juror_who_weighs_most_also_voted_with_most_conviction():
    # The narration says the heaviest contribution comes from the most convinced juror.
    loudest = number("perro.loudest_neuron").value
    activated = number("perro.activated").value
    assert loudest == 1 + int(np.argmax(activated))


def test_backpack_and_bed_icons_have_one_place_per_value():
    from scenes.kit.icons import Backpack, Bed, Drawer

    d_model, d_ff = number("perro.d_model").value, number("perro.d_ff").value
    assert len(Backpack(d_model).pockets) == d_model
    drawer = Drawer(d_model)
    slots = [drawer.slot(i) for i in range(d_model)]
    assert all(drawer.tray.get_bottom()[1] < s[1] < drawer.tray.get_top()[1] for s in slots)
    bed = Bed(2, d_ff // 2)
    spots = np.array([bed.spot(i) for i in range(d_ff)])
    assert len({tuple(np.round(s, 6)) for s in spots}) == d_ff
    left, right = bed.mattress.get_left()[0], bed.mattress.get_right()[0]
    assert np.all((spots[:, 0] > left) & (spots[:, 0] < right))
