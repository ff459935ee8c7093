"""Simple drawn icons for the lecture's analogies: item cards, a drawer, a bed, a backpack, jurors,
the jury box they sit in, and the frames that hold a layer's stages once the story is told.

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
    """`n` jurors of `size` in a row, `spacing` scene units apart; `jurors[i]` is juror i."""

    def __init__(self, n: int, spacing: float = 1.35, size: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.jurors = [Juror(size).move_to(RIGHT * (i - (n - 1) / 2) * spacing) for i in range(n)]
        self.add(*self.jurors)

    def seat_in(self, box: JuryBox) -> Jury:
        """Each juror sat in its chair of `box` (shoulders on the rail); returns self."""
        for i, juror in enumerate(self.jurors):
            juror.move_to(box.seat(i), aligned_edge=DOWN)
        return self


@sample_of(Jury)
def _jury():
    jury = Jury(5)
    jury.jurors[1].set_fill(palette.ACTIVE, opacity=1)
    return jury


class JuryBox(VGroup):
    """A jury box seen from the front: `n` chair backs in a row behind a low wall with a rail.

    Juror i sits at `seat(i)` (the bottom centre of its shoulders, on the rail). The wall's
    front is the jury's board: under each juror, at `column_x(i)`, the scene writes what that
    juror says (its vote, then its contribution), so jurors and their words read as one drawing.
    The wall is only faintly filled, so values written on it keep their contrast."""

    def __init__(self, n: int, spacing: float = 1.4, wall_height: float = 2.5, seat_height: float = 1.15, **kwargs):
        super().__init__(**kwargs)
        self.n, self.spacing = n, spacing
        width = n * spacing + 0.5
        self.wall = RoundedRectangle(
            corner_radius=0.12,
            width=width,
            height=wall_height,
            stroke_color=palette.MUTED,
            stroke_width=3,
            fill_color=palette.INACTIVE,
            fill_opacity=0.15,
        )
        self.rail = RoundedRectangle(
            corner_radius=0.06, width=width + 0.3, height=0.16, stroke_width=0, fill_color=palette.MUTED, fill_opacity=1
        ).move_to(self.wall.get_top())
        top = self.wall.get_top()[1]
        self.seats = VGroup(
            *(
                RoundedRectangle(
                    corner_radius=0.18,
                    width=0.72 * spacing,
                    height=seat_height,
                    stroke_color=palette.MUTED,
                    stroke_width=2,
                    fill_color=palette.INACTIVE,
                    fill_opacity=0.6,
                ).move_to((self._x(i), top + seat_height / 2, 0))
                for i in range(n)
            )
        )
        self.add(self.seats, self.wall, self.rail)

    def _x(self, i: int) -> float:
        return (i - (self.n - 1) / 2) * self.spacing

    def column_x(self, i: int) -> float:
        """The x of juror i's chair, wherever the box has moved."""
        return float(self.seats[i].get_x())

    def seat(self, i: int) -> np.ndarray:
        """Where juror i's shoulders rest: on the rail, under its chair back."""
        return np.array([self.column_x(i), self.rail.get_top()[1], 0.0])

    def board_y(self, share: float) -> float:
        """A height on the wall's front: 0 at its bottom edge, 1 at its top."""
        bottom, top = self.wall.get_bottom()[1], self.wall.get_top()[1]
        return float(bottom + share * (top - bottom))


@sample_of(JuryBox)
def _jury_box():
    box = JuryBox(5)
    jury = Jury(5, spacing=1.4, size=1.4).seat_in(box)
    jury.jurors[1].set_fill(palette.ACTIVE, opacity=1)
    return VGroup(box, jury)


class StageFrame(VGroup):
    """One stage of a layer as a frame that holds its own drawing (a vector, the jury), coloured
    by what the stage is; `caption` above names its size, `role` below what it is in the story."""

    def __init__(self, width: float, height: float, color, caption: str, role: str, **kwargs):
        super().__init__(**kwargs)
        self.frame = RoundedRectangle(
            corner_radius=0.2, width=width, height=height, color=color, fill_opacity=0.12, stroke_width=3
        )
        self.caption = ty.label(caption, color=palette.INK).next_to(self.frame, UP, buff=0.2)
        self.role = ty.small(role).next_to(self.frame, DOWN, buff=0.2)
        self.add(self.frame, self.caption, self.role)

    def light_up(self, opacity: float = 0.35):
        """Animation: the stage is the one being spoken about (its frame fills)."""
        return self.frame.animate.set_fill(opacity=opacity)


@sample_of(StageFrame)
def _stage_frame():
    return StageFrame(2.0, 2.4, palette.FFN, "8 neuronas", "jurado")
