"""A relay race on the residual stream: runners, a baton, the track, the readings.

* `Runner`: a running stick figure (head, torso, bent arms and legs) in its role's colour:
  attention (context) gold, FFN (memory) blue. `place(x, phase)` sets where it is and the
  moment of its stride; `run_to` animates a leg of the race, strides included.
* `Baton`: what the runners pass: the word's stream moving on.
* `Track`: a running lane that is the residual stream. Its contributions are stripes
  stacked in the lane, one per step, each in its runner's colour: a new stripe is laid
  over the older ones, which stay (the stream is added to, never overwritten).
* `ProbabilityBar`: the answer's probability read at a point of the track.
* `HeadRow`: one attention head's weights of the last word, one cell per word.
* `RelayStack`: a long race folded into rows, one mini runner per sublayer, a norm gate
  before each runner and one at the finish; `path` is the baton's way through it.
* `BlockMoves`: a block's two moves on a horizontal residual stream: each station reads the
  stream, works in its box (attention gold, FFN blue) and adds its result back at a "+".
"""

from __future__ import annotations

import math

import numpy as np
from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UP,
    ArcBetweenPoints,
    Arrow,
    Circle,
    Line,
    Rectangle,
    RoundedRectangle,
    UpdateFromAlphaFunc,
    VGroup,
    VMobject,
    interpolate_color,
)

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.blocks import StageBox
from scenes.kit.gallery_samples import sample_of

# The figure in units of its height, feet at y = 0, facing right (the direction of the race).
HIP = np.array([0.0, 0.50, 0.0])
NECK = np.array([0.10, 0.80, 0.0])
HEAD_OFFSET = np.array([0.05, 0.12, 0.0])
HEAD_RADIUS = 0.09
THIGH, SHIN, UPPER_ARM, FOREARM = 0.26, 0.25, 0.17, 0.15
ORIGIN3 = np.zeros(3)


def _toward(point, angle: float, length: float):
    """`point` plus `length` along `angle` (0 = straight down, positive = forward)."""
    return point + length * np.array([math.sin(angle), -math.cos(angle), 0.0])


class Runner(VGroup):
    """A stick figure running to the right, in `color`; `height` is head to foot."""

    def __init__(self, color, height: float = 1.4, **kwargs):
        super().__init__(**kwargs)
        self.color_role = color
        self.size = height
        stroke = 4.5 * height + 1.0
        self.head = Circle(radius=HEAD_RADIUS * height, color=color, fill_color=color, fill_opacity=1.0, stroke_width=0)
        self.torso = Line(ORIGIN3, UP, color=color, stroke_width=stroke * 1.15)
        self.legs = VGroup(*(VMobject(color=color, stroke_width=stroke) for _ in range(2)))
        self.arms = VGroup(*(VMobject(color=color, stroke_width=stroke * 0.85) for _ in range(2)))
        self.add(self.legs, self.arms, self.torso, self.head)
        self.x, self.ground = 0.0, 0.0
        self.phase = 0.0
        self.baton: Baton | None = None
        self.place(0.0, 0.0)

    # -- pose ------------------------------------------------------------------------
    def place(self, x: float, phase: float, ground: float | None = None) -> Runner:
        """Stand the figure with its hip above `x`, feet on `ground`, at `phase` of its stride
        (0..1 is one full stride; 0 and 0.5 are the two moments with the legs apart)."""
        self.x, self.phase = float(x), float(phase)
        if ground is not None:
            self.ground = float(ground)
        h = self.size
        origin = np.array([self.x, self.ground, 0.0])
        swing = math.sin(2 * math.pi * self.phase)
        hip, neck = origin + h * HIP, origin + h * NECK
        self.torso.put_start_and_end_on(hip, neck)
        self.head.move_to(neck + h * HEAD_OFFSET)
        for leg, side in zip(self.legs, (1, -1)):
            thigh = 0.65 * side * swing
            bend = 0.3 + 0.5 * max(0.0, -side * swing)  # the leg swinging back folds its knee
            knee = _toward(hip, thigh, h * THIGH)
            leg.set_points_as_corners([hip, knee, _toward(knee, thigh - bend, h * SHIN)])
        for arm, side in zip(self.arms, (-1, 1)):  # each arm swings against its leg
            upper = 0.7 * side * swing
            elbow = _toward(neck, upper, h * UPPER_ARM)
            arm.set_points_as_corners([neck, elbow, _toward(elbow, upper + 1.6, h * FOREARM)])
        if self.baton is not None:
            self.baton.move_to(self.hand())
        return self

    def hand(self):
        """Where the baton is held: the end of the second arm."""
        return self.arms[1].points[-1].copy()

    def carry(self, baton: Baton | None) -> Runner:
        self.baton = baton
        if baton is not None:
            baton.move_to(self.hand())
        return self

    def run_to(self, x: float, strides: float) -> UpdateFromAlphaFunc:
        """Animation: run from here to `x` taking `strides` strides (the baton goes along)."""
        start, phase = self.x, self.phase

        def step(mob: Runner, alpha: float) -> None:
            mob.place(start + alpha * (x - start), phase + alpha * strides)

        return UpdateFromAlphaFunc(self, step)


