"""Drawings for the lecture's frame: the title card (the chapter map's lines, the FFN's share
of a model's parameters), the closing card (a terminal, the credits) and two small pictures the
closing scene uses (a piano-roll strip with one re-punched hole, a shelf of keys and values,
labelled «llave» and «valor»); the registry as a grid of one cell per number (both cards), and
a row vector's empty places (the expand/contract scene)."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Arrow,
    Circle,
    DashedVMobject,
    Dot,
    Line,
    Polygon,
    Rectangle,
    RoundedRectangle,
    Square,
    Text,
    VGroup,
)

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

MONO = "DejaVu Sans Mono"  # a terminal's font; has the same accents as the type scale's


# -- the title card -------------------------------------------------------------------------
class ShareBar(VGroup):
    """A model's parameters as one long bar; the FFN's share of it filled in the FFN's colour.
    `fill.width / frame.width` equals `share`."""

    def __init__(self, share: float, width: float = 11.0, height: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"a share lies between 0 and 1, got {share!r}")
        self.share = share
        self.frame = Rectangle(width=width, height=height, color=palette.MUTED, stroke_width=3)
        self.rest = Rectangle(
            width=width * (1 - share), height=height, stroke_width=0, fill_color=palette.INACTIVE, fill_opacity=0.8
        )
        self.rest.align_to(self.frame, RIGHT)
        self.fill = Rectangle(
            width=width * share, height=height, stroke_width=0, fill_color=palette.FFN, fill_opacity=0.9
        )
        self.fill.align_to(self.frame, LEFT)
        self.add(self.rest, self.fill, self.frame)

    def tick(self, share: float) -> Line:
        """A vertical mark at `share` of the bar's length (from its left end)."""
        x = self.frame.get_left()[0] + share * self.frame.width
        return Line(
            (x, self.frame.get_bottom()[1] - 0.15, 0),
            (x, self.frame.get_top()[1] + 0.15, 0),
            color=palette.ATTENTION,
            stroke_width=5,
        )


@sample_of(ShareBar)
def _share_bar():
    share = number("params.llama2_7b.ffn_share_of_total").value
    bar = ShareBar(share, width=8.0)
    caption = ty.label(
        f"FFN: {ty.fmt_percent(share)} de {number('params.llama2_7b.display_name').value}", color=palette.FFN
    )
    return VGroup(bar, caption.next_to(bar, DOWN, buff=0.3))


def _glyph_iceberg(size: float) -> VGroup:
    s = size
    berg = Polygon(
        *(
            np.array(p) * s
            for p in [
                (-0.45, 0.05, 0),
                (-0.15, 0.4, 0),
                (0.05, 0.3, 0),
                (0.2, 0.45, 0),
                (0.45, 0.05, 0),
                (0.35, -0.4, 0),
                (-0.3, -0.45, 0),
            ]
        ),
        color=palette.FFN,
        fill_opacity=0.5,
        stroke_width=3,
    )
    water = Line((-0.55 * s, 0.12 * s, 0), (0.55 * s, 0.12 * s, 0), color=palette.INK, stroke_width=3)
    return VGroup(berg, water)


def _glyph_xor(size: float) -> VGroup:
    d = 0.28 * size
    colors = (palette.POSITIVE, palette.NEGATIVE, palette.NEGATIVE, palette.POSITIVE)
    spots = [(-d, d), (d, d), (-d, -d), (d, -d)]
    return VGroup(*(Dot((x, y, 0), radius=0.11 * size / 0.9, color=c) for (x, y), c in zip(spots, colors)))


def _glyph_relu(size: float) -> VGroup:
    s = size
    axis = Line((-0.5 * s, -0.3 * s, 0), (0.5 * s, -0.3 * s, 0), color=palette.MUTED, stroke_width=2)
    flat = Line((-0.45 * s, -0.3 * s, 0), (0.0, -0.3 * s, 0), color=palette.INACTIVE, stroke_width=6)
    ramp = Line((0.0, -0.3 * s, 0), (0.45 * s, 0.4 * s, 0), color=palette.ACTIVE, stroke_width=6)
    return VGroup(axis, flat, ramp)


