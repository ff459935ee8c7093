"""The kit's gallery: every drawing in `scenes/kit/` on still sheets, each with its name.

A developer about to draw something new looks here first. Drawings are found, not listed:
every public mobject class defined in a `scenes/kit/*.py` module. Each one is built by its
sample, written beside it in its module with `@sample_of` (`scenes/kit/gallery_samples.py`
holds the registry; importing every kit module fills it, and a class without a sample is an
error that names it), scaled into its cell with its class name and module under it (see
`layout`), one sheet per module (two when a module holds more than `MAX_PER_SHEET`
drawings). A sheet is a manim Scene rendered in this process as a still (manim's `-s`): no
video, no subprocess; building the drawings' text is most of the time. The sheets and an
`index.html` that lists them, with each class's docstring, land in `renders/<quality>/gallery/`.
"""

from __future__ import annotations

import html
import importlib
import inspect
import math
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from types import ModuleType

import numpy as np

from voiceover.atomic import atomic_path, write_text

KIT_PACKAGE = "scenes.kit"
SAMPLES_REGISTRY = "scenes/kit/gallery_samples.py"
MAX_PER_SHEET = 6  # more would shrink the drawings below reading size at 854x480
MAX_ROWS = 4  # rows a sheet may be cut into
FRAME_MARGIN = 0.25  # scene units kept free at the sheet's edges
CELL_GAP = 0.3  # scene units between cells
CELL_PAD = 0.08  # a cell's faint frame, this far around its drawing and label
LABEL_GAP = 0.22  # between a drawing and its name
LABEL_HEIGHT = 0.75  # a name line and a module line, in scene units (measured: 0.35 + 0.08 + 0.30)
MAX_UPSCALE = 2.0  # a tiny drawing (an icon) is enlarged at most this much
PX_PER_FONT_SIZE = 0.945  # px at 854x480 per font size (see scenes.kit.narrated)


class GalleryError(RuntimeError):
    pass


@dataclass(frozen=True)
class Drawing:
    """One kit mobject class and the file that defines it (`scenes/kit/neurons.py`)."""

    cls: type
    module_file: str

    @property
    def name(self) -> str:
        return self.cls.__name__

    @property
    def summary(self) -> str:
        """The first paragraph of the class's docstring, on one line."""
        doc = inspect.getdoc(self.cls) or ""
        return doc.split("\n\n")[0].replace("\n", " ").strip()


@dataclass(frozen=True)
class Sheet:
    """The drawings of one kit module that share an image: `part` of `parts`."""

    module_file: str
    drawings: tuple[Drawing, ...]
    part: int = 1
    parts: int = 1

    @property
    def name(self) -> str:
        """File stem: the module's name, numbered when the module needs several sheets."""
        stem = Path(self.module_file).stem
        return stem if self.parts == 1 else f"{stem}-{self.part}"


@dataclass(frozen=True)
class Placed:
    """What a sheet shows for one drawing, measured after layout (scene units)."""

    drawing: Drawing
    box: tuple[tuple[float, float], tuple[float, float]]  # the drawing's (lower-left, upper-right)
    label_boxes: tuple[tuple[tuple[float, float], tuple[float, float]], ...]
    scale: float  # how much the sample was scaled to fit its cell
    smallest_text_px: float | None  # at 854x480; None when the drawing has no text
    label_text_px: float = 0.0  # the label's smaller line, at 854x480


@dataclass(frozen=True)
class SheetResult:
    sheet: Sheet
    image: Path
    placed: tuple[Placed, ...]
    problems: tuple[str, ...]


# -- what exists --------------------------------------------------------------------------------
def _kit_modules(package: str) -> list[tuple[ModuleType, str]]:
    """Every module of the package, imported, with its file (`scenes/kit/neurons.py`), in
    file-name order."""
    root = importlib.import_module(package)
    return [
        (importlib.import_module(f"{package}.{info.name}"), f"{package.replace('.', '/')}/{info.name}.py")
        for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda i: i.name)
        if not info.ispkg
    ]


def kit_drawings(package: str = KIT_PACKAGE) -> tuple[Drawing, ...]:
    """Every public mobject class defined in the package's modules, module by module (in
    file-name order), classes in the order their module defines them."""
    from manim import Mobject

    found = []
    for module, module_file in _kit_modules(package):
        for name, obj in vars(module).items():  # definition order
            if (
                inspect.isclass(obj)
                and issubclass(obj, Mobject)
                and obj.__module__ == module.__name__
                and not name.startswith("_")
            ):
                found.append(Drawing(obj, module_file))
    return tuple(found)


