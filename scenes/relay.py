"""The relay: each block gathers (attention, gold) then recalls (FFN, blue), on the residual stream.

A relay race on the track of one word's stream, run on the trained fact model
(ffn_core.relay) with "el limón es": the real attention weights of the last word, and the
answer's probability read after every sublayer (final norm + head on the stream). Each leg
lays its stripe in the lane over the ones before; none is erased. Then the same relay in
LLaMA-2 7B: its blocks, handoffs and norms, counted on its modules.
"""

from __future__ import annotations

import math

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UL,
    UP,
    UR,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    MoveAlongPath,
    ReplacementTransform,
    SurroundingRectangle,
    UpdateFromAlphaFunc,
    VGroup,
    VMobject,
    Write,
    linear,
)

from scenes.kit import notation as n
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.narrated import NarratedScene
from scenes.kit.relay import Baton, BlockMoves, HeadRow, ProbabilityBar, RelayStack, Runner, Track
from scenes.kit.steps import Step, play_in_steps
from scenes.kit.tokens import TokenRow

STATIONS = (-4.6, -2.0, 0.6, 3.2, 5.8)  # the start, the three exchanges, the finish
TRACK_START, TRACK_END, FLOOR_Y = -5.6, 6.7, -0.4
RUNNER_HEIGHT = 1.45
LANE_HEIGHT = 0.7  # the track's lane: the stream of the first beat, drawn as a running lane
BARS_BASE_Y, BARS_HEIGHT = -3.25, 1.55
HANDOFF_GAP = 0.65  # how far behind the next runner an arriving runner stops
READY_PHASE = 0.15  # a waiting runner's stance: a short step forward
STRIDES_PER_UNIT = 1.1  # strides per scene unit run (a drawing choice)
LEG_COLORS = (palette.ATTENTION, palette.FFN, palette.ATTENTION, palette.FFN)


