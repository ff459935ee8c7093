"""La parte famosa es la más pequeña: the FFN is the hidden mass of every block, and of the model.

The berg floats so that the share of its area under the water is the FFN's computed share:
first of one LLaMA-2 block, then of the idealised block (8 d^2 of 12 d^2), then of each
model's block as the table moves row by row, and last of each whole model, embeddings,
norms and output head included.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    Indicate,
    Line,
    ReplacementTransform,
    SurroundingRectangle,
    VGroup,
    Write,
    smooth,
)

from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.blocks import FlowArrow, StageBox
from scenes.kit.iceberg import (
    ICE_REST,
    BergState,
    CardLine,
    Ledger,
    ModelFigures,
    PartsCard,
)
from scenes.kit.iceberg import Iceberg as Berg
from scenes.kit.narrated import NarratedScene
from scenes.kit.steps import play_in_steps

PANEL_X = 2.05  # centre of the right-hand panel while the berg sits on the left
BADGE_AT = (PANEL_X - 2.9, -2.95, 0)  # left edge of a model's badge, under the panel's tables
SMALL_BERG = {"center_x": -5.0, "waterline_y": 0.55, "width": 3.1, "height": 5.3}


def early(share: float):
    """Rate function that finishes its animation in the first `share` of the run time."""
    return lambda t: smooth(min(1.0, t / share))


class Iceberg(NarratedScene):
    script = "iceberg"

    def construct(self):
        gpt2, gpt3, llama = self._figures()

        with self.beat("dos_mitades") as b:
            heading = ty.title("Un bloque del transformer").to_edge(UP, buff=0.45)
            block = _block_column().next_to(heading, DOWN, buff=0.35)
            att_box, ffn_box = block[0]
            # On screen from the first frame (the previous scene ends full); the data then runs
            # through it, bottom to top, while "en un bloque" is said.
            self.add(heading, block)
            self.play(Indicate(block[1], color=palette.HIGHLIGHT, scale_factor=1.0), run_time=b.until("atencion"))
            self.play(att_box.light_up(), run_time=b.until("ffn"))
            self.play(att_box.light_down(), ffn_box.light_up(), run_time=b.speech_remaining())
            self.wait(b.remaining())

        # The opening berg: one LLaMA-2 block, large, left of centre; its parts appear one by one.
        berg = Berg(
            state=BergState(center_x=-3.2, waterline_y=0.75, width=5.0, height=6.6, **llama.block_state())
        ).conceal()
        with self.beat("punta") as b:
            self.add(berg)
            # The block steps aside as its iceberg comes up: the same two parts, seen by their size.
            self.play(
                FadeOut(VGroup(block, heading)), *berg.reveal(berg.tip, berg.above_shade), run_time=b.until("agua")
            )
            self.play(*berg.reveal(berg.waterline, berg.sea, berg.ripples), run_time=b.until("cifra_atencion"))
            att_label = _count_label("Atención", llama.attention_per_layer, palette.ATTENTION)
            att_label.move_to((2.6, 1.85, 0))  # under the badge
            # The opening berg is one block of LLaMA-2 7B: its badge says what that model is here.
            block_badge = model_badge(self, "llama2_7b")
            block_badge.to_corner(UR, buff=0.25)
            self.play(Write(att_label), FadeIn(block_badge), run_time=b.remaining())

        with self.beat("masa") as b:
            self.wait(b.until("masa"))
            self.play(*berg.reveal(berg.mass, berg.mass_shade), run_time=b.until("cifra_ffn"))
            ffn_label = _count_label("Feed-forward", llama.ffn_per_layer, palette.FFN)
            ffn_label.move_to((2.6, -0.9, 0)).align_to(att_label, LEFT)
            self.play(Write(ffn_label), run_time=b.until("cuota"))
            verdict = ty.body(f"{ty.fmt_percent(llama.block_share)} del bloque", color=palette.FFN)
            verdict.next_to(ffn_label, DOWN, buff=0.5).align_to(ffn_label, LEFT)
            self.play(FadeIn(verdict, shift=UP * 0.2), run_time=b.speech_remaining())

        with self.beat("cuenta") as b:
            ideal_share = self.number("iceberg.ideal.ffn_share")
            rows = self._ideal_rows()
            self.play(
                FadeOut(VGroup(att_label, ffn_label, verdict, block_badge)),
                berg.refloat(submerged=ideal_share, attention=1 - ideal_share, **SMALL_BERG),
                run_time=b.until("atencion_cuenta"),
            )
            for row, window in zip(rows[:3], (b.until("ffn_cuenta"), b.until("bloque"), b.until("fraccion"))):
                self.play(FadeIn(row[0]), Write(row[1]), run_time=window)
            frame = SurroundingRectangle(rows[3], color=palette.FFN, buff=0.2, corner_radius=0.1)
            # The same share written on the berg's submerged mass: the drawing is the fraction.
            readout = ty.body(ty.fmt_percent(ideal_share)).move_to(berg.state.mass_point())
            self.play(
                Write(rows[3]), Create(frame), FadeIn(readout, rate_func=early(0.5)), run_time=b.speech_remaining()
            )
            self.play(FadeOut(VGroup(rows, frame)), run_time=b.remaining())

        with self.beat("modelos") as b:
            table = Ledger(
                [
                    ("Modelo", palette.MUTED),
                    ("Atención", palette.ATTENTION),
                    ("Feed-forward", palette.FFN),
                    ("% FFN", palette.FFN),
                ],
                [
                    [
                        (m.name, None),
                        (ty.fmt_int(m.attention_per_layer), None),
                        (ty.fmt_int(m.ffn_per_layer), None),
                        (ty.fmt_percent(m.block_share), palette.FFN),
                    ]
                    for m in (gpt2, gpt3, llama)
                ],
            )
            heading = ty.title("Parámetros por bloque").move_to((PANEL_X, 3.3, 0))
            table.move_to((PANEL_X, 0.6, 0))
            self.play(FadeIn(heading), FadeIn(VGroup(table.header, table.rule)), run_time=b.until("gpt2"))
            # The badge of the model whose row is lit (GPT-3 has none: it is not in the kit's list).
            badges = {"gpt2": model_badge(self, "gpt2_small"), "llama": model_badge(self, "llama2_7b")}
            for badge in badges.values():
                badge.move_to(BADGE_AT, aligned_edge=LEFT)
            readout = self._show_model(
                b.until("gpt3"), berg, table, 0, gpt2.block_state(), gpt2.block_share, readout, FadeIn(badges["gpt2"])
            )
            readout = self._show_model(
                b.until("llama"), berg, table, 1, gpt3.block_state(), gpt3.block_share, readout, FadeOut(badges["gpt2"])
            )
            readout = self._show_model(
                b.until("quieto"),
                berg,
                table,
                2,
                llama.block_state(),
                llama.block_share,
                readout,
                FadeIn(badges["llama"]),
            )
            # The three shares differ in the third decimal: the water has nowhere to go.
            still = ty.label("los tres rondan el mismo nivel", color=palette.MUTED)
            still.next_to(table, DOWN, buff=0.6)
            self.play(FadeIn(still), run_time=b.speech_remaining())

        with self.beat("cifra_citada") as b:
            quoted = self.number("iceberg.quoted.llama2_7b_ffn_share")
            # A figure quoted from the course's text (kind "quoted"): marked as such on screen.
            claim = ty.body(f"cifra citada: ≈ {ty.fmt_percent(quoted, places=0)}", color=palette.MUTED)
            claim.move_to((PANEL_X, -1.95, 0))
            strike = Line(claim.get_left(), claim.get_right(), color=palette.HIGHLIGHT, stroke_width=5)
            fixed = ty.body(f"cuenta exacta: {ty.fmt_percent(llama.block_share)}", color=palette.FFN)
            fixed.next_to(claim, DOWN, buff=0.3)
            self.play(FadeOut(still), FadeOut(badges["llama"]), FadeIn(claim), run_time=b.until("corregida"))
            cell = SurroundingRectangle(table.rows[2][3], color=palette.HIGHLIGHT, buff=0.12, corner_radius=0.08)
            self.play(
                Create(strike),
                FadeIn(fixed, shift=UP * 0.2),
                *(ReplacementTransform(f, cell) for f in self._frames()),
                run_time=b.speech_remaining(),
            )
            self._current_frames = [cell]
            self.play(FadeOut(VGroup(heading, table, claim, strike, fixed, *self._frames())), run_time=b.remaining())

        with self.beat("modelo_entero") as b:
            heading = ty.title("El modelo entero").move_to((PANEL_X, 3.3, 0))
            cards = [self._card(m) for m in (gpt2, gpt3, llama)]
            # The cap (embeddings, norms, head) is still empty: it grows as the berg refloats.
            self.play(FadeIn(heading), *berg.reveal(berg.cap), run_time=b.until("tablas"))
            self.play(FadeIn(cards[0], shift=UP * 0.2), run_time=b.until("gpt2_total"))
            windows = (b.until("gpt3_total"), b.until("llama_total"), b.until("hundido"))
            swaps = (FadeIn(badges["gpt2"]), FadeOut(badges["gpt2"]), FadeIn(badges["llama"]))
            for i, (m, window, swap) in enumerate(zip((gpt2, gpt3, llama), windows, swaps)):
                readout = self._refloat_with_card(window, berg, cards[max(i - 1, 0)], cards[i], m, readout, swap)
            card = cards[-1]
            # Sorted by size, the whole-model share only grows: the berg sinks as the model grows.
            by_size = sorted((gpt2, gpt3, llama), key=lambda m: m.total)
            summary = Ledger(
                [("Modelo", palette.MUTED), ("Parámetros", palette.MUTED), ("% FFN", palette.FFN)],
                [
                    [(m.name, None), (ty.fmt_int(m.total), None), (ty.fmt_percent(m.ffn_share_of_total), palette.FFN)]
                    for m in by_size
                ],
            )
            summary.move_to((PANEL_X, 0.3, 0))
            # Under the summary there is room for both badges at once, clear of the citation.
            pair = VGroup(badges["gpt2"].copy(), badges["llama"].copy()).arrange(DOWN, aligned_edge=LEFT, buff=0.15)
            pair.next_to(summary, DOWN, buff=0.35).align_to(BADGE_AT, LEFT)
            self.play(
                FadeOut(card),
                FadeOut(badges["llama"]),
                FadeIn(pair),
                FadeIn(VGroup(summary.header, summary.rule)),
                run_time=b.fraction(0.2),
            )
            for i, m in enumerate(by_size):
                window = b.fraction(1 / (len(by_size) - i)) if i < len(by_size) - 1 else b.speech_remaining()
                readout = self._show_model(window, berg, summary, i, m.whole_state(), m.ffn_share_of_total, readout)

        with self.beat("cierre") as b:
            line1 = ty.title("La parte famosa")
            line2 = ty.title("es la más pequeña.", color=palette.ATTENTION)
            text = VGroup(line1, line2).arrange(DOWN, buff=0.3)
            text.scale_to_fit_width(min(text.width, 8.8)).move_to((PANEL_X, 0.7, 0))
            play_in_steps(
                self,
                b.until("frase"),
                (FadeOut(VGroup(heading, summary, pair, *self._frames())), 0.25),
                (Write(text), None),
            )
            # Said with its sources (Geva et al. 2021, Meng et al. 2022): "buena parte", not all.
            coda = ty.body("Bajo el agua, buena parte de lo que sabe.", color=palette.FFN)
            coda.scale_to_fit_width(min(coda.width, 8.8)).next_to(text, DOWN, buff=0.8)
            self.play(FadeIn(coda), run_time=b.speech_remaining())
            self.wait(b.remaining())

    # -- pieces of the storyboard ------------------------------------------------------------
    def _show_model(self, window, berg, table, i, state, share, readout, *extra):
        """Row i of `table` lights up and the berg refloats to the row's share, its readout
        (the share written on the submerged mass) following it."""
        target = BergState(**{**berg.state.__dict__, **state})
        new = ty.body(ty.fmt_percent(share)).move_to(target.mass_point())
        frame = table.highlight(i)
        old_frames = self._frames()
        anims = [
            FadeIn(table.rows[i], shift=RIGHT * 0.2, rate_func=early(0.3)),
            berg.refloat(**state),
            Create(frame, rate_func=early(0.3)),
        ]
        anims += [FadeOut(f, rate_func=early(0.3)) for f in old_frames]
        anims.append(FadeTransform(readout, new, rate_func=early(0.5)))
        self.play(*anims, *extra, run_time=window)
        self._current_frames = [frame]
        return new

    def _refloat_with_card(self, window, berg, card, new_card, model, readout, *extra):
        target = BergState(**{**berg.state.__dict__, **model.whole_state()})
        new = ty.body(ty.fmt_percent(model.ffn_share_of_total)).move_to(target.mass_point())
        anims = [berg.refloat(**model.whole_state()), FadeTransform(readout, new, rate_func=early(0.5))]
        if new_card is not card:
            anims.append(FadeTransform(card, new_card, rate_func=early(0.25)))
        self.play(*anims, *extra, run_time=window)
        return new

    def _frames(self) -> list:
        return list(getattr(self, "_current_frames", []))

    def _ideal_rows(self) -> VGroup:
        att_m = self.number("iceberg.ideal.attention_matrices")
        ffn_m = self.number("iceberg.ideal.ffn_matrices")
        expansion = self.number("iceberg.ideal.expansion")
        att_c = self.number("iceberg.ideal.attention_coefficient")
        ffn_c = self.number("iceberg.ideal.ffn_coefficient")
        block_c = self.number("iceberg.ideal.block_coefficient")
        num = self.number("iceberg.ideal.share_numerator")
        den = self.number("iceberg.ideal.share_denominator")
        rows = VGroup(
            VGroup(
                ty.label("Atención: Q, K, V, O", color=palette.ATTENTION),
                ty.math(rf"{att_m} \cdot d \cdot d = {att_c}\,d^2", color=palette.ATTENTION),
            ),
            VGroup(
                ty.label("Feed-forward clásica", color=palette.FFN),
                ty.math(rf"{ffn_m} \cdot d \cdot ({expansion}\,d) = {ffn_c}\,d^2", color=palette.FFN),
            ),
            VGroup(ty.label("Bloque"), ty.math(rf"{att_c}\,d^2 + {ffn_c}\,d^2 = {block_c}\,d^2")),
        )
        for k, row in enumerate(rows):
            row[0].move_to((0, 2.4 - 1.1 * k, 0)).align_to((PANEL_X - 4.4, 0, 0), LEFT)
            row[1].move_to((0, 2.4 - 1.1 * k, 0)).align_to((PANEL_X - 0.3, 0, 0), LEFT)
        share = ty.math(
            rf"\frac{{{ffn_c}\,d^2}}{{{block_c}\,d^2}} = \frac{{{num}}}{{{den}}}", color=palette.FFN, font_size=60
        ).move_to((PANEL_X, -1.6, 0))
        rows.add(share)
        return rows

    def _card(self, m: ModelFigures) -> PartsCard:
        card = PartsCard(
            m.name,
            [
                CardLine("Tabla de palabras", m.token_embedding, ICE_REST),
                CardLine("Posiciones", m.position_embedding, ICE_REST, "rotatorias, sin pesos"),
                CardLine(f"Atención · {m.n_layers} bloques", m.attention_total, palette.ATTENTION),
                CardLine(f"Feed-forward · {m.n_layers} bloques", m.ffn_total, palette.FFN),
                CardLine("Normas", m.norms_total, ICE_REST),
                CardLine("Cabeza de salida", m.output_head, ICE_REST, "comparte la tabla"),
            ],
            m.total,
        )
        return card.move_to((PANEL_X + 0.2, -0.1, 0))

    def _figures(self) -> tuple[ModelFigures, ModelFigures, ModelFigures]:
        gpt2 = ModelFigures(
            name=notation.display_name(self.number("params.gpt2_small.display_name")),
            attention_per_layer=self.number("params.gpt2_small.attention_per_layer"),
            ffn_per_layer=self.number("params.gpt2_small.ffn_per_layer"),
            block_share=self.number("params.gpt2_small.ffn_share"),
            n_layers=self.number("params.gpt2_small.n_layers"),
            token_embedding=self.number("params.gpt2_small.token_embedding"),
            position_embedding=self.number("params.gpt2_small.position_embedding"),
            attention_total=self.number("params.gpt2_small.attention_total"),
            ffn_total=self.number("params.gpt2_small.ffn_total"),
            norms_total=self.number("iceberg.gpt2_small.norms_total"),
            output_head=self.number("params.gpt2_small.output_head"),
            total=self.number("params.gpt2_small.total"),
            ffn_share_of_total=self.number("params.gpt2_small.ffn_share_of_total"),
            attention_share_of_total=self.number("iceberg.gpt2_small.attention_share_of_total"),
        )
        gpt3 = ModelFigures(
            name=notation.display_name(self.number("params.gpt3_175b.display_name")),
            attention_per_layer=self.number("params.gpt3_175b.attention_per_layer"),
            ffn_per_layer=self.number("params.gpt3_175b.ffn_per_layer"),
            block_share=self.number("params.gpt3_175b.ffn_share"),
            n_layers=self.number("params.gpt3_175b.n_layers"),
            token_embedding=self.number("params.gpt3_175b.token_embedding"),
            position_embedding=self.number("params.gpt3_175b.position_embedding"),
            attention_total=self.number("params.gpt3_175b.attention_total"),
            ffn_total=self.number("params.gpt3_175b.ffn_total"),
            norms_total=self.number("iceberg.gpt3_175b.norms_total"),
            output_head=self.number("params.gpt3_175b.output_head"),
            total=self.number("params.gpt3_175b.total"),
            ffn_share_of_total=self.number("params.gpt3_175b.ffn_share_of_total"),
            attention_share_of_total=self.number("iceberg.gpt3_175b.attention_share_of_total"),
        )
        llama = ModelFigures(
            name=notation.display_name(self.number("params.llama2_7b.display_name")),
            attention_per_layer=self.number("params.llama2_7b.attention_per_layer"),
            ffn_per_layer=self.number("params.llama2_7b.ffn_per_layer"),
            block_share=self.number("params.llama2_7b.ffn_share"),
            n_layers=self.number("params.llama2_7b.n_layers"),
            token_embedding=self.number("params.llama2_7b.token_embedding"),
            position_embedding=self.number("params.llama2_7b.position_embedding"),
            attention_total=self.number("params.llama2_7b.attention_total"),
            ffn_total=self.number("params.llama2_7b.ffn_total"),
            norms_total=self.number("iceberg.llama2_7b.norms_total"),
            output_head=self.number("params.llama2_7b.output_head"),
            total=self.number("params.llama2_7b.total"),
            ffn_share_of_total=self.number("params.llama2_7b.ffn_share_of_total"),
            attention_share_of_total=self.number("iceberg.llama2_7b.attention_share_of_total"),
        )
        return gpt2, gpt3, llama


def _block_column() -> VGroup:
    """A block as the data goes through it, bottom to top: into attention, then the FFN, then out."""
    att, ffn = StageBox("Atención", palette.ATTENTION), StageBox("Feed-forward", palette.FFN)
    boxes = VGroup(att, ffn).arrange(UP, buff=0.75)
    arrows = VGroup(
        FlowArrow(att.get_bottom() + DOWN * 0.75, att.get_bottom()),
        FlowArrow(att.get_top(), ffn.get_bottom()),
        FlowArrow(ffn.get_top(), ffn.get_top() + UP * 0.75),
    )
    return VGroup(boxes, arrows)


def _count_label(name: str, count: int, color) -> VGroup:
    head = ty.body(name, color=color)
    figure = ty.label(f"{ty.fmt_int(count)} parámetros")
    return VGroup(head, figure).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
