"""Superposición: more features than dimensions.

The toy model of Elhage et al. (2022), trained here (ffn_core.superposition): five sparse
features through two hidden dimensions and back. Its learned feature directions, drawn as
arrows in the hidden plane, at two sparsities: dense (two features kept, perpendicular, the
rest dropped) and sparse (all five packed at wide angles, a near pentagon); the price
(interference, cut by the bias and the ReLU). The sparse picture is the best of several
seeds; the narration says how many of them reach it. Then a real polysemantic neuron of
MiniLM (found by the closing scene's search) as what superposition would predict in a real
model, said as consistent with it, not proof.
"""

from __future__ import annotations

from manim import (
    DL,
    DOWN,
    LEFT,
    RIGHT,
    UL,
    UP,
    UR,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromEdge,
    GrowFromPoint,
    Indicate,
    LaggedStart,
    ReplacementTransform,
    Text,
    VGroup,
    Write,
)

from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.narrated import NarratedScene
from scenes.kit.specialists import NeuronBadge, TopicBars, topic_color
from scenes.kit.superposition import FeatureSamples, FeatureStar, NeuronsToFeatures, ToyModelDiagram, ToyModelTag

STAR_CENTER = (-3.7, -0.2, 0)  # the feature star's origin, left of the frame's centre
STAR_UNIT = 2.0  # scene units per unit of a feature direction's norm
PANEL_X = -0.2  # left edge of the facts beside the star
BASELINE_Y = -1.0  # the MiniLM bars' baseline (as in the closing scene)
UNIT_HEIGHT = 1.5  # scene units per unit of activation of the MiniLM bars


def sub(i: int) -> str:
    """Feature i's name in plain text: 'x₀'."""
    return "x" + notation.subscript(i)


