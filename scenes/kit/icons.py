"""Simple drawn icons for the lecture's analogies: item cards, a drawer, a bed, a backpack, jurors.

Plain geometric shapes in the kit's palette (no emoji, no image files), so they render the
same at every quality. Values written on cards use the sign colours of `matrix.value_color`:
a card is one real number of the network, not a decoration.
"""

from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UP, Arc, Circle, Line, Rectangle, RoundedRectangle, VGroup

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of
from scenes.kit.matrix import value_color

CARD_FILL = palette.BACKGROUND


class ItemCard(VGroup):
    """One item: a card with a real value written on it (2 decimals by default)."""

    def __init__(
        self, value: float, scale: float = 1.0, width: float = 1.1, height: float = 0.58, places: int = 2, **kwargs
    ):
        super().__init__(**kwargs)
        self.value = float(value)
        self.face = RoundedRectangle(
            corner_radius=0.08,
            width=width,
            height=height,
            stroke_color=palette.MUTED,
            stroke_width=2,
            fill_color=CARD_FILL,
            fill_opacity=1,
        )
        self.text = ty.small(ty.fmt_decimal(self.value, places), color=value_color(self.value, scale))
        self.text.move_to(self.face)
        self.add(self.face, self.text)

    def kept(self):
        """Animation: the card survives (its border lights up as an active neuron)."""
        return self.face.animate.set_stroke(palette.ACTIVE, width=4)

    def discarded(self):
        """Animation: the card is set aside (dimmed; kept at its size, so its value stays legible)."""
        return self.animate.set_opacity(0.3)


@sample_of(ItemCard)
def _item_card():
    return ItemCard(number("perro.expanded").value[1])


class Drawer(VGroup):
    """An open drawer seen from the front: a tray holding `n_slots` cards in a column, a handle below."""

    def __init__(self, n_slots: int, slot_width: float = 1.1, slot_height: float = 0.58, gap: float = 0.14, **kwargs):
        super().__init__(**kwargs)
        inner_h = n_slots * slot_height + (n_slots - 1) * gap
        width, height = slot_width + 0.4, inner_h + 0.4
        self.tray = Rectangle(
            width=width,
            height=height,
            stroke_color=palette.MUTED,
            stroke_width=3,
            fill_color=palette.INACTIVE,
            fill_opacity=0.35,
        )
        front = Rectangle(
            width=width + 0.2,
            height=0.45,
            stroke_color=palette.MUTED,
            stroke_width=3,
            fill_color=palette.INACTIVE,
            fill_opacity=0.8,
        ).next_to(self.tray, DOWN, buff=0)
        handle = RoundedRectangle(
            corner_radius=0.05, width=0.6, height=0.12, stroke_width=0, fill_color=palette.MUTED, fill_opacity=1
        ).move_to(front)
        self.slot_height, self.gap = slot_height, gap
        self.add(self.tray, front, handle)

    def slot(self, i: int) -> np.ndarray:
        """Where card i sits inside the tray (top to bottom), wherever the drawer has moved."""
        top = self.tray.get_top() + DOWN * (0.2 + self.slot_height / 2)
        return top + DOWN * i * (self.slot_height + self.gap)


@sample_of(Drawer)
def _drawer():
    return Drawer(3)


class Bed(VGroup):
    """A bed seen from the front: a wide mattress with room for `rows` x `cols` cards, a headboard
    on the left with a pillow, two legs. `spot(i)` is where card i lies (row by row)."""

    def __init__(self, rows: int, cols: int, spot_width: float = 1.25, spot_height: float = 0.78, **kwargs):
        super().__init__(**kwargs)
        self.rows, self.cols = rows, cols
        self.spot_width, self.spot_height = spot_width, spot_height
        width, height = cols * spot_width + 0.9, rows * spot_height + 0.4
        self.mattress = RoundedRectangle(
            corner_radius=0.15,
            width=width,
            height=height,
            stroke_color=palette.MUTED,
            stroke_width=3,
            fill_color=palette.INACTIVE,
            fill_opacity=0.35,
        )
        headboard = RoundedRectangle(
            corner_radius=0.08,
            width=0.22,
            height=height + 0.8,
            stroke_width=0,
            fill_color=palette.MUTED,
            fill_opacity=0.9,
        )
        headboard.next_to(self.mattress, LEFT, buff=0).align_to(self.mattress, DOWN).shift(DOWN * 0.3)
        pillow = RoundedRectangle(
            corner_radius=0.12,
            width=0.35,
            height=height * 0.6,
            stroke_width=0,
            fill_color=palette.INK,
            fill_opacity=0.25,
        )
        pillow.move_to(self.mattress.get_left() + RIGHT * 0.3)
        legs = VGroup(
            *(
                Rectangle(width=0.15, height=0.3, stroke_width=0, fill_color=palette.MUTED, fill_opacity=0.9)
                .next_to(self.mattress.get_corner(DOWN + side), DOWN, buff=0)
                .shift(-side * 0.35)
                for side in (LEFT, RIGHT)
            )
        )
        self.add(headboard, self.mattress, pillow, legs)

    def spot(self, i: int) -> np.ndarray:
        row, col = divmod(i, self.cols)
        origin = self.mattress.get_center() + RIGHT * 0.25
        x = (col - (self.cols - 1) / 2) * self.spot_width
        y = -(row - (self.rows - 1) / 2) * self.spot_height
        return origin + np.array([x, y, 0.0])


