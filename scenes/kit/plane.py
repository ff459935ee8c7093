"""A 2-D classification plane: points by class, straight lines across it, a sweeping line
with its live accuracy, and the decision regions of a trained network.

Data coordinates live in a square `view x view` (ffn_core.xor.VIEW); `PlaneSquare.to_scene`
maps them into the scene. Classes are coloured by the sign of a classifier's output:
class 1 (cross, output above the threshold) takes the palette's POSITIVE hue, class 0
(circle) the NEGATIVE one, so points, half-planes and regions share one code.
"""

from __future__ import annotations

import math

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Circle,
    DashedLine,
    Line,
    Polygon,
    Rectangle,
    Square,
    VGroup,
    interpolate,
    interpolate_color,
)

from ffn_core.registry import dataset, number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

CLASS_COLORS = (palette.NEGATIVE, palette.POSITIVE)  # class 0, class 1
# The plane is a sheet, a shade lighter than the background, so the input space reads as a
# surface the points lie on (and a frame showing only the plane is not a dark field).
SHEET = interpolate_color(palette.BACKGROUND, palette.MUTED, 0.28)
_SEAM = 0.015  # scene units of overlap between region cells (about a pixel at 480p)


class PlaneSquare(VGroup):
    """The drawn square for data coordinates in `view` x `view`, `side` scene units wide: a
    sheet (`SHEET`, opaque) with its edge, and faint grid lines every `grid` data units."""

    def __init__(self, view: tuple[float, float], side: float = 5.2, grid: float = 0.5, **kwargs):
        super().__init__(**kwargs)
        self.view = view
        self.side = side
        self.frame = Square(side_length=side, color=palette.MUTED, stroke_width=2, fill_color=SHEET, fill_opacity=1)
        self.grid = VGroup()
        lo, hi = view
        steps = int(round((hi - lo) / grid))
        for k in range(1, steps):
            v = lo + k * grid
            self.grid.add(
                Line(
                    self.to_scene(v, lo), self.to_scene(v, hi), color=palette.MUTED, stroke_width=1, stroke_opacity=0.35
                ),
                Line(
                    self.to_scene(lo, v), self.to_scene(hi, v), color=palette.MUTED, stroke_width=1, stroke_opacity=0.35
                ),
            )
        self.add(self.frame, self.grid)

    @property
    def scale(self) -> float:
        """Scene units per data unit."""
        return self.side / (self.view[1] - self.view[0])

    def to_scene(self, x: float, y: float) -> np.ndarray:
        """Scene point of data point (x, y), following the square wherever it has moved."""
        lo = self.frame.get_corner(np.array([-1, -1, 0]))
        return lo + np.array([(x - self.view[0]) * self.scale, (y - self.view[0]) * self.scale, 0.0])

    def axes(self, marks: tuple[float, ...] = (0.0, 1.0), names: tuple[str, str] = ("x_1", "x_2")) -> VGroup:
        """Ticks at `marks` under the square (first coordinate) and left of it (second), each
        with its value, and each axis's name at its far end, so every point's coordinates can
        be read off. Values and names are typeset as formulas (the inputs' values, not
        measurements)."""
        tick = 0.15
        bottom, left = self.frame.get_bottom()[1], self.frame.get_left()[0]
        group = VGroup()
        for m in marks:
            x = self.to_scene(m, self.view[0])[0]
            line = Line((x, bottom, 0), (x, bottom - tick, 0), color=palette.MUTED, stroke_width=2)
            group.add(line, ty.math(_tex_number(m), color=palette.MUTED).scale(0.8).next_to(line, DOWN, buff=0.08))
            y = self.to_scene(self.view[0], m)[1]
            line = Line((left, y, 0), (left - tick, y, 0), color=palette.MUTED, stroke_width=2)
            group.add(line, ty.math(_tex_number(m), color=palette.MUTED).scale(0.8).next_to(line, LEFT, buff=0.08))
        first = ty.math(names[0], color=palette.MUTED).scale(0.8)
        first.next_to(self.frame.get_corner(DOWN + RIGHT), DOWN, buff=0.12).shift(LEFT * 0.25)
        second = ty.math(names[1], color=palette.MUTED).scale(0.8)
        second.next_to(self.frame.get_corner(LEFT + UP), LEFT, buff=0.12).shift(DOWN * 0.25)
        group.add(first, second)
        return group

    def corners(self) -> list[tuple[float, float]]:
        """The square's corners in data units, counter-clockwise from bottom-left."""
        lo, hi = self.view
        return [(lo, lo), (hi, lo), (hi, hi), (lo, hi)]


