"""One block, two stations: a LLaMA-2 7B decoder block around its residual stream.

RMSNorm -> attention -> add, then RMSNorm -> SwiGLU FFN -> add, with the shape the model
computes on every arrow; why two stations (attention mixes positions, the FFN works on
each alone); and the block repeated into the model's stack.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Brace,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowArrow,
    LaggedStart,
    MoveAlongPath,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
    VGroup,
    linear,
)

from scenes.kit import notation as nt
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.block_diagram import BlockDiagram, BlockStack, PositionRows, ShapeTag, Slab, polyline, tint
from scenes.kit.blocks import FlowArrow, StageBox
from scenes.kit.narrated import NarratedScene
from scenes.kit.steps import Step, play_in_steps

CLOSE_UP_ROWS = 6  # positions drawn in the close-up (a drawing choice; the note says how many there are)


class Block(NarratedScene):
    script = "block"

    def construct(self):
        ctx = self.number("block.llama2_7b.context_length")
        d_model = self.number("params.llama2_7b.d_model")
        d_ff = self.number("params.llama2_7b.d_ff")
        n_heads = self.number("params.llama2_7b.n_heads")
        model = nt.display_name(self.number("params.llama2_7b.display_name"))

        diagram = BlockDiagram(f"Atención · {ty.fmt_int(n_heads)} cabezas", "Feed-forward · SwiGLU")
        stream, att, ffn = diagram.stream, diagram.attention, diagram.ffn
        heading = ty.body(f"Un bloque de {model}").to_corner(UP + RIGHT, buff=0.35)
        badge = model_badge(self, "llama2_7b").next_to(heading, DOWN, buff=0.2).align_to(heading, RIGHT)
        tags = self._tags(diagram)
        slab = Slab()

        with self.beat("flujo") as b:
            # The block opened: its outline first, dim; each piece is drawn over it when it is named.
            outline = diagram.outline()
            # The outline and the heading are there from the first frame (the previous scene ends
            # full); the model's badge comes as the voice names it.
            self.add(heading, outline)
            self.play(FadeIn(badge), run_time=b.until("flujo"))
            self.play(GrowArrow(stream.line), run_time=b.until("cuaderno"))
            notebook = self._read_write_marks(diagram)
            play_in_steps(
                self,
                b.speech_remaining(),
                (FadeIn(VGroup(att.junction, att.tap, ffn.junction, ffn.tap), notebook[0]), 0.45),
                ((FadeIn(VGroup(att.add_node, ffn.add_node), scale=0.5), FadeIn(notebook[1])), None),
            )

        with self.beat("entrada") as b:
            big, labels = self._big_slab(slab, ctx, d_model)
            self.play(FadeIn(big), FadeOut(outline), run_time=b.until("losa"))
            self.play(FadeIn(labels[0]), run_time=b.until("columnas"))
            self.play(FadeIn(labels[1]), run_time=b.until("al_flujo"))
            slab.move_to(stream.point(stream.bottom + 0.4))
            play_in_steps(
                self,
                b.speech_remaining(),
                (FadeIn(labels[2]), 0.4),
                ((Transform(big, slab), FadeOut(labels), FadeOut(notebook), FadeIn(tags["input"])), None),
            )
            self.remove(big)
            self.add(slab)

        with self.beat("atencion") as b:
            self.play(slab.animate.move_to(stream.point(att.flow_y)), run_time=b.until("norma1"))
            branch = self._read_and_norm(b.until("atencion"), att, slab)
            self._into_sublayer(b.until("suma1"), att, branch, tags["norm1"], work_color=palette.ATTENTION)
            self._add_back(
                b.speech_remaining(), att, slab, branch, palette.ATTENTION, tags["attention"], tags["skip1"], seed=11
            )

        with self.beat("ffn") as b:
            self.play(slab.animate.move_to(stream.point(ffn.flow_y)), FadeIn(tags["add1"]), run_time=b.until("norma2"))
            branch = self._read_and_norm(b.until("ffn"), ffn, slab)
            self._into_sublayer(b.until("ancho"), ffn, branch, tags["norm2"])
            widen = d_ff / d_model  # the slab's width follows the real widths
            play_in_steps(
                self,
                b.until("vuelta"),
                ((branch.animate.stretch(widen, 0), ffn.sublayer.light_up(), FadeIn(tags["ffn_hidden"])), 0.6),
                (lambda: branch.rows.animate.set_fill(tint(palette.FFN, 0.9)), None),
            )
            self.play(branch.animate.stretch(1 / widen, 0), run_time=b.until("suma2"))
            self._add_back(b.fraction(0.75), ffn, slab, branch, palette.FFN, tags["ffn"], tags["skip2"], seed=23)
            self.play(
                slab.animate.move_to(stream.point(stream.top - 0.55)),
                FadeIn(tags["add2"]),
                run_time=b.speech_remaining(),
            )

        diagram_view = VGroup(heading, badge, diagram, VGroup(*tags.values()), slab)
        with self.beat("por_que_dos") as b:
            left, right, note = self._two_views(ctx)
            # The slab's rows, up close, on both sides: the same positions seen by each station.
            play_in_steps(
                self,
                b.until("mezclar"),
                (
                    (
                        FadeOut(VGroup(heading, badge, diagram, *tags.values(), slab)),
                        TransformFromCopy(slab, left.rows),
                        TransformFromCopy(slab, right.rows),
                    ),
                    0.6,
                ),
                ((FadeIn(left.heading), FadeIn(right.heading)), None),
            )
            # The last position's arcs reach every earlier one: it is the one the caption follows.
            last_arcs = VGroup(*left.arcs[-(CLOSE_UP_ROWS - 1) :])
            play_in_steps(
                self,
                b.until("a_solas"),
                ((Create(left.arcs, lag_ratio=0.1), FadeIn(left.caption)), 0.6),
                (
                    lambda: (
                        last_arcs.animate.set_stroke(width=6, opacity=1),
                        left.rows.rows[-1].animate.set_fill(palette.ATTENTION, opacity=0.6),
                    ),
                    None,
                ),
            )
            play_in_steps(
                self,
                b.speech_remaining(),
                ((FadeIn(right.arrows), FadeIn(right.boxes), FadeIn(note)), 0.3),
                (
                    LaggedStart(
                        *(
                            VGroup(row, box.box).animate.set_fill(palette.FFN, opacity=0.6)
                            for row, box in zip(right.rows.rows, right.boxes)
                        ),
                        lag_ratio=0.35,
                    ),
                    0.55,
                ),
                (FadeIn(right.caption), None),
            )
            views = VGroup(left, right, note)

        with self.beat("forma") as b:
            self.play(FadeOut(views), FadeIn(diagram_view), run_time=b.until("misma_forma"))
            order = ("input", "norm1", "attention", "skip1", "add1", "norm2", "ffn", "skip2", "add2")
            marker = SurroundingRectangle(tags[order[0]], color=palette.HIGHLIGHT, buff=0.08)
            window = b.until("ancha")
            play_in_steps(
                self,
                window,
                (Create(marker), 1 / len(order)),
                *(
                    (
                        Transform(marker, SurroundingRectangle(tags[k], color=palette.HIGHLIGHT, buff=0.08)),
                        1 / len(order) if k != order[-1] else None,
                    )
                    for k in order[1:]
                ),
            )
            wide = SurroundingRectangle(tags["ffn_hidden"], color=palette.FFN, buff=0.08)
            self.play(Transform(marker, wide), ffn.sublayer.light_up(), run_time=b.until("encaja"))
            ends = VGroup(
                *(SurroundingRectangle(tags[k], color=palette.HIGHLIGHT, buff=0.08) for k in ("input", "add2"))
            )
            self.play(
                FadeOut(marker),
                ffn.sublayer.light_down(),
                Create(ends),
                tags["input"].text.animate.set_color(palette.HIGHLIGHT),
                tags["add2"].text.animate.set_color(palette.HIGHLIGHT),
                run_time=b.speech_remaining(),
            )

        with self.beat("pila") as b:
            n_layers = self.number("params.llama2_7b.n_layers")
            stack = BlockStack(n_layers, height=6.4, width=3.6).move_to(LEFT * 2.4 + DOWN * 0.3)
            first = stack.blocks[0]
            # Zoom out: the block shrinks into the bottom of the stack, and the stack comes into view.
            play_in_steps(
                self,
                b.until("apilar"),
                ((FadeOut(ends), diagram_view.animate.scale(0.3).move_to(stack).fade(0.97)), 0.4),
                (
                    lambda: (
                        FadeTransform(diagram_view, first, stretch=True),
                        LaggedStart(*(FadeIn(block, shift=DOWN * 0.15) for block in stack.blocks[1:]), lag_ratio=0.1),
                        GrowArrow(stack.stream),
                    ),
                    None,
                ),
            )
            count, updates = self._count(stack, n_layers)
            self.play(FadeIn(count), run_time=b.until("sube"))
            climber = Slab(size=0.4).move_to(stack.stream_point(0.0))
            path = polyline(stack.stream_point(0.0), stack.stream_point(0.97))
            passes = LaggedStart(
                *(
                    VGroup(block.attention, block.ffn).animate(rate_func=_there_and_back_bright).set_fill(palette.INK)
                    for block in stack.blocks
                ),
                lag_ratio=0.3,
            )
            self.play(FadeIn(climber), FadeIn(updates), run_time=b.fraction(0.05))
            self.play(MoveAlongPath(climber, path, rate_func=linear), passes, run_time=b.fraction(0.85))
            reads = ty.label("→ siguiente token", color=palette.INK).next_to(climber, RIGHT, buff=0.3)
            reads.set_y(stack.stream.get_end()[1] - 0.1)
            self.play(FadeIn(reads), run_time=b.speech_remaining())

    # -- the two stations ----------------------------------------------------------------------
    def _read_and_norm(self, window, station, slab) -> Slab:
        """The norm box appears; a copy of the slab (the branch) leaves the stream and is evened out."""
        branch = slab.copy()
        play_in_steps(
            self,
            window,
            (FadeIn(station.norm), 0.25),
            (MoveAlongPath(branch, station.to_norm), 0.35),
            (branch.normalized_rows, None),
        )
        return branch

    def _into_sublayer(self, window, station, branch, arrow_tag, work_color=None) -> None:
        steps: list[Step] = [
            ((GrowArrow(station.arrow), FadeIn(station.sublayer), FadeIn(arrow_tag)), 0.3),
            (MoveAlongPath(branch, station.to_sublayer), 0.3),
        ]
        if work_color is not None:  # the sublayer's work shows as its colour entering the rows
            steps.append(
                (lambda: (branch.rows.animate.set_fill(tint(work_color, 0.9)), station.sublayer.light_up()), None)
            )
        else:
            steps[-1] = (steps[-1][0], None)
        play_in_steps(self, window, *steps)

    def _add_back(self, window, station, slab, branch, color, back_tag, skip_tag, seed) -> None:
        """The result rides the return path to the "+" while the stream's slab climbs to it;
        the sum leaves the node with the sublayer's notes written into the same rows."""
        node_y = station.write_y
        below = station.stream_x * RIGHT + (node_y - 0.45) * UP
        above = station.stream_x * RIGHT + (node_y + 0.45) * UP
        notes = slab.notes(color, seed).shift(above - slab.get_center())
        play_in_steps(
            self,
            window,
            ((Create(station.rise), GrowArrow(station.back_arrow), FadeIn(back_tag), FadeIn(skip_tag)), 0.3),
            ((MoveAlongPath(branch, station.back), slab.animate.move_to(below)), 0.35),
            (
                lambda: (
                    FadeOut(branch, scale=0.2),
                    slab.animate.move_to(above),
                    FadeIn(notes),
                    station.sublayer.light_down(),
                ),
                None,
            ),
        )
        slab.add(notes)

    # -- drawings assembled from the kit with this scene's numbers -------------------------------
    def _tags(self, diagram: BlockDiagram) -> dict[str, ShapeTag]:
        """One tag per arrow, each with the shape traced at that stage of the real block."""
        stream, att, ffn = diagram.stream, diagram.attention, diagram.ffn
        stretches = diagram.stream_stretches()
        return {
            "input": stream.tag(self.number("block.llama2_7b.shape.input"), *stretches[0]),
            "skip1": stream.tag(self.number("block.llama2_7b.shape.input"), *stretches[1]),
            "norm1": att.arrow_tag(self.number("block.llama2_7b.shape.norm1")),
            "attention": att.back_tag(self.number("block.llama2_7b.shape.attention")),
            "add1": stream.tag(self.number("block.llama2_7b.shape.add1"), *stretches[2]),
            "skip2": stream.tag(self.number("block.llama2_7b.shape.add1"), *stretches[3]),
            "norm2": ffn.arrow_tag(self.number("block.llama2_7b.shape.norm2")),
            "ffn_hidden": ShapeTag(self.number("block.llama2_7b.shape.ffn_hidden"), color=palette.FFN).next_to(
                ffn.sublayer, DOWN, buff=0.15
            ),
            "ffn": ffn.back_tag(self.number("block.llama2_7b.shape.ffn")),
            "add2": stream.tag(self.number("block.llama2_7b.shape.add2"), *stretches[4]),
        }

    def _read_write_marks(self, diagram: BlockDiagram) -> VGroup:
        """'lee' beside each tap and 'escribe: suma' beside each add node (the notebook's two verbs)."""
        reads = VGroup(
            *(ty.label("lee", color=palette.MUTED).next_to(s.tap, RIGHT, buff=0.2) for s in diagram.stations)
        )
        writes = VGroup(
            *(
                ty.label("escribe: suma", color=palette.MUTED).next_to(s.add_node, RIGHT, buff=0.25)
                for s in diagram.stations
            )
        )
        return VGroup(reads, writes)

    def _big_slab(self, slab: Slab, ctx: int, d_model: int) -> tuple[Slab, VGroup]:
        """The slab up close, with its two sizes and the count of numbers it holds."""
        big = slab.copy().scale(3.2 / slab.width).move_to(RIGHT * 3.3 + UP * 0.05)
        rows = Brace(big, LEFT, color=palette.MUTED)
        rows_label = VGroup(ty.label(f"hasta {ty.fmt_int(ctx)}"), ty.label("posiciones"))
        rows_label.arrange(DOWN, aligned_edge=RIGHT, buff=0.12).next_to(rows, LEFT, buff=0.2)
        cols = Brace(big, DOWN, color=palette.MUTED)
        cols_label = ty.label(f"{ty.fmt_int(d_model)} números por posición").next_to(cols, DOWN, buff=0.2)
        total = ty.label(
            f"con la ventana llena: {ty.fmt_int(self.number('block.llama2_7b.stream_numbers'))} números",
            color=palette.INK,
        )
        total.next_to(cols_label, DOWN, buff=0.3).set_x(2.2)
        return big, VGroup(VGroup(rows, rows_label), VGroup(cols, cols_label), total)

    def _two_views(self, ctx: int):
        """Attention across positions (left) and the FFN on each position alone (right)."""
        left = VGroup()
        left.heading = VGroup(ty.body("Atención", color=palette.ATTENTION), ty.label("entre posiciones"))
        left.heading.arrange(DOWN, buff=0.15).move_to(LEFT * 3.5 + UP * 3.2)
        left.rows = PositionRows(CLOSE_UP_ROWS).move_to(LEFT * 2.6 + UP * 0.1)
        left.arcs = left.rows.causal_arcs()
        left.caption = VGroup(ty.label("cada fila lee las anteriores"), ty.label("y a sí misma"))
        left.caption.arrange(DOWN, buff=0.1).next_to(left.rows, DOWN, buff=0.25)
        left.caption.set_x(-3.5)
        left.add(left.heading, left.rows, left.arcs, left.caption)

        right = VGroup()
        right.heading = VGroup(ty.body("Feed-forward", color=palette.FFN), ty.label("cada posición a solas"))
        right.heading.arrange(DOWN, buff=0.15).move_to(RIGHT * 3.4 + UP * 3.2)
        right.rows = PositionRows(CLOSE_UP_ROWS).move_to(RIGHT * 1.7 + UP * 0.1)
        right.boxes = VGroup(
            *(
                StageBox("FFN", palette.FFN, width=1.5, height=row.height).next_to(row, RIGHT, buff=1.1)
                for row in right.rows.rows
            )
        )
        for box in right.boxes:
            box.label.scale_to_fit_height(min(box.label.height, ty.label("FFN").height))
        right.arrows = VGroup(
            *(
                FlowArrow(row.get_right(), box.get_left(), buff=0.1, stroke_width=4)
                for row, box in zip(right.rows.rows, right.boxes)
            )
        )
        right.caption = ty.label("las mismas matrices en cada fila").next_to(right.rows, DOWN, buff=0.3)
        right.caption.set_x(3.4)
        right.add(right.heading, right.rows, right.arrows, right.boxes, right.caption)

        note = ty.small(f"aquí, unas pocas de las {ty.fmt_int(ctx)} posiciones").to_edge(DOWN, buff=0.25)
        return left, right, note

    def _count(self, stack: BlockStack, n_layers: int) -> tuple[VGroup, VGroup]:
        """The brace, «× 32», the model's badge and what the blocks share (`count`); under them
        (`updates`, shown a moment later) what every block does to the stream, the lecture's
        reference form (pre-norm, as LLaMA): x ← x + Atención(RMSNorm(x)), x ← x + FFN(RMSNorm(x))."""
        brace = Brace(stack.blocks, RIGHT, color=palette.MUTED)
        badge = model_badge(self, "llama2_7b")
        times = ty.title(f"× {ty.fmt_int(n_layers)}")
        lines = VGroup(
            ty.label("bloques con la misma forma"), ty.label("cada uno con sus propios pesos", color=palette.MUTED)
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        updates = VGroup(
            ty.label("en cada bloque (pre-norm):", color=palette.MUTED),
            nt.residual_attention("RMSNorm", color=palette.ATTENTION),
            nt.residual_ffn("RMSNorm", color=palette.FFN),
        )
        for formula in updates[1:]:
            formula.scale_to_fit_height(0.4)
        updates.arrange(DOWN, aligned_edge=LEFT, buff=0.22)
        panel = VGroup(badge, times, lines, updates).arrange(DOWN, aligned_edge=LEFT, buff=0.4)
        panel.next_to(brace, RIGHT, buff=0.3).set_y(0.1)
        return VGroup(brace, badge, times, lines), updates


def _there_and_back_bright(t: float) -> float:
    """Brighten then return: a block lights up while the climbing slab passes it."""
    return 1 - abs(2 * t - 1)
