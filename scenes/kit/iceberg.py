"""An iceberg floating so that the share of its area under the water is a given number.

The silhouette is fixed; what changes is how deep it floats. `Iceberg` cuts the outline
into horizontal bands by area, bottom up (the FFN under the water, attention just above
it, and, for a whole model, a cap of "everything else"), and the waterline sits on top of
the first band. `Refloat` animates the berg rising or sinking to a new set of shares (and,
if asked, moving and resizing), so a table can move from model to model while the drawing
keeps its proportions true. `Ledger` and `PartsCard` are the tables it sits next to.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
from manim import (
    LEFT,
    RIGHT,
    Animation,
    Line,
    Polygon,
    Rectangle,
    SurroundingRectangle,
    VGroup,
    VMobject,
)

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

# Outline of an iceberg in unit coordinates (x right, y up), clockwise from the summit:
# a spire and a shoulder above, a broad irregular body below. Drawn as ice, not a diamond.
_OUTLINE = np.array(
    [
        (0.10, 1.00),
        (0.17, 0.87),
        (0.24, 0.80),
        (0.34, 0.85),
        (0.44, 0.67),
        (0.52, 0.52),
        (0.65, 0.40),
        (0.73, 0.22),
        (0.88, 0.05),
        (0.97, -0.18),
        (0.93, -0.42),
        (0.99, -0.62),
        (0.86, -0.86),
        (0.62, -1.04),
        (0.34, -1.17),
        (0.05, -1.22),
        (-0.28, -1.14),
        (-0.55, -1.02),
        (-0.79, -0.81),
        (-0.95, -0.56),
        (-0.90, -0.31),
        (-0.98, -0.09),
        (-0.83, 0.12),
        (-0.65, 0.24),
        (-0.52, 0.42),
        (-0.39, 0.49),
        (-0.30, 0.66),
        (-0.16, 0.74),
        (-0.05, 0.90),
    ]
)
OUTLINE_HEIGHT = float(np.ptp(_OUTLINE[:, 1]))
# The shaded (far) side of the ice: right of a ridge that leans right as it descends.
_RIDGE_NORMAL = np.array([1.0, 0.42])

_SEA_LAYERS = 5
ICE_REST = palette.MUTED.lighter(0.35)  # embeddings, norms, output head: neither attention nor FFN


# -- geometry (unit coordinates) ------------------------------------------------------------
def polygon_area(points: np.ndarray) -> float:
    """Shoelace area of a simple polygon given as (n, 2) points (0 for fewer than 3)."""
    points = np.asarray(points, dtype=float)
    if len(points) < 3:
        return 0.0
    x, y = points[:, 0], points[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def clip_polygon(points: np.ndarray, normal, offset: float) -> np.ndarray:
    """Sutherland-Hodgman clip: the part of the polygon where normal . p <= offset."""
    normal = np.asarray(normal, dtype=float)

    def side(p: np.ndarray) -> float:
        return float(np.dot(normal, p)) - offset

    out = []
    for i, cur in enumerate(points):
        prev = points[i - 1]
        s_cur, s_prev = side(cur), side(prev)
        if s_cur <= 0:
            if s_prev > 0:
                out.append(prev + s_prev / (s_prev - s_cur) * (cur - prev))
            out.append(cur)
        elif s_prev <= 0:
            out.append(prev + s_prev / (s_prev - s_cur) * (cur - prev))
    return np.array(out).reshape(-1, 2)


def clip_half_plane(points: np.ndarray, keep_above: bool, level: float = 0.0) -> np.ndarray:
    """The part of the polygon above (or below) the horizontal line y = level."""
    return clip_polygon(points, (0.0, -1.0), -level) if keep_above else clip_polygon(points, (0.0, 1.0), level)


def band(points: np.ndarray, low: float, high: float) -> np.ndarray:
    """The part of the polygon between the horizontal lines y = low and y = high."""
    return clip_half_plane(clip_half_plane(points, keep_above=True, level=low), keep_above=False, level=high)


def level_for_share(share_below: float, outline: np.ndarray = _OUTLINE) -> float:
    """Height y at which `share_below` (0..1) of the outline's area lies below y."""
    lo, hi = float(outline[:, 1].min()), float(outline[:, 1].max())
    if share_below <= 0:
        return lo
    if share_below >= 1:
        return hi
    total = polygon_area(outline)
    for _ in range(60):  # bisection: the area below grows as the line rises
        mid = (lo + hi) / 2
        below = polygon_area(clip_half_plane(outline, keep_above=False, level=mid)) / total
        lo, hi = (mid, hi) if below < share_below else (lo, mid)
    return (lo + hi) / 2


