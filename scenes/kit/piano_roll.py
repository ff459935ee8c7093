"""A player-piano roll, and the pictures of one fact's rank-one edit.

The roll is a long paper strip wound between two spools. Its holes are punched in lanes,
one lane per note; a hole passing over the reading (tracker) bar plays its lane's note.
Only the stretch of paper between the spools is drawn: holes and printed words are clipped
to it as the paper scrolls, so nothing ever leaves the window.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Line,
    Rectangle,
    RoundedRectangle,
    Text,
    VGroup,
    interpolate_color,
    linear,
)

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

# The paper is a material, not a meaning: a pale neutral between the ink and the background.
PAPER = interpolate_color(palette.INK, palette.BACKGROUND, 0.18)
PAPER_SHADE = interpolate_color(palette.INK, palette.BACKGROUND, 0.45)  # paper wound on a spool
PRINT = palette.BACKGROUND  # words printed on the paper
LYRICS_FADE = 0.35  # scene units over which a printed word fades in at the window's edges
CHECK, CROSS = "✓", "✗"  # DejaVu Sans has both


class Spool(VGroup):
    """A spool seen from the front: paper wound on a core, between two flanges."""

    def __init__(self, height: float, width: float = 0.6, **kwargs):
        super().__init__(**kwargs)
        wound = Rectangle(width=width, height=height, stroke_width=0, fill_color=PAPER_SHADE, fill_opacity=1)
        turns = VGroup(
            *(
                Line(
                    wound.get_bottom() + RIGHT * x,
                    wound.get_top() + RIGHT * x,
                    color=palette.BACKGROUND,
                    stroke_width=1.5,
                    stroke_opacity=0.35,
                )
                for x in np.linspace(-width / 2 + 0.08, width / 2 - 0.08, 5)
            )
        )
        flanges = VGroup(
            *(
                RoundedRectangle(
                    corner_radius=0.05,
                    width=width + 0.3,
                    height=0.14,
                    stroke_width=0,
                    fill_color=palette.MUTED,
                    fill_opacity=1,
                ).move_to(wound.get_edge_center(e))
                for e in (UP, DOWN)
            )
        )
        self.add(wound, turns, flanges)


@sample_of(Spool)
def _spool():
    return Spool(height=2.0)


class ReadingBar(VGroup):
    """The tracker bar the paper slides over: a metal bar with one port per lane."""

    def __init__(self, n_lanes: int, lane_height: float, width: float = 0.22, **kwargs):
        super().__init__(**kwargs)
        self.lane_height = lane_height
        self.body = RoundedRectangle(
            corner_radius=0.06,
            width=width,
            height=n_lanes * lane_height + 0.3,
            stroke_color=palette.INK,
            stroke_width=2,
            fill_color=palette.MUTED,
            fill_opacity=0.55,
        )
        top = self.body.get_top()[1] - 0.15
        self.ports = VGroup(
            *(
                Rectangle(
                    width=width * 0.5,
                    height=lane_height * 0.45,
                    stroke_width=0,
                    fill_color=palette.BACKGROUND,
                    fill_opacity=1,
                ).move_to((0, top - (i + 0.5) * lane_height, 0))
                for i in range(n_lanes)
            )
        )
        self.add(self.body, self.ports)

    def port_glow(self, lane: int, color=palette.ACTIVE) -> Rectangle:
        """A lit port: the bar has read a hole in `lane`."""
        port = self.ports[lane]
        glow = Rectangle(
            width=self.body.width + 0.16,
            height=self.lane_height * 0.9,
            stroke_width=0,
            fill_color=color,
            fill_opacity=0.9,
        )
        return glow.move_to(port)


@sample_of(ReadingBar)
def _reading_bar():
    return ReadingBar(5, lane_height=0.3)


class Hole(Rectangle):
    """A rectangular hole punched in the roll at `column` (along the paper), in `lane`."""

    def __init__(self, column: int, lane: int, width: float, height: float, **kwargs):
        kwargs.setdefault("fill_color", palette.BACKGROUND)
        super().__init__(width=width, height=height, stroke_width=0, fill_opacity=1, **kwargs)
        self.column, self.lane, self.hole_width, self.hole_height = column, lane, width, height


def _on_paper(*marks) -> VGroup:
    """Marks on a strip of roll paper: a hole is the background showing through it."""
    paper = Rectangle(width=2.4, height=1.2, stroke_width=0, fill_color=PAPER, fill_opacity=1)
    return VGroup(paper, *marks)


@sample_of(Hole)
def _hole():
    return _on_paper(Hole(0, 0, 0.8, 0.3))


class Patch(Hole):
    """Paper taped over a hole, so it no longer plays."""

    def __init__(self, column: int, lane: int, width: float, height: float):
        super().__init__(column, lane, width + 0.1, height + 0.08, fill_color=PAPER_SHADE)
        self.set_stroke(palette.INK, width=1.5)


@sample_of(Patch)
def _patch():
    return _on_paper(Patch(0, 0, 0.8, 0.3))


class Roll(VGroup):
    """A piano roll between two spools, read by a bar.

    `lanes` names the notes (top lane first); `columns` gives, for each fact along the
    paper, the word printed under it and the lane of its hole. `offset` is how far the paper
    has moved (scene units): column j sits over the bar when `offset == offset_for(j)`.
    Move the roll as a whole with shift/move_to; do not scale it (positions are in units).
    """

    def __init__(
        self,
        lanes,
        columns,
        window_width: float = 11.4,
        lane_height: float = 0.235,
        spacing: float = 1.6,
        bar_from_left: float = 3.0,
        hole_width: float = 0.5,
        top_margin: float = 0.25,
        lyrics_margin: float = 0.6,
        offset: float = 0.0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.lanes = tuple(lanes)
        self.lane_height, self.spacing, self.bar_from_left = lane_height, spacing, bar_from_left
        self.top_margin = top_margin
        self.hole_size = (hole_width, lane_height * 0.62)
        height = top_margin + len(self.lanes) * lane_height + lyrics_margin
        self.paper = Rectangle(width=window_width, height=height, stroke_width=0, fill_color=PAPER, fill_opacity=1)
        self.guides = VGroup(
            *(
                Line(
                    LEFT * window_width / 2,
                    RIGHT * window_width / 2,
                    color=PAPER_SHADE,
                    stroke_width=1,
                    stroke_opacity=0.5,
                ).set_y(self._lane_y_local(i, height))
                for i in range(len(self.lanes))
            )
        )
        self.spools = VGroup(*(Spool(height + 0.1).next_to(self.paper, side, buff=0) for side in (LEFT, RIGHT)))
        self.bar = ReadingBar(len(self.lanes), lane_height)
        self.bar.move_to((-window_width / 2 + bar_from_left, self._lane_y_local((len(self.lanes) - 1) / 2, height), 0))
        self.marks = VGroup(
            *(Hole(j, self.lanes.index(lane_word), *self.hole_size) for j, (_, lane_word) in enumerate(columns))
        )
        self.lyrics = VGroup(*(Text(word, font=ty.FONT, font_size=ty.LABEL_SIZE, color=PRINT) for word, _ in columns))
        self.offset = offset
        self.add(self.paper, self.guides, self.marks, self.lyrics, self.spools, self.bar)
        self.place(offset)

    # -- geometry --------------------------------------------------------------------------
    def _lane_y_local(self, lane: float, height: float) -> float:
        return height / 2 - self.top_margin - (lane + 0.5) * self.lane_height

    def lane_y(self, lane: float) -> float:
        """Scene y of the middle of `lane`."""
        return self.paper.get_top()[1] - self.top_margin - (lane + 0.5) * self.lane_height

    def bar_x(self) -> float:
        return self.paper.get_left()[0] + self.bar_from_left

    def offset_for(self, column: float) -> float:
        """The offset that puts `column` over the reading bar."""
        return column * self.spacing

    def column_x(self, column: float, offset: float | None = None) -> float:
        """Scene x of `column`'s centre when the paper has moved by `offset`."""
        offset = self.offset if offset is None else offset
        return self.bar_x() + column * self.spacing - offset

    def hole(self, column: int) -> Hole:
        """The (last punched) hole of `column`."""
        return [m for m in self.marks if m.column == column and not isinstance(m, Patch)][-1]

    def center_paper_at(self, point) -> Roll:
        """Move the roll so the visible paper's centre is at `point` (the roll's own bounding
        box also holds the words printed on paper outside the window)."""
        return self.shift(np.asarray(point, dtype=float) - self.paper.get_center())

    # -- drawing ---------------------------------------------------------------------------
    def place(self, offset: float) -> Roll:
        """Move the paper to `offset`: holes clipped to the window, printed words faded at its edges."""
        self.offset = offset
        left, right = self.paper.get_left()[0], self.paper.get_right()[0]
        for mark in self.marks:
            x = self.column_x(mark.column, offset)
            half = mark.hole_width / 2
            lo, hi = max(x - half, left), min(x + half, right)
            y, h = self.lane_y(mark.lane), mark.hole_height / 2
            if hi <= lo:
                lo = hi = min(max(x, left), right)  # off the window: a degenerate, invisible rectangle
            mark.set_points_as_corners([(lo, y + h, 0), (hi, y + h, 0), (hi, y - h, 0), (lo, y - h, 0), (lo, y + h, 0)])
        baseline = self.paper.get_bottom()[1] + 0.3
        for j, word in enumerate(self.lyrics):
            word.move_to((self.column_x(j, offset), baseline, 0))
            room = min(word.get_left()[0] - left, right - word.get_right()[0])
            word.set_opacity(float(np.clip(room / LYRICS_FADE, 0.0, 1.0)))
        return self

    def repunch(self, column: int, new_lane: int) -> tuple[Patch, Hole]:
        """Tape over `column`'s hole and punch one in `new_lane`; returns both, placed and
        added to the roll (animate their appearance, e.g. with FadeIn)."""
        old = self.hole(column)
        patch = Patch(column, old.lane, *self.hole_size)
        hole = Hole(column, new_lane, *self.hole_size)
        self.marks.add(patch, hole)
        self.place(self.offset)
        return patch, hole

    def lane_tag(self, lane: int, color, side=LEFT) -> VGroup:
        """The note's name on a dark tag just beside the reading bar, pointing at its lane."""
        text = ty.label(self.lanes[lane], color=color)
        tag = RoundedRectangle(
            corner_radius=0.08,
            width=text.width + 0.3,
            height=text.height + 0.16,
            stroke_color=color,
            stroke_width=2,
            fill_color=palette.BACKGROUND,
            fill_opacity=0.92,
        )
        group = VGroup(tag, text)
        # Clear of the hole, which is wider than the bar.
        group.next_to(self.bar, side, buff=self.hole_size[0] / 2 + 0.1).set_y(self.lane_y(lane))
        return group


