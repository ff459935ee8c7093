"""Compass needles: one needle per FFN neuron, turned by a word passing over them like a magnet.

A `Needle` is a two-coloured diamond on a pivot. Its angle is the value it shows, through
`ffn_core.shapes.needle_angle_deg` (0 lies flat, +90 points up at the magnet, -90 away).
Its north half is coloured by what the value means at that stage: at rest, muted; while a
word is read, by sign (palette POSITIVE / NEGATIVE); after the threshold, ACTIVE when it
stands (value > 0) and INACTIVE when laid flat. A `NeedleTray` holds a grid of needles in a
tray; `NeedleWave` sweeps a front across it (a `BarMagnet` riding on the front) and turns
each needle from one value to another as the front passes over it.
"""

from __future__ import annotations

import numpy as np
from manim import LEFT, RIGHT, Animation, AnimationGroup, Circle, Polygon, Rectangle, RoundedRectangle, VGroup, VMobject

from ffn_core.registry import number
from ffn_core.shapes import needle_angle_deg
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

REST, READING, THRESHOLD = "rest", "reading", "threshold"
STAGES = (REST, READING, THRESHOLD)
SOUTH_COLOR = palette.MUTED  # the needle's tail: greyish, so the coloured north half is the one read


def north_color(value: float, stage: str):
    """Colour of a needle's north half for `value` at `stage` (see the module docstring)."""
    if stage not in STAGES:
        raise ValueError(f"unknown needle stage {stage!r}; expected one of {STAGES}")
    if stage == REST:
        return palette.MUTED
    if stage == READING:
        return palette.POSITIVE if value > 0 else palette.NEGATIVE if value < 0 else palette.MUTED
    return palette.ACTIVE if value > 0 else palette.INACTIVE


class Needle(VGroup):
    """A compass needle on its pivot: `north` (the pointed half that shows the value),
    `south` (the pale tail) and `pivot` (a small ring). `length` is tip to tail (scene units).

    `show(value, stage)` turns it to `needle_angle_deg(value)` about its pivot and colours it;
    the geometry is rebuilt from an upright template each time, so a needle that was moved
    or scaled still turns about its own pivot, without drift."""

    def __init__(self, length: float = 0.36, value: float = 0.0, stage: str = REST, **kwargs):
        super().__init__(**kwargs)
        half, waist = length / 2, length * 0.14
        self.north = Polygon((0, waist, 0), (half, 0, 0), (0, -waist, 0), stroke_width=0, fill_opacity=1)
        self.south = Polygon(
            (0, -waist, 0), (-half, 0, 0), (0, waist, 0), stroke_width=0, fill_opacity=0.6, fill_color=SOUTH_COLOR
        )
        self.pivot = Circle(
            radius=waist * 0.55,
            stroke_width=1.5,
            stroke_color=palette.BACKGROUND,
            fill_color=palette.INK,
            fill_opacity=1,
        )
        self.add(self.south, self.north, self.pivot)
        self._template = (self.north.points.copy(), self.south.points.copy())
        self._pivot_radius = waist * 0.55
        self.value, self.stage, self.angle_deg = 0.0, REST, 0.0
        self.show(value, stage)

    def pivot_point(self) -> np.ndarray:
        return self.pivot.get_center()

    def show(self, value: float, stage: str) -> Needle:
        """Turn to `value`'s angle and colour the north half for `stage`."""
        self.value, self.stage = float(value), stage
        self.angle_deg = needle_angle_deg(self.value)
        theta = np.radians(self.angle_deg)
        rotation = np.array([[np.cos(theta), -np.sin(theta), 0], [np.sin(theta), np.cos(theta), 0], [0, 0, 1]])
        scale = self.pivot.width / (2 * self._pivot_radius)
        centre = self.pivot_point()
        for part, template in zip((self.north, self.south), self._template):
            part.points = centre + scale * template @ rotation.T
        self.north.set_fill(north_color(self.value, stage), opacity=1)
        self.south.set_fill(SOUTH_COLOR, opacity=0.3 if stage == THRESHOLD and self.value <= 0 else 0.6)
        return self

    def tip_point(self) -> np.ndarray:
        """Where the north tip is now (scene coordinates)."""
        return self.north.points[np.argmax(np.linalg.norm(self.north.points - self.pivot_point(), axis=1))]


@sample_of(Needle)
def _needle():
    return Needle(length=1.6, value=number("needles.first_word.pre_activations").value[3], stage=READING)


