"""The storyboard's measure of a still: drawn share, carrying drawing's height, smallest text."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from lecture.review import sparseness as sp

W, H = 480, 270
BG = (0x0F, 0x14, 0x20)


def frame() -> np.ndarray:
    return np.tile(np.array(BG, dtype=np.uint8), (H, W, 1))


def test_an_empty_frame_and_a_faint_one_have_nothing_drawn():
    still = frame()
    assert sp.measure_image(still) == sp.StillMeasure(0.0, 0.0, None)
    still[:, :] = np.array(BG) + sp.DRAWN_LEVEL  # a faint wash, just at the threshold
    assert sp.measure_image(still).drawn_share == 0.0
    still[0, 0] = np.array(BG) + (sp.DRAWN_LEVEL + 1, 0, 0)
    assert sp.measure_image(still).drawn_share == pytest.approx(1 / (W * H))


def test_a_title_over_nothing_is_sparse_and_says_why():
    still = frame()
    still[20:34, 120:360] = (236, 239, 244)  # one line of title, 14 px of 270
    m = sp.measure_image(still, smallest_text_px=41.6)
    assert m.drawn_share == pytest.approx(14 * 240 / (W * H))
    assert m.carrying_height_share == pytest.approx(14 / H)
    assert m.sparse
    assert any(p.startswith("cuadro casi vacío") for p in m.problems)
    assert any(p.startswith("dibujo principal bajo: 5 %") for p in m.problems)


def test_a_large_drawing_under_a_separate_title_carries_its_own_height():
    still = frame()
    still[10:24, 150:330] = (236, 239, 244)  # the title, well apart from the drawing
    still[70:250, 140:340] = (63, 167, 214)  # a filled block 180 px tall
    m = sp.measure_image(still, smallest_text_px=24.6)
    assert m.carrying_height_share == pytest.approx(180 / H)  # the block, not title-to-block
    assert not m.sparse and m.problems == ()


def test_marks_a_few_pixels_apart_are_one_drawing_and_far_apart_ones_are_not():
    still = frame()
    for x in range(100, 300, 7):  # glyphs of one line, 3 px gaps: one region
        still[100:112, x : x + 4] = (236, 239, 244)
    still[150:262, 20:22] = (138, 147, 166)  # a thin tall axis, far from the line
    m = sp.measure_image(still)
    # The line spans a larger box than the thin axis: the line carries the frame.
    assert m.carrying_height_share == pytest.approx(12 / H)
    spaced = frame()
    for x in range(100, 300, 40):  # marks 36 px apart stay separate
        spaced[100:112, x : x + 4] = (236, 239, 244)
    spaced[150:160, 20:30] = (236, 239, 244)  # one mark spanning a larger box than any other
    assert sp.measure_image(spaced).carrying_height_share == pytest.approx(10 / H)


def test_small_text_alone_makes_a_still_sparse():
    still = frame()
    still[30:240, 60:420] = (63, 167, 214)
    assert sp.measure_image(still, smallest_text_px=sp.MIN_TEXT_PX).problems == ()
    small = sp.measure_image(still, smallest_text_px=sp.MIN_TEXT_PX - 2)
    assert small.problems == (f"texto de {sp.MIN_TEXT_PX - 2:.0f} px (mínimo 20 px a 854x480)",)


def test_the_smallest_text_is_the_one_logged_last_by_the_stills_frame():
    boxes = [
        {"t_s": 0.0, "beat": "uno", "heights_px": []},
        {"t_s": 1.0, "beat": "uno", "heights_px": [24.6, 41.6]},
        {"t_s": 2.0, "beat": "dos", "heights_px": [18.0]},
    ]
    fps = 15.0
    assert sp.smallest_text_at(boxes, 0.5, fps) is None  # nothing on screen yet
    assert sp.smallest_text_at(boxes, 1.0 - 1 / fps, fps) == 24.6  # the frame that ends at 1 s
    assert sp.smallest_text_at(boxes, 2.0 - 1 / fps, fps) == 18.0  # its frame ends as it is logged
    assert sp.smallest_text_at([], 1.0, fps) is None  # a render logged before the field


def test_a_still_on_disk_is_measured_like_its_pixels(tmp_path):
    still = frame()
    still[40:200, 100:300] = (242, 193, 78)
    Image.fromarray(still).save(tmp_path / "s.png")
    assert sp.measure_still(tmp_path / "s.png") == sp.measure_image(still)


def test_a_scene_summary_counts_stills_under_three_percent_and_flagged_ones():
    empty, full = sp.StillMeasure(0.01, 0.05, None), sp.StillMeasure(0.2, 0.6, 30.0)
    summary = sp.scene_summary("s", [empty, full, full, full])
    assert (summary.stills, summary.under_3_percent, summary.flagged) == (4, 1, 1)
    assert summary.under_3_share == 0.25
