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
from ffn_core.registry import number
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


# approx shows seven fits; analogies is one analogy now (the jury), kept short to make room
# for the lecture's two new scenes.
SPEECH_RANGE_S = {"approx": (80, 150), "analogies": (40, 90)}


@pytest.mark.parametrize("scene", sorted(SCENES))
def test_narration_lasts_what_the_scene_needs(scene):
    from voiceover.timing import build_timeline

    speech = sum(b.speech_s for b in build_timeline(scene).beats)
    low, high = SPEECH_RANGE_S[scene]
    assert low <= speech <= high, f"{scene}: {speech:.1f} s of speech"


def test_approx_names_the_spoken_error_as_the_root_of_the_mean_square():
    # The figure is sqrt(mean(error²)): the narration must call it the root, not the mean square.
    result = fit_all()
    first = result.fit(1)
    assert number("approx.n1.rms_error").value == pytest.approx(
        float(np.sqrt(np.mean((np.asarray(first.curve) - np.asarray(result.target)) ** 2)))
    )
    assert not np.isclose(first.rms_error, np.mean((np.asarray(first.curve) - np.asarray(result.target)) ** 2))
    text = " ".join(load_script("approx").beat("una_neurona").text.split())
    assert "raíz de su error cuadrático medio" in text and "{approx.n1.rms_error:decimal}" in text
    assert "fijo" in text  # the fold was fixed, not fitted (tests/test_ffn_core_approx.py)


def test_approx_cites_the_approximation_theorems_and_gpt2_where_it_states_them():
    script = load_script("approx")
    assert {"cybenko1989", "hornik1989", "leshno1993"} <= set(script.beat("cierre").sources)
    assert "radford2019" in script.beat("gpt2").sources


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
    # «Aquí, el que más pesa es también el que votó con más convicción»: the largest
    # contribution (by norm) and the largest vote are the same neuron.
    loudest = number("perro.loudest_neuron").value - 1  # registered counted from one
    activated = number("perro.activated").value
    d_ff = number("perro.d_ff").value
    norms = [np.linalg.norm(number(f"perro.contribution.n{i + 1}").value) for i in range(d_ff)]
    assert loudest == int(np.argmax(norms)) == int(np.argmax(activated))


def test_analogies_tells_one_analogy_and_writes_no_neuron_index_before_stamps():
    # One analogy (the jury); the neuron numbering from 0 is introduced later, in `stamps`,
    # so this scene names no juror by number.
    script = load_script("analogies")
    assert [b.name for b in script.beats] == ["juicio", "votos", "silencio", "veredicto", "cierre"]
    assert not any(field.startswith("perro.loudest_neuron") for field in script.fields())
    assert not re.search(r"mochila|cajón", " ".join(b.text for b in script.beats))


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


def test_error_chart_writes_the_spoken_errors_with_the_two_decimals_the_voice_says():
    # Screen and voice, one precision: the chart writes two significant digits, so the errors
    # the narration speaks (n = 1 and n = 8, two decimals) read the same on the bars.
    from scenes.kit.curves import ErrorChart
    from voiceover.numerals import SCREEN, decimal

    counts, errors = number("approx.neuron_counts").value, number("approx.rms_error").value
    chart = ErrorChart(counts, errors, significant=2)
    for n in (1, 8):
        i = counts.index(n)
        assert chart.row(i)[2].text == decimal(errors[i], 2, SCREEN).replace(" ", "")
        assert f"{{approx.n{n}.rms_error:decimal}}" in " ".join(b.text for b in load_script("approx").beats)
    assert "ErrorChart(counts, errors, significant=2)" in SCENES["approx"].read_text(encoding="utf-8")
    # The smallest still shows something, not «0,00».
    assert chart.row(len(counts) - 1)[2].text != "0,00"


def test_vote_bars_get_a_y_axis_that_spans_every_bar_and_names_what_they_measure():
    from scenes.kit.neurons import NeuronRow

    row = NeuronRow(number("perro.expanded").value, unit_height=0.8, spacing=1.45)
    for on_top in (False, True):
        line, tick, label = row.y_axis("voto", title_on_top=on_top)
        bars = [n.bar for n in row.neurons]
        assert line.get_top()[1] >= max(b.get_top()[1] for b in bars) - 1e-6
        assert line.get_bottom()[1] <= min(b.get_bottom()[1] for b in bars) + 1e-6
        assert line.get_x() < row.neurons[0].get_left()[0]
        assert abs(tick.get_y() - row.baseline_point()[1]) < 1e-6
        assert label.text == "voto"
        assert (label.get_bottom()[1] >= line.get_top()[1]) if on_top else (label.get_right()[0] <= line.get_x())