def kit_samples() -> dict[type, Callable]:
    """Every sample of the kit: each module registers its own when imported, so all are."""
    from scenes.kit.gallery_samples import SAMPLES

    _kit_modules(KIT_PACKAGE)
    return dict(SAMPLES)


def check_samples(drawings: Sequence[Drawing], samples: Mapping[type, Callable]) -> None:
    """Every drawing needs a sample to be shown; the error names those without one."""
    missing = [f"{d.name} ({d.module_file})" for d in drawings if d.cls not in samples]
    if missing:
        raise GalleryError(
            f"sin muestra para la galería: {', '.join(missing)}; añade junto a la clase, en su módulo, una "
            f"función @sample_of(Clase) (de {SAMPLES_REGISTRY}) que la construya con datos de ffn_core.registry"
        )


def plan_sheets(drawings: Sequence[Drawing], samples: Mapping[type, Callable]) -> tuple[Sheet, ...]:
    """One sheet per kit module, split into equal parts when it holds more than
    `MAX_PER_SHEET` drawings."""
    check_samples(drawings, samples)
    by_module: dict[str, list[Drawing]] = {}
    for drawing in drawings:
        by_module.setdefault(drawing.module_file, []).append(drawing)
    sheets = []
    for module_file, group in by_module.items():
        parts = math.ceil(len(group) / MAX_PER_SHEET)
        size = math.ceil(len(group) / parts)
        for p in range(parts):
            chunk = tuple(group[p * size : (p + 1) * size])
            sheets.append(Sheet(module_file, chunk, p + 1, parts))
    return tuple(sheets)


# -- layout -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Slot:
    """Where one drawing goes on a sheet (scene units): its scale, the centre x of its cell
    and the bottom y of its row's drawings (the label sits right under it), and the cell's
    size (drawing and label, as wide as the wider of the two)."""

    scale: float
    x: float
    bottom: float
    cell_width: float
    cell_height: float


def _fits(sizes, label_widths, scales, width: float) -> bool:
    cells = [max(w * s, lw) for (w, _), s, lw in zip(sizes, scales, label_widths)]
    return sum(cells) + CELL_GAP * (len(cells) - 1) <= width


def _largest(ok, hi: float) -> float:
    """The largest x in [0, hi] with ok(x), for ok true up to some point and false after."""
    if ok(hi):
        return hi
    lo = 0.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


def _row_cap(sizes, label_widths, width: float) -> float:
    """The largest scale every drawing of a row can have at once with the row fitting `width`."""
    return _largest(lambda cap: _fits(sizes, label_widths, [cap] * len(sizes), width), MAX_UPSCALE)


def _row_scales(sizes, label_widths, height: float, width: float) -> list[float]:
    """Scales of a row's drawings in a row `height` tall: each as tall as the row (enlarged
    at most `MAX_UPSCALE` times); if the row is then too wide, the most enlarged ones give
    way first (every scale is capped at one value, the largest that fits)."""
    base = [min(height / max(h, 1e-3), MAX_UPSCALE) for _, h in sizes]
    cap = _largest(lambda c: _fits(sizes, label_widths, [min(b, c) for b in base], width), max(base))
    return [min(b, cap) for b in base]


def _splits(n: int, rows: int):
    """Every way to cut n drawings, in order, into `rows` non-empty rows (as row lengths)."""
    if rows == 1:
        yield (n,)
        return
    for first in range(1, n - rows + 2):
        for rest in _splits(n - first, rows - 1):
            yield (first, *rest)


def _row_heights(rows, label_widths_by_row, width: float, room: float) -> list[float]:
    """Drawing height of each row, sharing `room` so that the smallest scale of any drawing
    is as large as it can be; height left over goes to the rows that can still use it."""
    caps = [_row_cap(r, lw, width) for r, lw in zip(rows, label_widths_by_row)]
    highest = [max(h for _, h in r) for r in rows]
    useful = [c * h for c, h in zip(caps, highest)]  # beyond this, the row's width binds

    def needed(scale: float) -> list[float]:
        return [min(scale * h, u) for h, u in zip(highest, useful)]

    heights = needed(_largest(lambda scale: sum(needed(scale)) <= room, MAX_UPSCALE))
    spare = room - sum(heights)
    growing = [i for i, (h, u) in enumerate(zip(heights, useful)) if u > h + 1e-6]
    for i in growing:
        heights[i] = min(useful[i], heights[i] + spare / len(growing))
    return heights