def waterline_offset(share_above: float, outline: np.ndarray = _OUTLINE) -> float:
    """Vertical shift of the outline that leaves `share_above` of its area above y = 0."""
    if not 0 < share_above < 1:
        raise ValueError(f"share above the water must be strictly between 0 and 1, got {share_above}")
    return -level_for_share(1.0 - share_above, outline)


# -- the drawing ---------------------------------------------------------------------------
@dataclass(frozen=True)
class BergState:
    """What the drawing shows: `submerged` (area share under water, the FFN), `attention`
    (area share of the band right above the water; the rest of the area, if any, is the
    cap), and where: the waterline's height, the berg's centre x, its width and height
    (scene units)."""

    submerged: float
    attention: float
    center_x: float = 0.0
    waterline_y: float = 0.0
    width: float = 5.0
    height: float = 6.0

    def __post_init__(self):
        if not (0 < self.submerged < 1 and 0 < self.attention and self.submerged + self.attention <= 1 + 1e-9):
            raise ValueError(
                f"iceberg shares must be positive and add up to at most 1: submerged="
                f"{self.submerged}, attention={self.attention}"
            )

    @property
    def rest(self) -> float:
        return max(0.0, 1.0 - self.submerged - self.attention)

    def mass_point(self) -> np.ndarray:
        """A point well inside the submerged mass, in scene units (for a label on it)."""
        water = level_for_share(self.submerged)
        depth = (water - float(_OUTLINE[:, 1].min())) * self.height / OUTLINE_HEIGHT
        return np.array((self.center_x - 0.08 * self.width, self.waterline_y - 0.45 * depth, 0.0))

    def lerp(self, other: BergState, alpha: float) -> BergState:
        values = {f.name: (1 - alpha) * getattr(self, f.name) + alpha * getattr(other, f.name) for f in fields(self)}
        return BergState(**values)


def _shaded(points: np.ndarray, summit: np.ndarray) -> np.ndarray:
    """The part of a band on the far side of the ridge that runs down from the summit."""
    offset = float(np.dot(_RIDGE_NORMAL, summit))
    return clip_polygon(points, -_RIDGE_NORMAL, -offset)


