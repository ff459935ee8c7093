"""Panorama: attention mixes tokens (each reads the ones before it: the models are causal),
the FFN transforms each token on its own; attention alone outputs weighted averages of
linearly projected vectors, pure attention stacks lose rank with depth (Dong et al. 2021),
stacked linear layers collapse into one matrix, and a ReLU between them breaks the collapse."""

from __future__ import annotations

from manim import (
    DL,
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    CurvedArrow,
    FadeIn,
    FadeOut,
    GrowFromCenter,
    Indicate,
    Line,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    Write,
)

from ffn_core.shapes import relu
from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.activation_graph import ActivationGraph
from scenes.kit.badges import model_badge
from scenes.kit.blocks import FlowArrow, StageBox
from scenes.kit.layer_stack import BlockScale, LayerStack
from scenes.kit.matmul import ProductFill
from scenes.kit.matrix import MatrixMob, VectorRow
from scenes.kit.narrated import NarratedScene
from scenes.kit.neurons import OffIcon
from scenes.kit.tokens import TokenRow, attention_arcs
from scenes.kit.widths import WidthBars

WORDS = ("el", "perro", "come")
TABLE_SCALE = 1.2  # the relu beat's table of vectors, over the kit's label size
TABLE_SPLIT = -1.45  # x of the rule between the table's names and their vectors
READER = "come"  # the token whose reading the narration follows: it attends to the words before it