@sample_of(Bed)
def _bed():
    return Bed(2, 3)


class Backpack(VGroup):
    """A backpack seen from the front with `n_pockets` pockets stacked; `pocket(i)` is a pocket's
    outline, where the value it holds is written."""

    def __init__(
        self, n_pockets: int, pocket_width: float = 1.3, pocket_height: float = 0.58, gap: float = 0.14, **kwargs
    ):
        super().__init__(**kwargs)
        inner_h = n_pockets * pocket_height + (n_pockets - 1) * gap
        width, height = pocket_width + 0.6, inner_h + 1.0
        self.body = RoundedRectangle(
            corner_radius=0.35,
            width=width,
            height=height,
            stroke_color=palette.INK,
            stroke_width=3,
            fill_color=palette.INACTIVE,
            fill_opacity=0.45,
        )
        flap = Line(
            self.body.get_corner(UP + LEFT) + (0.1, -0.55, 0),
            self.body.get_corner(UP + RIGHT) + (-0.1, -0.55, 0),
            color=palette.INK,
            stroke_width=3,
        )
        buckle = RoundedRectangle(
            corner_radius=0.04, width=0.3, height=0.18, stroke_width=0, fill_color=palette.INK, fill_opacity=0.9
        ).move_to(flap)
        handle = Arc(radius=0.3, start_angle=0, angle=PI, color=palette.INK, stroke_width=4)
        handle.next_to(self.body, UP, buff=-0.02)
        top = self.body.get_top()[1] - 0.75 - pocket_height / 2
        self.pockets = [
            RoundedRectangle(
                corner_radius=0.08,
                width=pocket_width,
                height=pocket_height,
                stroke_color=palette.MUTED,
                stroke_width=2,
                fill_color=CARD_FILL,
                fill_opacity=1,
            ).move_to((0, top - i * (pocket_height + gap), 0))
            for i in range(n_pockets)
        ]
        self.add(handle, self.body, flap, buckle, *self.pockets)

    def pocket(self, i: int) -> RoundedRectangle:
        return self.pockets[i]


@sample_of(Backpack)
def _backpack():
    return Backpack(3)


class Juror(VGroup):
    """A juror: a head and shoulders. Bright while speaking, dimmed when silenced."""

    def __init__(self, size: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.head = Circle(radius=0.17 * size, stroke_width=0, fill_color=palette.INK, fill_opacity=1)
        self.shoulders = Arc(
            radius=0.3 * size, start_angle=0, angle=PI, stroke_width=0, fill_color=palette.INK, fill_opacity=1
        )
        self.shoulders.next_to(self.head, DOWN, buff=0.05 * size)
        self.add(self.head, self.shoulders)

    def speaking(self):
        """Animation: the juror speaks (the active-neuron colour)."""
        return self.animate.set_fill(palette.ACTIVE, opacity=1)

    def silenced(self):
        """Animation: the juror is silenced (the inactive-neuron colour)."""
        return self.animate.set_fill(palette.INACTIVE, opacity=1)


@sample_of(Juror)
def _juror():
    return Juror()


class Jury(VGroup):
    """`n` jurors in a row, `spacing` scene units apart; `jurors[i]` is juror i."""

    def __init__(self, n: int, spacing: float = 1.35, **kwargs):
        super().__init__(**kwargs)
        self.jurors = [Juror().move_to(RIGHT * (i - (n - 1) / 2) * spacing) for i in range(n)]
        self.add(*self.jurors)


@sample_of(Jury)
def _jury():
    jury = Jury(5)
    jury.jurors[1].set_fill(palette.ACTIVE, opacity=1)
    return jury
