"""`ffn-video gallery`: every kit drawing on a still sheet, found without a list, each with a sample."""

from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from manim import Mobject, VGroup
from PIL import Image

from lecture.cli import main
from lecture.review import gallery
from lecture.review.gallery import Drawing, GalleryError, Placed

REPO = Path(__file__).resolve().parent.parent
KIT = REPO / "scenes" / "kit"
BACKGROUND_RGB = (0x0F, 0x14, 0x20)  # scenes.kit.palette.BACKGROUND
FRAME = (8.0 * 854 / 480, 8.0)  # scene units of an 854x480 sheet


def _kit_classes_by_reading_the_files() -> set[tuple[str, str]]:
    """(module file, class) of every public class defined at the top of a kit module that is
    a manim Mobject: read from the source, independently of the gallery's discovery."""
    found = set()
    for path in sorted(KIT.glob("*.py")):
        module = importlib.import_module(f"scenes.kit.{path.stem}")
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                if issubclass(getattr(module, node.name), Mobject):
                    found.add((f"scenes/kit/{path.name}", node.name))
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The whole gallery, made once by the command, into a temporary renders folder."""
    root = tmp_path_factory.mktemp("gallery")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FFN_RENDERS_DIR", str(root / "renders"))
        # manim's TeX and text caches go to a temporary folder too; ffn_core's cache is left
        # where it is (FFN_CACHE_DIR would move it, and retrain the small models).
        import lecture.layout

        mp.setattr(lecture.layout, "build_dir", lambda: root / "cache" / "build")
        captured = []
        real = gallery.write_gallery

        def keep(*args, **kwargs):
            page, results = real(*args, **kwargs)
            captured.append(results)
            return page, results

        mp.setattr(gallery, "write_gallery", keep)
        assert main(["gallery"]) == 0
    folder = root / "renders" / "preview" / "gallery"
    return folder, captured[0]


def test_every_kit_mobject_class_is_found_and_has_a_sample():
    discovered = {(d.module_file, d.name) for d in gallery.kit_drawings()}
    assert discovered == _kit_classes_by_reading_the_files()
    assert len(discovered) > 50  # the kit as it is: a discovery that finds little is broken
    gallery.check_samples(gallery.kit_drawings(), gallery.kit_samples())


@pytest.mark.slow
def test_every_kit_mobject_class_appears_in_the_gallery_once(built):
    folder, results = built
    shown = [(p.drawing.module_file, p.drawing.name) for r in results for p in r.placed]
    assert sorted(shown) == sorted(_kit_classes_by_reading_the_files())
    page = (folder / "index.html").read_text(encoding="utf-8")
    for module_file, name in shown:
        assert f"<code>{name}</code>" in page
        assert module_file in page


@pytest.mark.slow
def test_the_command_writes_one_nonblank_png_per_sheet_with_every_drawing_and_label_drawn(built):
    folder, results = built
    assert sorted(p.name for p in folder.glob("*.png")) == sorted(f"{r.sheet.name}.png" for r in results)
    # One sheet per kit module, numbered when split.
    stems = {re.sub(r"-\d+$", "", r.sheet.name) for r in results}
    assert stems == {Path(m).stem for m, _ in _kit_classes_by_reading_the_files()}
    for r in results:
        with Image.open(r.image) as im:
            assert im.size == (854, 480)
            pixels = np.asarray(im.convert("RGB")).astype(int)
        ink = np.abs(pixels - np.array(BACKGROUND_RGB)).sum(axis=2) > 30
        assert ink.mean() > 0.02, f"{r.image.name} is nearly blank"
        # Each drawing and each label leaves ink inside its own box.
        for p in r.placed:
            for what, box in [(p.drawing.name, p.box), *((f"label of {p.drawing.name}", b) for b in p.label_boxes)]:
                (x0, y0), (x1, y1) = box
                c0, c1 = int((x0 / FRAME[0] + 0.5) * 854), int(np.ceil((x1 / FRAME[0] + 0.5) * 854))
                r0, r1 = int((0.5 - y1 / FRAME[1]) * 480), int(np.ceil((0.5 - y0 / FRAME[1]) * 480))
                assert ink[max(r0, 0) : r1 + 1, max(c0, 0) : c1 + 1].any(), f"{r.image.name}: {what} is blank"


@pytest.mark.slow
def test_no_drawing_or_label_overlaps_another_or_leaves_the_frame(built):
    _, results = built
    assert [(r.sheet.name, p) for r in results for p in r.problems] == []
    for r in results:
        for p in r.placed:
            assert 0 < p.scale <= gallery.MAX_UPSCALE


@pytest.mark.slow
def test_labels_are_legible_at_preview_size(built):
    """Names are the type scale's label and small sizes, never scaled: 20 px or taller at 854x480."""
    _, results = built
    for r in results:
        for p in r.placed:
            assert p.label_text_px >= 20, f"{r.sheet.name}: the label of {p.drawing.name} is {p.label_text_px:.0f} px"