def layout(
    sizes: Sequence[tuple[float, float]], label_widths: Sequence[float], frame: tuple[float, float]
) -> tuple[Slot, ...]:
    """Justified rows: the drawings (width x height, scene units), in order, cut into rows;
    a row's drawings share one height and are centred across the frame, and rows take the
    height their drawings need.

    Of all the ways to cut them whose labels fit across the frame, the one that shrinks the
    drawings least wins: the largest smallest scale, then the highest geometric mean of the
    scales, each counted up to 1 (a drawing is made for the full frame, so at scale 1 its
    text reads as in the lecture); the area covered breaks the remaining ties."""
    frame_w, frame_h = frame
    width = frame_w - 2 * FRAME_MARGIN
    best, best_score = None, None
    for n_rows in range(1, min(len(sizes), MAX_ROWS) + 1):
        room = frame_h - 2 * FRAME_MARGIN - (n_rows - 1) * CELL_GAP - n_rows * (LABEL_GAP + LABEL_HEIGHT)
        for lengths in _splits(len(sizes), n_rows):
            starts = [sum(lengths[:r]) for r in range(n_rows)]
            rows = [sizes[a : a + n] for a, n in zip(starts, lengths)]
            labels = [label_widths[a : a + n] for a, n in zip(starts, lengths)]
            fits = all(sum(lw) + CELL_GAP * (len(lw) - 1) <= width for lw in labels)
            heights = _row_heights(rows, labels, width, room)
            used = sum(heights) + (n_rows - 1) * CELL_GAP + n_rows * (LABEL_GAP + LABEL_HEIGHT)
            top = used / 2  # the rows as one block, centred on the sheet
            slots, scales, area = [], [], 0.0
            for row, row_labels, height in zip(rows, labels, heights):
                row_scales = _row_scales(row, row_labels, height, width)
                cells = [max(w * s, lw) for (w, _), s, lw in zip(row, row_scales, row_labels)]
                x = -(sum(cells) + CELL_GAP * (len(cells) - 1)) / 2
                bottom = top - height
                for cell, scale, (w, h) in zip(cells, row_scales, row):
                    slots.append(Slot(scale, x + cell / 2, bottom, cell, height + LABEL_GAP + LABEL_HEIGHT))
                    scales.append(scale)
                    area += w * h * scale * scale
                    x += cell + CELL_GAP
                top = bottom - LABEL_GAP - LABEL_HEIGHT - CELL_GAP
            shrink = sum(math.log(max(min(s, 1.0), 1e-6)) for s in scales) / len(scales)
            score = (fits, round(min(scales), 2), round(shrink, 6), area)
            if best_score is None or score > best_score:
                best, best_score = tuple(slots), score
    if best is None:
        raise ValueError("nothing to lay out: a gallery sheet needs at least one drawing")
    return best


def _box(mob) -> tuple[tuple[float, float], tuple[float, float]]:
    lo, hi = mob.get_corner(np.array([-1, -1, 0])), mob.get_corner(np.array([1, 1, 0]))
    return (float(lo[0]), float(lo[1])), (float(hi[0]), float(hi[1]))


def _smallest_text_px(mob) -> float | None:
    from manim import MarkupText, Text

    sizes = [
        m.font_size * PX_PER_FONT_SIZE
        for m in mob.get_family()
        if isinstance(m, (Text, MarkupText)) and (m.get_fill_opacity() > 0.05 or m.get_stroke_opacity() > 0.05)
    ]
    return min(sizes) if sizes else None


