"""Features as directions: one neuron of the fact model drawn in the geometry of the stream.

The FFN of the last block reads Norm(x) at the last word of «el limón es». A neuron's key
(a column of W₁) asks a question of it by a dot product, drawn exactly in the plane that
holds Norm(x) and the key: ‖k‖ times the shadow of Norm(x) on the key's line. Its bias sets
the threshold; every fact's input casts its own shadow on the same line. Its value (a row
of W₂) is the direction written back into the stream, and the logit lens (the final norm
and the output head) reads that direction as words. A second neuron shows the reading is
not always one neuron, one fact. Every figure comes from ffn_core.features (features.*).
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UL,
    UP,
    UR,
    Brace,
    Circle,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromEdge,
    GrowFromPoint,
    Indicate,
    LaggedStart,
    MathTex,
    ReplacementTransform,
    SurroundingRectangle,
    VGroup,
    Write,
)

from scenes.kit import notation as nt
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.blocks import FlowArrow, StageBox
from scenes.kit.directions import (
    DirectionPlane,
    Shadow,
    ShadowRows,
    StreamColumn,
    ThresholdLine,
    VectorStrip,
    WordBars,
)
from scenes.kit.narrated import NarratedScene
from scenes.kit.steps import play_in_steps
from scenes.kit.tokens import TokenRow

KEY_ORIGIN = (-2.7, -1.9, 0)  # the origin of the plane of Norm(x) and the key
KEY_SCALE = 0.92  # scene units per unit of the stream's coordinates, in that plane
WRITE_ANGLE_DEG = 24  # the plane of x and the value, turned so the long stream rises across the frame
SHADOW_W = -0.75  # the shadow is drawn as a dimension line this far under the key's line
PANEL_X = 0.9  # left edge of the text beside the plane


def _tex(x: float) -> str:
    """A figure for LaTeX: Spanish comma kept tight, a true minus."""
    return ty.fmt_decimal(x).replace("\u2212", "-").replace(",", "{,}")


class Features(NarratedScene):
    script = "features"

    def construct(self):
        self.neuron = self.number("features.pusher.neuron")
        self.answer = self.number("features.answer")
        self.subjects = self.number("features.subjects")
        self.badge = model_badge(self, "fact_model").to_corner(UR, buff=0.25)
        self.stream()
        self.key_asks()
        self.value_writes()
        self.lens_reads()

    # -- the stream as an arrow ------------------------------------------------------------
    def stream(self) -> None:
        d = self.number("features.d_model")
        word = self.number("features.word")
        with self.beat("corriente") as b:
            words = self.number("features.prompt").split()
            row = TokenRow(words).move_to((-3.0, -2.85, 0))
            chip = row.chips[row.index(word)]
            column = StreamColumn(chip.get_top())
            # The scene opens on the whole column, not on black; the stream is lit as it rises through it.
            self.add(self.badge, column)
            self.play(
                LaggedStart(*(Indicate(arrow, color=palette.HIGHLIGHT) for arrow in column.flow), lag_ratio=0.4),
                run_time=b.until("frase"),
            )
            self.play(FadeIn(row, shift=UP * 0.2), run_time=b.until("vector"))
            strip = VectorStrip(self.number("features.x"), rows=4, cell=0.3).move_to((3.35, 0.6, 0))
            strip_name = ty.label(f"Norm(x): {ty.fmt_int(d)} números", color=palette.FFN)
            strip_name.next_to(strip, DOWN, buff=0.3)
            reads = FlowArrow(column.ffn.get_right(), strip.get_left(), color=palette.FFN, buff=0.1)
            play_in_steps(
                self,
                b.until("flecha"),
                (
                    (
                        chip.box.animate.set_stroke(palette.FFN, width=5).set_fill(palette.FFN, opacity=0.3),
                        column.ffn.light_up(),
                    ),
                    0.3,
                ),
                ((GrowArrow(reads), GrowFromPoint(strip, column.ffn.get_right()), FadeIn(strip_name)), None),
            )
            self.plane = DirectionPlane(u_range=(-3.1, 2.6), scale=KEY_SCALE).move_to(KEY_ORIGIN)
            self.plane.shift(KEY_ORIGIN - self.plane.origin.get_center())
            u, w = self.number("features.pusher.plane_x")
            self.x_arrow = self.plane.arrow(u, w, color=palette.FFN)
            self.x_name = ty.label("Norm(x)", color=palette.FFN).next_to(self.x_arrow.get_end(), RIGHT, buff=0.2)
            where = ty.small(f"«{word}» en «{' '.join(words)}»").to_corner(UL, buff=0.3)
            # The numbers stay beside the arrow they become: the same vector, two pictures.
            play_in_steps(
                self,
                b.speech_remaining(),
                (
                    (FadeOut(row), FadeOut(column), FadeOut(reads), ReplacementTransform(strip.copy(), self.x_arrow)),
                    0.6,
                ),
                ((FadeIn(self.x_name), FadeIn(where), FadeIn(self.plane.origin)), None),
            )
            self.where = where
            self.numbers = VGroup(strip, strip_name)

    # -- the key: a dot product, a threshold, a question -----------------------------------
    def key_asks(self) -> None:
        n, plane = self.neuron, self.plane
        key_norm = self.number("features.pusher.key_norm")
        shadow_u = self.number("features.pusher.shadow")
        u, w = self.number("features.pusher.plane_x")
        with self.beat("llave") as b:
            key = plane.arrow(key_norm, 0, color=palette.HIGHLIGHT, stroke_width=8)
            key_name = ty.label(nt.key_symbol(n), color=palette.HIGHLIGHT)
            key_name.next_to(key.get_end(), UP + RIGHT, buff=0.05)
            column = ty.label(f"{nt.key_label(n)} = columna {n} de {nt.w1()}", color=palette.HIGHLIGHT)
            column.move_to((PANEL_X, 2.2, 0), aligned_edge=LEFT)
            why = ty.small(f"la que más sube «{self.answer}» en esta frase")
            why.next_to(column, DOWN, buff=0.15).align_to(column, LEFT)
            caption = ty.small(f"plano que contiene Norm(x) y {nt.key_symbol(n)}").next_to(self.where, DOWN, buff=0.15)
            caption.align_to(self.where, LEFT)
            self.play(
                FadeOut(self.numbers), GrowArrow(key), FadeIn(key_name), FadeIn(column), run_time=b.until("plano")
            )
            self.play(Create(plane.axis), FadeIn(caption), run_time=b.until("sombra"))
            shadow = Shadow(plane, shadow_u, w, offset=SHADOW_W, color=palette.FFN)
            shadow_name = ty.label("sombra", color=palette.FFN).next_to(shadow.segment, DOWN, buff=0.15)
            product = ty.math(
                rf"\mathrm{{Norm}}(x) \cdot {nt.key_tex(n)} = \lVert {nt.key_tex(n)} \rVert \times \text{{sombra}}"
            ).scale(0.85)
            product.move_to((PANEL_X, 1.1, 0), aligned_edge=LEFT)
            play_in_steps(
                self,
                b.until("largo"),
                ((Create(shadow.drop), GrowFromEdge(shadow.segment, LEFT), FadeIn(shadow_name)), 0.5),
                (Write(product), None),
            )
            self.play(Indicate(key, color=palette.HIGHLIGHT), run_time=b.until("punto"))
            self.play(FadeIn(why), run_time=0.15 * b.speech_remaining())
            figures = ty.math(
                rf"= {_tex(key_norm)} \times {_tex(shadow_u)} = {_tex(self.number('features.pusher.dot'))}"
            ).scale(0.85)
            figures.next_to(product, DOWN, buff=0.35, aligned_edge=LEFT)
            dot_box = SurroundingRectangle(figures[0][-4:], color=palette.FFN, buff=0.08)
            play_in_steps(
                self,
                b.speech_remaining(),
                (FadeIn(figures, shift=UP * 0.2), 0.6),
                (Create(dot_box), None),
            )

        with self.beat("umbral") as b:
            threshold = self.number("features.pusher.threshold")
            line = ThresholdLine(plane, threshold, w_range=(SHADOW_W - 0.3, 4.6), color=palette.ATTENTION)
            line_name = ty.label("umbral", color=palette.ATTENTION).next_to(line.line.get_end(), UP, buff=0.1)
            bias = ty.math(rf"b_{{1,{n}}} = {_tex(self.number('features.pusher.bias'))}", color=palette.ATTENTION)
            bias.scale(0.85).next_to(figures, DOWN, buff=0.5).align_to(product, LEFT)
            self.play(FadeOut(dot_box), FadeIn(bias), run_time=b.until("linea"))
            self.play(Create(line), FadeIn(line_name), run_time=b.until("activacion"))
            passing = line.passing(shadow_u)
            passing.shift(plane.point(0, SHADOW_W) - plane.point(0, 0))
            act = self.number("features.pusher.activation")
            relu = ty.math(
                rf"\mathrm{{ReLU}}(\mathrm{{Norm}}(x) \cdot {nt.key_tex(n)} + b_{{1,{n}}}) = {_tex(act)}",
                color=palette.ACTIVE,
            ).scale(0.72)
            relu.next_to(bias, DOWN, buff=0.45).align_to(product, LEFT)
            play_in_steps(
                self,
                b.speech_remaining(),
                (GrowFromEdge(passing, LEFT), 0.4),
                (Write(relu), None),
            )
        # The key's drawing, as it stands now, comes back small in the closing summary.
        self.key_summary = VGroup(plane.axis, plane.origin, key, self.x_arrow, shadow, passing, line.line).copy()

        with self.beat("pregunta") as b:
            lemon = self.number("features.fact_index")
            rows = ShadowRows(
                self.subjects,
                self.number("features.pusher.fact_shadows"),
                threshold,
                u_range=(-3.0, 2.2),
                scale=1.0,
                highlight=lemon,
            ).move_to((-3.3, -0.3, 0))
            rows_name = ty.small(f"la sombra de cada hecho sobre la línea de {nt.key_symbol(n)}")
            rows_name.next_to(rows, UP, buff=0.2).align_to(rows, LEFT)
            threshold_name = ty.small("umbral", color=palette.ATTENTION).next_to(rows.threshold_line, DOWN, buff=0.1)
            drawing = VGroup(plane.origin, key, key_name, self.x_arrow, self.x_name, shadow, shadow_name)
            # The key's line and its threshold stay and become the line of every fact.
            self.play(
                FadeOut(VGroup(column, why, product, figures, bias, relu)),
                FadeOut(drawing),
                FadeOut(passing),
                FadeOut(line_name),
                FadeOut(self.where),
                FadeOut(caption),
                ReplacementTransform(plane.axis, rows.tracks),
                ReplacementTransform(line, rows.threshold_line),
                FadeIn(rows.zero),
                FadeIn(rows_name),
                FadeIn(rows.names),
                run_time=b.until("hechos"),
            )
            self.play(
                LaggedStart(*(FadeIn(rows.row(i)[2], shift=RIGHT * 0.3) for i in rows.order), lag_ratio=0.12),
                run_time=b.until("pasan"),
            )
            count = ty.body(
                f"{self.number('features.pusher.n_fired')} de {self.number('features.n_facts')} cruzan el umbral",
                color=palette.ACTIVE,
            ).move_to((PANEL_X, 1.6, 0), aligned_edge=LEFT)
            self.play(
                Indicate(rows.threshold_line, color=palette.ATTENTION),
                FadeIn(threshold_name),
                FadeIn(count),
                run_time=b.until("lejos"),
            )
            ring = Circle(radius=0.2, color=palette.HIGHLIGHT, stroke_width=5).move_to(rows.row(lemon)[2])
            top = ty.label(f"el más lejos: «{self.number('features.pusher.top_subject')}»", color=palette.HIGHLIGHT)
            top.next_to(count, DOWN, buff=0.45, aligned_edge=LEFT)
            self.play(Create(ring), FadeIn(top), run_time=b.speech_remaining())
        self.question = VGroup(rows, rows_name, threshold_name, count, ring, top)

    # -- the value: the direction written back ---------------------------------------------
    def value_writes(self) -> None:
        n = self.neuron
        act = self.number("features.pusher.activation")
        with self.beat("valor") as b:
            self.value_strip = VectorStrip(self.number("features.pusher.value"), rows=2, cell=0.3)
            self.value_strip.move_to((-2.2, 2.2, 0))
            self.value_name = ty.label(f"{nt.value_label(n)} = fila {n} de {nt.w2()}", color=palette.POSITIVE)
            self.value_name.next_to(self.value_strip, DOWN, buff=0.25)
            (stream_u, _), (along, across) = self.number("features.pusher.write_plane")
            # The stream is long (its true length, in the plane of x and v): it crosses the frame.
            plane = DirectionPlane(scale=0.66, angle_deg=WRITE_ANGLE_DEG, axis=False)
            plane.shift((-6.3, -3.1, 0) - plane.origin.get_center())
            stream = plane.arrow(stream_u, 0, color=palette.INK)
            stream_name = ty.label("x: la corriente", color=palette.INK)
            stream_name.next_to(plane.point(stream_u * 0.55, 0), DOWN + RIGHT, buff=0.15)
            self.play(
                FadeOut(self.question),
                FadeIn(self.value_strip, shift=DOWN * 0.2),
                FadeIn(plane.origin),
                GrowArrow(stream),
                run_time=b.until("fila"),
            )
            self.play(FadeIn(self.value_name), FadeIn(stream_name), run_time=b.until("suma"))
            write = plane.arrow(stream_u + along, across, start=(stream_u, 0), color=palette.POSITIVE, stroke_width=9)
            write_name = ty.label(f"+ {nt.activation(act)} · {nt.value_symbol(n)}", color=palette.POSITIVE)
            write_name.next_to(write.get_end(), UP + RIGHT, buff=0.1)
            self.play(GrowArrow(write), FadeIn(write_name), run_time=b.until("empujon"))
            sizes = ty.label(
                f"‖{nt.activation(act)} · {nt.value_symbol(n)}‖ = "
                f"{ty.fmt_decimal(self.number('features.pusher.write_norm'))}     "
                f"‖x‖ = {ty.fmt_decimal(self.number('features.stream_norm'))}",
                color=palette.MUTED,
            ).move_to((1.6, -2.9, 0))
            caption = ty.small(f"plano que contiene x y {nt.value_symbol(n)}").next_to(sizes, UP, buff=0.25)
            self.play(
                FadeIn(caption), FadeIn(sizes), Indicate(write, color=palette.POSITIVE), run_time=b.speech_remaining()
            )
            self.write_drawing = VGroup(plane.origin, stream, write)
            self.write_notes = VGroup(stream_name, write_name, sizes, caption)

    # -- the logit lens, and a neuron that is not one fact ---------------------------------
    def lens_reads(self) -> None:
        n = self.neuron
        with self.beat("lente") as b:
            strip = self.value_strip.copy().scale(0.55).move_to((-4.9, 0.2, 0))
            strip_name = ty.label(nt.value_symbol(n), color=palette.POSITIVE).next_to(strip, UP, buff=0.25)
            # The head maps the stream onto every word of the vocabulary: a tall box.
            box = StageBox("norma final\ny cabeza", palette.MUTED, width=2.8, height=3.0).move_to((-1.0, 0.2, 0))
            into = FlowArrow(strip.get_right(), box.get_left(), color=palette.POSITIVE)
            lens_name = ty.small("lente de logits").next_to(box, DOWN, buff=0.25)
            self.play(
                FadeOut(self.write_drawing),
                FadeOut(self.write_notes),
                ReplacementTransform(self.value_strip, strip),
                ReplacementTransform(self.value_name, strip_name),
                FadeIn(box),
                GrowArrow(into),
                run_time=b.until("cabeza"),
            )
            self.play(box.light_up(), FadeIn(lens_name), run_time=b.until("primera"))
            bars = WordBars(
                self.number("features.pusher.lens_words"),
                self.number("features.pusher.lens_logits"),
                highlight=(self.answer,),
            ).move_to((3.85, 0.2, 0))
            header = ty.label("logit que suma en esta frase", color=palette.MUTED).next_to(bars, UP, buff=0.3)
            out = FlowArrow(box.get_right(), bars.rows[0][0].get_left(), color=palette.MUTED)
            place = ty.label(
                f"«{self.answer}»: puesto {self.number('features.pusher.answer_place')} "
                f"de {self.number('features.vocab_size')} palabras",
                color=palette.HIGHLIGHT,
            ).next_to(bars, DOWN, buff=0.3)
            play_in_steps(
                self,
                b.until("otras"),
                ((GrowArrow(out), FadeIn(header)), 0.3),
                ((FadeIn(bars.rows[0], shift=RIGHT * 0.2), FadeIn(place)), None),
            )
            self.play(
                LaggedStart(*(FadeIn(row, shift=RIGHT * 0.2) for row in bars.rows[1:]), lag_ratio=0.3),
                run_time=b.speech_remaining(),
            )
            lens = VGroup(strip, strip_name, box, into, lens_name, out, header, place, bars)
            self.bars_summary = bars.copy()

        with self.beat("matiz") as b:
            other = self.number("features.hardest.neuron")
            title = ty.body(nt.neuron(other, capitalized=True), color=palette.INK).to_corner(UL, buff=0.35)
            threshold = self.number("features.hardest.threshold")
            lemon = self.number("features.fact_index")
            sea_word = self.number("features.hardest.top_subject")
            sea = self.subjects.index(sea_word)
            rows = ShadowRows(
                self.subjects,
                self.number("features.hardest.fact_shadows"),
                threshold,
                u_range=(-1.6, 3.2),
                scale=0.9,
                highlight=lemon,
                notes={
                    lemon: nt.activation(self.number("features.hardest.activation")),
                    sea: nt.activation(self.number("features.hardest.top_fact_activation")),
                },
            ).move_to((-3.5, -0.3, 0))
            rows_name = ty.small(f"la sombra de cada hecho sobre la línea de {nt.key_symbol(other)}")
            rows_name.next_to(rows, UP, buff=0.2).align_to(rows, LEFT)
            lemon_row, sea_row = rows.row(lemon), rows.row(sea)
            self.play(
                FadeOut(lens),
                FadeIn(title),
                FadeIn(rows_name),
                FadeIn(rows.tracks),
                FadeIn(rows.zero),
                Create(rows.threshold_line),
                FadeIn(rows.dots),
                FadeIn(rows.names),
                run_time=b.until("otra"),
            )
            self.play(FadeIn(lemon_row[3]), Indicate(lemon_row[2], color=palette.HIGHLIGHT), run_time=b.until("mar"))
            self.play(FadeIn(sea_row[3]), Indicate(sea_row[0], color=palette.ACTIVE), run_time=b.until("salado"))
            bars = WordBars(
                self.number("features.hardest.lens_words"),
                self.number("features.hardest.lens_logits"),
                highlight=(self.answer, self.number("features.hardest.first_word")),
            ).move_to((3.9, 0.3, 0))
            header = ty.label("logit que suma en esta frase", color=palette.MUTED).next_to(bars, UP, buff=0.3)
            self.play(
                FadeIn(header),
                LaggedStart(*(FadeIn(row, shift=RIGHT * 0.2) for row in bars.rows), lag_ratio=0.3),
                run_time=0.6 * b.speech_remaining(),
            )
            self.caveat = VGroup(title, rows, rows_name, bars, header)

        with self.beat("cierre") as b:
            formula = MathTex(
                r"\mathrm{FFN}(\mathrm{Norm}(x)) = \sum_i \mathrm{ReLU}(",
                rf"\mathrm{{Norm}}(x) \cdot {nt.key_tex()}",
                "+",
                r"b_{1,i}",
                r")\,",
                nt.value_tex(),
                "+ b_2",
                tex_template=ty.TEX_TEMPLATE,
                color=palette.INK,
            ).scale(1.05)
            formula.move_to(DOWN * 0.6)
            notes = [
                (formula[1], "pregunta", DOWN, palette.FFN),
                (formula[3], "umbral", UP, palette.ATTENTION),
                (formula[5], "dirección que escribe", DOWN, palette.POSITIVE),
            ]
            braces = [_brace_note(part, text, side, color) for part, text, side, color in notes]
            # The key's drawing sits on the formula it sums up: one picture with it.
            key_drawing = self.key_summary.scale(0.55).next_to(formula, UP, buff=0.15).set_x(-4.0)
            top_word = self.bars_summary.rows[0].move_to((1.9, 1.4, 0))
            read_as = ty.small(f"{nt.value_symbol(self.neuron)} por la lente de logits").next_to(top_word, UP, buff=0.3)
            bars = VGroup(read_as, top_word)
            self.play(
                FadeOut(self.caveat),
                FadeIn(formula),
                FadeIn(key_drawing),
                FadeIn(bars),
                run_time=b.until("preguntan"),
            )
            key, line = key_drawing[2], key_drawing[6]
            highlights = (
                Indicate(key, color=palette.HIGHLIGHT),
                Indicate(line, color=palette.ATTENTION),
                Indicate(top_word, color=palette.HIGHLIGHT),
            )
            for brace, highlight, mark in zip(braces, highlights, ("umbrales", "escriben", "real")):
                self.play(FadeIn(brace), highlight, run_time=b.until(mark))
            toy = ty.label(
                f"{nt.model_name('fact_model', capitalized=True)}: un modelo de juguete", color=palette.MUTED
            ).move_to((-2.4, -3.3, 0))
            self.play(FadeIn(toy), run_time=0.4 * b.speech_remaining())


def _brace_note(part, text: str, direction, color) -> VGroup:
    brace = Brace(part, direction, color=color, buff=0.12)
    note = ty.label(text, color=color).next_to(brace, direction, buff=0.15)
    return VGroup(brace, note)