@sample_of(Runner)
def _runner():
    runner = Runner(palette.ATTENTION).place(0.0, 0.2)
    return runner.carry(Baton())


class Baton(RoundedRectangle):
    """The relay baton: a short bright tube."""

    def __init__(self, size: float = 1.0, **kwargs):
        super().__init__(
            corner_radius=0.04 * size,
            width=0.34 * size,
            height=0.1 * size,
            stroke_width=0,
            fill_color=palette.HIGHLIGHT,
            fill_opacity=1.0,
            **kwargs,
        )


@sample_of(Baton)
def _baton():
    return Baton(size=3.0)


class Track(VGroup):
    """A running lane from `x0` to `x1`, its floor at `y`: the residual stream of one word.

    `stations` are the x where the baton changes hands (drawn as exchange marks). Stripes
    are stacked from the floor up, `slots` of them fit in the lane."""

    def __init__(self, x0: float, x1: float, y: float, stations, height: float = 0.7, slots: int = 5, **kwargs):
        super().__init__(**kwargs)
        self.x0, self.x1, self.y, self.lane_height, self.slots = x0, x1, y, height, slots
        self.stations = list(stations)
        self.floor = Line([x0, y, 0], [x1, y, 0], color=palette.INK, stroke_width=3)
        self.ceiling = Line([x0, y + height, 0], [x1, y + height, 0], color=palette.INK, stroke_width=3)
        self.marks = VGroup(
            *(
                Line([s, y - 0.08, 0], [s, y + height + 0.08, 0], color=palette.MUTED, stroke_width=2.5).set_opacity(
                    0.7
                )
                for s in self.stations
            )
        )
        self.add(self.floor, self.ceiling, self.marks)
        self.stripes = VGroup()
        self.add(self.stripes)

    def stripe(self, color, start_x: float) -> Rectangle:
        """A new contribution in the next free slot of the lane, starting at `start_x` (zero length;
        grow it with `reach`)."""
        slot = len(self.stripes)
        if slot >= self.slots:
            raise ValueError(f"the lane holds {self.slots} stripes; a stripe number {slot + 1} does not fit")
        thickness = self.lane_height / self.slots
        bar = Rectangle(width=0.01, height=thickness * 0.86, stroke_width=0, fill_color=color, fill_opacity=0.85)
        bar.move_to([start_x, self.y + thickness * (slot + 0.5), 0], aligned_edge=LEFT)
        bar.start_x = start_x
        self.stripes.add(bar)
        return bar

    def reach(self, x: float) -> None:
        """Every stripe runs from where it was added to `x`: what was added stays in the stream."""
        for bar in self.stripes:
            width = max(x - bar.start_x, 0.01)
            bar.stretch_to_fit_width(width)
            bar.move_to([bar.start_x, bar.get_center()[1], 0], aligned_edge=LEFT)


@sample_of(Track)
def _track():
    track = Track(-3.0, 3.0, 0.0, stations=[-1.0, 1.0])
    track.stripe(palette.ATTENTION, -3.0)
    track.stripe(palette.FFN, -1.0)
    track.reach(3.0)
    return track