class NeedleTray(VGroup):
    """`rows` x `columns` needles in a tray, row-major (needle p sits at row p // columns).

    `pitch` is (horizontal, vertical) distance between pivots; needles are shorter than the
    smaller pitch, so a needle turned straight up never touches its neighbours."""

    def __init__(
        self, rows: int, columns: int, pitch=(0.42, 0.40), needle_length: float = 0.33, margin: float = 0.25, **kwargs
    ):
        super().__init__(**kwargs)
        if needle_length >= min(pitch):
            raise ValueError(f"needles of length {needle_length} would touch at pitch {pitch}")
        self.rows, self.columns = rows, columns
        px, py = pitch
        width, height = columns * px + 2 * margin, rows * py + 2 * margin
        self.box = RoundedRectangle(
            corner_radius=0.2,
            width=width,
            height=height,
            stroke_color=palette.MUTED,
            stroke_width=2,
            fill_color=palette.WATER,
            fill_opacity=0.35,
        )
        self.needles = VGroup()
        for p in range(rows * columns):
            r, c = divmod(p, columns)
            needle = Needle(needle_length)
            needle.shift(((c - (columns - 1) / 2) * px, ((rows - 1) / 2 - r) * py, 0))
            self.needles.add(needle)
        self.add(self.box, self.needles)

    def values(self) -> list[float]:
        return [n.value for n in self.needles]

    def show(self, values, stage: str) -> NeedleTray:
        """Every needle at once (no animation)."""
        self._check(values)
        for needle, value in zip(self.needles, values):
            needle.show(value, stage)
        return self

    def rings(self, positions, color=palette.INK, stroke_width: float = 2.5) -> VGroup:
        """A ring around each needle at `positions` (tray positions): a mark that stays while
        the needles inside it turn."""
        radius = 0.5 * min(self.pitch()) * 0.95
        return VGroup(
            *(
                Circle(radius=radius, color=color, stroke_width=stroke_width).move_to(self.needles[p].pivot_point())
                for p in positions
            )
        )

    def pitch(self) -> tuple[float, float]:
        """Current (horizontal, vertical) distance between pivots, after any scaling."""
        a, right, below = (self.needles[i].pivot_point() for i in (0, 1, self.columns))
        return float(right[0] - a[0]), float(a[1] - below[1])

    def _check(self, values) -> None:
        if len(values) != len(self.needles):
            raise ValueError(f"{len(values)} values for a tray of {len(self.needles)} needles")


@sample_of(NeedleTray)
def _needle_tray():
    tray = NeedleTray(number("needles.rows").value, number("needles.columns").value)
    return tray.show(number("needles.first_word.pre_activations").value, READING)


class BarMagnet(VGroup):
    """A bar magnet carrying a word: north cap, a dark body with the word, south cap."""

    def __init__(self, word: str, body_width: float = 1.3, height: float = 0.55, cap: float = 0.28, **kwargs):
        super().__init__(**kwargs)
        self.body = Rectangle(
            width=body_width, height=height, stroke_width=0, fill_color=palette.BACKGROUND, fill_opacity=1
        )
        self.north = Rectangle(
            width=cap, height=height, stroke_width=0, fill_color=palette.POSITIVE, fill_opacity=1
        ).next_to(self.body, LEFT, buff=0)
        self.south = Rectangle(
            width=cap, height=height, stroke_width=0, fill_color=palette.NEGATIVE, fill_opacity=1
        ).next_to(self.body, RIGHT, buff=0)
        self.outline = RoundedRectangle(
            corner_radius=0.08, width=body_width + 2 * cap, height=height, stroke_color=palette.INK, stroke_width=2.5
        )
        self.word = word
        self.label = ty.label(word).move_to(self.body)
        if self.label.width > body_width * 0.92:
            self.label.scale_to_fit_width(body_width * 0.92)
        self.add(self.body, self.north, self.south, self.outline, self.label)


@sample_of(BarMagnet)
def _bar_magnet():
    return BarMagnet("perro")


