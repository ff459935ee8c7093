"""A spray-paint stencil: SwiGLU's gate as holes cut in a card, its content as paint.

Seen from the front, in layers: spray nozzles on top (one per hidden channel, the paint
``x W_3`` in its sign's colour), the stencil card in the middle (a sheet of card with one
hole cut out per channel; the hole's width follows the gate ``Swish(x W_1)``), and the
paper at the bottom, where each channel leaves a mark inked by ``gate * paint``. The card
is a real cut-out (a boolean difference), so whatever lies behind shows through its holes.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    RIGHT,
    DashedVMobject,
    Difference,
    Ellipse,
    ManimColor,
    Polygon,
    Rectangle,
    RoundedRectangle,
    Union,
    UpdateFromAlphaFunc,
    VGroup,
)

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit.gallery_samples import sample_of
from scenes.kit.stamps import PAPER, ink_color

CARD = ManimColor("#B9A27A")  # the stencil's card stock (a thing, not a value: outside the value hues)
CARD_EDGE = ManimColor("#7D6B4C")
MIN_SLIT = 0.035  # a shut hole is still drawn as a hair-thin slit, so the cut is visible


def hole_openness(gate: float, scale: float) -> float:
    """How open a channel's hole is, 0 (shut) to 1 (widest): |gate| / scale, capped.

    A negative gate (Swish keeps its input's sign, so a negative input gives a small negative
    gate) opens a small hole too: some paint passes, its sign inverted; the rim's colour
    tells the gate's sign. A gate above 1 amplifies: see `unit_hole`."""
    if scale <= 0:
        return 0.0
    return min(abs(float(gate)) / scale, 1.0)


def hole_width(gate: float, scale: float, max_width: float) -> float:
    """Width of the hole in scene units: proportional to the gate, never below a slit."""
    return max(hole_openness(gate, scale) * max_width, MIN_SLIT)


def paint_color(value: float):
    """Paint's hue: the palette's sign colours (positive warm, negative cool)."""
    return palette.POSITIVE if value >= 0 else palette.NEGATIVE


