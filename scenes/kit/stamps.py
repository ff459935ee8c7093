"""Inked stamps and the page they mark: an FFN unit's value pressed with its activation.

A vector of d numbers is drawn as a small rectangle of d square cells (row by row), each
inked by its entry: the sign picks the palette's positive or negative hue, the magnitude
how deep the ink is. A :class:`Stamp` (knob, neck, mount in the FFN's colour, rubber face)
carries a value on its face; a :class:`Page` is a sheet of paper whose cells show what has
been printed on it so far (the running sum of marks).
"""

from __future__ import annotations

import math

import numpy as np
from manim import RIGHT, UP, Ellipse, Polygon, RoundedRectangle, Square, Transform, VGroup, interpolate_color

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

PAPER = palette.INK  # the page is the lightest colour of the palette
RUBBER = palette.INACTIVE  # a stamp's face where no ink sits
FACE_SQUASH = 0.55  # the face is seen at a slant: drawn this much shorter than the print


def grid_shape(n: int) -> tuple[int, int]:
    """Rows and columns for n cells: the divisor pair nearest a 1:2 rectangle (32 -> 4 x 8)."""
    rows = max(r for r in range(1, n + 1) if n % r == 0 and r * r * 2 <= max(n, 2))
    return rows, n // rows


def ink_strength(value: float, scale: float) -> float:
    """How deep a cell's ink is, 0 (bare) to 1 (full): sqrt(|value| / scale), capped.

    The square root keeps a faint mark visible next to a strong one, as ink does."""
    if scale <= 0:
        return 0.0
    return math.sqrt(min(abs(float(value)) / scale, 1.0))


def ink_color(value: float, scale: float, base=PAPER):
    """The colour of a cell holding `value` on `base` (paper or rubber)."""
    hue = palette.POSITIVE if value >= 0 else palette.NEGATIVE
    return interpolate_color(base, hue, ink_strength(value, scale))


class InkGrid(VGroup):
    """d values as a rows x cols block of square cells, inked by value (see `ink_color`).

    `scale` is the magnitude of full ink; `cells[i]` shows entry i (row by row)."""

    def __init__(self, values, scale: float, cell: float = 0.36, gap: float = 0.04, base=PAPER, **kwargs):
        super().__init__(**kwargs)
        self.values = tuple(float(v) for v in values)
        self.scale_value = float(scale)
        self.base = base
        rows, cols = grid_shape(len(self.values))
        self.shape = (rows, cols)
        pitch = cell + gap
        self.cells = []
        for i, v in enumerate(self.values):
            r, c = divmod(i, cols)
            square = Square(side_length=cell, stroke_width=0, fill_color=ink_color(v, scale, base), fill_opacity=1)
            square.move_to(((c - (cols - 1) / 2) * pitch, ((rows - 1) / 2 - r) * pitch, 0))
            self.cells.append(square)
        self.add(*self.cells)

    def cell_colors(self) -> list:
        return [c.get_fill_color() for c in self.cells]

    def set_values(self, values) -> InkGrid:
        """Recolour every cell to `values` at once (no animation)."""
        self.values = tuple(float(v) for v in values)
        for cell, v in zip(self.cells, self.values):
            cell.set_fill(ink_color(v, self.scale_value, self.base), opacity=1)
        return self

    def ink_to(self, values) -> Transform:
        """Animation recolouring every cell to `values` (same scale and base).

        The target is fixed when this is called (not when played), so several of these can
        be prepared before any of them plays, each with its own values."""
        target = self.copy().set_values(values)
        self.values = target.values
        return Transform(self, target)


def _ink_scale() -> float:
    return float(np.max(np.abs(np.asarray(number("stamps.marks_total").value))))


@sample_of(InkGrid)
def _ink_grid():
    return InkGrid(number("stamps.marks_total").value, _ink_scale())


class Page(VGroup):
    """A sheet of paper with a dog-eared corner and a print area of d cells.

    `grid` starts blank (all zeros, bare paper); `print_sum(values)` inks it to the running
    sum of the marks pressed so far. `scale` is the magnitude of full ink on this page."""

    def __init__(self, d: int, scale: float, cell: float = 0.36, gap: float = 0.04, margin: float = 0.5, **kwargs):
        super().__init__(**kwargs)
        self.grid = InkGrid(np.zeros(d), scale, cell=cell, gap=gap, base=PAPER)
        w, h = self.grid.width + 2 * margin, self.grid.height + 2 * margin
        fold = min(w, h) * 0.16
        corners = [
            (-w / 2, -h / 2, 0),
            (w / 2, -h / 2, 0),
            (w / 2, h / 2 - fold, 0),
            (w / 2 - fold, h / 2, 0),
            (-w / 2, h / 2, 0),
        ]
        self.sheet = Polygon(*corners, stroke_color=palette.MUTED, stroke_width=2, fill_color=PAPER, fill_opacity=1)
        self.dog_ear = Polygon(
            (w / 2 - fold, h / 2, 0),
            (w / 2, h / 2 - fold, 0),
            (w / 2 - fold, h / 2 - fold, 0),
            stroke_color=palette.MUTED,
            stroke_width=2,
            fill_color=palette.MUTED,
            fill_opacity=1,
        )
        self.grid.move_to(self.sheet.get_center())
        self.add(self.sheet, self.dog_ear, self.grid)

    @property
    def values(self) -> tuple[float, ...]:
        return self.grid.values

    def printed(self, values) -> Page:
        """This page already showing `values` (no animation)."""
        self.grid.set_values(values)
        return self

    def print_sum(self, values) -> Transform:
        """Animation: the page now shows `values` (the sum of every mark so far)."""
        return self.grid.ink_to(values)