@sample_of(PlaneSquare)
def _plane_square():
    return PlaneSquare(number("xor.view").value, side=3.0)


class CircleMark(Circle):
    """Class 0: a hollow circle (a drawn shape, not an emoji the font may lack)."""

    def __init__(self, radius: float = 0.22, **kwargs):
        kwargs.setdefault("color", CLASS_COLORS[0])
        kwargs.setdefault("stroke_width", 7)
        super().__init__(radius=radius, **kwargs)


@sample_of(CircleMark)
def _circle_mark():
    return CircleMark()


class CrossMark(VGroup):
    """Class 1: a cross of two strokes."""

    def __init__(self, radius: float = 0.22, color=CLASS_COLORS[1], stroke_width: float = 8, **kwargs):
        super().__init__(**kwargs)
        d = radius / math.sqrt(2) * 1.25
        self.add(
            Line((-d, -d, 0), (d, d, 0), color=color, stroke_width=stroke_width),
            Line((-d, d, 0), (d, -d, 0), color=color, stroke_width=stroke_width),
        )


@sample_of(CrossMark)
def _cross_mark():
    return CrossMark()


def class_mark(label: int, radius: float = 0.22):
    """The mark of class `label` (0: circle, 1: cross)."""
    return CrossMark(radius) if label else CircleMark(radius)


class ClassPoints(VGroup):
    """Points drawn by class at their data coordinates on `plane`; `marks[i]` is point i."""

    def __init__(self, plane: PlaneSquare, points, labels, radius: float = 0.22, **kwargs):
        super().__init__(**kwargs)
        self.labels = tuple(labels)
        self.marks = [class_mark(label, radius).move_to(plane.to_scene(*p)) for p, label in zip(points, labels)]
        # A dark disc behind each mark keeps it readable on a region of its own colour.
        self.backings = [
            Circle(radius=radius * 1.45, stroke_width=0, fill_color=SHEET, fill_opacity=0.8).move_to(m)
            for m in self.marks
        ]
        for backing, mark in zip(self.backings, self.marks):
            self.add(VGroup(backing, mark))
        self.set_z_index(3)

    def of_class(self, label: int) -> VGroup:
        """The points of class `label`, each with its backing disc."""
        return VGroup(*(sub for sub, lab in zip(self.submobjects, self.labels) if lab == label))


def _plane_and_points():
    xor = dataset("xor.solution").value
    square = PlaneSquare(number("xor.view").value, side=3.0)
    return xor, square, ClassPoints(square, xor.points, xor.labels)


@sample_of(ClassPoints)
def _class_points():
    _, square, points = _plane_and_points()
    return VGroup(square, points)


class MissRings(VGroup):
    """A highlight ring around each point a classifier gets wrong; `show(correct)` updates
    which rings are visible (correct[i] False -> ring i shown)."""

    def __init__(self, points: ClassPoints, radius: float = 0.42, **kwargs):
        super().__init__(**kwargs)
        self.rings = [Circle(radius=radius, color=palette.HIGHLIGHT, stroke_width=5).move_to(m) for m in points.marks]
        self.add(*self.rings)
        self.set_z_index(4)

    def show(self, correct) -> MissRings:
        for ring, ok in zip(self.rings, correct):
            ring.set_stroke(opacity=0.0 if ok else 1.0)
        return self