class StencilCard(VGroup):
    """A card with one hole per channel; hole i is `hole_width(gates[i])` wide.

    `xs` are the channels' x positions (scene units, relative to the card's centre), the
    holes sit `hole_offset` above the centre;
    `opened` (0..1) scales every hole, so `open_holes()` can cut them from shut to their
    real size. `sheet` is the card with the holes cut out; `rims` outline each hole
    (ACTIVE for a positive gate, NEGATIVE for a negative one)."""

    def __init__(
        self,
        gates,
        xs,
        width: float,
        height: float = 1.3,
        hole_height: float = 0.75,
        max_hole_width: float = 1.1,
        scale: float | None = None,
        opened: float = 1.0,
        hole_offset: float = 0.0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.gates = tuple(float(g) for g in gates)
        self.xs = tuple(float(x) for x in xs)
        self.card_width, self.card_height = width, height
        self.hole_height, self.max_hole_width = hole_height, max_hole_width
        self.scale_value = scale if scale is not None else max(abs(g) for g in self.gates)
        self.opened = opened
        self.hole_offset = hole_offset  # the holes' height above the card's centre (scene units)
        self.hole_widths = tuple(
            max(opened * hole_width(g, self.scale_value, max_hole_width), MIN_SLIT) for g in self.gates
        )
        body = Rectangle(width=width, height=height)
        holes = [
            Rectangle(width=w, height=hole_height).move_to((x, hole_offset, 0))
            for x, w in zip(self.xs, self.hole_widths)
        ]
        self.sheet = Difference(body, *holes) if len(holes) == 1 else Difference(body, _union(holes))
        self.sheet.set_fill(CARD, opacity=1).set_stroke(CARD_EDGE, width=3)
        self.edge = Polygon(
            (-width / 2, -height / 2, 0),
            (width / 2, -height / 2, 0),
            (width / 2 - 0.08, -height / 2 - 0.12, 0),
            (-width / 2 + 0.08, -height / 2 - 0.12, 0),
            stroke_width=0,
            fill_color=CARD_EDGE,
            fill_opacity=1,
        )  # the card's thickness
        self.rims = VGroup(
            *(
                Rectangle(
                    width=w,
                    height=hole_height,
                    stroke_width=3,
                    stroke_color=palette.ACTIVE if g >= 0 else palette.NEGATIVE,
                ).move_to((x, hole_offset, 0))
                for x, w, g in zip(self.xs, self.hole_widths, self.gates)
            )
        )
        self.add(self.edge, self.sheet, self.rims)

    def hole(self, i: int) -> Rectangle:
        """The outline of hole i (where paint passes)."""
        return self.rims[i]

    def at_opening(self, opened: float) -> StencilCard:
        """The same card with every hole at `opened` (0..1) of its real width, in place."""
        card = StencilCard(
            self.gates,
            self.xs,
            self.card_width,
            self.card_height,
            self.hole_height,
            self.max_hole_width,
            self.scale_value,
            opened,
            self.hole_offset,
        )
        card.set_z_index(self.z_index)  # keeps its place in the drawing order while holes open
        return card.shift(self.sheet.get_center() - card.sheet.get_center())

    def open_holes(self, **kwargs) -> UpdateFromAlphaFunc:
        """Animation: every hole is cut open from a slit to its gate's width."""
        final = self.copy()

        def cut(mob, alpha):
            mob.become(final.at_opening(max(alpha, 0.0)))

        return UpdateFromAlphaFunc(self, cut, **kwargs)


def _stencil_card() -> StencilCard:
    gates = np.asarray(number("stencil.gate").value)
    return StencilCard(gates, columns(len(gates), 1.3), width=8.4)


@sample_of(StencilCard)
def _stencil():
    return _stencil_card()


def unit_hole(card: StencilCard, i: int, unit_gate: float = 1.0, color=palette.INK) -> DashedVMobject:
    """A dashed outline, centred on hole i, as wide as a gate of `unit_gate` (1: the paint passes
    unchanged) would cut it on this card. Around a hole whose gate is above 1 it is narrower
    than the hole: the picture shows that such a gate amplifies its paint, which a real
    stencil cannot do."""
    rim = card.rims[i]
    width = hole_width(unit_gate, card.scale_value, card.max_hole_width) * card.opened
    outline = Rectangle(width=width, height=card.hole_height * 1.25, stroke_color=color, stroke_width=3)
    return DashedVMobject(outline.move_to(rim.get_center()), num_dashes=18)


def _union(holes):
    return Union(*holes)


class SprayNozzle(VGroup):
    """A spray can's nozzle pointing down, its cap in the paint's colour."""

    def __init__(self, paint: float, width: float = 0.5, **kwargs):
        super().__init__(**kwargs)
        self.paint = float(paint)
        body = RoundedRectangle(
            corner_radius=0.08,
            width=width,
            height=0.42,
            stroke_width=2,
            stroke_color=palette.MUTED,
            fill_color=palette.INACTIVE,
            fill_opacity=1,
        )
        cap = RoundedRectangle(
            corner_radius=0.05,
            width=width * 0.45,
            height=0.16,
            stroke_width=0,
            fill_color=paint_color(self.paint),
            fill_opacity=1,
        ).next_to(body, DOWN, buff=0)
        self.body, self.cap = body, cap
        self.add(body, cap)

    @property
    def tip(self):
        return self.cap.get_bottom()


@sample_of(SprayNozzle)
def _spray_nozzles():
    nozzles = [SprayNozzle(p) for p in number("stencil.paint").value]
    return VGroup(*nozzles).arrange(RIGHT, buff=0.4)


def spray_cone(tip, bottom_y: float, width: float, paint: float, strength: float) -> Polygon:
    """The paint's cloud from a nozzle's `tip` down to `bottom_y`, `width` wide at the bottom;
    more paint (|paint| relative to the largest, `strength` 0..1) is a denser cloud."""
    x, y = float(tip[0]), float(tip[1])
    cone = Polygon(
        (x - 0.06, y, 0),
        (x + 0.06, y, 0),
        (x + width / 2, bottom_y, 0),
        (x - width / 2, bottom_y, 0),
        stroke_width=0,
        fill_color=paint_color(paint),
        fill_opacity=0.2 + 0.6 * strength,
    )
    return cone


def paint_stream(hole: Rectangle, paper_top_y: float, product: float, strength: float) -> Rectangle:
    """What crosses a hole: a band as wide as the hole, from the hole down to the paper, in
    the colour of what lands (gate * paint, so a negative gate flips the colour)."""
    top = hole.get_bottom()[1]
    height = max(top - paper_top_y, 0.01)
    return Rectangle(
        width=hole.width,
        height=height,
        stroke_width=0,
        fill_color=paint_color(product),
        fill_opacity=0.25 + 0.6 * strength,
    ).move_to((hole.get_x(), (top + paper_top_y) / 2, 0))


class PaperSheet(VGroup):
    """The paper under the stencil: blank at first; `marks[i]` is channel i's mark, as wide
    as its hole and inked by `products[i]` (scale: the largest |product|)."""

    def __init__(self, products, xs, widths, width: float, height: float = 1.1, **kwargs):
        super().__init__(**kwargs)
        self.products = tuple(float(p) for p in products)
        self.scale_value = max(abs(p) for p in self.products) or 1.0
        self.sheet = Rectangle(
            width=width, height=height, stroke_color=palette.MUTED, stroke_width=2, fill_color=PAPER, fill_opacity=1
        )
        self.marks = VGroup(
            *(
                Ellipse(
                    width=max(w * 1.08, MIN_SLIT * 2),
                    height=height * 0.62,
                    stroke_width=0,
                    fill_color=ink_color(p, self.scale_value),
                    fill_opacity=1,
                ).move_to((x, 0, 0))
                for p, x, w in zip(self.products, xs, widths)
            )
        )
        self.add(self.sheet, self.marks)

    def blank(self) -> PaperSheet:
        """Hide the marks (the paper before any paint reaches it); they stay in place."""
        self.marks.set_opacity(0.0)
        return self

    def ink(self):
        """Animation: every mark appears where its paint lands."""
        return self.marks.animate.set_opacity(1.0)

    def mark_colors(self) -> list:
        return [m.get_fill_color() for m in self.marks]


@sample_of(PaperSheet)
def _paper_sheet():
    card = _stencil_card()
    return PaperSheet(number("stencil.product").value, card.xs, card.hole_widths, width=8.4)


def columns(n: int, pitch: float) -> np.ndarray:
    """x positions of n channels, `pitch` apart, centred on 0."""
    return (np.arange(n) - (n - 1) / 2) * pitch
