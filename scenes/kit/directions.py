"""Directions in the residual stream: a vector's entries, arrows in one exact plane, a key's
line with a vector's shadow on it, a neuron's threshold, every input's shadow on the key's
line (one row each), and the words a direction pushes.

A `DirectionPlane` is a window on a plane through the origin of the d_model-dimensional
space, spanned by two real vectors (say Norm(x) and a key k): both lie in it, so their
lengths and the angle between them are drawn true. Its data coordinates are (u, w): u along
the plane's first direction (the key's line), w across it; `scale` is scene units per data
unit, and `angle_deg` turns the whole window (the first direction need not be horizontal).
The dot product x · k is then ‖k‖ times the shadow of x on the key's line (a `Shadow`), and
a neuron with bias b fires where that shadow passes −b / ‖k‖ (a `ThresholdLine`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    DashedLine,
    Dot,
    Line,
    Rectangle,
    VGroup,
)

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.blocks import FlowArrow, StageBox
from scenes.kit.gallery_samples import sample_of
from scenes.kit.matrix import value_color


class VectorStrip(VGroup):
    """A vector's entries as cells in `rows` rows, coloured by sign (hue) and size
    (brightness), as `scenes.kit.matrix` colours a matrix: the sign pattern at a glance.
    `cells[i]` is entry i (row-major); `scale` is the magnitude of full colour (default:
    the largest |entry|)."""

    def __init__(
        self, values: Sequence[float], rows: int = 1, cell: float = 0.26, gap: float = 0.04, scale=None, **kwargs
    ):
        super().__init__(**kwargs)
        values = [float(v) for v in values]
        if not values:
            raise ValueError("a VectorStrip needs at least one entry")
        if rows < 1 or len(values) % rows:
            raise ValueError(f"{len(values)} entries do not fill {rows} rows")
        self.values = values
        top = scale if scale is not None else max(abs(v) for v in values) or 1.0
        cols = len(values) // rows
        self.cells = VGroup()
        for i, v in enumerate(values):
            r, c = divmod(i, cols)
            square = Rectangle(width=cell, height=cell, stroke_width=0, fill_color=value_color(v, top), fill_opacity=1)
            square.move_to(((c - (cols - 1) / 2) * (cell + gap), ((rows - 1) / 2 - r) * (cell + gap), 0))
            self.cells.add(square)
        self.add(self.cells)


@sample_of(VectorStrip)
def _vector_strip():
    return VectorStrip(number("features.x").value, rows=2, cell=0.3)


class DirectionPlane(VGroup):
    """A window on one exact plane of the residual stream (see the module docstring).

    Holds its origin (a small dot) and, with `axis`, the line of its first direction drawn
    across `u_range` (the key's line). `point(u, w)` is the scene point of data point
    (u, w), following the plane wherever it has been moved (not scaled: build it at the
    scale it is shown). `arrow(u, w)` draws a vector of the plane from the origin (or from
    `start`)."""

    def __init__(
        self,
        u_range: tuple[float, float] = (-3.0, 3.0),
        scale: float = 1.0,
        angle_deg: float = 0.0,
        axis: bool = True,
        axis_color=palette.MUTED,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if scale <= 0:
            raise ValueError(f"a plane's scale must be positive, got {scale}")
        self.scale_units = scale
        theta = np.radians(angle_deg)
        self._e1 = np.array([np.cos(theta), np.sin(theta), 0.0])
        self._e2 = np.array([-np.sin(theta), np.cos(theta), 0.0])
        self.origin = Dot(radius=0.06, color=palette.INK)
        self.add(self.origin)
        self.u_range = u_range
        self.axis = None
        if axis:
            self.axis = Line(self.point(u_range[0], 0), self.point(u_range[1], 0), color=axis_color, stroke_width=3)
            self.add(self.axis)
            self.origin.set_z_index(1)

    def point(self, u: float, w: float) -> np.ndarray:
        """Scene point of data point (u, w)."""
        return self.origin.get_center() + self.scale_units * (u * self._e1 + w * self._e2)

    def direction(self, u: float = 1.0, w: float = 0.0) -> np.ndarray:
        """The unit scene direction of data vector (u, w)."""
        v = u * self._e1 + w * self._e2
        return v / np.linalg.norm(v)

    def arrow(self, u: float, w: float, color=palette.INK, start=(0.0, 0.0), stroke_width: float = 7, **kwargs):
        """An arrow from data point `start` to (u, w), tip included in its length."""
        begin, end = self.point(*start), self.point(u, w)
        length = float(np.linalg.norm(end - begin))
        kwargs.setdefault("tip_length", min(0.3, 0.45 * length))
        return Arrow(
            begin,
            end,
            buff=0,
            color=color,
            stroke_width=stroke_width,
            max_tip_length_to_length_ratio=0.5,
            max_stroke_width_to_length_ratio=40,
            **kwargs,
        )


def _key_plane() -> DirectionPlane:
    return DirectionPlane(u_range=(-3.1, 2.6), scale=0.8)


@sample_of(DirectionPlane)
def _direction_plane():
    plane = _key_plane()
    u, w = number("features.pusher.plane_x").value
    key = plane.arrow(number("features.pusher.key_norm").value, 0, color=palette.HIGHLIGHT)
    return VGroup(plane, plane.arrow(u, w, color=palette.FFN), key)


class Shadow(VGroup):
    """The shadow of the plane's point (u, w) on its first direction: a dashed `drop` from
    the point straight across to the key's line and the `segment` from the origin to u,
    thick. With `offset` (in data units) the segment is drawn as a dimension line that far
    beside the key's line (negative: under it), so it does not hide what lies on the line."""

    def __init__(
        self, plane: DirectionPlane, u: float, w: float, offset: float = 0.0, color=palette.HIGHLIGHT, **kwargs
    ):
        super().__init__(**kwargs)
        self.u, self.offset = u, offset
        self.drop = DashedLine(plane.point(u, w), plane.point(u, offset), color=palette.MUTED, stroke_width=3)
        self.segment = Line(plane.point(0, offset), plane.point(u, offset), color=color, stroke_width=10)
        self.add(self.drop, self.segment)


@sample_of(Shadow)
def _shadow():
    plane = _key_plane()
    u, w = number("features.pusher.plane_x").value
    return VGroup(plane, plane.arrow(u, w, color=palette.FFN), Shadow(plane, u, w, offset=-0.6))


class ThresholdLine(VGroup):
    """Where a neuron starts firing: the line across the key at u = `threshold` (= −b / ‖k‖),
    from w = `w_range[0]` to `w_range[1]`, dashed. Every input whose shadow passes it fires.
    `passing(u)` is the part of a shadow beyond it (what the ReLU lets through, / ‖k‖)."""

    def __init__(self, plane: DirectionPlane, threshold: float, w_range=(-0.8, 0.8), color=palette.ATTENTION, **kwargs):
        super().__init__(**kwargs)
        self.plane, self.threshold = plane, threshold
        self.line = DashedLine(
            plane.point(threshold, w_range[0]), plane.point(threshold, w_range[1]), color=color, stroke_width=4
        )
        self.add(self.line)

    def passing(self, u: float, color=palette.ACTIVE, stroke_width: float = 12) -> Line:
        """The stretch of the key's line from the threshold to u (empty when u is short of it)."""
        end = max(u, self.threshold)
        return Line(
            self.plane.point(self.threshold, 0), self.plane.point(end, 0), color=color, stroke_width=stroke_width
        )


@sample_of(ThresholdLine)
def _threshold_line():
    plane = _key_plane()
    line = ThresholdLine(plane, number("features.pusher.threshold").value, w_range=(-0.8, 3.0))
    return VGroup(plane, line, line.passing(number("features.pusher.shadow").value))


class ShadowRows(VGroup):
    """Which inputs a key fires for: one row per input, largest shadow on top. Each row is
    the input's name, a copy of the key's line (u from `u_range[0]` to `u_range[1]`,
    `scale` scene units per unit) and a dot at the input's shadow on it; one dashed line
    at u = `threshold` crosses every row, and a faint one marks u = 0. Dots and names beyond
    the threshold are ACTIVE, the rest INACTIVE (`highlight`: HIGHLIGHT). `notes` ({index:
    text}) are written at the right end of their rows.

    `rows[i]` is input i's row (name, track, dot); `order` lists the inputs top to bottom."""

    def __init__(
        self,
        names: Sequence[str],
        shadows: Sequence[float],
        threshold: float,
        u_range: tuple[float, float],
        scale: float = 1.0,
        row_height: float = 0.36,
        highlight: int | None = None,
        notes: Mapping[int, str] | None = None,
        threshold_color=palette.ATTENTION,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if len(names) != len(shadows) or not names:
            raise ValueError("ShadowRows needs one shadow per name, and at least one")
        lo, hi = u_range
        if not lo <= min(min(shadows), threshold, 0.0) or not max(max(shadows), threshold) <= hi:
            raise ValueError(f"shadows and threshold must lie inside u_range {u_range}")
        self.scale_units, self.u_range = scale, u_range
        self.shadows = [float(v) for v in shadows]
        self.order = sorted(range(len(names)), key=lambda i: -self.shadows[i])
        top = (len(names) - 1) / 2 * row_height
        self.rows: dict[int, VGroup] = {}
        tracks, dots, labels, extra = VGroup(), VGroup(), VGroup(), VGroup()
        for place, i in enumerate(self.order):
            y = top - place * row_height
            fired = self.shadows[i] > threshold
            color = palette.HIGHLIGHT if highlight == i else palette.ACTIVE if fired else palette.INACTIVE
            track = Line((self.x_of(lo), y, 0), (self.x_of(hi), y, 0), color=palette.MUTED, stroke_width=1.5)
            track.set_stroke(opacity=0.45)
            dot = Dot((self.x_of(self.shadows[i]), y, 0), radius=0.085, color=color).set_z_index(2)
            name_color = color if fired or highlight == i else palette.MUTED
            name = ty.small(names[i], color=name_color).next_to(track, LEFT, buff=0.2)
            row = VGroup(name, track, dot)
            if notes and i in notes:
                note = ty.small(notes[i], color=name_color).next_to(track, RIGHT, buff=0.2)
                row.add(note)
                extra.add(note)
            self.rows[i] = row
            tracks.add(track)
            dots.add(dot)
            labels.add(name)
        span = (top + row_height * 0.6, -top - row_height * 0.6)
        self.zero = Line((self.x_of(0), span[0], 0), (self.x_of(0), span[1], 0), color=palette.MUTED, stroke_width=1.5)
        self.threshold_line = DashedLine(
            (self.x_of(threshold), span[0], 0),
            (self.x_of(threshold), span[1], 0),
            color=threshold_color,
            stroke_width=4,
        )
        self.tracks, self.dots, self.names, self.notes = tracks, dots, labels, extra
        self.add(self.tracks, self.zero, self.threshold_line, self.dots, self.names, self.notes)

    def x_of(self, u: float) -> float:
        """The x (relative to where the rows were built; they move as one group) of shadow u."""
        return u * self.scale_units

    def row(self, i: int) -> VGroup:
        return self.rows[i]


@sample_of(ShadowRows)
def _shadow_rows():
    return ShadowRows(
        number("features.subjects").value,
        number("features.pusher.fact_shadows").value,
        number("features.pusher.threshold").value,
        u_range=(-3.0, 2.2),
        highlight=number("features.fact_index").value,
    )


class WordBars(VGroup):
    """A ranking of words by the logit a direction adds to each: «word», a bar as long as
    the logit, the logit ("+0,42"). `rows[i]` is (word, bar, value); `highlight` words take
    the HIGHLIGHT colour, the rest POSITIVE (NEGATIVE for a word pushed down)."""

    def __init__(
        self,
        words: Sequence[str],
        logits: Sequence[float],
        highlight: Sequence[str] = (),
        width: float = 2.6,
        row_height: float = 0.72,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if len(words) != len(logits) or not words:
            raise ValueError("WordBars needs one logit per word, and at least one word")
        longest = max(abs(v) for v in logits) or 1.0
        self.words = list(words)
        self.rows = VGroup()
        for word, logit in zip(words, logits):
            color = palette.HIGHLIGHT if word in highlight else palette.POSITIVE if logit >= 0 else palette.NEGATIVE
            name = ty.label(f"«{word}»", color=color)
            bar = Rectangle(
                width=max(width * abs(logit) / longest, 0.02),
                height=0.38,
                stroke_width=0,
                fill_color=color,
                fill_opacity=0.9,
            )
            text = ty.fmt_decimal(logit)
            value = ty.label(("+" if logit > 0 and not text.startswith("−") else "") + text, color=color)
            self.rows.add(VGroup(name, bar, value))
        name_width = max(row[0].width for row in self.rows)
        for i, (name, bar, value) in enumerate(self.rows):
            y = -row_height * i
            name.move_to((name_width, y, 0), aligned_edge=RIGHT)
            bar.move_to((name_width + 0.25, y, 0), aligned_edge=LEFT)
            value.next_to(bar, RIGHT, buff=0.2)
        self.add(self.rows)

    def row_of(self, word: str) -> VGroup:
        for w, row in zip(self.words, self.rows):
            if w == word:
                return row
        raise KeyError(word)


@sample_of(WordBars)
def _word_bars():
    return WordBars(
        number("features.pusher.lens_words").value,
        number("features.pusher.lens_logits").value,
        highlight=(number("features.answer").value,),
    )


class StreamColumn(VGroup):
    """One word's residual stream rising through the last block: a flow arrow up from
    `bottom` (a point, the top of the word's chip) into an attention box, on into a
    feed-forward box, and out above it. `attention` and `ffn` are the two `StageBox`es,
    `flow` the arrows between them (bottom to top)."""

    def __init__(
        self, bottom, box_width: float = 3.2, box_height: float = 0.9, gap: float = 0.85, out: float = 0.8, **kwargs
    ):
        super().__init__(**kwargs)
        base = np.array(bottom, dtype=float)
        self.attention = StageBox("atención", palette.ATTENTION, width=box_width, height=box_height)
        self.attention.move_to(base + UP * (gap + box_height / 2))
        self.ffn = StageBox("feed-forward", palette.FFN, width=box_width, height=box_height)
        self.ffn.next_to(self.attention, UP, buff=gap)
        top = self.ffn.get_top() + UP * out
        self.flow = VGroup(
            FlowArrow(base, self.attention.get_bottom(), buff=0.08),
            FlowArrow(self.attention.get_top(), self.ffn.get_bottom(), buff=0.08),
            FlowArrow(self.ffn.get_top(), top, buff=0.08),
        )
        self.add(self.flow, self.attention, self.ffn)


@sample_of(StreamColumn)
def _stream_column():
    return StreamColumn((0.0, -2.0, 0.0))


def caption_below(mob, text: str, buff: float = 0.25):
    """A small muted caption under `mob` (what a drawing is: «plano de Norm(x) y k₉₂»)."""
    return ty.small(text, color=palette.MUTED).next_to(mob, DOWN, buff=buff)


__all__ = [
    "DirectionPlane",
    "Shadow",
    "ShadowRows",
    "StreamColumn",
    "ThresholdLine",
    "VectorStrip",
    "WordBars",
    "caption_below",
]