class ProbabilityBar(VGroup):
    """A vertical bar whose height is a probability (0..1), its percentage above it and the
    word the readout ranks first below it."""

    def __init__(
        self,
        probability: float,
        text: str,
        word: str,
        color,
        full_height: float = 1.7,
        width: float = 0.7,
        word_color=palette.INK,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.probability = probability
        self.full_height = full_height
        self.frame = Rectangle(
            width=width, height=full_height, stroke_color=palette.MUTED, stroke_width=1.5, fill_opacity=0
        )
        self.bar = Rectangle(
            width=width, height=max(full_height * probability, 0.01), stroke_width=0, fill_color=color, fill_opacity=0.9
        )
        self.bar.move_to(self.frame.get_bottom(), aligned_edge=DOWN)
        self.value = ty.label(text, color=color).next_to(self.frame, UP, buff=0.12)
        self.word = ty.label(f"«{word}»", color=word_color).next_to(self.frame, DOWN, buff=0.14)
        self.add(self.frame, self.bar, self.value, self.word)


@sample_of(ProbabilityBar)
def _relay_probability_bar():
    p = number("relay.p_attention1").value
    return ProbabilityBar(p, ty.fmt_percent(p), number("relay.answer").value, palette.FFN)


class HeadRow(VGroup):
    """One attention head's weights for the last word: a cell per word, centred at `xs`,
    filled in the attention colour as strongly as its weight, with the weight written in it."""

    def __init__(self, weights, texts, xs, y: float, name: str, cell_width: float = 1.5, height: float = 0.5, **kwargs):
        super().__init__(**kwargs)
        self.weights = tuple(weights)
        self.cells = VGroup()
        self.values = VGroup()
        for w, text, x in zip(weights, texts, xs):
            cell = Rectangle(
                width=cell_width,
                height=height,
                stroke_color=palette.ATTENTION,
                stroke_width=1.5,
                fill_color=palette.ATTENTION,
                fill_opacity=0.08 + 0.8 * w,
            ).move_to([x, y, 0])
            ink = palette.BACKGROUND if w > 0.55 else palette.INK
            self.cells.add(cell)
            self.values.add(ty.label(text, color=ink).scale_to_fit_height(min(0.28, height * 0.6)).move_to(cell))
        self.name = ty.label(name, color=palette.ATTENTION).next_to(self.cells, LEFT, buff=0.3)
        self.add(self.cells, self.values, self.name)


@sample_of(HeadRow)
def _head_row():
    block, head = 0, 1
    weights = number("relay.attention").value[block][head]
    xs = [(i - (len(weights) - 1) / 2) * 1.6 for i in range(len(weights))]
    name = f"cabeza {number('relay.head_numbers').value[head]}"
    return HeadRow(weights, [ty.fmt_decimal(w) for w in weights], xs, 0.0, name)


class RelayStack(VGroup):
    """`n_blocks` blocks raced one after another, folded into `rows` rows: in each block a
    gold runner (attention) then a blue one (FFN), each behind a grey norm gate; a last gate
    at the finish. `runners` and `gates` are in race order."""

    def __init__(
        self,
        n_blocks: int,
        rows: int = 4,
        width: float = 12.4,
        row_gap: float = 1.15,
        runner_height: float = 0.5,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if n_blocks % rows:
            raise ValueError(f"{n_blocks} blocks do not fold evenly into {rows} rows")
        per_row = 2 * n_blocks // rows  # runners per row
        step = width / per_row
        self.runners, self.gates, self.lanes = VGroup(), VGroup(), VGroup()
        for r in range(rows):
            y = -r * row_gap
            self.lanes.add(Line([-width / 2, y, 0], [width / 2, y, 0], color=palette.MUTED, stroke_width=2))
            # Even rows race to the right, odd rows come back: the race is one folded lane.
            order = range(per_row) if r % 2 == 0 else range(per_row - 1, -1, -1)
            for k, i in enumerate(order):
                x = -width / 2 + (i + 0.5) * step
                n = r * per_row + k
                color = palette.ATTENTION if n % 2 == 0 else palette.FFN
                runner = Runner(color, height=runner_height).place(x + 0.05 * step, 0.15 + 0.3 * n, ground=y)
                if r % 2:
                    runner.flip(UP)  # facing the way this row runs
                gate_x = x - 0.4 * step if r % 2 == 0 else x + 0.4 * step
                gate = Line(
                    [gate_x, y, 0], [gate_x, y + runner_height * 0.8, 0], color=palette.INK, stroke_width=3
                ).set_opacity(0.8)
                self.runners.add(runner)
                self.gates.add(gate)
        half = width / 2
        self.turns = VGroup()
        for r in range(rows - 1):  # the lane turns at the end of each row into the next
            side = half if r % 2 == 0 else -half
            self.turns.add(
                ArcBetweenPoints(
                    [side, -r * row_gap, 0],
                    [side, -(r + 1) * row_gap, 0],
                    angle=-PI if r % 2 == 0 else PI,
                    color=palette.MUTED,
                    stroke_width=2,
                )
            )
        corners = []
        lift = runner_height * 0.45
        for r in range(rows):
            ends = (-half, half) if r % 2 == 0 else (half, -half)
            corners += [[ends[0], -r * row_gap + lift, 0], [ends[1], -r * row_gap + lift, 0]]
        # The baton's way through the race (invisible; it moves with the group).
        self.path = VMobject(stroke_opacity=0).set_points_as_corners(np.array(corners, dtype=float))
        last = self.runners[-1]
        end_x = last.get_left()[0] - 0.3 * step if rows % 2 == 0 else last.get_right()[0] + 0.3 * step
        end_y = -(rows - 1) * row_gap
        self.finish = Line(
            [end_x, end_y, 0], [end_x, end_y + runner_height * 0.8, 0], color=palette.INK, stroke_width=3
        ).set_opacity(0.8)
        self.gates.add(self.finish)
        self.add(self.lanes, self.turns, self.gates, self.runners, self.path)


@sample_of(RelayStack)
def _relay_stack():
    return RelayStack(number("relay.large.n_blocks").value)


class MoveStation(VGroup):
    """One move of a block over a horizontal stream at height `stream_y`: a tap reads the
    stream at `box.left - reach`, the box works, and its result is added back at a "+" node
    at `box.right + reach`. `note` (under the stream, below the box) says what the move does."""

    def __init__(
        self,
        name: str,
        note: str,
        color,
        center_x: float,
        stream_y: float,
        box_y: float,
        width: float = 3.2,
        height: float = 1.3,
        reach: float = 0.45,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.box = StageBox(name, color, width=width, height=height).move_to([center_x, box_y, 0])
        left, right = self.box.get_left()[0], self.box.get_right()[0]
        tap_x, add_x = left - reach, right + reach
        wire = dict(color=palette.INK, stroke_width=3)
        self.read = VGroup(
            Line([tap_x, stream_y, 0], [tap_x, box_y, 0], **wire),
            Arrow([tap_x, box_y, 0], [left, box_y, 0], buff=0.02, max_tip_length_to_length_ratio=0.5, **wire),
        )
        self.plus = _plus_node([add_x, stream_y, 0], color)
        self.write = VGroup(
            Line([right, box_y, 0], [add_x, box_y, 0], **wire),
            Arrow(
                [add_x, box_y, 0],
                self.plus.get_top(),
                buff=0.02,
                max_tip_length_to_length_ratio=0.12,
                **wire,
            ),
        )
        self.note = ty.label(note, color=color).move_to([center_x, stream_y - 0.62, 0])
        self.add(self.read, self.write, self.box, self.plus, self.note)


@sample_of(MoveStation)
def _move_station():
    return MoveStation("FFN", "recuerda lo que sabe", palette.FFN, center_x=0.0, stream_y=-0.5, box_y=0.8)


def _plus_node(at, color, radius: float = 0.2) -> VGroup:
    """A "+" in a circle: where a move's result is added to the stream."""
    circle = Circle(radius=radius, color=color, stroke_width=3, fill_color=palette.BACKGROUND, fill_opacity=1.0)
    arm = radius * 0.6
    cross = VGroup(
        Line(LEFT * arm, RIGHT * arm, color=color, stroke_width=3),
        Line(DOWN * arm, UP * arm, color=color, stroke_width=3),
    )
    return VGroup(circle, cross).move_to(at)


class BlockMoves(VGroup):
    """A block's two moves, attention then FFN, on the residual stream drawn left to right
    at `stream_y` from `x0` to `x1` (the line the race's track later becomes).
    `stations[0]` is attention, `stations[1]` the FFN; `name` labels the stream."""

    def __init__(
        self,
        stream_y: float = -0.05,
        box_y: float = 1.45,
        x0: float = -6.4,
        x1: float = 6.4,
        centers: tuple[float, float] = (-2.4, 2.9),
        notes: tuple[str, str] = ("reúne el contexto", "recuerda lo que sabe"),
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.stream = Arrow(
            [x0, stream_y, 0],
            [x1, stream_y, 0],
            buff=0,
            color=palette.INK,
            stroke_width=6,
            max_tip_length_to_length_ratio=0.03,
        )
        self.stations = VGroup(
            MoveStation("Atención", notes[0], palette.ATTENTION, centers[0], stream_y, box_y),
            MoveStation("FFN", notes[1], palette.FFN, centers[1], stream_y, box_y),
        )
        self.name = ty.small("flujo residual").move_to([0, stream_y - 0.62, 0]).align_to([x0, 0, 0], LEFT)
        self.add(self.stream, self.name, self.stations)


@sample_of(BlockMoves)
def _block_moves():
    return BlockMoves()


def tint(color, amount: float):
    """`color` mixed towards the background by `1 - amount` (a dimmer version of it)."""
    return interpolate_color(palette.BACKGROUND, color, amount)
