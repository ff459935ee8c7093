"""A pre-norm decoder block drawn around its residual stream, and the stack it repeats into.

The residual stream is a vertical line the data climbs. Each sublayer is a *station* off
to its right: a tap reads the stream, an RMSNorm box rescales the copy, the sublayer box
(attention in gold, the FFN in blue) works on it, and a return path writes the result back
into the stream at a "+" node. Every arrow carries a :class:`ShapeTag` with the shape the
model computes there. A :class:`Slab` is the data itself: one row per position, which the
scene moves along the arrows.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    ArcBetweenPoints,
    Arrow,
    Circle,
    Dot,
    Line,
    Rectangle,
    RoundedRectangle,
    VGroup,
    VMobject,
    interpolate_color,
)

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

STREAM_COLOR = palette.INK
TAG_GAP = 0.18  # space between an arrow and its tag


# -- small pieces ------------------------------------------------------------------------------


class ShapeTag(VGroup):
    """The shape a tensor has on one arrow, written `rows × cols` with Spanish thousands
    (`4 096 × 4 096`). `shape` keeps the numbers it was built from."""

    def __init__(self, shape, color=palette.MUTED, **kwargs):
        super().__init__(**kwargs)
        rows, cols = (int(v) for v in shape)
        self.shape = (rows, cols)
        self.text = ty.label(f"{ty.fmt_int(rows)} × {ty.fmt_int(cols)}", color=color)
        self.add(self.text)


@sample_of(ShapeTag)
def _shape_tag():
    return ShapeTag(number("block.llama2_7b.shape.ffn_hidden").value)


class AddNode(VGroup):
    """A "+" in a circle on the stream: where a sublayer's output is added back."""

    def __init__(self, radius: float = 0.22, color=STREAM_COLOR, **kwargs):
        super().__init__(**kwargs)
        self.circle = Circle(radius=radius, color=color, stroke_width=4, fill_color=palette.BACKGROUND, fill_opacity=1)
        arm = radius * 0.6
        self.cross = VGroup(
            Line(LEFT * arm, RIGHT * arm, color=color, stroke_width=4),
            Line(DOWN * arm, UP * arm, color=color, stroke_width=4),
        )
        self.add(self.circle, self.cross)
        self.radius = radius


@sample_of(AddNode)
def _add_node():
    return AddNode()


class SublayerBox(VGroup):
    """A rounded box in a sublayer's colour, its name near the top and, below the name, a
    free slot where a passing :class:`Slab` sits (`slot`)."""

    def __init__(self, text: str, color, width: float, height: float = 1.3, **kwargs):
        super().__init__(**kwargs)
        self.box = RoundedRectangle(
            corner_radius=0.16,
            width=width,
            height=height,
            color=color,
            fill_color=color,
            fill_opacity=0.12,
            stroke_width=3,
        )
        self.label = ty.label(text)
        if self.label.width > width - 0.3:
            self.label.scale_to_fit_width(width - 0.3)
        self.label.move_to(self.box.get_top() + DOWN * (0.1 + self.label.height / 2))
        self.add(self.box, self.label)

    @property
    def slot(self) -> np.ndarray:
        """Centre of the free space under the label."""
        return (self.label.get_bottom() + self.box.get_bottom()) / 2 * np.array(
            [0, 1, 0]
        ) + self.box.get_center() * np.array([1, 0, 0])

    def light_up(self, opacity: float = 0.4):
        return self.box.animate.set_fill(opacity=opacity)

    def light_down(self):
        return self.box.animate.set_fill(opacity=0.12)


@sample_of(SublayerBox)
def _sublayer_box():
    return SublayerBox("FFN", palette.FFN, width=3.2)