class NeedleWave(Animation):
    """A front sweeps across `tray` from left to right; each needle turns from `start[p]` to
    `end[p]` while the front passes over it, taking `stage_after`'s colours halfway.

    The front starts `ramp / 2` left of the first column and ends `ramp / 2` right of the
    last, so every needle makes its whole turn. The animation is linear in time: the wave
    moves at constant speed (see `magnet_pass` for a magnet riding on the front)."""

    def __init__(self, tray: NeedleTray, start, end, stage_before: str, stage_after: str, ramp: float = 0.9, **kwargs):
        tray._check(start)
        tray._check(end)
        self.tray = tray
        self.start_values, self.end_values = list(start), list(end)
        self.stages = (stage_before, stage_after)
        self.ramp = ramp
        self.columns_x = [n.pivot_point()[0] for n in tray.needles]
        self.x_from = min(self.columns_x) - ramp / 2
        self.x_to = max(self.columns_x) + ramp / 2
        kwargs.setdefault("rate_func", lambda t: t)
        super().__init__(tray, **kwargs)

    def front_x(self, alpha: float) -> float:
        return self.x_from + alpha * (self.x_to - self.x_from)

    def shares(self, alpha: float) -> list[float]:
        """How far each needle has turned (0..1) when the front is at `alpha` of its path."""
        x = self.front_x(self.rate_func(alpha))
        out = []
        for cx in self.columns_x:
            share = float(np.clip((x - cx) / self.ramp + 0.5, 0.0, 1.0))
            out.append(share * share * (3 - 2 * share))  # each needle starts and stops smoothly
        return out

    def interpolate_mobject(self, alpha: float) -> None:
        for needle, share, a, b in zip(self.tray.needles, self.shares(alpha), self.start_values, self.end_values):
            needle.show(a + (b - a) * share, self.stages[1] if share >= 0.5 else self.stages[0])


class RideOnFront(Animation):
    """Keeps `mobject` centred on a `NeedleWave`'s front (at the mobject's own height)."""

    def __init__(self, mobject, wave: NeedleWave, **kwargs):
        self.wave = wave
        kwargs.setdefault("rate_func", lambda t: t)
        super().__init__(mobject, **kwargs)

    def interpolate_mobject(self, alpha: float) -> None:
        self.mobject.move_to((self.wave.front_x(alpha), self.mobject.get_center()[1], 0))


def magnet_pass(
    tray: NeedleTray, magnet: VGroup, start, end, stage_before: str, stage_after: str, **kwargs
) -> AnimationGroup:
    """The magnet slides across the tray and the needles turn under it, as one animation."""
    wave = NeedleWave(tray, start, end, stage_before, stage_after, **kwargs)
    return AnimationGroup(wave, RideOnFront(magnet, wave))


def front_start_x(tray: NeedleTray, ramp: float = 0.9) -> float:
    """Where a wave's front (and a magnet riding it) starts: `ramp / 2` left of the first column."""
    return min(n.pivot_point()[0] for n in tray.needles) - ramp / 2


def front_end_x(tray: NeedleTray, ramp: float = 0.9) -> float:
    return max(n.pivot_point()[0] for n in tray.needles) + ramp / 2


class MiniTray(VGroup):
    """A small tray of flat needles drawn as one shape (cheap to draw by the dozen): the
    layer's other trays, seen from afar. `width` x `height` is the tray's box."""

    def __init__(self, rows: int, columns: int, width: float, height: float, **kwargs):
        super().__init__(**kwargs)
        self.box = RoundedRectangle(
            corner_radius=0.06,
            width=width,
            height=height,
            stroke_color=palette.MUTED,
            stroke_width=1.5,
            fill_color=palette.WATER,
            fill_opacity=0.35,
        )
        dash = 0.3 * width / columns
        marks = VMobject(stroke_color=palette.MUTED, stroke_width=1.2)
        for r in range(rows):
            for c in range(columns):
                x = ((c + 0.5) / columns - 0.5) * width * 0.92
                y = (0.5 - (r + 0.5) / rows) * height * 0.92
                marks.start_new_path(np.array((x - dash, y, 0.0)))
                marks.add_line_to(np.array((x + dash, y, 0.0)))
        self.marks = marks
        self.add(self.box, self.marks)


@sample_of(MiniTray)
def _mini_tray():
    return MiniTray(number("needles.rows").value, number("needles.columns").value, width=3.2, height=2.4)


def tray_row(
    n: int, like: NeedleTray, width: float, gap: float = 0.15, per_row: int | None = None, row_gap: float = 0.15
) -> VGroup:
    """`n` mini trays side by side, each `width` wide and shaped like the tray `like`; with
    `per_row`, folded into rows of that many (in reading order, `row_gap` apart)."""
    height = width * like.box.height / like.box.width
    trays = VGroup(*(MiniTray(like.rows, like.columns, width, height) for _ in range(n)))
    if per_row is None or per_row >= n:
        return trays.arrange(RIGHT, buff=gap)
    return trays.arrange_in_grid(cols=per_row, buff=(gap, row_gap))