@sample_of(Roll)
def _roll():
    lanes = number("piano_roll.lanes").value
    subjects, answers = number("piano_roll.subjects").value, number("piano_roll.answers_before").value
    return Roll(lanes, list(zip(subjects, answers))[:5], window_width=8.0, bar_from_left=1.6)


class Scroll(Animation):
    """The paper moving at a steady speed until `column` is over the reading bar."""

    def __init__(self, roll: Roll, column: float, **kwargs):
        kwargs.setdefault("rate_func", linear)
        self.target = roll.offset_for(column)
        super().__init__(roll, **kwargs)

    def begin(self) -> None:
        self.start = self.mobject.offset
        super().begin()

    def interpolate_mobject(self, alpha: float) -> None:
        t = self.rate_func(alpha)
        self.mobject.place(self.start + (self.target - self.start) * t)


def fact_text(
    subject: str,
    answer: str,
    answer_color=palette.FFN,
    mark: str = "",
    mark_color=palette.ACTIVE,
    font_size: float = ty.BODY_SIZE,
) -> Text:
    """'limón → ácido ✓' as one line of text (one baseline), the answer and the mark coloured."""
    arrow_at = len(subject) + 1
    answer_at = arrow_at + 2
    line = f"{subject} → {answer}" + (f" {mark}" if mark else "")
    colors = {f"[{arrow_at}:{arrow_at + 1}]": palette.MUTED, f"[{answer_at}:{answer_at + len(answer)}]": answer_color}
    if mark:
        colors[f"[{len(line) - len(mark)}:{len(line)}]"] = mark_color
    return Text(line, font=ty.FONT, font_size=font_size, color=palette.INK, t2c=colors)