class Slab(VGroup):
    """The data of one sequence: a square of `n_rows` rows (one per position, drawn few).

    Rows start with uneven brightness (vectors of different sizes); `normalized_rows()`
    evens them out, as RMSNorm does. `notes(color)` are marks written into the rows, the
    same width as the slab: adding to the stream changes the numbers, not the shape."""

    def __init__(self, size: float = 0.6, n_rows: int = 6, color=palette.MUTED, seed: int = 7, **kwargs):
        super().__init__(**kwargs)
        rng = np.random.default_rng(seed)
        self.frame = Rectangle(
            width=size,
            height=size,
            stroke_color=palette.INK,
            stroke_width=2,
            fill_color=palette.BACKGROUND,
            fill_opacity=1,
        )
        pitch = size / n_rows
        self.rows = VGroup()
        for i in range(n_rows):
            row = Rectangle(
                width=size * 0.84,
                height=pitch * 0.62,
                stroke_width=0,
                fill_color=color,
                fill_opacity=float(rng.uniform(0.2, 1.0)),
            )
            row.move_to(self.frame.get_top() + DOWN * (pitch * (i + 0.5)))
            self.rows.add(row)
        self.n_rows = n_rows
        self.add(self.frame, self.rows)

    def normalized_rows(self, opacity: float = 0.7):
        """Animation: every row to the same brightness."""
        return self.rows.animate.set_fill(opacity=opacity)

    def notes(self, color, seed: int) -> VGroup:
        """One mark inside each row, at a seeded place: what a sublayer wrote into the stream."""
        rng = np.random.default_rng(seed)
        marks = VGroup()
        for row in self.rows:
            length = row.width * float(rng.uniform(0.25, 0.5))
            start = float(rng.uniform(0, row.width - length))
            mark = Rectangle(width=length, height=row.height, stroke_width=0, fill_color=color, fill_opacity=1)
            mark.move_to(row.get_left() + RIGHT * (start + length / 2))
            marks.add(mark)
        return marks


@sample_of(Slab)
def _slab():
    slab = Slab(size=1.2)
    return VGroup(slab, slab.notes(palette.FFN, seed=1))


def polyline(*points, color=STREAM_COLOR, stroke_width: float = 4) -> VMobject:
    """A path through `points` with sharp corners (for slabs to move along, or to draw)."""
    path = VMobject(color=color, stroke_width=stroke_width)
    path.set_points_as_corners([np.array(p, dtype=float) for p in points])
    return path


# -- the block ---------------------------------------------------------------------------------


class Station(VGroup):
    """One sublayer wired to the stream: tap -> RMSNorm -> sublayer -> return -> "+" node.

    Geometry (scene units): the stream at `stream_x`; the flow runs right along `read_y`
    and comes back left along `write_y`. Paths for a moving slab: `to_norm`, `to_sublayer`,
    `back` (sublayer slot -> "+")."""

    def __init__(
        self,
        name: str,
        color,
        stream_x: float,
        read_y: float,
        write_y: float,
        norm_x: tuple[float, float] = (-3.2, -1.0),
        sublayer_x: tuple[float, float] = (2.1, 6.7),
        **kwargs,
    ):
        super().__init__(**kwargs)
        box_y = read_y + 0.15  # boxes sit a little high so the slab's slot is on the flow line
        self.norm = SublayerBox("RMSNorm", palette.MUTED, width=norm_x[1] - norm_x[0])
        self.norm.move_to(((norm_x[0] + norm_x[1]) / 2, box_y, 0))
        self.sublayer = SublayerBox(name, color, width=sublayer_x[1] - sublayer_x[0])
        self.sublayer.move_to(((sublayer_x[0] + sublayer_x[1]) / 2, box_y, 0))
        flow_y = self.norm.slot[1]
        self.junction = Dot((stream_x, flow_y, 0), radius=0.08, color=STREAM_COLOR)
        self.tap = Line((stream_x, flow_y, 0), (norm_x[0], flow_y, 0), color=STREAM_COLOR, stroke_width=4)
        self.arrow = Arrow(
            (norm_x[1], flow_y, 0),
            (sublayer_x[0], flow_y, 0),
            buff=0.05,
            color=STREAM_COLOR,
            stroke_width=4,
            max_tip_length_to_length_ratio=0.12,
        )
        self.add_node = AddNode().move_to((stream_x, write_y, 0))
        top = self.sublayer.box.get_top()
        corner = (top[0], write_y, 0)
        self.rise = Line(top, corner, color=STREAM_COLOR, stroke_width=4)
        self.back_arrow = Arrow(
            corner,
            self.add_node.get_right(),
            buff=0.02,
            color=STREAM_COLOR,
            stroke_width=4,
            max_tip_length_to_length_ratio=0.04,
        )
        self.wires = VGroup(self.junction, self.tap, self.arrow, self.rise, self.back_arrow)
        self.add(self.wires, self.norm, self.sublayer, self.add_node)
        self.flow_y, self.write_y, self.stream_x = flow_y, write_y, stream_x
        self.to_norm = polyline((stream_x, flow_y, 0), self.norm.slot)
        self.to_sublayer = polyline(self.norm.slot, self.sublayer.slot)
        self.back = polyline(self.sublayer.slot, (top[0], flow_y, 0), corner, self.add_node.get_center())

    def arrow_tag(self, shape) -> ShapeTag:
        """Tag for the norm -> sublayer arrow, above it."""
        return ShapeTag(shape).next_to(self.arrow, UP, buff=TAG_GAP)

    def back_tag(self, shape) -> ShapeTag:
        """Tag for the return arrow, above its middle."""
        return ShapeTag(shape).next_to(self.back_arrow, UP, buff=TAG_GAP)