def compose(sheet: Sheet, samples: Mapping[type, Callable], frame: tuple[float, float]):
    """The sheet as one VGroup, and what was placed where. Each sample is built, checked to
    hold an instance of its class, scaled to its place (see `layout`) and labelled under it."""
    from manim import DOWN, RoundedRectangle, VGroup

    from scenes.kit import palette
    from scenes.kit import typography as ty

    built = []
    for drawing in sheet.drawings:
        sample = samples[drawing.cls]()
        if not any(type(m) is drawing.cls for m in sample.get_family()):
            raise GalleryError(
                f"{drawing.module_file}: la muestra de {drawing.name} ({samples[drawing.cls].__name__}) no contiene "
                f"ningún {drawing.name}; devuelve {type(sample).__name__}"
            )
        # Moved and scaled inside a plain group: a kit class may give `scale` another meaning.
        mob = VGroup(sample)
        label = VGroup(ty.label(drawing.name), ty.small(drawing.module_file, color=palette.MUTED))
        label.arrange(DOWN, buff=0.08)
        built.append((drawing, mob, label))
    slots = layout([(m.width, m.height) for _, m, _ in built], [lab.width for _, _, lab in built], frame)
    page, placed = VGroup(), []
    for (drawing, mob, label), slot in zip(built, slots):
        mob.scale(slot.scale)
        room_h = slot.cell_height - LABEL_GAP - LABEL_HEIGHT  # the row's drawing height
        mob.move_to((slot.x, slot.bottom + room_h / 2, 0))  # centred in its cell, above the label
        label.move_to((slot.x, slot.bottom - LABEL_GAP - label.height / 2, 0))
        cell = RoundedRectangle(
            corner_radius=0.08,
            width=slot.cell_width + 2 * CELL_PAD,
            height=slot.cell_height + 2 * CELL_PAD,
            stroke_color=palette.INACTIVE,
            stroke_width=1.5,
        )
        cell.move_to((slot.x, slot.bottom - LABEL_GAP - LABEL_HEIGHT + slot.cell_height / 2, 0))
        page.add(cell, mob, label)
        placed.append(
            Placed(
                drawing,
                _box(mob),
                tuple(_box(part) for part in label),
                slot.scale,
                _smallest_text_px(mob),
                _smallest_text_px(label) or 0.0,  # a label is always text
            )
        )
    return page, tuple(placed)


def layout_problems(placed: Sequence[Placed], frame: tuple[float, float], margin: float = 0.1) -> list[str]:
    """Drawings or labels that leave the frame or overlap one another (boxes, scene units)."""
    half_w, half_h = frame[0] / 2 - margin, frame[1] / 2 - margin
    boxes = []
    for p in placed:
        boxes.append((f"{p.drawing.name}", p.box))
        boxes += [(f"la etiqueta de {p.drawing.name}", b) for b in p.label_boxes[:1]]
        boxes += [(f"el módulo bajo {p.drawing.name}", b) for b in p.label_boxes[1:]]
    problems = []
    for name, ((x0, y0), (x1, y1)) in boxes:
        if x0 < -half_w or x1 > half_w or y0 < -half_h or y1 > half_h:
            problems.append(f"{name} se sale del fotograma")
    for (na, ((ax0, ay0), (ax1, ay1))), (nb, ((bx0, by0), (bx1, by1))) in combinations(boxes, 2):
        if min(ax1, bx1) - max(ax0, bx0) > 0.02 and min(ay1, by1) - max(ay0, by0) > 0.02:
            problems.append(f"{na} se solapa con {nb}")
    return problems


# -- rendering ----------------------------------------------------------------------------------
def render_sheet(sheet: Sheet, samples: Mapping[type, Callable], out: Path) -> SheetResult:
    """Render `sheet` as a still with manim's current config and write it to `out` (PNG)."""
    from manim import Scene, config
    from PIL import Image

    from scenes.kit import palette

    frame = (float(config.frame_width), float(config.frame_height))
    holder: dict = {}

    class GallerySheet(Scene):
        def construct(self):
            self.camera.background_color = palette.BACKGROUND
            page, placed = compose(sheet, samples, frame)
            holder["placed"] = placed
            self.add(page)

    config.output_file = f"gallery_{sheet.name}"
    scene = GallerySheet()
    scene.render()
    pixels = scene.renderer.get_frame()
    with atomic_path(out) as tmp:
        Image.fromarray(pixels).convert("RGB").save(tmp, format="PNG")
    placed = holder["placed"]
    return SheetResult(sheet, out, placed, tuple(layout_problems(placed, frame)))


