"""Attention drawn with its real numbers: heatmaps of Q, K, V and of the query x key tables,
and arcs whose thickness is how much one word attends to another.

Colours keep the palette's meanings: signed values (Q, K, V, raw scores) take the
positive/negative hues with brightness growing with |value|; attention weights (0..1) take
the attention hue, from dark (0) to full gold (1); masked cells are the inactive grey.
"""

from __future__ import annotations

import numpy as np
from manim import LEFT, RIGHT, UP, ArcBetweenPoints, Rectangle, SurroundingRectangle, Text, VGroup, interpolate_color

from ffn_core.registry import dataset, number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.contrast import MIN_CONTRAST, contrast_ratio
from scenes.kit.gallery_samples import sample_of

MINUS_INFINITY = "\u2212\u221e"  # "−∞": what a masked score becomes before the softmax


def signed_color(value: float, scale: float):
    """Fill of a signed cell: the sign picks the hue, |value| / scale how far from the background."""
    strength = min(abs(value) / scale, 1.0) if scale > 0 else 0.0
    hue = palette.POSITIVE if value >= 0 else palette.NEGATIVE
    return interpolate_color(palette.BACKGROUND, hue, 0.12 + 0.88 * strength)


def weight_color(weight: float):
    """Fill of an attention weight (0..1): background at 0, the attention hue at 1."""
    return interpolate_color(palette.BACKGROUND, palette.ATTENTION, 0.1 + 0.9 * float(np.clip(weight, 0, 1)))


def baseline_offset(word: str) -> float:
    """Vertical offset of `word`'s glyphs from the centre of a full line of label text, so
    words with and without accents or descenders share one baseline."""
    strut = "Ág"
    line = ty.label(strut + word)
    glyphs = VGroup(*line[len(strut) :])
    return float(glyphs.get_center()[1] - line.get_center()[1])


def row_words(words, anchors, direction=LEFT, buff: float = 0.3, color=palette.INK) -> VGroup:
    """One label per row beside its anchor (a row's first or last cell), on the row's
    baseline; labels on the left are right-aligned, on the right left-aligned."""
    labels = VGroup()
    for word, anchor in zip(words, anchors):
        label = ty.label(word, color=color).next_to(anchor, direction, buff=buff)
        label.set_y(anchor.get_center()[1] + baseline_offset(word))
        labels.add(label)
    if len(labels):
        edge = max if direction[0] < 0 else min
        x = edge(lab.get_edge_center(-direction)[0] for lab in labels)
        for lab in labels:
            lab.shift(RIGHT * (x - lab.get_edge_center(-direction)[0]))
    return labels


def _ink_on(fill) -> object:
    """Text colour readable on `fill`: of dark and light ink, the one with the higher WCAG
    contrast against the cell (a mid blue takes dark ink: light ink reads at under 3:1)."""
    rgb = fill.to_rgb()
    dark = contrast_ratio(palette.BACKGROUND.to_rgb(), rgb)
    return palette.BACKGROUND if dark >= contrast_ratio(palette.INK.to_rgb(), rgb) else palette.INK


def _readable(fill):
    """A written cell's colour, darkened just enough for light ink to read at 4.5:1 when
    neither ink does on the mid-tone itself (a warm mid red: 3.9:1 light, 4.1:1 dark)."""
    best = max(contrast_ratio(ink.to_rgb(), fill.to_rgb()) for ink in (palette.INK, palette.BACKGROUND))
    if best >= MIN_CONTRAST:
        return fill
    for step in range(1, 11):
        darker = interpolate_color(fill, palette.BACKGROUND, 0.05 * step)
        if contrast_ratio(palette.INK.to_rgb(), darker.to_rgb()) >= MIN_CONTRAST:
            return darker
    return palette.INACTIVE