class Iceberg(VGroup):
    """The berg in `state` (a `BergState`): `mass` under the water (FFN colour, seen
    through the translucent `sea`), `tip` above it (attention colour), `cap` on top (the
    rest of a whole model; empty when the shares add up to 1), a shaded far side on each,
    and the wavy `waterline`. `Iceberg(above=a, below=b)` is the block form (no cap)."""

    def __init__(
        self,
        above: float | None = None,
        below: float | None = None,
        *,
        state: BergState | None = None,
        width: float = 5.0,
        height: float = 6.0,
        waterline_y: float = 0.0,
        center_x: float = 0.0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if state is None:
            if above is None or below is None:
                raise ValueError("Iceberg needs either state= or both above= and below= counts")
            share = below / (above + below)
            state = BergState(share, 1.0 - share, center_x, waterline_y, width, height)
        self.mass = Polygon(*[(0, 0, 0)] * 3, color=palette.FFN, fill_opacity=0.9, stroke_width=2.5)
        self.mass_shade = Polygon(*[(0, 0, 0)] * 3, stroke_width=0, fill_color=palette.BACKGROUND, fill_opacity=0.32)
        # Water drawn over the mass, denser towards the middle so its edges fade out.
        self.sea = VGroup(
            *(Rectangle(stroke_width=0, fill_color=palette.WATER, fill_opacity=0.16) for _ in range(_SEA_LAYERS))
        )
        self.tip = Polygon(*[(0, 0, 0)] * 3, color=palette.ATTENTION, fill_opacity=0.92, stroke_width=2.5)
        self.cap = Polygon(*[(0, 0, 0)] * 3, color=ICE_REST, fill_opacity=0.92, stroke_width=2.5)
        self.above_shade = Polygon(*[(0, 0, 0)] * 3, stroke_width=0, fill_color=palette.BACKGROUND, fill_opacity=0.28)
        self.ripples = VGroup(
            *(Line(stroke_width=2, color=palette.FFN.lighter(0.5), stroke_opacity=0.35) for _ in range(4))
        )
        self.waterline = VMobject(stroke_color=palette.FFN.lighter(0.55), stroke_width=3.5)
        self.add(
            self.mass, self.mass_shade, self.sea, self.ripples, self.tip, self.cap, self.above_shade, self.waterline
        )
        self.state = state
        self.set_state(state)

    # -- shares -----------------------------------------------------------------------------
    def set_state(self, state: BergState) -> Iceberg:
        self.state = state
        water = level_for_share(state.submerged)
        split = level_for_share(state.submerged + state.attention)
        top, bottom = float(_OUTLINE[:, 1].max()), float(_OUTLINE[:, 1].min())
        summit = _OUTLINE[np.argmax(_OUTLINE[:, 1])]
        sx, sy = state.width / 2, state.height / OUTLINE_HEIGHT

        def to_scene(pts):
            pts = np.asarray(pts, dtype=float).reshape(-1, 2)
            return [np.array((state.center_x + x * sx, state.waterline_y + (y - water) * sy, 0.0)) for x, y in pts]

        mass_pts = clip_half_plane(_OUTLINE, keep_above=False, level=water)
        tip_pts = band(_OUTLINE, water, split)
        cap_pts = clip_half_plane(_OUTLINE, keep_above=True, level=split) if split < top - 1e-9 else np.empty((0, 2))
        above_pts = clip_half_plane(_OUTLINE, keep_above=True, level=water)
        self.unit_polygons = {"mass": mass_pts, "tip": tip_pts, "cap": cap_pts}
        _set_polygon(self.mass, to_scene(mass_pts))
        _set_polygon(self.mass_shade, to_scene(_shaded(mass_pts, summit)))
        _set_polygon(self.tip, to_scene(tip_pts))
        _set_polygon(self.cap, to_scene(cap_pts) or to_scene([summit]))
        _set_polygon(self.above_shade, to_scene(_shaded(above_pts, summit)))

        sea_w = state.width * 1.35
        depth = (water - bottom) * sy + 0.45
        left = state.center_x - sea_w / 2
        for k, rect in enumerate(self.sea):
            w, h = sea_w * (1 - 0.09 * k), depth * (1 - 0.06 * k)
            rect.stretch_to_fit_width(w).stretch_to_fit_height(h)
            rect.move_to((state.center_x, state.waterline_y - h / 2, 0))
        xs = np.linspace(left, left + sea_w, 60)
        wave = state.waterline_y + 0.05 * np.sin(xs * 5.0)
        self.waterline.set_points_smoothly([np.array((x, y, 0.0)) for x, y in zip(xs, wave)])
        for i, ripple in enumerate(self.ripples):
            y = state.waterline_y - depth * (0.18 + 0.2 * i)
            x0 = left + sea_w * (0.08 + 0.23 * ((i * 3) % 4) / 3)
            ripple.put_start_and_end_on(np.array((x0, y, 0.0)), np.array((x0 + sea_w * 0.16, y, 0.0)))
        return self

    def refloat(self, **changes) -> Refloat:
        """Animation to a state with `changes` (submerged=, attention=, center_x=, ...)."""
        return Refloat(self, replace(self.state, **changes))

    # -- measurements of what is drawn (they check the drawing, not its inputs) --------------
    def drawn_areas(self) -> dict[str, float]:
        """Scene-unit areas of the drawn mass, tip and cap polygons, from their vertices."""
        return {name: polygon_area(_vertices(getattr(self, name))) for name in ("mass", "tip", "cap")}

    def submerged_fraction(self) -> float:
        """Drawn area under the water over the berg's whole drawn area."""
        areas = self.drawn_areas()
        return areas["mass"] / sum(areas.values())

    def area_ratio(self) -> float:
        """Drawn share of the berg's area above the water."""
        return 1.0 - self.submerged_fraction()

    # -- appearing part by part (the berg stays one mobject in the scene, in its z-order) ----
    def conceal(self) -> Iceberg:
        """Make every part invisible, remembering its opacities for `reveal`."""
        self._opacities = {id(m): (m.get_fill_opacity(), m.get_stroke_opacity()) for m in self._leaves()}
        for m in self._leaves():
            m.set_fill(opacity=0).set_stroke(opacity=0)
        return self

    def reveal(self, *parts: VMobject) -> list:
        """Animations bringing `parts` (e.g. berg.tip, berg.sea) back to their opacities."""
        found = []
        for part in parts:
            for m in part.get_family():
                if id(m) in getattr(self, "_opacities", {}):
                    fill, stroke = self._opacities[id(m)]
                    found.append(m.animate.set_fill(opacity=fill).set_stroke(opacity=stroke))
        return found

    def _leaves(self):
        return [m for m in self.get_family() if not m.submobjects]


@sample_of(Iceberg)
def _iceberg():
    return Iceberg(
        above=number("params.llama2_7b.attention_per_layer").value, below=number("params.llama2_7b.ffn_per_layer").value
    )


def _vertices(polygon: VMobject) -> np.ndarray:
    anchors = np.asarray(polygon.get_start_anchors())[:, :2]
    # Consecutive duplicates (closing point, degenerate empty bands) add no area.
    keep = [0] + [i for i in range(1, len(anchors)) if not np.allclose(anchors[i], anchors[i - 1])]
    return anchors[keep]


def _set_polygon(polygon: VMobject, corners: list) -> None:
    if len(corners) < 3:  # an empty band stays in the family, collapsed onto one point
        corners = [corners[0] if corners else np.zeros(3)] * 3
    polygon.set_points_as_corners([*corners, corners[0]])


class Refloat(Animation):
    """The berg rising or sinking (and moving, resizing) from its state to `target`."""

    def __init__(self, berg: Iceberg, target: BergState, **kwargs):
        self.start_state, self.target = berg.state, target
        super().__init__(berg, **kwargs)

    def interpolate_mobject(self, alpha: float) -> None:
        self.mobject.set_state(self.start_state.lerp(self.target, self.rate_func(alpha)))


@dataclass(frozen=True)
class ModelFigures:
    """What the iceberg scene shows of one model (every figure read from the registry):
    per-block counts and share, and every term of the whole model's count."""

    name: str
    attention_per_layer: int
    ffn_per_layer: int
    block_share: float
    n_layers: int
    token_embedding: int
    position_embedding: int
    attention_total: int
    ffn_total: int
    norms_total: int
    output_head: int
    total: int
    ffn_share_of_total: float
    attention_share_of_total: float

    def block_state(self) -> dict:
        return {"submerged": self.block_share, "attention": 1.0 - self.block_share}

    def whole_state(self) -> dict:
        return {"submerged": self.ffn_share_of_total, "attention": self.attention_share_of_total}


# -- the tables next to it ------------------------------------------------------------------
class Ledger(VGroup):
    """A small table: a `header` of (text, colour) titles and `rows` of (text, colour) cells.
    The first column is left-aligned (names), the others right-aligned (numbers, as in an
    accounts ledger). `highlight(i)` is a frame around row i."""

    def __init__(self, header, rows, col_gap: float = 0.4, row_gap: float = 0.3, **kwargs):
        super().__init__(**kwargs)
        self.header = VGroup(*(ty.label(text, color=color) for text, color in header))
        self.rows = VGroup(
            *(VGroup(*(ty.label(text, color=color or palette.INK) for text, color in row)) for row in rows)
        )
        lines = [self.header, *self.rows]
        n_cols = len(self.header)
        if any(len(line) != n_cols for line in lines):
            raise ValueError(f"every row needs {n_cols} cells, like the header")
        widths = [max(line[c].width for line in lines) for c in range(n_cols)]
        rights = np.cumsum([w + col_gap for w in widths]) - col_gap
        line_h = max(cell.height for line in lines for cell in line)
        for k, line in enumerate(lines):
            y = -k * (line_h + row_gap) - (0.25 if k else 0.0)
            for c, cell in enumerate(line):
                cell.move_to((0, y, 0))
                if c == 0:
                    cell.align_to(np.zeros(3), LEFT)
                else:
                    cell.align_to(np.array((rights[c], 0, 0)), RIGHT)
        self.rule = Line((0, 0, 0), (rights[-1], 0, 0), color=palette.MUTED, stroke_width=2)
        self.rule.move_to((rights[-1] / 2, self.header.get_bottom()[1] - 0.14, 0))
        self.add(self.header, self.rule, self.rows)

    def highlight(self, i: int) -> SurroundingRectangle:
        return SurroundingRectangle(self.rows[i], color=palette.HIGHLIGHT, buff=0.12, corner_radius=0.08)


@sample_of(Ledger)
def _ledger():
    model = "params.llama2_7b"
    return Ledger(
        [("Parte", palette.MUTED), ("Parámetros", palette.MUTED)],
        [
            [
                ("Atención", palette.ATTENTION),
                (ty.fmt_int(number(f"{model}.attention_per_layer").value), palette.ATTENTION),
            ],
            [("FFN", palette.FFN), (ty.fmt_int(number(f"{model}.ffn_per_layer").value), palette.FFN)],
        ],
    )


@dataclass(frozen=True)
class CardLine:
    """One term of a whole-model count: its name, its parameters (0 = absent, shown with
    `absent_note`), and its colour."""

    name: str
    count: int
    color: object = None
    absent_note: str = "sin pesos"


class PartsCard(VGroup):
    """Every term of a model's parameter count, a rule, and the total they add up to.

    `title` names the model; `lines[i]` is (name, value) for term i; `total` the last line.
    Terms counted as 0 are dimmed and say why (their `absent_note`). `width` is the
    distance from the names' left edge to the numbers' right edge (scene units)."""

    def __init__(
        self, title: str, terms: list[CardLine], total: int, width: float = 8.4, line_gap: float = 0.5, **kwargs
    ):
        super().__init__(**kwargs)
        self.title = ty.body(title, color=palette.HIGHLIGHT)
        self.lines = VGroup()
        for term in terms:
            present = term.count > 0
            color = (term.color or palette.INK) if present else palette.MUTED
            value = ty.fmt_int(term.count) if present else term.absent_note
            self.lines.add(VGroup(ty.label(term.name, color=color), ty.label(value, color=color)))
        self.total = VGroup(ty.label("Total", weight="BOLD"), ty.label(ty.fmt_int(total), weight="BOLD"))
        left, right = np.zeros(3), np.array((width, 0.0, 0.0))
        self.title.move_to(np.zeros(3)).align_to(left, LEFT)
        y = -self.title.height / 2 - 0.55
        for line in [*self.lines, self.total]:
            if line is self.total:
                y -= 0.25
            line[0].move_to((0, y, 0)).align_to(left, LEFT)
            line[1].move_to((0, y, 0)).align_to(right, RIGHT)
            y -= line_gap
        rule_y = (self.lines[-1].get_bottom()[1] + self.total.get_top()[1]) / 2
        self.rule = Line((width * 0.55, rule_y, 0), (width, rule_y, 0), color=palette.MUTED, stroke_width=2)
        self.add(self.title, self.lines, self.rule, self.total)


@sample_of(PartsCard)
def _parts_card():
    model = "params.llama2_7b"
    terms = [
        CardLine("Embeddings", number(f"{model}.token_embedding").value),
        CardLine("Posiciones", number(f"{model}.position_embedding").value, absent_note="RoPE, sin pesos"),
        CardLine("Atención", number(f"{model}.attention_total").value, palette.ATTENTION),
        CardLine("FFN", number(f"{model}.ffn_total").value, palette.FFN),
        CardLine("Normas", number("iceberg.llama2_7b.norms_total").value),
        CardLine("Salida", number(f"{model}.output_head").value),
    ]
    return PartsCard(number(f"{model}.display_name").value, terms, number(f"{model}.total").value)