class Panorama(NarratedScene):
    script = "panorama"
    # The capacity card (with its badge) takes the bottom right.
    citation_corners = {"aportes": DL}

    def construct(self):
        # Each beat ends on its finished picture (so the layout check sees it) and the next
        # beat clears it while its own first element comes in.
        with self.beat("bloque") as b:
            # Bottom to top, as a transformer is drawn: a picture as tall as the frame allows.
            tokens_box = StageBox("Tokens", palette.MUTED, width=3.6, height=1.0)
            att_box = StageBox("Atención", palette.ATTENTION, width=3.6, height=1.0)
            ffn_box = StageBox("Feed-forward", palette.FFN, width=3.6, height=1.0)
            boxes = VGroup(tokens_box, att_box, ffn_box).arrange(UP, buff=0.7).move_to((-1.2, -0.55, 0))
            row = VGroup(
                boxes,
                VGroup(*(FlowArrow(a.get_top(), b.get_bottom(), buff=0.08) for a, b in zip(boxes, boxes[1:]))),
            )
            heading = ty.title("Un bloque del transformer").to_edge(UP, buff=0.45)
            # The lecture opens on the block itself (its first bookmark is its first word): no
            # cut from the title card to an empty frame.
            self.add(heading, row)
            self.wait(b.until("tokens"))
            self.play(tokens_box.light_up(), run_time=b.until("atencion"))
            self.play(tokens_box.light_down(), att_box.light_up(), run_time=b.until("ffn"))
            loop = CurvedArrow(
                ffn_box.get_right() + RIGHT * 0.1, att_box.get_right() + RIGHT * 0.1, color=palette.MUTED, angle=-1.6
            )
            again = VGroup(
                ty.label("bloque tras bloque,", color=palette.MUTED),
                ty.label("cada uno con sus pesos", color=palette.MUTED),
            ).arrange(DOWN, aligned_edge=LEFT, buff=0.1)
            again.next_to(loop, RIGHT, buff=0.3)
            self.play(att_box.light_down(), ffn_box.light_up(), run_time=b.fraction(0.4))
            self.play(Create(loop), FadeIn(again), run_time=b.speech_remaining())
            stage = VGroup(row, heading, loop, again)  # its parts go their own ways in the next beat

        tokens = TokenRow(WORDS, gap=1.2).move_to(DOWN * 0.4)
        with self.beat("mezclar") as b:
            heading = ty.title("Atención: mezcla entre tokens", color=palette.ATTENTION).to_edge(UP, buff=0.6)
            # The block's attention box grows into the room where the tokens mix; the tokens' box
            # becomes the row of tokens.
            att_room = _room(palette.ATTENTION)
            self.play(
                FadeOut(VGroup(row[1], ffn_box, att_box.label, loop, again, stage[1])),
                ReplacementTransform(att_box.box, att_room),
                ReplacementTransform(tokens_box, tokens),
                FadeIn(heading),
                run_time=b.until("mirar"),
            )
            # Causal, like the lecture's models: every arc joins a token to one before it, and
            # the bold ones are «come» reading «el» and «perro».
            arcs = attention_arcs(tokens, focus=READER)
            reads = ty.label("«come» lee a «el» y a «perro»", color=palette.ATTENTION)
            reads.next_to(tokens, DOWN, buff=0.6)
            self.play(Create(arcs), FadeIn(reads), run_time=b.until("escuchar"))
            caption = ty.body("cada token lee a los anteriores").next_to(reads, DOWN, buff=0.5)
            self.play(FadeIn(caption), run_time=b.speech_remaining())
            stage = VGroup(heading, arcs, reads, caption)

        with self.beat("pensar") as b:
            heading2 = ty.title("Feed-forward: cada token a solas", color=palette.FFN).to_edge(UP, buff=0.6)
            ffn_room = _room(palette.FFN)
            self.play(
                FadeOut(VGroup(arcs, reads, caption)),
                ReplacementTransform(heading, heading2),
                ReplacementTransform(att_room, ffn_room),
                tokens.animate.shift(UP * 1.4),
                run_time=b.until("solo"),
            )
            heading = heading2
            boxes = VGroup(
                *(
                    StageBox("FFN", palette.FFN, width=1.8, height=0.9).next_to(chip, DOWN, buff=1.0)
                    for chip in tokens.chips
                )
            )
            arrows = VGroup(*(FlowArrow(chip.get_bottom(), box.get_top()) for chip, box in zip(tokens.chips, boxes)))
            self.play(Create(arrows), GrowFromCenter(boxes), run_time=b.until("mismas"))
            same = ty.body("las mismas W₁ y W₂ para todos", color=palette.FFN).next_to(boxes, DOWN, buff=0.7)
            self.play(FadeIn(same), *(box.light_up() for box in boxes), run_time=b.speech_remaining())
            stage = VGroup(heading, tokens, boxes, arrows, same, ffn_room)

        with self.beat("aportes") as b:
            heading = ty.title("Lo que aporta la capa feed-forward").to_edge(UP, buff=0.6)
            nonlinear = self._nonlinearity_card().move_to(LEFT * 3.4 + DOWN * 0.3)
            self.play(FadeOut(stage), FadeIn(heading), FadeIn(nonlinear, shift=UP * 0.2), run_time=b.until("no_lineal"))
            self.play(
                Indicate(nonlinear[1], color=palette.ACTIVE, scale_factor=1.03), run_time=b.until("atencion_promedia")
            )
            # What attention gives each token: a weighted average of linearly projected vectors.
            average = self._attention_average().move_to(RIGHT * 3.4 + DOWN * 0.3)
            self.play(FadeIn(average, shift=UP * 0.2), run_time=b.until("capacidad"))
            capacity = self._capacity_card().move_to(RIGHT * 3.4 + DOWN * 0.55)
            self.play(FadeOut(average), FadeIn(capacity, shift=UP * 0.2), run_time=b.speech_remaining())
            stage = VGroup(heading, nonlinear, capacity)

        with self.beat("apilar") as b:
            heading = ty.title("Los bloques se apilan").to_edge(UP, buff=0.6)
            stacks, scale = self._stacks()
            badge = model_badge(self, "gpt2_small").next_to(stacks[0][0], UP, buff=0.4)
            self.play(
                FadeOut(stage),
                FadeIn(heading),
                Create(scale),
                FadeIn(stacks[0], shift=UP * 0.2),
                FadeIn(badge),
                run_time=b.until("gpt2"),
            )
            self.play(Indicate(stacks[0][0], color=palette.INK, scale_factor=1.05), run_time=b.until("gpt3"))
            self.play(FadeIn(stacks[1], shift=UP * 0.2), run_time=b.until("sin_ffn"))
            towers = [stack[0] for stack in stacks]
            # Dong et al. 2021: attention alone (no FFN, no residual connections) loses rank
            # doubly exponentially with depth; the towers' FFN parts fade as it is said.
            pure = VGroup(
                ty.label("solo atención, sin capas", color=palette.ATTENTION),
                ty.label("feed-forward ni residuales:", color=palette.ATTENTION),
                ty.label("los tokens se vuelven", color=palette.INK),
                ty.label("casi iguales", color=palette.INK),
            ).arrange(DOWN, aligned_edge=LEFT, buff=0.12)
            pure.move_to((3.9, 0.9, 0))
            self.play(
                *(tower.ffn.animate.set_fill(opacity=0.08) for tower in towers),
                FadeIn(pure),
                run_time=b.speech_remaining(),
            )
            stage = VGroup(heading, scale, *stacks, pure, badge)

        w1, w2, product = self.number("collapse.w1"), self.number("collapse.w2"), self.number("collapse.product")
        with self.beat("colapso") as b:
            heading = ty.title("Dos capas lineales son una").to_edge(UP, buff=0.6)
            # Tight columns and airy rows: the product fills the frame's width and grows taller.
            cells = {"h_buff": 0.2, "v_buff": 0.3}
            factors = ProductLayout(
                MatrixMob(w1, **cells), MatrixMob(w2, **cells), MatrixMob(product, places=2, **cells)
            )
            left, right, result, times, equals = factors.mats
            fill = ProductFill(left, right, result)
            fill.hide_entries()
            # The two maps come in together; the voice then names the first one (a linear layer).
            self.play(
                FadeOut(stage),
                FadeIn(heading),
                FadeIn(VGroup(left, factors.labels[0])),
                FadeIn(VGroup(right, times, factors.labels[1])),
                run_time=b.until("dos_mapas"),
            )
            self.play(
                Indicate(VGroup(left, factors.labels[0]), color=palette.HIGHLIGHT, scale_factor=1.04),
                run_time=b.until("producto"),
            )
            self.play(FadeIn(equals), FadeIn(result.brackets), FadeIn(factors.labels[2]), run_time=b.fraction(0.1))
            for k in range(len(fill)):
                last = k == len(fill) - 1
                run = b.until("una_sola") if last else b.until("una_sola") / (len(fill) - k)
                self.play(*fill.step(k), run_time=run)
            law = ty.math(r"x\,W_1\,W_2 = x\,(W_1 W_2)").next_to(factors, DOWN, buff=0.35)
            one = ty.body("una sola matriz: una sola capa", color=palette.HIGHLIGHT).next_to(law, DOWN, buff=0.4)
            self.play(FadeOut(VGroup(*fill.boxes())), Write(law), FadeIn(one), run_time=b.speech_remaining())
            stage = VGroup(heading, factors, law, one)

        with self.beat("relu") as b:
            heading = ty.title("Con una ReLU en medio").to_edge(UP, buff=0.6)
            rows = self._relu_rows()
            names = VGroup(*(r[0] for r in rows))
            ghosts = names.copy().set_opacity(0.45)  # the table to fill, dim until each row is computed
            # A rule between the names and their values: the five rows read as one table.
            rule = Line(
                (TABLE_SPLIT, rows.get_top()[1] + 0.05, 0),
                (TABLE_SPLIT, rows.get_bottom()[1] - 0.05, 0),
                color=palette.MUTED,
                stroke_width=2,
            )
            self.play(FadeOut(stage), FadeIn(heading), FadeIn(ghosts), Create(rule), run_time=b.until("entrada"))
            self.remove(*ghosts)
            self.add(*ghosts[1:])
            self.play(FadeIn(rows[0]), run_time=b.until("oculta"))
            self.remove(ghosts[1])
            self.play(FadeIn(rows[1][0]), TransformFromCopy(rows[0][1], rows[1][1]), run_time=b.until("apagar"))
            self.remove(ghosts[2])
            silenced = self._silenced_marks(rows[1][1], rows[2][1])
            self.play(
                FadeIn(rows[2][0]),
                TransformFromCopy(rows[1][1], rows[2][1]),
                FadeIn(silenced),
                run_time=b.until("salida"),
            )
            self.remove(ghosts[3])
            self.play(FadeIn(rows[3][0]), TransformFromCopy(rows[2][1], rows[3][1]), run_time=b.until("atajo"))
            self.remove(ghosts[4])
            self.play(FadeIn(rows[4][0]), TransformFromCopy(rows[0][1], rows[4][1]), run_time=b.until("comparar"))
            verdict = self._verdict(rows[3][1], rows[4][1])
            self.play(FadeIn(verdict), run_time=b.speech_remaining())
            stage = VGroup(heading, rows, silenced, verdict, rule)

        with self.beat("cierre") as b:
            lines = (
                VGroup(
                    ty.title("Capas lineales apiladas"),
                    ty.body("valen lo que una sola."),
                    ty.body("La capa feed-forward: no linealidad, token a token.", color=palette.FFN),
                )
                .arrange(DOWN, buff=0.35)
                .move_to(UP * 2.1)
            )
            if lines.width > 13.0:
                lines.scale_to_fit_width(13.0)
            # The broken collapse stays on the stage, smaller, under what it showed.
            table = VGroup(rows, silenced, verdict, rule)
            self.play(
                FadeOut(heading),
                table.animate.scale(0.85).align_to((-6.7, 0, 0), LEFT).set_y(-1.35),
                FadeIn(lines),
                run_time=b.until("xor"),
            )
            xor = ty.title("XOR", color=palette.HIGHLIGHT).scale(1.6).move_to((5.3, 0.1, 0))
            self.play(Write(xor), run_time=b.speech_remaining())
            self.wait(b.remaining())

    # -- drawings assembled from the kit, with this scene's numbers --------------------------
    def _nonlinearity_card(self) -> VGroup:
        title = ty.body("No linealidad, token a token", color=palette.FFN)
        graph = ActivationGraph(x_range=(-2.0, 2.0), y_range=(-0.5, 2.0), width=4.0, height=2.4)
        graph.add(graph.curve(relu, palette.ACTIVE))
        note = ty.label("ReLU: pasa lo positivo,\napaga lo negativo")
        return VGroup(title, graph, note).arrange(DOWN, buff=0.35)

    def _capacity_card(self) -> VGroup:
        d_model = self.number("params.gpt2_small.d_model")
        d_ff = self.number("params.gpt2_small.d_ff")
        title = ty.body("Capacidad", color=palette.FFN)
        bars = WidthBars(
            (d_model, d_ff, d_model), unit_height=2.4 / d_ff, captions=[ty.fmt_int(v) for v in (d_model, d_ff, d_model)]
        )
        note = ty.label("se expande y se contrae")
        badge = model_badge(self, "gpt2_small")  # the widths are GPT-2 pequeño's: its badge says so
        return VGroup(title, bars, note, badge).arrange(DOWN, buff=0.3)

    def _attention_average(self) -> VGroup:
        """Attention's output for token i: a weighted average (softmax weights) of the tokens'
        linearly projected vectors."""
        title = ty.body("La atención, en cambio", color=palette.ATTENTION)
        formula = ty.math(r"\sum_j a_{ij}\; x_j\, W_V W_O", color=palette.ATTENTION)
        lines = VGroup(
            ty.label("un promedio ponderado"),
            ty.label("de vectores proyectados"),
            ty.label("linealmente: mezcla tokens,"),
            ty.label("no transforma uno solo"),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.12)
        weights = ty.small("aᵢⱼ: pesos de atención (softmax)")
        return VGroup(title, formula, lines, weights).arrange(DOWN, buff=0.35)

    def _stacks(self) -> tuple[list[VGroup], BlockScale]:
        """GPT-2 small's and GPT-3's towers on one floor, over a rule at every multiple of
        GPT-2's count of blocks (GPT-3's tower is read as so many GPT-2s)."""
        layers = (self.number("params.gpt2_small.n_layers"), self.number("params.gpt3_175b.n_layers"))
        names = (
            notation.display_name(self.number("params.gpt2_small.display_name")),
            notation.display_name(self.number("params.gpt3_175b.display_name")),
        )
        pitch = 4.4 / max(layers)  # the same thickness per block in both towers: heights compare counts
        stacks = []
        for x, name, count in zip((-4.0, 0.0), names, layers):
            tower = LayerStack(count, height=count * pitch, width=1.6)
            tower.move_to((x, 0, 0)).align_to((0, -2.3, 0), DOWN)
            label = VGroup(ty.body(name), ty.label(f"{ty.fmt_int(count)} bloques", color=palette.MUTED))
            label.arrange(DOWN, buff=0.15).next_to(tower, DOWN, buff=0.3)
            stacks.append(VGroup(tower, label))
        # Names with and without descenders differ in height: put both counts on one line.
        low = min(stack[1][1].get_y() for stack in stacks)
        for stack in stacks:
            stack[1][1].set_y(low)
        scale = BlockScale(min(layers), max(layers), pitch, width=6.6)
        scale.move_to((-2.0, 0, 0)).align_to((0, -2.3, 0), DOWN)
        return stacks, scale

    def _relu_rows(self) -> VGroup:
        """Five rows 'name = vector': the input, through W1, the ReLU, W2, and the shortcut."""
        specs = (
            (r"x", self.number("collapse.x"), 0),
            (r"x\,W_1", self.number("collapse.hidden"), 1),
            (r"\mathrm{ReLU}(x\,W_1)", self.number("collapse.hidden_relu"), 1),
            (r"\mathrm{ReLU}(x\,W_1)\,W_2", self.number("collapse.relu_output"), 2),
            (r"x\,(W_1 W_2)", self.number("collapse.linear_output"), 2),
        )
        rows = VGroup()
        for tex, values, places in specs:
            # A fifth larger than the body size: the table is the beat's whole picture.
            rows.add(VGroup(ty.math(tex + "=").scale(TABLE_SCALE), VectorRow(values, places=places).scale(TABLE_SCALE)))
        rows.arrange(DOWN, buff=0.32).move_to(DOWN * 0.55)  # close enough to read as one table
        for label, vector in rows:
            label.move_to((TABLE_SPLIT - 0.15, label.get_center()[1], 0), aligned_edge=RIGHT)
            vector.move_to((TABLE_SPLIT + 0.15, vector.get_center()[1], 0), aligned_edge=LEFT)
        return rows

    def _silenced_marks(self, hidden: VectorRow, activated: VectorRow) -> VGroup:
        """A ring on each hidden value the ReLU set to zero, on its zero, and an 'off' icon."""
        marks = VGroup()
        for j, value in enumerate(self.number("collapse.hidden_relu")):
            if value == 0:
                marks.add(
                    SurroundingRectangle(hidden.entry(j), color=palette.HIGHLIGHT, buff=0.08),
                    SurroundingRectangle(activated.entry(j), color=palette.HIGHLIGHT, buff=0.08),
                )
        marks.add(OffIcon().next_to(activated, RIGHT, buff=0.5))
        return marks

    def _verdict(self, with_relu: VectorRow, linear: VectorRow) -> VGroup:
        boxes = VGroup(*(SurroundingRectangle(v, color=palette.HIGHLIGHT, buff=0.1) for v in (with_relu, linear)))
        differs = ty.math(r"\neq", color=palette.HIGHLIGHT).scale(1.3)
        differs.next_to(VGroup(with_relu, linear), RIGHT, buff=0.45)
        gap = self.number("collapse.max_difference")
        note = VGroup(
            ty.label("diferencia:", color=palette.HIGHLIGHT),
            ty.label(f"hasta {ty.fmt_decimal(gap, 2)}", color=palette.HIGHLIGHT),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.12)
        note.next_to(differs, RIGHT, buff=0.3)
        return VGroup(boxes, differs, note)


def _room(color) -> RoundedRectangle:
    """The stage of one sublayer: a large box in its colour, where the tokens go through it."""
    return RoundedRectangle(
        corner_radius=0.3, width=11.0, height=4.6, color=color, stroke_width=3, fill_color=color, fill_opacity=0.06
    ).move_to((0, -0.55, 0))


class ProductLayout(VGroup):
    """left · right = result in one row, each with its name above."""

    def __init__(self, left, right, result):
        super().__init__()
        times, equals = ty.math(r"\cdot"), ty.math("=")
        row = VGroup(left, times, right, equals, result).arrange(RIGHT, buff=0.35)
        self.mats = (left, right, result, times, equals)
        self.labels = VGroup(
            *(ty.math(t).next_to(m, UP, buff=0.3) for t, m in ((r"W_1", left), (r"W_2", right), (r"W_1 W_2", result)))
        )
        self.add(row, self.labels)
        # As large as the frame allows: the product is the beat's whole picture.
        self.scale(min(12.6 / self.width, 3.4 / self.height))
        self.move_to(UP * 0.2)