def _scene_jury_box():
    from scenes.analogies import BOX_CENTRE_X, JUROR_SPACING, WALL_HEIGHT, WALL_TOP_Y
    from scenes.kit.icons import JuryBox

    box = JuryBox(number("perro.d_ff").value, spacing=JUROR_SPACING, wall_height=WALL_HEIGHT)
    return box.shift((BOX_CENTRE_X, WALL_TOP_Y - box.wall.get_top()[1], 0))


def test_jurors_sit_in_their_chairs_on_the_rail_one_chair_each():
    from scenes.analogies import JUROR_SIZE, JUROR_SPACING
    from scenes.kit.icons import Jury

    box = _scene_jury_box()
    d_ff = number("perro.d_ff").value
    jury = Jury(d_ff, spacing=JUROR_SPACING, size=JUROR_SIZE).seat_in(box)
    assert len(box.seats) == len(jury.jurors) == d_ff
    for i, (seat, juror) in enumerate(zip(box.seats, jury.jurors)):
        assert abs(juror.get_x() - seat.get_x()) < 1e-6
        assert abs(juror.get_bottom()[1] - box.rail.get_top()[1]) < 1e-6
        assert juror.get_top()[1] <= seat.get_top()[1]  # the chair back shows behind the head
        assert box.column_x(i) == pytest.approx(seat.get_x())
    widths = [j.width for j in jury.jurors]
    assert max(widths) < JUROR_SPACING  # neighbours never touch


def test_every_vote_and_every_contribution_fits_on_the_jury_box_wall():
    # The wall is the jury's board: each juror's vote bar with its value, and later its
    # contribution column, stays between the wall's bottom edge and the rail.
    from scenes.analogies import JUROR_SPACING, VOTE_BASELINE_SHARE, VOTE_UNIT
    from scenes.kit import typography as ty
    from scenes.kit.matrix import VectorColumn
    from scenes.kit.neurons import NeuronRow

    box = _scene_jury_box()
    low, high = box.wall.get_bottom()[1], box.rail.get_bottom()[1]
    for values in (number("perro.expanded").value, number("perro.activated").value):
        row = NeuronRow(values, unit_height=VOTE_UNIT, spacing=JUROR_SPACING, places=2)
        row.shift((box.get_x(), box.board_y(VOTE_BASELINE_SHARE), 0) - row.baseline_point())
        for i, neuron in enumerate(row.neurons):
            assert low < neuron.get_bottom()[1] and neuron.get_top()[1] < high, (values, i)
            assert abs(neuron.bar.get_x() - box.column_x(i)) < 1e-6
    for i in range(number("perro.d_ff").value):
        term = VectorColumn(number(f"perro.contribution.n{i + 1}").value, places=2, font_size=ty.SMALL_SIZE, h_buff=0.2)
        term.move_to((box.column_x(i), box.board_y(0.5), 0))
        assert low < term.get_bottom()[1] and term.get_top()[1] < high
        assert term.width < JUROR_SPACING


def test_board_heights_run_from_the_wall_bottom_to_its_top():
    box = _scene_jury_box()
    assert box.board_y(0) == pytest.approx(box.wall.get_bottom()[1])
    assert box.board_y(1) == pytest.approx(box.wall.get_top()[1])


def test_stage_frames_name_their_size_above_and_their_role_below():
    from scenes.kit import palette
    from scenes.kit.icons import StageFrame

    stage = StageFrame(1.8, 2.7, palette.FFN, f"{number('perro.d_ff').value} neuronas", "jurado")
    assert stage.caption.get_bottom()[1] > stage.frame.get_top()[1]
    assert stage.role.get_top()[1] < stage.frame.get_bottom()[1]
    assert stage.caption.text.replace(" ", "") == f"{number('perro.d_ff').value}neuronas"
