"""The features scene and its kit (scenes/kit/directions.py): the drawings put each vector,
shadow and threshold where its numbers say, and the scene says and shows what was computed.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from ffn_core.registry import number

REPO = Path(__file__).resolve().parent.parent


def _distance(a, b) -> float:
    from manim import ManimColor

    return float(np.linalg.norm(ManimColor(a).to_rgb() - ManimColor(b).to_rgb()))


# -- the kit -------------------------------------------------------------------------------


def test_plane_keeps_lengths_and_angles_wherever_it_is_moved_or_turned():
    from scenes.kit.directions import DirectionPlane

    plane = DirectionPlane(scale=0.5, angle_deg=30).shift((2.0, -1.0, 0))
    origin = plane.point(0, 0)
    assert np.allclose(origin, (2.0, -1.0, 0))
    a, b = plane.point(3, 0) - origin, plane.point(0, 4) - origin
    assert np.linalg.norm(a) == pytest.approx(1.5) and np.linalg.norm(b) == pytest.approx(2.0)
    assert a @ b == pytest.approx(0, abs=1e-12)  # the plane's axes stay perpendicular
    assert np.degrees(np.arctan2(a[1], a[0])) == pytest.approx(30)
    arrow = plane.arrow(3, 4)
    assert np.allclose(arrow.get_start(), origin) and np.allclose(arrow.get_end(), plane.point(3, 4))


def test_shadow_is_the_projection_on_the_first_axis():
    from scenes.kit.directions import DirectionPlane, Shadow

    plane = DirectionPlane(scale=0.8)
    shadow = Shadow(plane, 1.8, 5.1, offset=-0.5)
    assert np.allclose(shadow.segment.get_start(), plane.point(0, -0.5))
    assert np.allclose(shadow.segment.get_end(), plane.point(1.8, -0.5))
    assert np.allclose(shadow.drop.get_start(), plane.point(1.8, 5.1), atol=1e-6)
    assert shadow.segment.get_length() == pytest.approx(1.8 * 0.8)


def test_threshold_line_crosses_the_key_at_minus_bias_over_norm_and_passing_starts_there():
    from scenes.kit.directions import DirectionPlane, ThresholdLine

    plane = DirectionPlane(scale=1.0)
    line = ThresholdLine(plane, 0.13, w_range=(-1, 2))
    assert line.line.get_start()[0] == pytest.approx(0.13) and line.line.get_end()[0] == pytest.approx(0.13)
    passing = line.passing(1.8)
    assert passing.get_start()[0] == pytest.approx(0.13) and passing.get_end()[0] == pytest.approx(1.8)
    assert line.passing(-1.0).get_length() == pytest.approx(0.0)  # short of the line: nothing passes


def test_shadow_rows_put_each_input_on_its_row_by_its_shadow_and_colour_by_the_threshold():
    from scenes.kit import palette
    from scenes.kit.directions import ShadowRows

    names = ["limón", "azúcar", "nieve", "hielo", "café"]
    shadows = [1.8, 0.06, -1.31, 0.99, 0.24]
    rows = ShadowRows(names, shadows, 0.13, u_range=(-3.0, 2.2), scale=1.5, highlight=0, notes={3: "0,68"})
    rows.shift((1.0, -0.5, 0))  # a moved group keeps its geometry
    assert rows.order == [0, 3, 4, 1, 2]  # largest shadow on top
    heights = [rows.row(i)[2].get_center()[1] for i in rows.order]
    assert heights == sorted(heights, reverse=True)
    zero_x = rows.zero.get_start()[0]
    for i, s in enumerate(shadows):
        assert rows.row(i)[2].get_center()[0] - zero_x == pytest.approx(1.5 * s)
    assert rows.threshold_line.get_start()[0] - zero_x == pytest.approx(1.5 * 0.13)
    colors = {i: rows.row(i)[2].get_color() for i in range(len(names))}
    assert _distance(colors[0], palette.HIGHLIGHT) < 1e-6
    assert _distance(colors[3], palette.ACTIVE) < 1e-6 and _distance(colors[4], palette.ACTIVE) < 1e-6
    assert _distance(colors[1], palette.INACTIVE) < 1e-6 and _distance(colors[2], palette.INACTIVE) < 1e-6
    assert rows.row(3)[3].text == "0,68" and len(rows.row(1)) == 3
    with pytest.raises(ValueError):
        ShadowRows(names, shadows, 0.13, u_range=(-1.0, 1.0))  # a shadow outside the drawn line


def test_word_bars_are_as_long_as_their_logits_and_mark_the_highlighted_word():
    from scenes.kit import palette
    from scenes.kit.directions import WordBars

    bars = WordBars(["ácido", "negro"], [0.42, 0.14], highlight=("ácido",), width=3.0)
    first, second = bars.row_of("ácido"), bars.row_of("negro")
    assert first[1].width == pytest.approx(3.0)
    assert second[1].width == pytest.approx(3.0 * 0.14 / 0.42)
    assert _distance(first[1].get_fill_color(), palette.HIGHLIGHT) < 1e-6
    assert _distance(second[1].get_fill_color(), palette.POSITIVE) < 1e-6
    assert first[2].text == "+0,42"
    assert first[1].get_left()[0] == pytest.approx(second[1].get_left()[0])  # one baseline for the bars
    with pytest.raises(ValueError):
        WordBars(["a"], [0.1, 0.2])


def test_vector_strip_has_one_cell_per_entry_coloured_by_sign():
    from scenes.kit import palette
    from scenes.kit.directions import VectorStrip

    strip = VectorStrip([0.5, -0.5, 0.1, -1.0], rows=2)
    assert len(strip.cells) == 4
    colors = [c.get_fill_color() for c in strip.cells]
    assert _distance(colors[0], palette.POSITIVE) < _distance(colors[0], palette.NEGATIVE)
    assert _distance(colors[3], palette.NEGATIVE) < _distance(colors[3], palette.POSITIVE)
    assert strip.cells[0].get_center()[1] > strip.cells[2].get_center()[1]  # row-major, two rows
    with pytest.raises(ValueError):
        VectorStrip([0.1, 0.2, 0.3], rows=2)


def test_stream_column_rises_from_the_word_through_attention_then_the_ffn():
    from scenes.kit.directions import StreamColumn

    column = StreamColumn((1.0, -2.0, 0))
    first, second, out = column.flow
    assert first.get_start()[1] == pytest.approx(-2.0 + 0.08, abs=0.02)  # from the word's chip, upward
    assert first.get_start()[1] < column.attention.get_bottom()[1] < column.ffn.get_bottom()[1]
    assert out.get_end()[1] > column.ffn.get_top()[1]
    for part in (column.attention, column.ffn):
        assert part.get_center()[0] == pytest.approx(1.0)
        assert part.label.font_size * 0.945 >= 20  # its label stays legible at 854x480


# -- the scene -----------------------------------------------------------------------------


def _script():
    return tomllib.loads((REPO / "voiceover/script/es/features.toml").read_text(encoding="utf-8"))


def test_scene_reads_ffn_core_only_through_the_registry():
    source = (REPO / "scenes/features.py").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import) ffn_core", source, re.MULTILINE)
    assert 'model_badge(self, "fact_model")' in source


def test_literature_beats_name_their_sources():
    beats = {b["name"]: b for b in _script()["beat"]}
    assert {"nostalgebraist2020", "geva2022"} <= set(beats["lente"]["sources"])
    assert {"geva2021", "geva2022", "sanderson2024"} <= set(beats["cierre"]["sources"])
    # The beats that only show the toy model's own numbers cite nothing.
    assert all("sources" not in beats[name] for name in ("corriente", "llave", "umbral", "pregunta", "valor"))


def test_narration_speaks_every_figure_from_the_registry():
    text = " ".join(b["text"] for b in _script()["beat"])
    bare = re.sub(r"\{[^{}]*\}", " ", text)
    assert not re.search(r"\d", bare), "a figure typed into the narration"
    for key in ("features.pusher.neuron", "features.pusher.dot", "features.pusher.bias", "features.hardest.neuron"):
        assert "{" + key + ":" in text
    number("features.pusher.neuron")  # every field resolves (the timeline would fail otherwise)


def test_scene_shows_the_computed_neurons_words_and_place(tmp_path):
    import sys

    sys.path.insert(0, str(REPO / "tests"))
    from test_scene_contract import skipped_run

    run = skipped_run("features", tmp_path)
    texts = set(run.texts)
    pusher, hardest = number("features.pusher.neuron").value, number("features.hardest.neuron").value
    assert f"llave k{_sub(pusher)} = columna {pusher} de W₁" in texts
    assert f"valor v{_sub(pusher)} = fila {pusher} de W₂" in texts
    assert f"Neurona {hardest}" in texts
    place, vocab = number("features.pusher.answer_place").value, number("features.vocab_size").value
    assert f"«{number('features.answer').value}»: puesto {place} de {vocab} palabras" in texts
    for word in number("features.pusher.lens_words").value + number("features.hardest.lens_words").value:
        assert f"«{word}»" in texts
    for subject in number("features.pusher.fired_subjects").value:
        assert subject in texts
    assert not any(re.search(r"\b(key|value|clave|unidad)\b", t) for t in texts)
    assert run.layout_problems == ()


def _sub(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