def _glyph_needles(size: float) -> VGroup:
    s = size
    needles = VGroup()
    for k, angle in enumerate((0.0, 1.2, 0.2, 1.0)):
        base = np.array([(-0.36 + 0.24 * k) * s, -0.3 * s, 0])
        tip = base + 0.55 * s * np.array([np.sin(angle) * 0.4, np.cos(angle) * 0.2 + 0.8 * (angle > 0.5), 0])
        if angle < 0.5:
            tip = base + np.array([0.2 * s, 0.05 * s, 0])
        color = palette.ACTIVE if angle > 0.5 else palette.INACTIVE
        needles.add(Line(base, tip, color=color, stroke_width=5), Dot(base, radius=0.05, color=palette.MUTED))
    return needles


def _glyph_stamps(size: float) -> VGroup:
    s = size
    handle = RoundedRectangle(
        corner_radius=0.05, width=0.25 * s, height=0.35 * s, color=palette.MUTED, fill_opacity=0.6, stroke_width=2
    ).move_to((-0.15 * s, 0.22 * s, 0))
    pad = Rectangle(width=0.55 * s, height=0.14 * s, color=palette.POSITIVE, fill_opacity=0.9, stroke_width=0).move_to(
        (-0.15 * s, -0.02 * s, 0)
    )
    mark = Square(0.3 * s, color=palette.POSITIVE, fill_opacity=0.7, stroke_width=0).move_to((0.28 * s, -0.3 * s, 0))
    return VGroup(handle, pad, mark)


def _glyph_piano_roll(size: float) -> VGroup:
    s = size
    paper = Rectangle(
        width=1.0 * s, height=0.7 * s, color=palette.MUTED, fill_color=palette.INK, fill_opacity=0.15, stroke_width=2
    )
    holes = VGroup(
        *(
            Rectangle(
                width=0.12 * s,
                height=0.08 * s,
                stroke_width=0,
                fill_opacity=1,
                fill_color=palette.HIGHLIGHT if k == 2 else palette.BACKGROUND,
            ).move_to(((-0.36 + 0.18 * k) * s, (0.2 - 0.13 * ((3 * k) % 4)) * s, 0))
            for k in range(5)
        )
    )
    return VGroup(paper, holes)


def _glyph_stencil(size: float) -> VGroup:
    s = size
    card = Rectangle(
        width=0.9 * s,
        height=0.7 * s,
        color=palette.MUTED,
        fill_color=palette.INACTIVE,
        fill_opacity=0.9,
        stroke_width=2,
    )
    hole = Circle(
        radius=0.2 * s, color=palette.ATTENTION, fill_color=palette.ATTENTION, fill_opacity=0.9, stroke_width=0
    )
    return VGroup(card, hole)


def _glyph_relay(size: float) -> VGroup:
    s = size
    first = Arrow((-0.55 * s, 0, 0), (-0.02 * s, 0, 0), color=palette.ATTENTION, buff=0, stroke_width=6)
    second = Arrow((0.02 * s, 0, 0), (0.55 * s, 0, 0), color=palette.FFN, buff=0, stroke_width=6)
    return VGroup(first, second)


GLYPHS = {
    "iceberg": _glyph_iceberg,
    "xor": _glyph_xor,
    "relu": _glyph_relu,
    "needles": _glyph_needles,
    "stamps": _glyph_stamps,
    "piano_roll": _glyph_piano_roll,
    "stencil": _glyph_stencil,
    "relay": _glyph_relay,
}