@sample_of(Page)
def _page():
    return Page(number("stamps.d_model").value, _ink_scale()).printed(number("stamps.partial_sums").value[1])


class Stamp(VGroup):
    """A rubber stamp seen from the front and a little below: a round knob, a neck, a mount in
    the FFN's colour and, underneath, the rubber face inked with the unit's value.

    The face is the value drawn at full ink (`scale` default: its largest |entry|), squashed
    by `FACE_SQUASH` because it is seen at a slant. Its unsquashed width equals a Page's
    print area of the same `cell` and `gap`, so `placed_over(page)` lands the face on it."""

    def __init__(
        self,
        value,
        scale: float | None = None,
        cell: float = 0.36,
        gap: float = 0.04,
        mount_color=palette.FFN,
        **kwargs,
    ):
        super().__init__(**kwargs)
        value = tuple(float(v) for v in value)
        scale = scale if scale is not None else max(abs(v) for v in value) or 1.0
        self.value = value
        self.face = InkGrid(value, scale, cell=cell, gap=gap, base=RUBBER).stretch(FACE_SQUASH, 1)
        plate = RoundedRectangle(
            corner_radius=0.06,
            width=self.face.width + 0.16,
            height=self.face.height + 0.14,
            stroke_width=0,
            fill_color=RUBBER,
            fill_opacity=1,
        ).move_to(self.face)
        self.rubber = VGroup(plate, self.face)
        width = plate.width + 0.2
        self.mount = RoundedRectangle(
            corner_radius=0.08,
            width=width,
            height=0.6,
            stroke_color=palette.INK,
            stroke_width=2,
            fill_color=mount_color,
            fill_opacity=1,
        )
        self.mount.next_to(plate, UP, buff=0)
        self.neck = Polygon(
            (-0.32, 0, 0),
            (0.32, 0, 0),
            (0.2, 0.7, 0),
            (-0.2, 0.7, 0),
            stroke_width=0,
            fill_color=palette.MUTED,
            fill_opacity=1,
        )
        self.neck.next_to(self.mount, UP, buff=0)
        self.knob = Ellipse(width=1.25, height=0.85, stroke_width=0, fill_color=palette.MUTED, fill_opacity=1)
        self.knob.next_to(self.neck, UP, buff=-0.08)
        self.handle = VGroup(self.neck, self.knob)
        self.add(self.handle, self.mount, self.rubber)

    @property
    def print_width(self) -> float:
        """Width of the face as it prints (the squash is vertical only)."""
        return self.face.width

    def placed_over(self, page: Page, lift: float = 0.0) -> Stamp:
        """A copy of this stamp sized so its face is as wide as the page's print area, with
        the face centred on that area (`lift` scene units above it)."""
        target = self.copy()
        target.scale(page.grid.width / self.print_width)
        target.shift(page.grid.get_center() + UP * lift - target.face.get_center())
        return target


@sample_of(Stamp)
def _stamp():
    return Stamp(number("stamps.loudest_value").value)


class SumOfMarks(VGroup):
    """The layer's sum drawn with prints, in the order the formula writes it:
    the output page '=' the first marks '+' ... '+' the bias's print.

    `output`, each of `marks` and `bias` are d-vectors, all inked on one `scale`, so a
    fainter print is a smaller contribution. `output_page`, `mark_prints` and `bias_print`
    are the pieces a formula's terms point at."""

    def __init__(self, output, marks, bias, scale: float, cell: float = 0.36, gap: float = 0.04, **kwargs):
        super().__init__(**kwargs)
        d = len(output)

        def print_of(values, size: float) -> Page:
            return Page(d, scale, cell=cell, gap=gap, margin=0.2).printed(values).scale(size)

        self.output_page = print_of(output, 0.46)
        self.mark_prints = VGroup(*(print_of(m, 0.36) for m in marks))
        self.bias_print = print_of(bias, 0.36)

        def symbol(tex: str) -> VGroup:
            return ty.math(tex).scale(1.1)

        pieces = [self.output_page, symbol("=")]
        for mark in self.mark_prints:
            pieces += [mark, symbol("+")]
        pieces += [symbol(r"\cdots"), symbol("+"), self.bias_print]
        self.add(*pieces)
        self.arrange(RIGHT, buff=0.22)


@sample_of(SumOfMarks)
def _sum_of_marks():
    coefficients = number("stamps.pressed_coefficients").value
    values = number("stamps.pressed_values").value
    marks = [[c * v for v in value] for c, value in zip(coefficients, values)][:2]
    output = number("stamps.output").value
    return SumOfMarks(output, marks, number("stamps.bias").value, max(abs(v) for v in output))