@sample_of(Station)
def _station():
    return Station("FFN", palette.FFN, stream_x=-4.2, read_y=-0.6, write_y=0.9)


class ResidualStream(VGroup):
    """The residual stream: a vertical line from `bottom` to `top` at `x`, climbing (tip on top)."""

    def __init__(self, x: float, bottom: float, top: float, **kwargs):
        super().__init__(**kwargs)
        self.line = Arrow(
            (x, bottom, 0),
            (x, top, 0),
            buff=0,
            color=STREAM_COLOR,
            stroke_width=7,
            max_tip_length_to_length_ratio=0.04,
            max_stroke_width_to_length_ratio=10,
        )
        self.add(self.line)
        self.x, self.bottom, self.top = x, bottom, top

    def point(self, y: float) -> np.ndarray:
        return np.array([self.x, y, 0.0])

    def tag(self, shape, y0: float, y1: float, gap: float = 0.45) -> ShapeTag:
        """Tag for the stretch of stream between heights y0 and y1, to the stream's left."""
        tag = ShapeTag(shape)
        tag.move_to((self.x - gap - tag.width / 2, (y0 + y1) / 2, 0))
        return tag


@sample_of(ResidualStream)
def _residual_stream():
    return ResidualStream(0.0, -1.5, 1.5)


class BlockDiagram(VGroup):
    """A LLaMA-style decoder block filling the frame: the stream on the left, the attention
    station low, the FFN station high. `stations[0]` is attention, `stations[1]` the FFN.

    `levels` are the stream's heights: bottom, read 1, write 1, read 2, write 2, top."""

    def __init__(
        self,
        attention_name: str,
        ffn_name: str,
        stream_x: float = -3.8,
        levels=(-3.75, -2.45, -0.95, 0.55, 2.0, 3.7),
        **kwargs,
    ):
        super().__init__(**kwargs)
        bottom, read1, write1, read2, write2, top = levels
        self.stream = ResidualStream(stream_x, bottom, top)
        self.stations = VGroup(
            Station(attention_name, palette.ATTENTION, stream_x, read1, write1),
            Station(ffn_name, palette.FFN, stream_x, read2, write2),
        )
        self.add(self.stream, self.stations)
        self.levels = levels

    @property
    def attention(self) -> Station:
        return self.stations[0]

    @property
    def ffn(self) -> Station:
        return self.stations[1]

    def outline(self, opacity: float = 0.3) -> VGroup:
        """The block's shape, dim and without words: the stream, each station's wires and
        boxes. A copy, shown while the pieces are named and drawn over it one by one."""
        parts = [self.stream.line]
        for s in self.stations:
            parts += [s.tap, s.arrow, s.rise, s.back_arrow, s.norm.box, s.sublayer.box, s.add_node.circle]
        ghost = VGroup(*(p.copy() for p in parts))
        for piece in ghost.family_members_with_points():  # arrow tips are filled, boxes tinted
            piece.set_stroke(opacity=opacity)
            piece.set_fill(opacity=min(piece.get_fill_opacity(), opacity))
        return ghost

    def stream_stretches(self) -> tuple[tuple[float, float], ...]:
        """(y0, y1) of the stream's five arrows: in, past attention, between, past the FFN, out."""
        a, f = self.attention, self.ffn
        return (
            (self.stream.bottom, a.flow_y),
            (a.flow_y, a.write_y),
            (a.write_y, f.flow_y),
            (f.flow_y, f.write_y),
            (f.write_y, self.stream.top),
        )


@sample_of(BlockDiagram)
def _block_diagram():
    return BlockDiagram("Atención", "FFN")


# -- the other views -------------------------------------------------------------------------


