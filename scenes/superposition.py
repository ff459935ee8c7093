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
from scenes.kit.superposition import (
    FeatureSamples,
    FeatureStar,
    NeuronsToFeatures,
    ToyModelDiagram,
    ToyModelTag,
    VectorColumn,
    VocabularyColumn,
)

STAR_CENTER = (-3.7, -0.2, 0)  # the feature star's origin, left of the frame's centre
STAR_UNIT = 2.0  # scene units per unit of a feature direction's norm
PANEL_X = -0.2  # left edge of the facts beside the star
BASELINE_Y = -1.0  # the MiniLM bars' baseline (as in the closing scene)
UNIT_HEIGHT = 1.5  # scene units per unit of activation of the MiniLM bars
MINI_SCALE = 0.45  # the example grid kept beside the star, as a share of its size in the sparsity beat
MINI_CENTER = (6.3, 0.9, 0)  # where that grid sits: right of the panel, under its caption


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
        words = self.number("closing.words")
        with self.beat("pregunta") as b:
            self.heading = ty.title("Más rasgos que dimensiones").to_corner(UL, buff=0.45)
            self.badge = model_badge(self, "minilm").to_corner(UR, buff=0.3)
            self.add(self.heading, self.badge)
            self.vector = VectorColumn(top=8, bottom=2, cell=0.34)
            dims = VGroup(
                Text(ty.fmt_int(d_model), font=ty.FONT, font_size=110, color=palette.FFN),
                ty.body("dimensiones"),
            ).arrange(DOWN, buff=0.3)
            dims.next_to(self.vector, RIGHT, buff=0.3)  # the count labels its column
            self.vocabulary = VocabularyColumn(words[::4])
            count = VGroup(
                Text(ty.fmt_int(vocab), font=ty.FONT, font_size=110, color=palette.INK),
                ty.label("palabras en su vocabulario"),
            ).arrange(DOWN, buff=0.3)
            count.next_to(self.vocabulary, RIGHT, buff=0.3)
            VGroup(VGroup(self.vector, dims), VGroup(self.vocabulary, count)).arrange(RIGHT, buff=1.3).move_to(
                (0, 0.1, 0)
            )
            # The scene opens on its question and the model's vector with its count, not on black;
            # a wave runs down the vector's coordinates as they are counted.
            self.add(self.vector, dims)
            self.play(
                LaggedStart(
                    *(Indicate(cell, color=palette.HIGHLIGHT, scale_factor=1.15) for cell in self.vector.cells),
                    lag_ratio=0.15,
                ),
                run_time=b.until("vocabulario"),
            )
            self.play(
                FadeIn(self.vocabulary, shift=UP * 0.2),
                FadeIn(count, shift=UP * 0.2),
                run_time=b.until("perpendiculares"),
            )
            limit = ty.body(
                f"direcciones perpendiculares entre sí: como mucho {ty.fmt_int(d_model)}", color=palette.MUTED
            )
            limit.move_to((0, -2.85, 0))
            self.play(
                FadeIn(limit, shift=UP * 0.2),
                Indicate(self.vector.cells, color=palette.HIGHLIGHT, scale_factor=1.05),
                run_time=b.speech_remaining(),
            )
            self.wait(b.remaining())
        self.room_texts = VGroup(dims, count, limit)

    # -- the toy model ---------------------------------------------------------------------
    def toy_model(self) -> None:
        n, m = self.n, self.m
        self.tag = ToyModelTag(ty.fmt_int(n), ty.fmt_int(m)).to_corner(DL, buff=0.3)
        with self.beat("juguete") as b:
            heading = ty.title("Superposición").to_edge(UP, buff=0.45)
            diagram = ToyModelDiagram(n, m, height=3.6, width=7.4).move_to((0, -0.2, 0))
            ghost = diagram.ghost()
            # The real model's room shrinks to the toy's: its vector becomes the hidden
            # plane's two nodes, its vocabulary the features in and out.
            self.play(
                ReplacementTransform(self.heading, heading),
                FadeOut(self.badge),
                FadeOut(self.room_texts),
                ReplacementTransform(self.vector, ghost.hidden),
                ReplacementTransform(self.vocabulary, VGroup(ghost.inputs, ghost.outputs)),
                FadeIn(ghost.lines),
                run_time=b.until("aqui"),
            )
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
            self.remove(ghost.lines, ghost.inputs, ghost.hidden, ghost.outputs)  # covered by the diagram
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
            self.wait(b.remaining())
        self.diagram, self.model_heading = diagram, direction
        self.formulas = VGroup(rows, meaning, out, importance, note)

    # -- dense and sparse ------------------------------------------------------------------
    def two_sparsities(self) -> None:
        dense_s = self.number("superposition.dense.sparsity")
        sparse_s = self.number("superposition.sparse.sparsity")
        with self.beat("dispersion") as b:
            heading = ty.title("La dispersión").to_edge(UP, buff=0.4)
            definition = ty.body("la probabilidad de que un rasgo falte", color=palette.MUTED)
            definition.next_to(heading, DOWN, buff=0.35)
            diagram = self.diagram
            self.play(
                ReplacementTransform(self.model_heading, heading),
                FadeOut(self.formulas),
                diagram.animate.scale(0.85 / 0.72).move_to((0, -0.75, 0)),
                run_time=0.35 * b.until("densos"),
            )
            # One sparse example: the features it lacks go dark at the model's input.
            example = next(row for row in self.number("superposition.sparse.examples") if any(row))
            self.play(
                FadeIn(definition, shift=UP * 0.2),
                *diagram.silence_inputs([v > 0 for v in example]),
                run_time=b.until("densos"),
            )
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
            self.play(
                FadeOut(VGroup(diagram, definition)), FadeIn(grids[0], shift=UP * 0.2), run_time=b.until("dispersos")
            )
            self.play(FadeIn(grids[1], shift=UP * 0.2), run_time=b.until("juntos"))
            together = ty.label(
                f"dos o más a la vez: {ty.fmt_percent(self.number('superposition.sparse.two_or_more_share'), 1)}",
                color=palette.FFN,
            ).next_to(grids[1], DOWN, buff=0.15)
            self.play(FadeIn(together, shift=UP * 0.2), run_time=b.speech_remaining())
            self.wait(b.remaining())

        threshold = self.number("superposition.threshold")
        dense = FeatureStar(self.number("superposition.dense.weights"), unit=STAR_UNIT, threshold=threshold)
        dense.shift(STAR_CENTER)
        kept = self.number("superposition.dense.n_represented")
        with self.beat("denso") as b:
            caption = ty.body(f"dispersión {ty.fmt_decimal(dense_s, 0)}: datos densos", color=palette.INK)
            caption.move_to((PANEL_X, 2.6, 0), aligned_edge=LEFT)
            ring = ty.small(f"anillo punteado: norma {ty.fmt_decimal(threshold, 1)}", color=palette.MUTED)
            ring.move_to((PANEL_X, -2.4, 0), aligned_edge=LEFT)
            # The dense examples stay, small, beside the star they trained.
            samples = grids[0][1]
            data = samples.grid
            self.play(
                FadeOut(VGroup(heading, grids[0][0], grids[0][2], samples.heads, grids[1], together)),
                data.animate.scale(MINI_SCALE).move_to(MINI_CENTER),
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
            sparse_data = FeatureSamples(self.number("superposition.sparse.examples"), cell=0.38, gap=0.07, heads=False)
            sparse_data.scale(MINI_SCALE).move_to(MINI_CENTER)
            self.play(
                FadeOut(VGroup(arc, angle_text, dropped, count, dense.drawn_labels)),
                ReplacementTransform(caption, new_caption),
                ReplacementTransform(data, sparse_data),
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
        self.mini = sparse_data
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
            self.wait(b.remaining())
        self.toy_stage = VGroup(
            star.drawn_arrows,
            star.drawn_labels,
            push,
            heading,
            pushed,
            cut,
            rare,
            self.star_base,
            *self.stage[:2],
            self.mini,
            self.tag,
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
                FadeOut(self.toy_stage),
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
            self.wait(b.remaining())

        with self.beat("cautela") as b:
            claim = VGroup(
                ty.body("más rasgos que neuronas  →  neuronas polisemánticas", color=palette.INK),
            ).move_to((0, 3.0, 0))
            # The neuron's bars stay as the example the claim is about.
            self.play(
                FadeOut(VGroup(mark, top, poly, card, badge)),
                FadeIn(claim, shift=DOWN * 0.2),
                run_time=b.until("pero"),
            )
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
                FadeOut(bars),
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
            self.wait(b.remaining())  # the scene ends on its picture, not on black