def write_gallery(
    folder: Path,
    quality: str,
    media_dir: Path,
    drawings: Sequence[Drawing] | None = None,
    samples: Mapping[type, Callable] | None = None,
) -> tuple[Path, tuple[SheetResult, ...]]:
    """Render every sheet into `folder` (PNG per sheet, `index.html`); returns the page and
    the sheets. `media_dir` holds manim's own files (TeX and text caches)."""
    from manim import tempconfig

    from lecture.qualities import get_quality
    from scenes.kit import palette

    q = get_quality(quality)
    drawings = kit_drawings() if drawings is None else tuple(drawings)
    samples = kit_samples() if samples is None else samples
    sheets = plan_sheets(drawings, samples)
    folder.mkdir(parents=True, exist_ok=True)
    settings = {
        "pixel_width": q.width_px,
        "pixel_height": q.height_px,
        "frame_rate": q.fps,
        "frame_height": 8.0,
        "frame_width": 8.0 * q.width_px / q.height_px,
        "media_dir": str(media_dir),
        "save_last_frame": True,
        "write_to_movie": False,
        "disable_caching": True,
        "background_color": palette.BACKGROUND,
        "verbosity": "WARNING",
        "progress_bar": "none",
    }
    results = []
    with tempconfig(settings):
        for sheet in sheets:
            results.append(render_sheet(sheet, samples, folder / f"{sheet.name}.png"))
    wanted = {f"{s.name}.png" for s in sheets}
    for old in folder.glob("*.png"):  # sheets of modules that no longer exist
        if old.name not in wanted:
            old.unlink(missing_ok=True)
    page = folder / "index.html"
    write_text(page, render_html(results, quality, q.height_px))
    return page, tuple(results)


def render_html(results: Sequence[SheetResult], quality: str, height_px: int) -> str:
    n_drawings = sum(len(r.placed) for r in results)
    n_problems = sum(len(r.problems) for r in results)
    parts = [
        "<!DOCTYPE html><html lang='es'><head><meta charset='utf-8'>",
        f"<title>Galería del kit — {html.escape(quality)}</title>",
        "<style>body{font-family:DejaVu Sans,sans-serif;background:#0f1420;color:#eceff4;margin:2em}"
        "h2{border-top:1px solid #3a4150;padding-top:1em}img{max-width:100%;display:block}"
        "td{padding:.15em .8em;font-size:14px;vertical-align:top}.t{color:#8a93a6}"
        ".p{color:#ff6b6b;font-weight:bold}.ok{color:#7cf29c}code{color:#3fa7d6}</style></head><body>",
        f"<h1>Galería del kit ({html.escape(quality)})</h1>",
        f"<p>{n_drawings} dibujos de <code>scenes/kit/</code> en {len(results)} láminas; cada uno construido "
        "por su muestra, escrita junto a su clase (<code>@sample_of</code>). "
        + (
            f"<span class='p'>{n_problems} problemas de composición</span>"
            if n_problems
            else "<span class='ok'>sin problemas de composición</span>"
        )
        + "</p><ul>",
    ]
    parts += [
        f"<li><a href='#{html.escape(r.sheet.name)}'>{html.escape(r.sheet.module_file)}</a>"
        f"{_part(r.sheet)}: {', '.join(html.escape(p.drawing.name) for p in r.placed)}</li>"
        for r in results
    ]
    parts.append("</ul>")
    for r in results:
        parts.append(
            f"<h2 id='{html.escape(r.sheet.name)}'><code>{html.escape(r.sheet.module_file)}</code>{_part(r.sheet)}</h2>"
            f"<img src='{html.escape(r.image.name)}' alt='{html.escape(r.sheet.name)}'><table>"
        )
        for p in r.placed:
            text = (
                f"texto más pequeño: {p.smallest_text_px * height_px / 480:.0f} px"
                if p.smallest_text_px is not None
                else "sin texto"
            )
            parts.append(
                f"<tr><td><code>{html.escape(p.drawing.name)}</code></td><td>{html.escape(p.drawing.summary)}</td>"
                f"<td class='t'>escala {p.scale:.2f} · {text}</td></tr>"
            )
        parts.append("</table>")
        parts += [f"<div class='p'>{html.escape(problem)}</div>" for problem in r.problems]
    parts.append("</body></html>\n")
    return "".join(parts)


def _part(sheet: Sheet) -> str:
    return f" ({sheet.part} de {sheet.parts})" if sheet.parts > 1 else ""