@sample_of(MissRings)
def _miss_rings():
    xor, square, points = _plane_and_points()
    return VGroup(square, points, MissRings(points).show(xor.linear.best_line.correct))


def half_plane_corners(plane: PlaneSquare, angle_rad: float, offset: float, above: bool = True):
    """Data-unit corners of the part of the square where cos(a) x + sin(a) y > offset
    (or < offset when `above` is False): the square clipped by the line."""
    normal = np.array([math.cos(angle_rad), math.sin(angle_rad)])
    side = lambda p: (np.dot(normal, p) - offset) * (1 if above else -1)  # noqa: E731
    square = [np.array(c) for c in plane.corners()]
    out = []
    for i, cur in enumerate(square):
        prev = square[i - 1]
        if side(cur) >= 0:
            if side(prev) < 0:
                out.append(_cross(prev, cur, side))
            out.append(cur)
        elif side(prev) >= 0:
            out.append(_cross(prev, cur, side))
    return out


def _cross(a, b, side):
    t = side(a) / (side(a) - side(b))
    return a + t * (b - a)


class HalfPlaneShade(Polygon):
    """The side of a line a linear classifier calls class 1, tinted faintly in that class's hue."""

    def __init__(
        self,
        plane: PlaneSquare,
        angle_rad: float,
        offset: float,
        color=CLASS_COLORS[1],
        opacity: float = 0.22,
        **kwargs,
    ):
        self.plane = plane
        super().__init__(
            *self._corners(angle_rad, offset), stroke_width=0, fill_color=color, fill_opacity=opacity, **kwargs
        )

    def _corners(self, angle_rad: float, offset: float):
        corners = half_plane_corners(self.plane, angle_rad, offset)
        if len(corners) < 3:  # the line misses the square: nothing of it is class 1
            c = self.plane.to_scene(*self.plane.corners()[0])
            return [c, c, c]
        return [self.plane.to_scene(*p) for p in corners]

    def move_line(self, angle_rad: float, offset: float) -> HalfPlaneShade:
        corners = self._corners(angle_rad, offset)
        self.set_points_as_corners([*corners, corners[0]])
        return self


@sample_of(HalfPlaneShade)
def _half_plane_shade():
    xor, square, points = _plane_and_points()
    best = xor.linear.best_line
    return VGroup(square, HalfPlaneShade(square, best.angle_rad, best.offset), points)


def line_across(plane: PlaneSquare, segment, dashed: bool = False, **kwargs) -> Line:
    """A straight line drawn between the two data-unit end points `segment` (already
    clipped to the square, e.g. ffn_core.xor.LinePosition.segment)."""
    start, end = (plane.to_scene(*p) for p in segment)
    kwargs.setdefault("color", palette.INK)
    kwargs.setdefault("stroke_width", 5)
    return DashedLine(start, end, dash_length=0.14, **kwargs) if dashed else Line(start, end, **kwargs)


class AccuracyCounter(VGroup):
    """'<caption>: k de n' with k switched by `show(k)`.

    Every possible reading is made once (Text is slow to build per frame) and only the
    current one is opaque, so the scene's layout check sees exactly one reading."""

    def __init__(self, caption: str, n_points: int, color=palette.INK, **kwargs):
        super().__init__(**kwargs)
        self.readings = [ty.body(f"{caption}: {k} de {n_points}", color=color) for k in range(n_points + 1)]
        for reading in self.readings[1:]:
            reading.move_to(self.readings[0], aligned_edge=np.array([-1, 0, 0]))
        self.add(*self.readings)
        self.value = 0
        self.show(0)

    def show(self, k: int) -> AccuracyCounter:
        if not 0 <= k < len(self.readings):
            raise ValueError(f"accuracy counter: {k} points is outside 0..{len(self.readings) - 1}")
        self.value = k
        for i, reading in enumerate(self.readings):
            reading.set_opacity(1.0 if i == k else 0.0)
        return self