class Superposition(NarratedScene):
    script = "superposition"

    def construct(self):
        self.n = self.number("superposition.n_features")
        self.m = self.number("superposition.n_hidden")
        self.problem()
        self.toy_model()
        self.two_sparsities()
        self.price()
        self.real_neuron()

    # -- the problem of room ---------------------------------------------------------------
    def problem(self) -> None:
        d_model = self.number("params.minilm_l6.d_model")
        vocab = self.number("params.minilm_l6.vocab_size")
        with self.beat("pregunta") as b:
            heading = ty.title("Más rasgos que dimensiones").to_corner(UL, buff=0.45)
            badge = model_badge(self, "minilm").to_corner(UR, buff=0.3)
            dims = VGroup(
                Text(ty.fmt_int(d_model), font=ty.FONT, font_size=110, color=palette.FFN),
                ty.body("dimensiones"),
            ).arrange(DOWN, buff=0.3)
            words = VGroup(
                Text(ty.fmt_int(vocab), font=ty.FONT, font_size=110, color=palette.INK),
                ty.body("palabras en su vocabulario"),
            ).arrange(DOWN, buff=0.3)
            VGroup(dims, words).arrange(RIGHT, buff=1.6).move_to((0, 0.3, 0))
            self.play(Write(heading), FadeIn(badge), FadeIn(dims, shift=UP * 0.2), run_time=b.until("vocabulario"))
            self.play(FadeIn(words, shift=UP * 0.2), run_time=b.until("perpendiculares"))
            limit = ty.body(
                f"direcciones perpendiculares entre sí: como mucho {ty.fmt_int(d_model)}", color=palette.MUTED
            )
            limit.next_to(VGroup(dims, words), DOWN, buff=0.8)
            self.play(FadeIn(limit, shift=UP * 0.2), run_time=b.speech_remaining())
            self.play(FadeOut(VGroup(heading, badge, dims, words, limit)), run_time=b.remaining())

    # -- the toy model ---------------------------------------------------------------------
    def toy_model(self) -> None:
        n, m = self.n, self.m
        self.tag = ToyModelTag(ty.fmt_int(n), ty.fmt_int(m)).to_corner(DL, buff=0.3)
        with self.beat("juguete") as b:
            heading = ty.title("Superposición").to_edge(UP, buff=0.45)
            diagram = ToyModelDiagram(n, m, height=3.6, width=7.4).move_to((0, -0.2, 0))
            self.play(Write(heading), run_time=b.until("aqui"))
            self.play(FadeIn(self.tag), run_time=b.until("entran"))
            self.play(
                LaggedStart(*(GrowFromPoint(c, c.get_center()) for c in diagram.inputs), lag_ratio=0.15),
                FadeIn(diagram.names[0]),
                run_time=b.until("pasan"),
            )
            self.play(
                Create(diagram.encode),
                FadeIn(diagram.hidden),
                FadeIn(diagram.names[1]),
                FadeIn(diagram.matrices[0]),
                run_time=b.until("salen"),
            )
            self.play(
                Create(diagram.decode),
                FadeIn(diagram.outputs),
                FadeIn(diagram.names[2]),
                FadeIn(diagram.matrices[1]),
                run_time=b.speech_remaining(),
            )
            self.wait(b.remaining())

        with self.beat("modelo") as b:
            direction = ty.title("Un rasgo, una dirección").to_edge(UP, buff=0.45)
            self.play(
                diagram.animate.scale(0.72).move_to((-3.9, -0.5, 0)),
                ReplacementTransform(heading, direction),
                run_time=0.3 * b.until("salida"),
            )
            rows = ty.math(r"h = x\,W", font_size=54).move_to((3.0, 1.5, 0))
            meaning = ty.label("fila i de W: la dirección del rasgo i", color=palette.FFN)
            meaning.next_to(rows, DOWN, buff=0.35)
            self.play(Write(rows), FadeIn(meaning), run_time=b.until("salida"))
            out = ty.math(r"x' = \mathrm{ReLU}(h\,W" + notation.TRANSPOSE_TEX + r" + b)", font_size=54)
            out.next_to(meaning, DOWN, buff=0.55)
            self.play(Write(out), Indicate(diagram.decode, color=palette.FFN), run_time=b.until("importancia"))
            decay = self.number("superposition.importance_decay")
            importance = ty.math(rf"I_i = {ty.fmt_decimal(decay, 1).replace(',', '{,}')}^{{\,i}}", font_size=48)
            importance.next_to(out, DOWN, buff=0.55)
            note = ty.label("el error en los primeros rasgos pesa más", color=palette.MUTED)
            note.next_to(importance, DOWN, buff=0.3)
            self.play(
                Write(importance),
                FadeIn(note),
                LaggedStart(*(Indicate(c, color=palette.FFN) for c in diagram.inputs), lag_ratio=0.2),
                run_time=b.speech_remaining(),
            )
            self.play(FadeOut(VGroup(direction, diagram, rows, meaning, out, importance, note)), run_time=b.remaining())

    # -- dense and sparse ------------------------------------------------------------------
    def two_sparsities(self) -> None:
        dense_s = self.number("superposition.dense.sparsity")
        sparse_s = self.number("superposition.sparse.sparsity")
        with self.beat("dispersion") as b:
            heading = ty.title("La dispersión").to_edge(UP, buff=0.4)
            self.play(FadeIn(heading), run_time=b.until("densos"))
            grids = []
            for k, (key, s) in enumerate((("dense", dense_s), ("sparse", sparse_s))):
                grid = FeatureSamples(self.number(f"superposition.{key}.examples"), cell=0.38, gap=0.07)
                grid.move_to((-3.2 + 6.4 * k, -0.15, 0))
                caption = ty.body(f"dispersión {ty.fmt_decimal(s, 1 if s else 0)}", color=palette.INK)
                caption.next_to(grid, UP, buff=0.2)
                present = self.number(f"superposition.{key}.feature_probability")
                share = ty.label(f"presencia de cada rasgo: {ty.fmt_percent(present, 0)}", color=palette.MUTED)
                share.next_to(grid, DOWN, buff=0.2)
                grids.append(VGroup(caption, grid, share))
            self.play(FadeIn(grids[0], shift=UP * 0.2), run_time=b.until("dispersos"))
            self.play(FadeIn(grids[1], shift=UP * 0.2), run_time=b.until("juntos"))
            together = ty.label(
                f"dos o más a la vez: {ty.fmt_percent(self.number('superposition.sparse.two_or_more_share'), 1)}",
                color=palette.FFN,
            ).next_to(grids[1], DOWN, buff=0.15)
            self.play(FadeIn(together, shift=UP * 0.2), run_time=b.speech_remaining())
            self.play(FadeOut(VGroup(heading, *grids, together)), run_time=b.remaining())

        threshold = self.number("superposition.threshold")
        dense = FeatureStar(self.number("superposition.dense.weights"), unit=STAR_UNIT, threshold=threshold)
        dense.shift(STAR_CENTER)
        kept = self.number("superposition.dense.n_represented")
        with self.beat("denso") as b:
            caption = ty.body(f"dispersión {ty.fmt_decimal(dense_s, 0)}: datos densos", color=palette.INK)
            caption.move_to((PANEL_X, 2.6, 0), aligned_edge=LEFT)
            ring = ty.small(f"anillo punteado: norma {ty.fmt_decimal(threshold, 1)}", color=palette.MUTED)
            ring.move_to((PANEL_X, -2.4, 0), aligned_edge=LEFT)
            self.play(
                FadeIn(dense.axes),
                FadeIn(dense.ring),
                FadeIn(dense.threshold_ring),
                FadeIn(dense.origin),
                FadeIn(caption),
                FadeIn(ring),
                run_time=b.until("dos"),
            )
            count = self._fact(f"rasgos representados: {kept} de {self.n}", 1.7, palette.FFN)
            self.play(
                *(GrowArrow(a) for a in dense.drawn_arrows),
                FadeIn(dense.drawn_labels),
                FadeIn(count),
                run_time=b.until("angulo"),
            )
            i, j = self.number("superposition.dense.represented")
            arc = dense.angle_arc(i, j)
            angle = self.number("superposition.dense.min_pair_angle_deg")
            angle_text = self._fact(f"ángulo entre ellos: {ty.fmt_decimal(angle, 0)}°", 0.9)
            self.play(Create(arc), FadeIn(angle_text), run_time=b.until("descarta"))
            dropped = self._fact(
                f"los otros {self.number('superposition.dense.n_dropped')}: norma ≤ "
                f"{ty.fmt_decimal(self.number('superposition.dense.dropped_max_norm'), 2)}",
                0.1,
                palette.MUTED,
            )
            self.play(
                FadeIn(dense.drawn_dots),
                LaggedStart(*(Indicate(d, color=palette.HIGHLIGHT, scale_factor=2.5) for d in dense.drawn_dots)),
                FadeIn(dropped),
                run_time=b.speech_remaining(),
            )
            self.wait(b.remaining())

        sparse = FeatureStar(self.number("superposition.sparse.weights"), unit=STAR_UNIT, threshold=threshold)
        sparse.shift(STAR_CENTER)
        self.sparse_star = sparse
        with self.beat("disperso") as b:
            new_caption = ty.body(f"dispersión {ty.fmt_decimal(sparse_s, 1)}: datos dispersos", color=palette.INK)
            new_caption.move_to(caption, aligned_edge=LEFT)
            count_sparse = self._fact(
                f"rasgos representados: {self.number('superposition.sparse.n_represented')} de {self.n}",
                1.7,
                palette.FFN,
            )
            self.play(
                FadeOut(VGroup(arc, angle_text, dropped, count, dense.drawn_labels)),
                ReplacementTransform(caption, new_caption),
                run_time=0.25 * b.until("todos"),
            )
            self.play(
                ReplacementTransform(VGroup(*dense.drawn_arrows, *dense.drawn_dots), sparse.drawn_arrows),
                run_time=b.until("todos"),
            )
            self.play(FadeIn(sparse.drawn_labels), FadeIn(count_sparse), run_time=b.until("pentagono"))
            pentagon = sparse.outline()
            gaps = self._fact(
                f"entre vecinos: de {ty.fmt_decimal(self.number('superposition.sparse.min_gap_deg'), 0)}° "
                f"a {ty.fmt_decimal(self.number('superposition.sparse.max_gap_deg'), 0)}°",
                0.9,
            )
            norms = self._fact(
                f"normas: de {ty.fmt_decimal(self.number('superposition.sparse.kept_min_norm'), 2)} "
                f"a {ty.fmt_decimal(self.number('superposition.sparse.kept_max_norm'), 2)}",
                0.1,
                palette.MUTED,
            )
            self.play(Create(pentagon), FadeIn(gaps), run_time=b.until("nombre"))
            name = VGroup(
                self._fact("superposición:", -0.8, palette.HIGHLIGHT),
                self._fact(f"{self.n} rasgos en {self.m} dimensiones", -1.4, palette.HIGHLIGHT),
            )
            self.play(FadeIn(norms), FadeIn(name, shift=UP * 0.2), run_time=b.speech_remaining())
            self.play(FadeOut(pentagon), run_time=b.remaining())
        self.stage = [new_caption, ring, count_sparse, gaps, norms, name]
        self.star_base = VGroup(dense.axes, dense.ring, dense.threshold_ring, dense.origin)

    def _fact(self, text: str, y: float, color=palette.INK) -> Text:
        """One line of the panel beside the star, its left edge at PANEL_X."""
        return ty.label(text, color=color).move_to((PANEL_X, y, 0), aligned_edge=LEFT)

    # -- the price ---------------------------------------------------------------------------
    def price(self) -> None:
        star = self.sparse_star
        i = self.number("superposition.sparse.leak.feature")
        j = self.number("superposition.sparse.leak.neighbour")
        with self.beat("precio") as b:
            self.play(FadeOut(VGroup(*self.stage[2:])), run_time=0.3 * b.until("empuja"))
            heading = self._fact("el precio: interferencia", 1.7, palette.HIGHLIGHT)
            self.play(FadeIn(heading), run_time=b.until("empuja"))
            others = [a for k, a in enumerate(star.arrows) if a is not None and k not in (i, j)]
            push = star.projection(i, j)
            overlap = self.number("superposition.sparse.leak.overlap")
            pushed = self._fact(f"{sub(i)} sola empuja a {sub(j)}: {ty.fmt_decimal(overlap, 2)}", 0.9)
            self.play(
                *(a.animate.set_opacity(0.25) for a in others),
                Create(push),
                FadeIn(pushed),
                run_time=b.until("recorta"),
            )
            bias = self.number("superposition.sparse.leak.bias")
            kept = self.number("superposition.sparse.leak.kept_share")
            cut = VGroup(
                self._fact(f"sesgo de {sub(j)}: {ty.fmt_decimal(bias, 2)}", 0.1, palette.MUTED),
                self._fact(f"tras sesgo y ReLU pasa el {ty.fmt_percent(kept, 1)}", -0.6, palette.FFN),
            )
            self.play(FadeIn(cut, shift=UP * 0.2), run_time=b.until("barato"))
            rare = self._fact(
                f"dos o más a la vez: {ty.fmt_percent(self.number('superposition.sparse.two_or_more_share'), 1)}",
                -1.6,
            )
            self.play(FadeIn(rare, shift=UP * 0.2), run_time=b.speech_remaining())
            self.play(
                FadeOut(VGroup(star.drawn_arrows, star.drawn_labels, push, heading, pushed, cut, rare)),
                FadeOut(self.star_base),
                FadeOut(VGroup(*self.stage[:2])),
                FadeOut(self.tag),
                run_time=b.remaining(),
            )

    # -- a real polysemantic neuron ----------------------------------------------------------
    def real_neuron(self) -> None:
        names = self.number("closing.topic_names")
        words = self.number("closing.words")
        topic_of_word = self.number("closing.topic_of_word")
        neuron = self.number("closing.fruits.neuron")
        block = self.number("closing.block_number")
        activations = self.number("closing.fruits.activations")
        outranking = self.number("closing.fruits.outranking")
        fruits = 0
        with self.beat("minilm") as b:
            bars = TopicBars(
                activations,
                words,
                topic_of_word,
                names,
                focus=fruits,
                unit_height=UNIT_HEIGHT,
                bar_width=0.24,
                gap=0.08,
                group_gap=0.5,
            )
            bars.shift(-bars.baseline.get_center() + (0, BASELINE_Y, 0))
            card = NeuronBadge(
                notation.neuron(neuron, capitalized=True),
                ["la mejor para frutas", f"{notation.BLOCK} {block}"],
                topic_color(fruits),
                width=4.3,
            ).to_corner(UL, buff=0.3)
            badge = model_badge(self, "minilm").to_corner(UR, buff=0.3)
            self.play(
                FadeIn(badge),
                FadeIn(card),
                FadeIn(bars.baseline),
                FadeIn(bars.words),
                FadeIn(bars.names),
                run_time=b.until("neurona"),
            )
            self.play(
                LaggedStart(*(GrowFromEdge(bar, DOWN) for bar in bars.bars), lag_ratio=0.04), run_time=b.until("horse")
            )
            rivals = [k for k, w in enumerate(words) if w in outranking]
            best_fruit = max((a for a, t in zip(activations, topic_of_word) if t == fruits))
            mark = VGroup(
                *(
                    ty.label(f"{words[k]}: {ty.fmt_decimal(activations[k], 2)}", color=palette.HIGHLIGHT).next_to(
                        bars.bars[k], UP, buff=0.15
                    )
                    for k in rivals
                )
            )
            top = ty.label(f"la fruta más alta: {ty.fmt_decimal(best_fruit, 2)}", color=topic_color(fruits))
            fruit_bars = VGroup(*(bar for bar, t in zip(bars.bars, topic_of_word) if t == fruits))
            top.next_to(fruit_bars, UP, buff=0.25)
            top.shift(RIGHT * max(0.0, -6.8 - top.get_left()[0]))  # kept inside the frame
            self.play(
                *(bars.bars[k].animate.set_fill(color=palette.HIGHLIGHT, opacity=1.0) for k in rivals),
                *(bars.words[k].animate.set_color(palette.HIGHLIGHT) for k in rivals),
                FadeIn(mark),
                FadeIn(top),
                run_time=b.until("poli"),
            )
            poly = VGroup(
                ty.body("polisemántica:", color=palette.INK),
                ty.label("responde a cosas sin relación aparente", color=palette.INK),
            ).arrange(DOWN, aligned_edge=RIGHT, buff=0.15)
            poly.next_to(badge, DOWN, buff=0.35).to_edge(RIGHT, buff=0.4)
            self.play(FadeIn(poly, shift=UP * 0.2), run_time=b.speech_remaining())
            self.play(FadeOut(VGroup(bars, mark, top, poly, card, badge)), run_time=b.remaining())

        with self.beat("cautela") as b:
            claim = VGroup(
                ty.body("más rasgos que neuronas  →  neuronas polisemánticas", color=palette.INK),
            ).move_to((0, 3.0, 0))
            self.play(FadeIn(claim, shift=DOWN * 0.2), run_time=b.until("pero"))
            verdict = (
                VGroup(
                    ty.body("una neurona polisemántica es compatible", color=palette.FFN),
                    ty.body("con la superposición, no la demuestra", color=palette.FFN),
                )
                .arrange(DOWN, buff=0.2)
                .next_to(claim, DOWN, buff=0.5)
            )
            self.play(FadeIn(verdict, shift=UP * 0.2), run_time=b.until("bricken"))
            picture = NeuronsToFeatures(height=2.1).move_to((0, -0.7, 0))
            self.play(
                FadeIn(picture.neurons),
                FadeIn(picture.names[0]),
                Create(picture.links),
                FadeIn(picture.method),
                LaggedStart(*(FadeIn(f) for f in picture.features), lag_ratio=0.15),
                FadeIn(picture.names[1]),
                run_time=b.until("nuestro"),
            )
            ours = ty.label("aquí: un modelo de juguete y una neurona real", color=palette.MUTED)
            ours.move_to((0, -2.9, 0))
            self.play(FadeIn(ours, shift=UP * 0.2), run_time=b.speech_remaining())
            self.play(FadeOut(VGroup(claim, verdict, picture, ours)), run_time=b.remaining())
