"""Matrices and vectors drawn with their real entries, coloured by sign.

As in 3Blue1Brown's transformer chapters, positive entries take one hue and negative
entries the contrasting one, with brightness growing with magnitude, so a viewer reads
the sign pattern before reading the digits.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Brace,
    MathTex,
    Rectangle,
    SurroundingRectangle,
    Text,
    VGroup,
    interpolate_color,
)

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of


def value_color(value: float, scale: float):
    """Colour of an entry: sign picks the hue, |value| / scale its brightness."""
    strength = min(abs(value) / scale, 1.0) if scale > 0 else 0.0
    hue = palette.POSITIVE if value >= 0 else palette.NEGATIVE
    return interpolate_color(palette.MUTED, hue, 0.35 + 0.65 * strength)


def entry_text(value: float, places: int) -> str:
    return ty.fmt_decimal(value, places) if places > 0 else ty.fmt_int(round(value)).replace("-", "\u2212")


class MatrixMob(VGroup):
    """A matrix of real numbers in brackets. `entries[i][j]` is the Text of row i, column j.

    `places` is the number of decimals shown; `scale` sets the magnitude of full colour
    (default: the largest |entry|)."""

    def __init__(
        self,
        values,
        places: int = 1,
        scale: float | None = None,
        font_size: float = ty.LABEL_SIZE,
        h_buff: float = 0.35,
        v_buff: float = 0.22,
        dim_zeros: bool = False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.values = np.atleast_2d(np.asarray(values, dtype=float))
        rows, cols = self.values.shape
        scale = scale if scale is not None else float(np.max(np.abs(self.values)) or 1.0)

        def color(v):  # dim_zeros: an exact zero is a silenced neuron, drawn dimmed
            return palette.MUTED if dim_zeros and v == 0 else value_color(v, scale)

        self.entries = [
            [Text(entry_text(v, places), font=ty.FONT, font_size=font_size, color=color(v)) for v in row]
            for row in self.values
        ]
        cell_w = max(t.width for row in self.entries for t in row) + h_buff
        cell_h = max(t.height for row in self.entries for t in row) + v_buff
        for i, row in enumerate(self.entries):
            for j, text in enumerate(row):
                text.move_to(((j - (cols - 1) / 2) * cell_w, -(i - (rows - 1) / 2) * cell_h, 0))
        self.grid = VGroup(*(t for row in self.entries for t in row))
        self.brackets = _brackets(self.grid)
        self.add(self.grid, self.brackets)

    def row(self, i: int) -> VGroup:
        return VGroup(*self.entries[i])

    def column(self, j: int) -> VGroup:
        return VGroup(*(row[j] for row in self.entries))

    def highlight_row(self, i: int, color=palette.HIGHLIGHT) -> SurroundingRectangle:
        return SurroundingRectangle(self.row(i), color=color, buff=0.08, corner_radius=0.05)

    def highlight_column(self, j: int, color=palette.HIGHLIGHT) -> SurroundingRectangle:
        return SurroundingRectangle(self.column(j), color=color, buff=0.08, corner_radius=0.05)

    def settle(self, scene) -> None:
        """Make this matrix one mobject on `scene` again after its entries were brought in one
        by one (e.g. by TransformFromCopy), so later moves act on it, and nothing is drawn twice."""
        scene.remove(*self.grid, self.brackets)
        scene.add(self)


@sample_of(MatrixMob)
def _matrix_mob():
    return MatrixMob(number("expand_contract.expand_matrix").value)


class VectorColumn(MatrixMob):
    """A column vector: a one-column MatrixMob."""

    def __init__(self, values, **kwargs):
        super().__init__(np.asarray(values, dtype=float).reshape(-1, 1), **kwargs)

    def entry(self, i: int) -> Text:
        return self.entries[i][0]


@sample_of(VectorColumn)
def _vector_column():
    return VectorColumn(number("expand_contract.expanded").value)


class VectorRow(MatrixMob):
    """A row vector: a one-row MatrixMob (the seed's convention x · W)."""

    def __init__(self, values, **kwargs):
        super().__init__(np.asarray(values, dtype=float).reshape(1, -1), **kwargs)

    def entry(self, j: int) -> Text:
        return self.entries[0][j]


@sample_of(VectorRow)
def _vector_row():
    return VectorRow(number("perro.input").value)


def shape_label(mob, rows: int, cols: int, direction=DOWN) -> VGroup:
    """A brace with 'filas × columnas' under (or beside) a matrix."""
    brace = Brace(mob, direction, color=palette.MUTED, buff=0.1)
    text = ty.small(f"{rows} × {cols}").next_to(brace, direction, buff=0.1)
    return VGroup(brace, text)


def _brackets(grid: VGroup) -> VGroup:
    """Square brackets drawn as thin rectangles: crisp at 480p, no TeX needed."""
    h = grid.height + 0.25
    pieces = []
    for side, sign in ((LEFT, -1), (RIGHT, 1)):
        x = grid.get_edge_center(side)[0] + sign * 0.12
        bar = Rectangle(width=0.03, height=h, stroke_width=0, fill_color=palette.INK, fill_opacity=1)
        bar.move_to((x, grid.get_center()[1], 0))
        for end in (UP, DOWN):
            tick = Rectangle(width=0.12, height=0.03, stroke_width=0, fill_color=palette.INK, fill_opacity=1)
            tick.move_to(bar.get_edge_center(end)).shift(-sign * 0.045 * RIGHT)
            pieces.append(tick)
        pieces.append(bar)
    return VGroup(*pieces)


def dot_product_tex(left, right, result, places: int = 1) -> MathTex:
    """'(3 × 0,5) + (5 × 0,1) = 2,0' with the real operands, as LaTeX."""
    terms = " + ".join(rf"({_tex_number(a, places)} \times {_tex_number(b, places)})" for a, b in zip(left, right))
    return ty.math(rf"{terms} = {_tex_number(result, places)}")


def _tex_number(value: float, places: int) -> str:
    """A number for LaTeX: decimal comma kept tight ({,}), ASCII minus for TeX to typeset."""
    return entry_text(value, places).replace("\u2212", "-").replace(",", "{,}")


def dot_product_steps(
    left,
    right,
    products,
    result,
    left_places: int = 1,
    right_places: int = 1,
    product_places: int = 1,
    result_places: int = 1,
) -> MathTex:
    """'(3 × 0,5) + (5 × 0,1) = 1,5 + 0,5 = 2,0' with the real operands, in five parts for a
    step-by-step reveal: [0] the products written out, [1] '=', [2] the products' values
    added, [3] '=', [4] the result. Each operand family has its own number of decimals."""
    terms = " + ".join(
        rf"({_tex_number(a, left_places)} \times {_tex_number(b, right_places)})" for a, b in zip(left, right)
    )
    values = " + ".join(_tex_number(p, product_places) for p in products)
    return ty.math(rf"{{{{ {terms} }}}} = {{{{ {values} }}}} = {{{{ {_tex_number(result, result_places)} }}}}")


def count_label(mob, count: int, noun: str = "números", direction=DOWN, color=palette.MUTED) -> VGroup:
    """A brace with '4 números' under a vector: its size, the thing a matrix changes."""
    brace = Brace(mob, direction, color=palette.MUTED, buff=0.1)
    text = ty.small(f"{ty.fmt_int(count)} {noun}", color=color).next_to(brace, direction, buff=0.1)
    return VGroup(brace, text)