@sample_of(AccuracyCounter)
def _accuracy_counter():
    return AccuracyCounter("Aciertos", number("xor.n_points").value).show(
        number("xor.linear_best_correct_points").value
    )


class SweepingLine(VGroup):
    """A straight classifier sliding through `positions` (ffn_core.xor.LinePosition, in order):
    the line, the half-plane it calls class 1, rings on the points it gets wrong, and a live
    counter of correct points (`counts[i]` for position i).

    `set_position(t)` with t in [0, len(positions) - 1] draws the line between position
    floor(t) and the next, by interpolating the offset when both share a tilt (every
    intermediate line is a real line of that tilt) and by fading out and back in where the
    tilt changes. Rings and counter show position floor(t): the last one the line reached.
    `best` (optional) keeps the best count reached so far."""

    def __init__(
        self,
        plane: PlaneSquare,
        points: ClassPoints,
        positions,
        counts,
        counter: AccuracyCounter,
        best: AccuracyCounter | None = None,
        clip=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if len(positions) != len(counts):
            raise ValueError(f"sweep: {len(positions)} line positions but {len(counts)} counts")
        self.plane, self.positions, self.counts = plane, tuple(positions), tuple(counts)
        self.clip = clip  # (angle, offset) -> segment in data units, e.g. ffn_core.xor.clip_line
        first = self.positions[0]
        self.shade = HalfPlaneShade(plane, first.angle_rad, first.offset)
        self.line = line_across(plane, first.segment)
        self.rings = MissRings(points)
        self.counter, self.best = counter, best
        self.add(self.shade, self.line, self.rings, counter, *([best] if best is not None else []))
        self.set_position(0.0)

    def set_position(self, t: float) -> SweepingLine:
        last = len(self.positions) - 1
        t = min(max(t, 0.0), last)
        k = int(math.floor(t))
        nxt = min(k + 1, last)
        a, b = self.positions[k], self.positions[nxt]
        frac = t - k
        if math.isclose(a.angle_rad, b.angle_rad):
            angle, offset, opacity = a.angle_rad, interpolate(a.offset, b.offset, frac), 1.0
        else:  # a new tilt: fade out at the old place, in at the new one
            (angle, offset), opacity = (
                ((a.angle_rad, a.offset), 1 - 2 * frac) if frac < 0.5 else ((b.angle_rad, b.offset), 2 * frac - 1)
            )
        segment = self.clip(angle, offset) if self.clip else a.segment
        start, end = (self.plane.to_scene(*p) for p in segment)
        if np.allclose(start, end):
            self.line.set_stroke(opacity=0.0)
        else:
            self.line.put_start_and_end_on(start, end)
            self.line.set_stroke(opacity=opacity)
        self.shade.move_line(angle, offset).set_fill(opacity=0.22 * opacity)
        self.rings.show(a.correct)
        self.counter.show(self.counts[k])
        if self.best is not None:
            self.best.show(max(self.counts[: k + 1]))
        return self


@sample_of(SweepingLine)
def _sweeping_line():
    from ffn_core.shapes import clip_line

    xor, square, points = _plane_and_points()
    counts = number("xor.sweep_correct_points").value
    counter = AccuracyCounter("Aciertos", len(xor.points))
    sweep = SweepingLine(square, points, xor.sweep, counts, counter, clip=clip_line)
    counter.next_to(square, DOWN, buff=0.3)
    return VGroup(square, sweep, points)


class Sweep(Animation):
    """Animation driving a `SweepingLine` from its first position to its last."""

    def __init__(self, sweep: SweepingLine, **kwargs):
        kwargs.setdefault("rate_func", lambda t: t)  # constant speed: each position gets equal time
        super().__init__(sweep, **kwargs)

    def interpolate_mobject(self, alpha: float) -> None:
        self.mobject.set_position(alpha * (len(self.mobject.positions) - 1))


class DecisionRegions(VGroup):
    """A classifier's predicted class over the square, sampled on a grid.

    `region[r][c]` is the class at (grid_x[c], grid_y[r]); each sample becomes a cell
    centred on it, and runs of equal class along a row are merged into one rectangle, so
    the drawing is exactly the sampled prediction with few mobjects. Cells are opaque,
    pre-blended with the background at `strength`, and overlap by a hair: translucent
    abutting rectangles would show seams at 480p."""

    def __init__(self, plane: PlaneSquare, grid_x, grid_y, region, strength: float = 0.38, **kwargs):
        super().__init__(**kwargs)
        gx, gy = np.asarray(grid_x), np.asarray(grid_y)
        region = np.asarray(region, dtype=int)
        if region.shape != (len(gy), len(gx)):
            raise ValueError(f"decision regions: grid is {len(gy)}x{len(gx)} but region is {region.shape}")
        cell_w, cell_h = (gx[1] - gx[0]) * plane.scale, (gy[1] - gy[0]) * plane.scale
        lo, hi = plane.view
        self.cells = VGroup()
        for r, row in enumerate(region):
            y0, y1 = max(gy[r] - (gy[1] - gy[0]) / 2, lo), min(gy[r] + (gy[1] - gy[0]) / 2, hi)
            start = 0
            for c in range(1, len(row) + 1):
                if c == len(row) or row[c] != row[start]:
                    x0 = max(gx[start] - (gx[1] - gx[0]) / 2, lo)
                    x1 = min(gx[c - 1] + (gx[1] - gx[0]) / 2, hi)
                    color = interpolate_color(palette.BACKGROUND, CLASS_COLORS[row[start]], strength)
                    cell = Rectangle(
                        width=(x1 - x0) * plane.scale + _SEAM,
                        height=(y1 - y0) * plane.scale + _SEAM,
                        stroke_width=0,
                        fill_color=color,
                        fill_opacity=1.0,
                    )
                    cell.move_to(plane.to_scene((x0 + x1) / 2, (y0 + y1) / 2))
                    self.cells.add(cell)
                    start = c
        self.cell_size = (cell_w, cell_h)
        self.add(self.cells)


@sample_of(DecisionRegions)
def _decision_regions():
    xor, square, points = _plane_and_points()
    regions = DecisionRegions(square, xor.mlp.grid_x, xor.mlp.grid_y, xor.mlp.region)
    return VGroup(regions, square, points)


def fold_line(plane: PlaneSquare, weights: tuple[float, float, float], clip, **kwargs) -> Line:
    """The fold of one ReLU neuron: the line w_x x + w_y y + b = 0 where it switches on,
    dashed, in the FFN's hue. `clip(angle, offset)` clips a line to the square."""
    w_x, w_y, b = weights
    norm = math.hypot(w_x, w_y)
    angle, offset = math.atan2(w_y, w_x), -b / norm
    kwargs.setdefault("color", palette.FFN)
    return line_across(plane, clip(angle, offset), dashed=True, **kwargs)


def fold_shade(plane: PlaneSquare, weights: tuple[float, float, float], opacity: float = 0.25) -> HalfPlaneShade:
    """The side of the square where the neuron is on (w_x x + w_y y + b > 0), in the FFN's hue."""
    w_x, w_y, b = weights
    norm = math.hypot(w_x, w_y)
    return HalfPlaneShade(plane, math.atan2(w_y, w_x), -b / norm, color=palette.FFN, opacity=opacity)


def legend_row(mark, text) -> VGroup:
    """A class mark followed by its meaning (a string, set as a label, or a mobject, e.g. a formula)."""
    meaning = ty.label(text) if isinstance(text, str) else text
    return VGroup(mark, meaning).arrange(RIGHT, buff=0.3)


def _tex_number(value: float) -> str:
    """An axis value for a formula: 0 -> '0', 0.5 -> '0{,}5' (Spanish decimal comma)."""
    text = f"{value:g}"
    return text.replace(".", "{,}")