def note_line(subject: str, answer: str, answer_color=palette.FFN) -> Text:
    """The note a hole plays: 'limón → ácido'."""
    return fact_text(subject, answer, answer_color)


class ProbabilityBar(VGroup):
    """A word, a bar filled to its probability, and the probability written as the notation
    writes one (`ty.fmt_probability`: '98,0 %', '< 0,1 %', '> 99,9 %')."""

    def __init__(
        self,
        word: str,
        probability: float,
        color,
        track_width: float = 5.0,
        height: float = 0.34,
        word_width: float = 1.6,
        places: int | None = None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.probability = float(probability)
        self.word = ty.label(word, color=color)
        self.word.move_to((-track_width / 2 - 0.25 - word_width + self.word.width / 2, 0, 0))
        self.track = Rectangle(width=track_width, height=height, stroke_color=palette.MUTED, stroke_width=2)
        fill_width = max(track_width * self.probability, 0.001)
        self.fill = Rectangle(width=fill_width, height=height, stroke_width=0, fill_color=color, fill_opacity=0.85)
        self.fill.align_to(self.track, LEFT)
        # A probability as the notation writes it (one decimal, never a false 0 or 100 %),
        # unless `places` asks for a plain percentage.
        text = ty.fmt_probability(self.probability) if places is None else ty.fmt_percent(self.probability, places)
        self.value = ty.label(text, color=color)
        self.value.next_to(self.track, RIGHT, buff=0.25)
        self.add(self.track, self.fill, self.word, self.value)

    def fill_width(self) -> float:
        return self.fill.width


@sample_of(ProbabilityBar)
def _roll_probability_bar():
    return ProbabilityBar(
        number("piano_roll.answers_edit").value[1],
        number("piano_roll.new_probability_after").value,
        palette.FFN,
        track_width=3.0,
    )


def signed_color(value: float, scale: float):
    """Colour of an entry on the dark background: zero is dark, the sign picks the hue and
    |value| / scale its brightness (so a large entry stands out, as in a heat map)."""
    strength = min(abs(value) / scale, 1.0) if scale > 0 else 0.0
    hue = palette.POSITIVE if value >= 0 else palette.NEGATIVE
    return interpolate_color(palette.BACKGROUND, hue, 0.15 + 0.85 * strength**0.5)


def _strip(width: float, height: float, colors, direction) -> Rectangle:
    """A strip of cells drawn as ONE rectangle with a stepped colour gradient along
    `direction` (each colour held over its cell), so a 32 x 128 matrix is 32 mobjects, not
    4096: cheap to draw at any quality."""
    stops = [c for c in colors for _ in range(CELL_STOPS)]
    strip = Rectangle(width=width, height=height, stroke_width=0, fill_opacity=1)
    strip.set_fill(color=stops, opacity=1)
    strip.set_sheen_direction(direction)
    strip.cell_colors = list(colors)
    return strip


CELL_STOPS = 3  # gradient stops per cell: the colour holds over two thirds of the cell


class OuterProduct(VGroup):
    """A rank-one matrix drawn as the product of a column and a row: `column` (m) on the
    left, `row` (n) on top, and the m x n product, each cell coloured by its value's sign
    and size. Row i of the product is `column[i]` times the row: every row is the same
    pattern, scaled."""

    def __init__(
        self, column, row, width: float = 10.0, height: float = 4.6, strip: float = 0.34, gap: float = 0.2, **kwargs
    ):
        super().__init__(**kwargs)
        self.column_values = np.asarray(column, dtype=float)
        self.row_values = np.asarray(row, dtype=float)
        self.values = np.outer(self.column_values, self.row_values)
        m, _ = self.values.shape
        cell_h = height / m
        left, top = -width / 2, height / 2
        u_scale, v_scale = np.abs(self.column_values).max(), np.abs(self.row_values).max()
        self.column = _strip(strip, height, [signed_color(v, u_scale) for v in self.column_values], DOWN)
        self.column.move_to((left - gap - strip / 2, 0, 0))
        self.row = _strip(width, strip, [signed_color(v, v_scale) for v in self.row_values], RIGHT)
        self.row.move_to((0, top + gap + strip / 2, 0))
        scale = float(np.abs(self.values).max())
        self.product = VGroup(
            *(
                _strip(width, cell_h, [signed_color(v, scale) for v in values], RIGHT).move_to(
                    (0, top - (i + 0.5) * cell_h, 0)
                )
                for i, values in enumerate(self.values)
            )
        )
        self.frame = Rectangle(width=width, height=height, stroke_color=palette.MUTED, stroke_width=2)
        self.add(self.frame, self.column, self.row, self.product)

    def product_row(self, i: int) -> Rectangle:
        """Row i of the product: `column[i]` times the row."""
        return self.product[i]


@sample_of(OuterProduct)
def _outer_product():
    return OuterProduct(
        number("piano_roll.update_column").value, number("piano_roll.update_row").value, width=6.0, height=3.0
    )


class StreamToken(VGroup):
    """A vector riding the residual stream: its name (a formula) in a rounded box."""

    def __init__(self, content, color, **kwargs):
        super().__init__(**kwargs)
        self.box = RoundedRectangle(
            corner_radius=0.15,
            width=content.width + 0.5,
            height=content.height + 0.4,
            stroke_color=color,
            stroke_width=3,
            fill_color=palette.BACKGROUND,
            fill_opacity=1,
        )
        self.content = content.move_to(self.box)
        self.add(self.box, self.content)


@sample_of(StreamToken)
def _stream_token():
    return StreamToken(ty.math(r"x\,W_1"), palette.FFN)


class Checklist(VGroup):
    """Facts in a grid, `columns` to a row: 'subject → answer' and a check when the answer did
    not change (a cross when it did). `items[k]` is entry k; `free_cell()` is the next cell."""

    def __init__(
        self, entries, columns: int = 3, cell_width: float = 4.4, cell_height: float = 0.43, top: float = 0.0, **kwargs
    ):
        super().__init__(**kwargs)
        self.columns, self.cell_width, self.cell_height, self.top = columns, cell_width, cell_height, top
        self.items = []
        for k, (subject, answer, same) in enumerate(entries):
            item = fact_text(
                subject,
                answer,
                mark=CHECK if same else CROSS,
                mark_color=palette.ACTIVE if same else palette.HIGHLIGHT,
                font_size=ty.LABEL_SIZE,
            )
            # Left-aligned in its column, so the list reads as a list.
            item.move_to(self.cell(k)).align_to(self.cell(k) + LEFT * (cell_width / 2 - 0.3), LEFT)
            self.items.append(item)
        self.add(*self.items)

    def cell(self, k: int) -> np.ndarray:
        row, col = divmod(k, self.columns)
        return np.array(
            [(col - (self.columns - 1) / 2) * self.cell_width, self.top - (row + 0.5) * self.cell_height, 0.0]
        )

    def free_cell(self) -> np.ndarray:
        return self.cell(len(self.items))


@sample_of(Checklist)
def _checklist():
    subjects, before, after = (number(f"piano_roll.{k}").value for k in ("subjects", "answers_before", "answers_after"))
    entries = [(s, a, a == b) for s, b, a in zip(subjects, before, after)][:6]
    return Checklist(entries, columns=2, cell_width=3.6)