class Relay(NarratedScene):
    script = "relay"
    # The bars and their words fill the bottom of the frame while the race is on.
    # The fact model's badge takes the top right during the race, the model's output the top left.
    citation_corners = {"salida": UL, "quien": UL, "grande": UL}

    def construct(self):
        self.words = self.number("relay.prompt_words")
        self.answer = self.number("relay.answer")
        self.top_words = self.number("relay.top_words")
        self.probabilities = self.number("relay.answer_probabilities")
        self.attention = self.number("relay.attention")
        self.blocks = self.number("relay.block_numbers")
        self.heads = self.number("relay.head_numbers")

        with self.beat("dos_movimientos") as b:
            # The block's two stations on the stream: the drawing the race's track grows out of.
            block = BlockMoves(stream_y=FLOOR_Y + LANE_HEIGHT / 2)
            att, ffn = block.stations
            moves = self._moves(block)
            # On screen from the first frame: the stream and its two stations; each station is
            # pointed out in turn while the voice says that a block makes two moves.
            self.add(block.stream, block.name, *(VGroup(s.read, s.box, s.write, s.plus) for s in block.stations))
            self.play(
                LaggedStart(
                    *(
                        Indicate(s.box, color=color, scale_factor=1.08)
                        for s, color in zip(block.stations, (palette.ATTENTION, palette.FFN))
                    )
                ),
                run_time=b.until("reunir"),
            )
            self.play(Write(moves[0]), att.box.light_up(), FadeIn(att.note), run_time=b.until("recordar"))
            self.play(
                Write(moves[1]),
                att.box.light_down(),
                ffn.box.light_up(),
                FadeIn(ffn.note),
                run_time=b.fraction(0.55),
            )
            sums = VGroup(
                *(SurroundingRectangle(m.get_part_by_tex("x +"), color=palette.HIGHLIGHT, buff=0.08) for m in moves)
            )
            self.play(
                Create(sums),
                ffn.box.light_down(),
                *(Indicate(s.plus, color=palette.HIGHLIGHT, scale_factor=1.4) for s in block.stations),
                run_time=b.speech_remaining(),
            )

        with self.beat("carrera") as b:
            self.track = Track(TRACK_START, TRACK_END, FLOOR_Y, STATIONS, height=LANE_HEIGHT)
            track_note = ty.body("la pista: el flujo residual").move_to([0, FLOOR_Y - 0.55, 0])
            boxes = VGroup(att.box, ffn.box)
            wiring = VGroup(*(VGroup(s.read, s.write, s.plus, s.note) for s in block.stations))
            # The stream becomes the track; the two stations wait on it for their runners.
            play_in_steps(
                self,
                b.until("pista"),
                (FadeOut(VGroup(moves, sums, wiring)), 0.35),
                (
                    (
                        # The lane's lines, not its (still empty) stripes, grow out of the stream.
                        ReplacementTransform(block.stream, VGroup(*self.track[:3])),
                        ReplacementTransform(block.name, track_note),
                        boxes.animate.arrange(RIGHT, buff=1.0).next_to(self.track, UP, buff=0.2),
                    ),
                    None,
                ),
            )
            self.add(self.track)
            self.runners = [
                Runner(color, RUNNER_HEIGHT).place(x, READY_PHASE, ground=FLOOR_Y)
                for color, x in zip(LEG_COLORS, STATIONS)
            ]
            roles = VGroup(
                *(
                    VGroup(ty.label(role, color=color), ty.small(layer, color=color)).arrange(DOWN, buff=0.1)
                    for role, layer, color in (
                        ("contexto", "atención", palette.ATTENTION),
                        ("memoria", "FFN", palette.FFN),
                    )
                )
            )
            for role, runner in zip(roles, self.runners):
                role.next_to(runner, UP, buff=0.3)
            # Each station becomes its runner: attention runs with the context, the FFN with the memory.
            arrivals = [VGroup(runner, role) for runner, role in zip(self.runners, roles)]
            self.play(*(FadeTransform(box, a) for box, a in zip(boxes, arrivals)), run_time=b.until("corredores"))
            self.remove(*arrivals)
            self.add(*self.runners[:2], roles)
            self.baton = Baton()
            self.runners[0].carry(self.baton)
            self.play(FadeIn(self.baton, scale=2.0), run_time=b.until("testigo"))
            self.play(self.runners[0].run_to(self.runners[0].x, 2.0), run_time=b.speech_remaining())

        with self.beat("salida") as b:
            self.fact_badge = model_badge(self, "fact_model").to_corner(UR, buff=0.15)
            self.tokens = TokenRow(self.words, gap=0.35).move_to(RIGHT * 0.6 + UP * 2.15)
            self.tokens.chips[-1].box.set_stroke(palette.HIGHLIGHT)
            block_marks = self._block_marks()
            play_in_steps(
                self,
                b.until("lente"),
                (FadeOut(VGroup(track_note, roles)), 0.3),
                (
                    (
                        FadeIn(self.tokens),
                        FadeIn(VGroup(*self.runners[2:])),
                        FadeIn(block_marks),
                        FadeIn(self.fact_badge),
                    ),
                    None,
                ),
            )
            embedding = self.track.stripe(palette.MUTED, TRACK_START)
            self.track.reach(STATIONS[0])
            self.bars = [self._bar(k) for k in range(len(STATIONS))]
            legends = self._legends()
            self.play(
                GrowFromEdge(embedding, LEFT), FadeIn(self.bars[0].frame), FadeIn(legends), run_time=b.until("apuesta")
            )
            self._reveal_bar(0, b.speech_remaining())

        with self.beat("atencion") as b:
            rows = self._head_rows(0)
            # The head rows need the top right: the badge steps out while they are shown.
            self.play(
                LaggedStart(*(FadeIn(r) for r in rows), lag_ratio=0.4),
                FadeOut(self.fact_badge),
                run_time=b.until("pesos"),
            )
            self._run_leg(0, b.until("sube_atencion"))
            self._reveal_bar(1, b.speech_remaining())

        with self.beat("memoria") as b:
            self._handoff(1, b.until("relevo"), FadeOut(rows))
            self._run_leg(1, b.until("sube_ffn"))
            self._reveal_bar(2, b.speech_remaining())

        with self.beat("segundo_bloque") as b:
            rows = self._head_rows(1)
            self._handoff(2, b.until("vuelta_atencion"), LaggedStart(*(FadeIn(r) for r in rows), lag_ratio=0.4))
            self._run_leg(2, 0.7 * b.until("vuelta_ffn"))
            self._reveal_bar(3, b.until("vuelta_ffn"))
            self._handoff(3, b.fraction(0.25), FadeOut(rows))
            self._run_leg(3, b.fraction(0.6))
            self._reveal_bar(4, b.fraction(0.5))
            output = VGroup(
                ty.label("salida del modelo"),
                ty.label(self._percent(self.number("relay.model_probability")), color=palette.FFN),
            )
            output.arrange(DOWN, buff=0.12).move_to(LEFT * 5.3 + UP * 2.4)  # the head rows are gone by now
            self.play(
                FadeIn(output), Indicate(self.bars[-1].value, color=palette.HIGHLIGHT), run_time=b.speech_remaining()
            )

        with self.beat("quien") as b:
            gains = self._gain_labels()
            self.play(
                FadeIn(gains[0], shift=UP * 0.2), FadeIn(gains[-1]), FadeIn(self.fact_badge), run_time=b.until("salto")
            )
            jump = SurroundingRectangle(gains[0], color=palette.HIGHLIGHT, buff=0.12)
            self.play(Create(jump), Indicate(self.bars[1].bar, color=palette.ATTENTION), run_time=b.until("suma"))
            self.play(
                FadeOut(jump),
                LaggedStart(*(FadeIn(g, shift=UP * 0.2) for g in gains[1:-1]), lag_ratio=0.3),
                run_time=b.until("capas"),
            )
            layers = SurroundingRectangle(self.track.stripes, color=palette.HIGHLIGHT, buff=0.06)
            self.play(
                Create(layers),
                LaggedStart(*(Indicate(s, scale_factor=1.0) for s in self.track.stripes), lag_ratio=0.3),
                run_time=b.speech_remaining(),
            )

        with self.beat("grande") as b:
            stack, heading, counts = self._large_relay()
            race = VGroup(
                self.track,
                *self.runners,
                self.baton,
                self.tokens,
                block_marks,
                legends,
                gains,
                layers,
                output,
                self.fact_badge,
                *self.bars,
            )
            llama = model_badge(self, "llama2_7b").to_corner(UR, buff=0.3)
            play_in_steps(
                self, 0.5 * b.until("relevos"), (FadeOut(race), 0.4), ((FadeIn(heading), FadeIn(llama)), None)
            )
            self.play(
                LaggedStart(*(FadeIn(r) for r in stack.runners), lag_ratio=0.05),
                FadeIn(stack.lanes),
                FadeIn(stack.turns),
                run_time=b.until("relevos"),
            )
            self.play(FadeIn(counts[0]), run_time=b.until("normas"))
            self.play(
                LaggedStart(
                    *(Indicate(g, color=palette.HIGHLIGHT, scale_factor=1.3) for g in stack.gates), lag_ratio=0.05
                ),
                FadeIn(stack.gates),
                FadeIn(counts[1]),
                run_time=b.speech_remaining(),
            )

        with self.beat("cierre") as b:
            baton = Baton(0.6).move_to(stack.path.get_start())
            looks = ty.title("mirar", color=palette.ATTENTION)
            recalls = ty.title("recordar", color=palette.FFN)
            VGroup(looks, recalls).arrange(RIGHT, buff=1.2).move_to(counts)
            self.play(FadeIn(baton), FadeOut(counts), FadeIn(looks), run_time=b.until("mirar"))
            self.play(FadeIn(recalls), run_time=b.until("recordar_final"))
            wave = LaggedStart(
                *(Indicate(r, color=r.color_role, scale_factor=1.4) for r in stack.runners),
                lag_ratio=0.08,
                rate_func=linear,
            )
            self.play(MoveAlongPath(baton, stack.path, rate_func=linear), wave, run_time=b.speech_remaining())

    # -- pieces -----------------------------------------------------------------------
    def _moves(self, block: BlockMoves) -> VGroup:
        """The two moves of a block as updates of the stream x, large, over the drawing of `block`."""
        # Pre-norm, as the fact model and LLaMA: each sublayer reads a normalised copy of x.
        gather = n.residual_attention(substrings_to_isolate=["x +"], color=palette.ATTENTION)
        recall = n.residual_ffn(substrings_to_isolate=["x +"], color=palette.FFN)
        for formula in (gather, recall):
            formula.scale(1.25)
        recall.next_to(gather, DOWN, buff=0.18).align_to(gather, LEFT)
        group = VGroup(gather, recall)
        group.next_to(block.stations, UP, buff=0.2).set_x(0)
        return group

    def _block_marks(self) -> VGroup:
        """A bracket over each block's two legs, named 'bloque n'."""
        marks = VGroup()
        y = FLOOR_Y + RUNNER_HEIGHT + 0.3
        for k, number in enumerate(self.blocks):
            left, right = STATIONS[2 * k] + 0.25, STATIONS[2 * k + 2] - 0.25
            line = VMobject(color=palette.MUTED, stroke_width=2).set_points_as_corners(
                [[left, y - 0.12, 0], [left, y, 0], [right, y, 0], [right, y - 0.12, 0]]
            )
            name = ty.label(f"bloque {number}", color=palette.MUTED).next_to(line, UP, buff=0.08)
            marks.add(VGroup(line, name))
        return marks

    def _percent(self, p: float) -> str:
        """A probability as the notation writes it: one decimal, '< 0,1 %' and '> 99,9 %' at the ends.

        A softmax never gives exactly 1; a float32 weight that rounded to 1.0 is written '> 99,9 %'."""
        return n.probability(min(p, math.nextafter(1.0, 0.0)))

    def _bar(self, k: int) -> ProbabilityBar:
        color = palette.MUTED if k == 0 else LEG_COLORS[k - 1]
        word = self.top_words[k]
        word_color = palette.HIGHLIGHT if word == self.answer else palette.INK
        bar = ProbabilityBar(
            self.probabilities[k],
            self._percent(self.probabilities[k]),
            word,
            color,
            full_height=BARS_HEIGHT,
            word_color=word_color,
        )
        bar.move_to([STATIONS[k], 0, 0])
        bar.shift(UP * (BARS_BASE_Y - bar.frame.get_bottom()[1]))
        return bar

    def _legends(self) -> VGroup:
        """Row names left of the bars: what the bar measures, and what the word under it is."""
        first = self.bars[0]
        measure = VGroup(ty.small("probabilidad"), ty.label(f"«{self.answer}»", color=palette.HIGHLIGHT))
        measure.arrange(DOWN, buff=0.1).move_to([-6.05, first.frame.get_center()[1], 0])
        favourite = ty.small("favorita").move_to([-6.05, first.word.get_center()[1], 0])
        return VGroup(measure, favourite)

    def _reveal_bar(self, k: int, window) -> None:
        bar = self.bars[k]
        steps: list[Step] = [((GrowFromEdge(bar.bar, DOWN), FadeIn(bar.value), FadeIn(bar.word)), None)]
        if k > 0:
            steps.insert(0, (FadeIn(bar.frame), 0.2))
        play_in_steps(self, window, *steps)

    def _head_rows(self, layer: int) -> VGroup:
        """The last word's attention in block `layer` (0-based): one row of cells per head."""
        xs = [chip.get_center()[0] for chip in self.tokens.chips]
        rows = VGroup()
        for h, (weights, number) in enumerate(zip(self.attention[layer], self.heads)):
            texts = [self._percent(w) for w in weights]
            y = self.tokens.get_top()[1] + 0.45 + (len(self.heads) - 1 - h) * 0.6
            rows.add(HeadRow(weights, texts, xs, y, f"cabeza {number}", cell_width=1.8))
        rows.add(
            ty.label(f"«{self.words[-1]}» mira", color=palette.ATTENTION)
            .next_to(self.tokens, LEFT, buff=0.3)
            .align_to(rows[0].name, RIGHT)
        )
        return rows

    def _run_leg(self, k: int, window) -> None:
        """Runner k runs from its station to the next, laying its stripe in the lane."""
        runner = self.runners[k]
        self.track.stripe(LEG_COLORS[k], STATIONS[k])  # its contribution, laid over the earlier ones
        self.bring_to_front(runner, self.baton)  # in front of the runner waiting for it
        distance = STATIONS[k + 1] - STATIONS[k]
        stream = self.track.stripes
        # The stripes are animated with the runner: a mobject no animation touches is drawn once per play.
        self.play(
            runner.run_to(STATIONS[k + 1] - HANDOFF_GAP, STRIDES_PER_UNIT * distance),
            UpdateFromAlphaFunc(stream, lambda _, __: self.track.reach(runner.x)),
            run_time=window,
        )

    def _handoff(self, k: int, window, *extra) -> None:
        """The baton passes from runner k-1 to runner k."""
        giver, taker = self.runners[k - 1], self.runners[k]
        giver.carry(None)
        self.play(self.baton.animate.move_to(taker.hand()), giver.animate.set_opacity(0.45), *extra, run_time=window)
        taker.carry(self.baton)

    def _gain_labels(self) -> VGroup:
        """What each leg added to the answer's probability, in percentage points, over its leg
        (the unit named once, at the left, like the bars' legends)."""
        gains = self.number("relay.gains")
        labels = VGroup()
        for k, g in enumerate(gains):
            places = 1 if g * 100 >= 0.95 else 2
            text = f"+{ty.fmt_decimal(100 * g, places)}"
            label = ty.label(text, color=LEG_COLORS[k])
            label.move_to([(STATIONS[k] + STATIONS[k + 1]) / 2, FLOOR_Y - 0.45, 0])
            labels.add(label)
        unit = ty.small("puntos\nporcentuales", color=palette.MUTED)
        unit.move_to([0, labels[0].get_y(), 0]).align_to([STATIONS[0] - 0.3, 0, 0], RIGHT)
        labels.add(unit)
        return labels

    def _large_relay(self):
        n_blocks = self.number("params.llama2_7b.n_layers")
        stack = RelayStack(n_blocks).move_to(UP * 0.1)
        heading = ty.title(f"{n_blocks} bloques").to_edge(UP, buff=0.35)  # the badge names the model
        handoffs = ty.body(f"{self.number('relay.large.handoffs')} relevos", color=palette.ATTENTION)
        norms = ty.body(f"{self.number('relay.large.norms')} normas")
        counts = VGroup(handoffs, norms).arrange(RIGHT, buff=1.5).to_edge(DOWN, buff=0.45)
        return stack, heading, counts
