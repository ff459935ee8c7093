"""An iceberg cut by the waterline so that the areas above and below keep a given ratio."""
from __future__ import annotations

import numpy as np
from manim import DashedLine, Polygon, Rectangle, VGroup, LEFT, RIGHT

from scenes.kit import palette

# Outline of an iceberg in unit coordinates (x right, y up), clockwise from the summit.
# Irregular on purpose: it should read as ice, not as a diamond.
_OUTLINE = np.array([
    (0.05, 1.00), (0.22, 0.78), (0.30, 0.55), (0.48, 0.38), (0.62, 0.10), (0.80, -0.15),
    (0.92, -0.45), (0.85, -0.78), (0.60, -1.02), (0.25, -1.20), (-0.15, -1.18), (-0.52, -1.05),
    (-0.82, -0.80), (-0.95, -0.45), (-0.80, -0.12), (-0.62, 0.12), (-0.45, 0.35), (-0.28, 0.62),
    (-0.12, 0.85),
])


def polygon_area(points: np.ndarray) -> float:
    """Shoelace area of a simple polygon given as (n, 2) points."""
    x, y = points[:, 0], points[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def clip_half_plane(points: np.ndarray, keep_above: bool) -> np.ndarray:
    """Sutherland-Hodgman clip of a polygon against the line y = 0."""
    inside = (lambda p: p[1] >= 0) if keep_above else (lambda p: p[1] <= 0)
    out = []
    for i, cur in enumerate(points):
        prev = points[i - 1]
        if inside(cur):
            if not inside(prev):
                out.append(_cross_y0(prev, cur))
            out.append(cur)
        elif inside(prev):
            out.append(_cross_y0(prev, cur))
    return np.array(out)


def _cross_y0(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    t = a[1] / (a[1] - b[1])
    return a + t * (b - a)


def waterline_offset(share_above: float, outline: np.ndarray = _OUTLINE) -> float:
    """Vertical shift of the outline that leaves `share_above` of its area above y = 0."""
    if not 0 < share_above < 1:
        raise ValueError(f"share above the water must be strictly between 0 and 1, got {share_above}")
    total = polygon_area(outline)
    lo, hi = outline[:, 1].min(), outline[:, 1].max()
    # Bisection on the waterline height: the area above falls as the line rises.
    for _ in range(60):
        mid = (lo + hi) / 2
        above = polygon_area(clip_half_plane(outline - [0, mid], keep_above=True)) / total
        lo, hi = (mid, hi) if above > share_above else (lo, mid)
    return -(lo + hi) / 2


class Iceberg(VGroup):
    """`tip` (above water) and `mass` (below) with areas in the ratio `above : below`.

    `width` and `height` are in scene units; the waterline is at the group's local y = 0,
    placed at `waterline_y`."""

    def __init__(self, above: float, below: float, width: float = 5.0, height: float = 5.5,
                 waterline_y: float = 0.0, center_x: float = 0.0, **kwargs):
        super().__init__(**kwargs)
        self.share_above = above / (above + below)
        shifted = _OUTLINE + [0, waterline_offset(self.share_above)]
        scale = np.array([width / 2, height / np.ptp(_OUTLINE[:, 1])])
        to_scene = lambda pts: [(center_x + x * scale[0], waterline_y + y * scale[1], 0) for x, y in pts]
        self.tip_points = clip_half_plane(shifted, keep_above=True)
        self.mass_points = clip_half_plane(shifted, keep_above=False)
        self.tip = Polygon(*to_scene(self.tip_points), color=palette.ATTENTION, fill_opacity=0.85,
                           stroke_width=2)
        self.mass = Polygon(*to_scene(self.mass_points), color=palette.FFN, fill_opacity=0.75,
                            stroke_width=2)
        self.waterline = DashedLine(
            (center_x - width * 0.75, waterline_y, 0), (center_x + width * 0.75, waterline_y, 0),
            color=palette.WATER.lighter(0.4), dash_length=0.15, stroke_width=3)
        depth = waterline_y - min(p[1] for p in to_scene(self.mass_points)) + 0.35
        self.sea = Rectangle(width=width * 1.5, height=depth, stroke_width=0, fill_color=palette.WATER,
                             fill_opacity=0.45)
        self.sea.move_to((center_x, waterline_y - depth / 2, 0))
        self.add(self.sea, self.mass, self.tip, self.waterline)

    def area_ratio(self) -> float:
        """Measured share of the drawn area above the water (checks the drawing, not the input)."""
        up, down = polygon_area(self.tip_points), polygon_area(self.mass_points)
        return up / (up + down)


class ShareBar(VGroup):
    """A horizontal bar split into attention (left) and FFN (right), widths by parameter count."""

    def __init__(self, attention: float, ffn: float, width: float = 7.0, height: float = 0.5, **kwargs):
        super().__init__(**kwargs)
        share = attention / (attention + ffn)
        self.attention = Rectangle(width=width * share, height=height, color=palette.ATTENTION,
                                   fill_opacity=0.85, stroke_width=1)
        self.ffn = Rectangle(width=width * (1 - share), height=height, color=palette.FFN,
                             fill_opacity=0.85, stroke_width=1)
        self.ffn.next_to(self.attention, RIGHT, buff=0)
        self.add(self.attention, self.ffn)
        self.left_edge = self.attention.get_edge_center(LEFT)