class Heatmap(VGroup):
    """A matrix as a grid of coloured cells, optionally with each value written in its cell.

    `kind` is "signed" (Q, K, V, scores) or "weight" (softmax weights, 0..1). `places=None`
    draws colour only (wide matrices such as Q, K, V); an int writes every value with that
    many decimals (Spanish comma). `visible[i][j] == 0` marks a masked cell: grey, "−∞".
    `row_labels` go to the left of the rows, `col_labels` above the columns.
    `cells[i][j]` is the cell's Rectangle and `texts[i][j]` its Text (or None)."""

    def __init__(
        self,
        values,
        kind: str = "signed",
        places: int | None = None,
        cell_width: float = 0.5,
        cell_height: float = 0.5,
        scale: float | None = None,
        visible=None,
        row_labels=None,
        col_labels=None,
        font_size: float = ty.LABEL_SIZE,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if kind not in ("signed", "weight"):
            raise ValueError(f"heatmap kind must be 'signed' or 'weight', not {kind!r}")
        self.values = np.atleast_2d(np.asarray(values, dtype=float))
        rows, cols = self.values.shape
        self.visible = np.ones_like(self.values) if visible is None else np.asarray(visible, dtype=float)
        if self.visible.shape != self.values.shape:
            raise ValueError(f"mask shape {self.visible.shape} differs from values shape {self.values.shape}")
        self.kind, self.places, self.font_size = kind, places, font_size
        self.value_scale = scale if scale is not None else float(np.max(np.abs(self.values)) or 1.0)
        self.cell_width, self.cell_height = cell_width, cell_height
        self.cells = [
            [
                Rectangle(
                    width=cell_width,
                    height=cell_height,
                    stroke_color=palette.BACKGROUND,
                    stroke_width=1.5,
                    fill_opacity=1.0,
                ).move_to(((j - (cols - 1) / 2) * cell_width, -(i - (rows - 1) / 2) * cell_height, 0))
                for j in range(cols)
            ]
            for i in range(rows)
        ]
        self.grid = VGroup(*(c for row in self.cells for c in row))
        self.numbers = VGroup()
        self.texts = [[None] * cols for _ in range(rows)]
        for i in range(rows):
            for j in range(cols):
                fill = self.fill_of(self.values[i, j], self.visible[i, j])
                if places is not None:
                    fill = _readable(fill)
                self.cells[i][j].set_fill(fill, 1.0)
                if places is not None:
                    text = self._text(self.values[i, j], self.visible[i, j], fill).move_to(self.cells[i][j])
                    self.texts[i][j] = text
                    self.numbers.add(text)
        self.add(self.grid, self.numbers)
        # Word labels sit on one baseline (as a line of text), whatever their accents.
        self.row_labels = row_words(row_labels or (), [row[0] for row in self.cells], LEFT, buff=0.2)
        self.col_labels = VGroup(*(ty.label(w) for w in (col_labels or ())))
        line_y = self.cells[0][0].get_top()[1] + 0.15 + 0.2
        for j, label in enumerate(self.col_labels):
            label.move_to((self.cells[0][j].get_center()[0], line_y + baseline_offset(label.text), 0))
        self.add(self.row_labels, self.col_labels)

    # -- colours and texts -------------------------------------------------------------
    def fill_of(self, value: float, visible: float = 1.0):
        if not visible:
            return palette.INACTIVE
        return weight_color(value) if self.kind == "weight" else signed_color(value, self.value_scale)

    def _text(self, value: float, visible: float, fill) -> Text:
        if not visible:
            return Text(MINUS_INFINITY, font=ty.FONT, font_size=self.font_size, color=palette.INK)
        if self.places is None:
            raise ValueError("a heatmap without `places` draws no numbers")
        return Text(ty.fmt_decimal(value, self.places), font=ty.FONT, font_size=self.font_size, color=_ink_on(fill))

    # -- parts ---------------------------------------------------------------------------
    def row(self, i: int) -> VGroup:
        """The cells (and texts) of row i."""
        return VGroup(*self.cells[i], *(t for t in self.texts[i] if t is not None))

    def row_box(self, i: int, color=palette.HIGHLIGHT, buff: float = 0.06) -> SurroundingRectangle:
        return SurroundingRectangle(VGroup(*self.cells[i]), color=color, buff=buff, stroke_width=4)

    def cell_box(self, i: int, j: int, color=palette.HIGHLIGHT, buff: float = 0.04) -> SurroundingRectangle:
        return SurroundingRectangle(self.cells[i][j], color=color, buff=buff, stroke_width=4)

    def hide_rows(self, rows) -> None:
        """Make the cells and texts of `rows` transparent (to be filled in by `reveal_row`)."""
        for i in rows:
            for j, cell in enumerate(self.cells[i]):
                cell.set_fill(opacity=0.0).set_stroke(opacity=0.0)
                if self.texts[i][j] is not None:
                    self.texts[i][j].set_opacity(0.0)

    def reveal_row(self, i: int) -> list:
        """Animations that bring back row i hidden by `hide_rows` (membership in the group kept)."""
        anims = []
        for j, cell in enumerate(self.cells[i]):
            anims.append(cell.animate.set_fill(opacity=1.0).set_stroke(opacity=1.0))
            text = self.texts[i][j]
            if text is not None:
                anims.append(text.animate.set_opacity(1.0))
        return anims

    def retarget(
        self, values, kind: str | None = None, places: int | None = None, visible=None, rows=None, rescale: bool = True
    ) -> list:
        """Animations turning `rows` (default: all) into `values`: each cell takes its new
        colour and its old number fades out while the new one fades in, in place.

        The new texts join the heatmap; the old ones stay in it, transparent, until
        `drop_faded()` removes them. `self.values` (and mask, kind) become the new ones;
        with `rescale`, signed colours are measured against the new largest visible |value|."""
        new = np.atleast_2d(np.asarray(values, dtype=float))
        if new.shape != self.values.shape:
            raise ValueError(f"retarget: shape {new.shape} differs from the heatmap's {self.values.shape}")
        self.kind = kind or self.kind
        self.places = self.places if places is None else places
        if visible is not None:
            self.visible = np.asarray(visible, dtype=float)
        if rescale and self.kind == "signed":  # colours relative to the new largest |value| seen
            seen = np.abs(new[self.visible > 0])
            self.value_scale = float(seen.max()) if seen.size and seen.max() > 0 else self.value_scale
        rows = range(new.shape[0]) if rows is None else rows
        anims = []
        for i in rows:
            for j in range(new.shape[1]):
                self.values[i, j] = new[i, j]
                fill = self.fill_of(new[i, j], self.visible[i, j])
                if self.places is not None:
                    fill = _readable(fill)
                anims.append(self.cells[i][j].animate.set_fill(fill, 1.0))
                old = self.texts[i][j]
                if old is None:
                    continue
                text = self._text(new[i, j], self.visible[i, j], fill).move_to(self.cells[i][j]).set_opacity(0.0)
                self.numbers.add(text)
                self.texts[i][j] = text
                anims += [old.animate.set_opacity(0.0), text.animate.set_opacity(1.0)]
        return anims

    def drop_faded(self) -> None:
        """Forget texts replaced by `retarget` (they are already invisible)."""
        current = {id(t) for row in self.texts for t in row if t is not None}
        for text in [t for t in self.numbers if id(t) not in current]:
            self.numbers.remove(text)


@sample_of(Heatmap)
def _heatmap():
    tokens = dataset("attention.walk").value.tokens
    return Heatmap(
        number("attention.head1.weights").value,
        kind="weight",
        places=2,
        cell_width=1.0,
        cell_height=0.55,
        visible=number("attention.head1.visible").value,
        row_labels=tokens,
        col_labels=tokens,
    )


def weight_arcs(
    chips,
    weights,
    min_weight: float = 0.05,
    color=palette.ATTENTION,
    max_width: float = 12.0,
    bend_rad: float = 2.0,
    spread: float = 0.75,
) -> VGroup:
    """Arcs above a row of token chips, one for each earlier key j that query i attends to
    with at least `min_weight`: thickness and opacity grow with `weights[i][j]`.
    Information flows from key j to query i; each arc leaves key j's chip and lands on query
    i's chip at points set by the partner's place, so arcs nest instead of sharing ends."""
    arcs = VGroup()
    weights = np.asarray(weights, dtype=float)
    n = len(chips)
    for i in range(n):
        for j in range(i):
            w = weights[i, j]
            if w < min_weight:
                continue
            start = _anchor(chips[j], i, n, spread)
            end = _anchor(chips[i], j, n, spread)
            arcs.add(
                ArcBetweenPoints(
                    start,
                    end,
                    angle=-bend_rad,
                    color=color,
                    stroke_width=max(2.0, max_width * w),
                    stroke_opacity=0.35 + 0.65 * w,
                )
            )
    return arcs


def _anchor(chip, partner: int, n: int, spread: float):
    share = (partner + 0.5) / n - 0.5  # -0.5 .. 0.5 across the chip, by the partner's place
    return chip.get_top() + RIGHT * share * chip.width * spread + UP * 0.04