class ChapterTile(VGroup):
    """One chapter of the lecture as a line of its map: a small picture of its metaphor (when
    it has one, `glyph` in GLYPHS; None for a plain marker) left of its name."""

    def __init__(self, glyph: str | None, name: str, width: float = 4.35, height: float = 0.85, **kwargs):
        super().__init__(**kwargs)
        if glyph is not None and glyph not in GLYPHS:
            raise ValueError(f"unknown chapter glyph {glyph!r}; known: {', '.join(GLYPHS)} (or None)")
        self.frame = RoundedRectangle(
            corner_radius=0.1,
            width=width,
            height=height,
            color=palette.MUTED,
            stroke_width=2,
            fill_color=palette.INK,
            fill_opacity=0.04,
        )
        # The picture's square, left in the frame; a chapter without one gets a small marker
        # and its name the room.
        slot = min(height * 0.75, 0.62) if glyph is not None else 0.16
        left = self.frame.get_left() + RIGHT * (0.15 + slot / 2)
        if glyph is None:
            self.picture = Dot(radius=0.07, color=palette.FFN).move_to(left)
        else:
            self.picture = GLYPHS[glyph](slot).move_to(left)
        self.name = _wrapped(name, room=width - slot - 0.5)
        # A title too long for two lines is shrunk rather than clipped (the layout check flags it).
        if self.name.height > height - 0.1:
            self.name.scale_to_fit_height(height - 0.1)
        if self.name.width > width - slot - 0.5:
            self.name.scale_to_fit_width(width - slot - 0.5)
        self.name.next_to(left, RIGHT, buff=slot / 2 + 0.2)
        self.add(self.frame, self.picture, self.name)

    def slot(self) -> DashedVMobject:
        """The line's place before its chapter appears: a dashed outline of its frame."""
        outline = self.frame.copy().set_fill(opacity=0).set_stroke(color=palette.INACTIVE, width=2)
        return DashedVMobject(outline, num_dashes=40)

    def light_up(self):
        return self.frame.animate.set_stroke(color=palette.FFN, width=4)

    def light_down(self):
        return self.frame.animate.set_stroke(color=palette.MUTED, width=2)


@sample_of(ChapterTile)
def _chapter_tile():
    return ChapterTile("iceberg", "El iceberg")


def _wrapped(text: str, room: float) -> VGroup:
    """`text` in ty.small type on one line, or on two (split at the space that makes the
    longer line shortest) when one line is wider than `room`."""
    one = ty.small(text, color=palette.INK)
    words = text.split()
    if one.width <= room or len(words) < 2:
        return VGroup(one)
    splits = [
        VGroup(ty.small(" ".join(words[:k]), color=palette.INK), ty.small(" ".join(words[k:]), color=palette.INK))
        for k in range(1, len(words))
    ]
    best = min(splits, key=lambda lines: max(line.width for line in lines))
    return best.arrange(DOWN, aligned_edge=LEFT, buff=0.08)