class PositionRows(VGroup):
    """A sequence seen up close: `n_rows` rows, one per position, top to bottom in order."""

    def __init__(
        self,
        n_rows: int,
        width: float = 3.0,
        row_height: float = 0.62,
        gap: float = 0.18,
        color=palette.MUTED,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.rows = VGroup(
            *(
                RoundedRectangle(
                    corner_radius=0.06,
                    width=width,
                    height=row_height,
                    stroke_color=color,
                    stroke_width=2,
                    fill_color=color,
                    fill_opacity=0.35,
                )
                for _ in range(n_rows)
            )
        ).arrange(DOWN, buff=gap)
        self.add(self.rows)

    def causal_arcs(self, color=palette.ATTENTION) -> VGroup:
        """One arc on the left for every pair of positions: a position reads every earlier one
        (a decoder's attention looks back, never ahead). Wider spans bulge further out."""
        arcs = VGroup()
        n = len(self.rows)
        for i in range(n):
            for j in range(i):
                start = self._anchor(i, j, n)
                end = self._anchor(j, i, n)
                arcs.add(ArcBetweenPoints(start, end, angle=-1.6, color=color, stroke_width=3, stroke_opacity=0.8))
        return arcs

    def _anchor(self, row: int, partner: int, n: int) -> np.ndarray:
        """A point on row `row`'s left edge, higher for partners further up (nesting arcs)."""
        box = self.rows[row]
        share = 0.5 - (partner + 0.5) / n  # +0.5 (top) .. -0.5 (bottom)
        return box.get_left() + UP * share * box.height * 0.8 + LEFT * 0.04


@sample_of(PositionRows)
def _position_rows():
    rows = PositionRows(4)
    return VGroup(rows, rows.causal_arcs())


class BlockStack(VGroup):
    """`n_blocks` blocks stacked bottom to top inside `height`, the residual stream running
    through all of them on the left. Each block: an attention part (gold) and an FFN part
    (blue) beside the stream; `blocks[0]` is the bottom one."""

    def __init__(self, n_blocks: int, height: float = 6.8, width: float = 3.0, gap_share: float = 0.3, **kwargs):
        super().__init__(**kwargs)
        if n_blocks < 1:
            raise ValueError(f"a block stack needs at least one block, got {n_blocks}")
        pitch = height / n_blocks
        block_h = pitch * (1 - gap_share)
        self.blocks = VGroup()
        for i in range(n_blocks):
            shell = Rectangle(
                width=width,
                height=block_h,
                stroke_color=palette.MUTED,
                stroke_width=1.5,
                fill_color=palette.INACTIVE,
                fill_opacity=0.5,
            )
            # Left to right inside the shell: the stream (at 0.16 of the width), attention, the FFN.
            part_w = width * 0.3
            att = Rectangle(
                width=part_w, height=block_h * 0.7, stroke_width=0, fill_color=palette.ATTENTION, fill_opacity=0.9
            ).move_to(shell.get_center() + LEFT * width * 0.07)
            ffn = Rectangle(
                width=part_w, height=block_h * 0.7, stroke_width=0, fill_color=palette.FFN, fill_opacity=0.9
            ).move_to(shell.get_center() + RIGHT * width * 0.28)
            block = VGroup(shell, att, ffn).shift(UP * (i * pitch))
            block.attention, block.ffn = att, ffn
            self.blocks.add(block)
        self.blocks.move_to((0, 0, 0))
        left = self.blocks.get_left()[0] + width * 0.16
        self.stream = Arrow(
            (left, self.blocks.get_bottom()[1] - 0.3, 0),
            (left, self.blocks.get_top()[1] + 0.35, 0),
            buff=0,
            color=STREAM_COLOR,
            stroke_width=6,
            max_tip_length_to_length_ratio=0.04,
        )
        self.add(self.blocks, self.stream)
        self.n_blocks = n_blocks

    def stream_point(self, share: float) -> np.ndarray:
        """A point on the stream, `share` of the way from its bottom (0) to its top (1)."""
        start, end = self.stream.get_start(), self.stream.get_end()
        return start + (end - start) * share


@sample_of(BlockStack)
def _block_stack():
    return BlockStack(number("relay.n_layers").value * 2)


def tint(color, amount: float):
    """`color` mixed with the stream's ink: a passing slab takes its sublayer's colour."""
    return interpolate_color(palette.MUTED, color, amount)