class Lantern(VGroup):
    """A drawing nobody wrote a sample for."""


def test_a_kit_class_without_a_sample_fails_naming_it_and_its_module():
    drawings = [*gallery.kit_drawings(), Drawing(Lantern, "scenes/kit/lantern.py")]
    with pytest.raises(GalleryError, match=r"Lantern \(scenes/kit/lantern\.py\)"):
        gallery.plan_sheets(drawings, gallery.kit_samples())


def test_the_command_refuses_a_kit_class_without_a_sample_and_names_it(monkeypatch, capsys):
    real = gallery.kit_drawings
    monkeypatch.setattr(gallery, "kit_drawings", lambda: (*real(), Drawing(Lantern, "scenes/kit/lantern.py")))
    assert main(["gallery"]) == 2
    err = capsys.readouterr().err
    assert "Lantern (scenes/kit/lantern.py)" in err and "scenes/kit/gallery_samples.py" in err


def test_a_new_kit_module_is_discovered_and_its_missing_sample_named(tmp_path, monkeypatch):
    package = tmp_path / "other_kit"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "lamps.py").write_text(
        "from manim import VGroup\n\n\nclass Lamp(VGroup):\n    pass\n\n\nclass _Helper(VGroup):\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        drawings = gallery.kit_drawings("other_kit")
        assert [(d.module_file, d.name) for d in drawings] == [("other_kit/lamps.py", "Lamp")]
        with pytest.raises(GalleryError, match="Lamp"):
            gallery.check_samples(drawings, gallery.kit_samples())
    finally:
        for name in [m for m in sys.modules if m == "other_kit" or m.startswith("other_kit.")]:
            del sys.modules[name]


def test_a_sample_that_does_not_draw_its_class_is_refused():
    drawing = Drawing(Lantern, "scenes/kit/lantern.py")
    sheet = gallery.Sheet(drawing.module_file, (drawing,))
    with pytest.raises(GalleryError, match="Lantern"):
        gallery.compose(sheet, {Lantern: VGroup}, FRAME)


@pytest.mark.parametrize(
    "sizes, label_width",
    [
        ([(12.0, 0.3), (0.2, 6.0), (1.0, 1.0), (8.0, 8.0), (3.0, 2.0), (14.0, 5.0)], 3.0),
        ([(0.4, 0.4)], 3.0),
        ([(13.0, 7.5), (13.0, 7.5), (0.1, 3.0)], 4.4),  # 4.4: "scenes/kit/block_diagram.py", small
    ],
)
def test_layout_keeps_cells_apart_and_inside_the_frame(sizes, label_width):
    labels = [label_width] * len(sizes)
    slots = gallery.layout(sizes, labels, FRAME)
    assert len(slots) == len(sizes)
    cells = []
    for (w, h), slot in zip(sizes, slots):
        assert w * slot.scale <= slot.cell_width + 1e-9
        half = slot.cell_width / 2
        bottom = slot.bottom - gallery.LABEL_GAP - gallery.LABEL_HEIGHT
        cells.append(((slot.x - half, bottom), (slot.x + half, bottom + slot.cell_height)))
        assert slot.bottom + h * slot.scale <= bottom + slot.cell_height + 1e-9
    placed = [Placed(Drawing(Lantern, f"m{i}.py"), c, (), 1.0, None) for i, c in enumerate(cells)]
    assert gallery.layout_problems(placed, FRAME, margin=gallery.FRAME_MARGIN - 1e-6) == []


def test_layout_problems_name_what_overlaps_and_what_leaves_the_frame():
    a = Placed(Drawing(Lantern, "a.py"), ((-1.0, -1.0), (1.0, 1.0)), (), 1.0, None)
    b = Placed(Drawing(VGroup, "b.py"), ((0.5, 0.5), (2.0, 2.0)), (), 1.0, None)
    c = Placed(Drawing(Mobject, "c.py"), ((6.0, 0.0), (7.5, 1.0)), (), 1.0, None)
    problems = gallery.layout_problems([a, b, c], FRAME)
    assert problems == ["Mobject se sale del fotograma", "Lantern se solapa con VGroup"]