def chapter_map(tiles: VGroup, columns: int = 3, buff: tuple[float, float] = (0.2, 0.1)) -> VGroup:
    """Lay chapter lines out as a table of contents: down the first column, then the next
    (reading order is playing order)."""
    rows = -(-len(tiles) // columns)  # ceiling
    return tiles.arrange_in_grid(rows=rows, cols=columns, buff=buff, flow_order="dr")


# -- the closing card -----------------------------------------------------------------------
class TerminalBox(VGroup):
    """A terminal window: a title bar with three dots and lines of monospace text.
    Lines starting with "$ " are commands (bright); the others are output (muted)."""

    def __init__(self, lines, width: float = 11.5, font_size: float = 28, **kwargs):
        super().__init__(**kwargs)
        self.font_size = font_size
        self.lines = VGroup(*(self._line(text) for text in lines))
        self.lines.arrange(DOWN, aligned_edge=LEFT, buff=0.22)
        # Text trims leading spaces: indent each line by its spaces times the font's advance.
        advance = Text("MMMMMMMMMM", font=MONO, font_size=font_size).width / 10
        for text, line in zip(lines, self.lines):
            line.shift(RIGHT * advance * (len(text) - len(text.lstrip(" "))))
        width = max(width, self.lines.width + 0.7)  # the window always holds its longest line
        height = max(self.lines.height + 0.9, 1.4)
        self.window = RoundedRectangle(
            corner_radius=0.15,
            width=width,
            height=height,
            color=palette.MUTED,
            stroke_width=2,
            fill_color="#0A0D14",
            fill_opacity=1,
        )
        self.bar = Line(
            self.window.get_corner(UP + LEFT) + DOWN * 0.38,
            self.window.get_corner(UP + RIGHT) + DOWN * 0.38,
            color=palette.MUTED,
            stroke_width=1,
        )
        self.dots = VGroup(*(Dot(radius=0.07, color=c) for c in (palette.POSITIVE, palette.ATTENTION, palette.ACTIVE)))
        self.dots.arrange(RIGHT, buff=0.14).move_to(self.window.get_corner(UP + LEFT) + RIGHT * 0.5 + DOWN * 0.19)
        self.lines.next_to(self.bar, DOWN, buff=0.25).align_to(self.window.get_left() + RIGHT * 0.35, LEFT)
        self.add(self.window, self.bar, self.dots, self.lines)

    def _line(self, text: str) -> Text:
        color = palette.ACTIVE if text.startswith("$ ") else palette.INK
        return Text(text.lstrip(" "), font=MONO, font_size=self.font_size, color=color)


@sample_of(TerminalBox)
def _terminal_box():
    return TerminalBox(["$ ffn-video gallery", "renders/preview/gallery/index.html"], width=7.0)


class CreditLine(VGroup):
    """'Role: who', the role muted and the name bright."""

    def __init__(self, role: str, who: str, **kwargs):
        super().__init__(**kwargs)
        self.role = ty.label(role, color=palette.MUTED)
        self.who = ty.body(who)
        VGroup(self.role, self.who).arrange(RIGHT, buff=0.3, aligned_edge=DOWN)
        self.add(self.role, self.who)


@sample_of(CreditLine)
def _credit_line():
    return CreditLine("Voz:", "Kokoro")


# -- pictures for the closing scene ---------------------------------------------------------
class FactStrip(VGroup):
    """A piano-roll strip: one punched hole per fact, at a lane of its own. `repunch(i)` moves
    fact i's hole to a new lane (the edit); `confirm_others(i)` marks every other hole kept."""

    def __init__(self, n_facts: int, width: float = 12.0, height: float = 2.4, lanes: int = 5, **kwargs):
        super().__init__(**kwargs)
        if n_facts < 1:
            raise ValueError("a strip needs at least one fact")
        self.paper = Rectangle(
            width=width, height=height, color=palette.MUTED, fill_color=palette.INK, fill_opacity=0.12, stroke_width=2
        )
        self.lane_y = [height / 2 - (k + 0.5) * height / lanes for k in range(lanes)]
        step = (width - 0.8) / max(n_facts - 1, 1)
        self.holes = VGroup()
        self.lanes = []
        for i in range(n_facts):
            lane = (3 * i + i // 2) % lanes
            self.lanes.append(lane)
            hole = RoundedRectangle(
                corner_radius=0.04,
                width=0.42,
                height=0.3,
                stroke_width=0,
                fill_color=palette.BACKGROUND,
                fill_opacity=1,
            )
            hole.move_to((-width / 2 + 0.4 + i * step, self.lane_y[lane], 0))
            self.holes.add(hole)
        self.add(self.paper, self.holes)

    def repunch(self, i: int):
        lane = (self.lanes[i] + 2) % len(self.lane_y)
        target = self.holes[i].get_center().copy()
        target[1] = self.lane_y[lane] + self.paper.get_center()[1]
        return self.holes[i].animate.move_to(target).set_fill(color=palette.HIGHLIGHT)

    def confirm_others(self, i: int):
        return AnimationGroup(
            *(hole.animate.set_stroke(color=palette.ACTIVE, width=3) for k, hole in enumerate(self.holes) if k != i)
        )


@sample_of(FactStrip)
def _fact_strip():
    return FactStrip(number("piano_roll.n_facts").value, width=8.0)


class KeyValueShelf(VGroup):
    """Three shelves of the model's library: a key (what is asked) wired to a value (the
    answer kept). `answer()` lights one key and its value, as a question brushes it."""

    def __init__(self, rows: int = 3, **kwargs):
        super().__init__(**kwargs)
        self.rows = VGroup()
        for r in range(rows):
            key = VGroup(
                Circle(radius=0.22, color=palette.FFN, stroke_width=4),
                Line((0.22, 0, 0), (0.9, 0, 0), color=palette.FFN, stroke_width=4),
                Line((0.7, 0, 0), (0.7, -0.18, 0), color=palette.FFN, stroke_width=4),
                Line((0.85, 0, 0), (0.85, -0.14, 0), color=palette.FFN, stroke_width=4),
            )
            wire = Arrow((1.1, 0, 0), (2.6, 0, 0), color=palette.MUTED, buff=0, stroke_width=4)
            value = RoundedRectangle(
                corner_radius=0.08, width=1.4, height=0.55, color=palette.POSITIVE, fill_opacity=0.15, stroke_width=3
            ).move_to((3.4, 0, 0))
            row = VGroup(key, wire, value).shift(DOWN * 0.8 * r)
            self.rows.add(row)
        self.heads = VGroup(
            ty.label("llave", color=palette.FFN).next_to(self.rows[0][0], UP, buff=0.25),
            ty.label("valor", color=palette.POSITIVE).next_to(self.rows[0][2], UP, buff=0.2),
        )
        self.add(self.rows, self.heads)

    def answer(self, row: int = 1):
        key, wire, value = self.rows[row]
        return AnimationGroup(
            key.animate.set_stroke(color=palette.ACTIVE, width=6),
            wire.animate.set_color(palette.ACTIVE),
            value.animate.set_fill(color=palette.POSITIVE, opacity=0.8),
        )


@sample_of(KeyValueShelf)
def _key_value_shelf():
    return KeyValueShelf()


# -- the registry, drawn on both cards --------------------------------------------------------
class RegistryGrid(VGroup):
    """The registry of the lecture's numbers as a grid: one cell per number, in rows of
    `columns`, in reading order, unlit. `spans(counts)` gives the cells of each kind, one run
    after another, to be lit in the kind's colour as the voice names it."""

    def __init__(self, size: int, columns: int = 32, cell: float = 0.15, gap: float = 0.035, **kwargs):
        super().__init__(**kwargs)
        if size < 1:
            raise ValueError(f"a registry grid needs at least one number, got {size}")
        self.add(*(Square(cell, stroke_width=0, fill_color=palette.INACTIVE, fill_opacity=0.9) for _ in range(size)))
        self.arrange_in_grid(cols=columns, buff=gap, flow_order="rd")

    def spans(self, counts) -> list[VGroup]:
        """The cells of each kind (counts in order), one run after another in reading order."""
        if sum(counts) > len(self):
            raise ValueError(f"the kinds count {sum(counts)} numbers but the grid has {len(self)} cells")
        out, start = [], 0
        for n in counts:
            out.append(VGroup(*self[start : start + n]))
            start += n
        return out


@sample_of(RegistryGrid)
def _registry_grid():
    grid = RegistryGrid(number("cards.registry_size").value)
    counts = [number(f"cards.n_{k}").value for k in ("computed", "published", "quoted")]
    for span, color in zip(grid.spans(counts), (palette.ACTIVE, palette.FFN, palette.ATTENTION)):
        span.set_fill(color, opacity=0.95)
    return grid


# -- the expand/contract scene: a row vector's place before its numbers ----------------------
class RowSlots(VGroup):
    """Where a row vector goes before its numbers are known: its brackets and one dim box per
    entry, at the entries' places (built from the row itself, so the numbers drop into it).
    `boxes[j]` is entry j's box."""

    def __init__(self, row, color=palette.MUTED, **kwargs):
        super().__init__(**kwargs)
        self.brackets = row.brackets.copy()
        pitch = row.entries[0][1].get_x() - row.entries[0][0].get_x() if len(row.entries[0]) > 1 else row.grid.width
        size = min(row.grid.height + 0.12, pitch * 0.8)
        self.boxes = VGroup(
            *(
                RoundedRectangle(
                    corner_radius=0.06, width=pitch * 0.8, height=size, color=color, stroke_width=2
                ).move_to(entry)
                for entry in row.entries[0]
            )
        )
        self.add(self.brackets, self.boxes)


@sample_of(RowSlots)
def _row_slots():
    from scenes.kit.matrix import VectorRow

    return RowSlots(VectorRow(number("expand_contract.expanded").value))
