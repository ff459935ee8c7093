"""Panorama and XOR scenes: their sources, scripts, numbers and kit drawings agree.

Nothing here renders video: sources are parsed, scripts loaded and numbers resolved, and
the kit's mobjects are built and measured (cheap). The preview build
(tests/test_foundation_build.py) checks duration, bookmarks and layout of the rendered scenes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ffn_core.collapse import solve as solve_collapse
from ffn_core.registry import number
from ffn_core.xor import VIEW, clip_line
from ffn_core.xor import solve as solve_xor


def test_panorama_shows_the_collapse_numbers_ffn_core_computes():
    result = solve_collapse()
    assert number("collapse.product").value == result.product
    assert number("collapse.relu_output").value != number("collapse.linear_output").value
    # The rows the scene draws: the zeros it rings are the neurons the ReLU silenced.
    zeros = tuple(i for i, v in enumerate(number("collapse.hidden_relu").value) if v == 0)
    assert zeros == result.silenced and number("collapse.n_silenced").value == len(zeros)


def test_xor_counter_never_passes_the_best_a_line_can_do():
    result = solve_xor()
    counts = number("xor.sweep_correct_points").value
    assert counts == tuple(sum(frame.correct) for frame in result.sweep)
    assert max(counts) == number("xor.linear_best_correct_points").value < number("xor.n_points").value
    assert number("xor.mlp_correct_points").value == number("xor.n_points").value


# -- the kit drawings used by these scenes --------------------------------------------------


@pytest.fixture(scope="module")
def plane():
    from scenes.kit.plane import PlaneSquare

    return PlaneSquare(VIEW, side=4.0)


def _polygon_area(points) -> float:
    p = np.asarray(points, dtype=float)
    return 0.5 * abs(np.dot(p[:, 0], np.roll(p[:, 1], -1)) - np.dot(p[:, 1], np.roll(p[:, 0], -1)))


def test_half_plane_is_the_square_clipped_on_the_right_side_of_the_line(plane):
    from scenes.kit.plane import half_plane_corners

    side = VIEW[1] - VIEW[0]
    vertical = half_plane_corners(plane, 0.0, 1.0)  # x > 1: the right quarter of [-0.5, 1.5]
    assert _polygon_area(vertical) == pytest.approx(0.5 * side)
    assert all(x >= 1.0 - 1e-9 for x, _ in vertical)
    assert half_plane_corners(plane, 0.0, 5.0) == []  # the line misses the square


def test_plane_maps_data_corners_onto_the_drawn_square(plane):
    lo, hi = VIEW
    assert np.allclose(plane.to_scene(lo, lo), plane.frame.get_corner(np.array([-1, -1, 0])))
    assert np.allclose(plane.to_scene(hi, hi), plane.frame.get_corner(np.array([1, 1, 0])))


def test_decision_regions_cover_the_square_with_the_sampled_classes(plane):
    from scenes.kit import palette
    from scenes.kit.plane import CLASS_COLORS, DecisionRegions

    mlp = solve_xor().mlp
    regions = DecisionRegions(plane, mlp.grid_x, mlp.grid_y, mlp.region)
    region = np.array(mlp.region)
    # Sample the drawing at every grid point: the cell covering it has the predicted class's hue.
    hue = {c: np.array(CLASS_COLORS[c].to_rgb()) for c in (0, 1)}
    background = np.array(palette.BACKGROUND.to_rgb())  # cells are blended from it towards the hue
    for r in range(0, region.shape[0], 8):
        for c in range(0, region.shape[1], 8):
            point = plane.to_scene(mlp.grid_x[c], mlp.grid_y[r])
            covering = [
                cell
                for cell in regions.cells
                if np.all(point[:2] >= cell.get_corner(np.array([-1, -1, 0]))[:2] - 1e-9)
                and np.all(point[:2] <= cell.get_corner(np.array([1, 1, 0]))[:2] + 1e-9)
            ]
            assert covering, (r, c)
            rgb = np.array(covering[0].get_fill_color().to_rgb())
            dist = {
                k: np.linalg.norm(
                    (rgb - background) / np.linalg.norm(rgb - background)
                    - (v - background) / np.linalg.norm(v - background)
                )
                for k, v in hue.items()
            }
            assert min(dist, key=dist.get) == region[r, c], (r, c)


def test_accuracy_counter_shows_exactly_one_reading():
    from scenes.kit.plane import AccuracyCounter

    counter = AccuracyCounter("Aciertos", 4).show(3)
    visible = [r for r in counter.readings if r.get_fill_opacity() > 0.05]
    assert len(visible) == 1 and visible[0].text.replace(" ", "") == "Aciertos:3de4"
    with pytest.raises(ValueError, match="outside"):
        counter.show(5)


def test_sweeping_line_rings_the_points_each_position_gets_wrong(plane):
    from scenes.kit.plane import AccuracyCounter, ClassPoints, SweepingLine

    result = solve_xor()
    counts = number("xor.sweep_correct_points").value
    points = ClassPoints(plane, result.points, result.labels)
    sweep = SweepingLine(
        plane, points, result.sweep, counts, AccuracyCounter("Aciertos", 4), AccuracyCounter("Mejor", 4), clip=clip_line
    )
    for k, position in enumerate(result.sweep):
        sweep.set_position(float(k))
        shown = [ring.get_stroke_opacity() > 0.5 for ring in sweep.rings.rings]
        assert shown == [not ok for ok in position.correct]
        assert sweep.counter.value == counts[k] and sweep.best.value == max(counts[: k + 1])


def test_product_fill_visits_every_entry_of_the_product_once():
    from scenes.kit.matmul import ProductFill
    from scenes.kit.matrix import MatrixMob

    result = solve_collapse()
    fill = ProductFill(MatrixMob(result.w1), MatrixMob(result.w2), MatrixMob(result.product, places=2))
    assert sorted(fill.order) == [(i, j) for i in range(3) for j in range(3)]
    with pytest.raises(ValueError, match="cannot give"):
        ProductFill(MatrixMob(result.w2), MatrixMob(result.w2), MatrixMob(result.product))


# -- what the screen and the voice claim -----------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _script_text(scene: str) -> str:
    from voiceover.script import load_script

    return " ".join(" ".join(b.text.split()) for b in load_script(scene).beats)


def test_panorama_attention_is_causal_come_reads_the_words_before_it():
    from scenes.kit.tokens import TokenRow, attention_arcs
    from scenes.panorama import READER, WORDS

    assert WORDS[-1] == READER == "come"
    row = TokenRow(WORDS)
    arcs = attention_arcs(row, focus=READER)
    bold = [arc for arc in arcs if arc.get_stroke_width() > 4]
    assert len(bold) == len(WORDS) - 1  # «come» with «el» and with «perro», nothing after it
    mezclar = _script_text("panorama").split("{#mirar}")[1].split("{#escuchar}")[0]
    assert "«come»" in mezclar and "las que vienen antes" in mezclar


def test_panorama_no_longer_claims_attention_is_linear_and_cites_the_rank_collapse():
    from voiceover.script import load_script

    script = load_script("panorama")
    text = _script_text("panorama")
    for false in ("solo aprendería patrones lineales", "no serviría de nada", "parámetros, y con ellos"):
        assert false not in text
    assert "promedio ponderado" in script.beat("aportes").text
    # ... whose weights come from a softmax (non-linear in the inputs), as the screen says.
    assert "pesos de atención (softmax)" in (ROOT / "scenes" / "panorama.py").read_text(encoding="utf-8")
    assert "de cada bloque" in " ".join(script.beat("aportes").text.split())
    assert "dong2021" in script.beat("apilar").sources
    assert "capas lineales" in script.beat("colapso").text  # the collapse demo, said about linear layers


def test_panorama_stacks_count_blocks_not_layers():
    source = (ROOT / "scenes" / "panorama.py").read_text(encoding="utf-8")
    assert '} bloques"' in source and '} capas"' not in source
    assert "capa tras capa" not in source


def test_xor_is_written_one_way_in_every_opening_script():
    for scene in ("title_card", "panorama", "iceberg", "xor", "relu", "expand_contract", "closing_card"):
        assert "equis o erre" not in _script_text(scene), scene


def test_xor_axes_mark_zero_and_one_where_the_points_are(plane):
    axes = plane.axes()
    ticks = [m for m in axes if m.__class__.__name__ == "Line"]
    bottom = sorted(round(t.get_start()[0], 6) for t in ticks if abs(t.get_start()[1] - t.get_end()[1]) > 1e-9)
    left = sorted(round(t.get_start()[1], 6) for t in ticks if abs(t.get_start()[0] - t.get_end()[0]) > 1e-9)
    assert bottom == sorted(round(plane.to_scene(v, 0.0)[0], 6) for v in (0.0, 1.0))
    assert left == sorted(round(plane.to_scene(0.0, v)[1], 6) for v in (0.0, 1.0))
    labels = [m.tex_string for m in axes if m.__class__.__name__ == "MathTex"]
    assert labels.count("0") == labels.count("1") == 2 and {"x_1", "x_2"} <= set(labels)
    # The legend's rule is the labels' XOR: crosses where the two coordinates differ.
    result = solve_xor()
    assert [int(x != y) for x, y in result.points] == list(result.labels)


def test_panorama_block_scale_rules_every_multiple_of_gpt2s_blocks_up_to_gpt3s():
    from scenes.kit.layer_stack import BlockScale

    small, large = number("params.gpt2_small.n_layers").value, number("params.gpt3_175b.n_layers").value
    pitch = 4.4 / large
    scale = BlockScale(small, large, pitch, width=6.0)
    heights = [rule.get_y() - scale.floor.get_y() for rule in scale.rules]
    assert len(heights) == large // small
    assert heights == pytest.approx([k * small * pitch for k in range(1, large // small + 1)])
    with pytest.raises(ValueError, match="step"):
        BlockScale(large, small, pitch, width=6.0)


def test_xor_plane_is_an_opaque_sheet_and_the_points_backings_match_it(plane):
    from scenes.kit import palette
    from scenes.kit.plane import SHEET, ClassPoints

    assert plane.frame.get_fill_opacity() == 1.0 and plane.frame.get_fill_color() == SHEET
    # A sheet, not a dark field: lighter than the background by more than a faint grey.
    bg, sheet = np.array(palette.BACKGROUND.to_rgb()), np.array(SHEET.to_rgb())
    assert (sheet - bg).max() * 255 > 24
    result = solve_xor()
    points = ClassPoints(plane, result.points, result.labels)
    assert all(b.get_fill_color() == SHEET for b in points.backings)
    # The grid marks 0, 0,5 and 1 on each axis: the points sit on its crossings.
    xs = sorted(
        {round(line.get_start()[0], 6) for line in plane.grid if abs(line.get_start()[0] - line.get_end()[0]) < 1e-9}
    )
    assert xs == [round(plane.to_scene(v, 0.0)[0], 6) for v in (0.0, 0.5, 1.0)]
