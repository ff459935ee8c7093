"""Neuronas que se especializan, y la pregunta final.

Real FFN neurons of MiniLM that fire for one topic more than for the others, found by a
search over every neuron of one block (ffn_core.specialists): the specialist's activation
for every word, as bars grouped by topic. Then the one-fact edit of the piano-roll scene,
in one sentence, and the seed's question as the last image.
"""

from __future__ import annotations

from manim import (
    DL,
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Brace,
    Create,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    ReplacementTransform,
    SurroundingRectangle,
    VGroup,
    Write,
)

from scenes.kit import notation as n
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.cards import FactStrip, KeyValueShelf
from scenes.kit.narrated import NarratedScene
from scenes.kit.specialists import NeuronBadge, TopicBars, WordColumns, topic_color

BASELINE_Y = -1.0  # the bars' baseline
BADGE_CORNER = (-6.7, 3.75, 0)  # top-left corner of the neuron's badge
UNIT_HEIGHT = 1.0  # scene units per unit of activation, the same for every neuron


class Closing(NarratedScene):
    script = "closing"

    def construct(self):
        names = self.number("closing.topic_names")
        words = self.number("closing.words")
        topic_of_word = self.number("closing.topic_of_word")
        block = self.number("closing.block_number")

        with self.beat("palabras") as b:
            heading = ty.title("¿Neuronas especialistas?").to_edge(UP, buff=0.45).to_edge(LEFT, buff=0.6)
            badge = model_badge(self, "minilm").to_corner(UR, buff=0.3)
            columns = WordColumns(names, words, topic_of_word).next_to(heading, DOWN, buff=0.7).set_x(0)
            minilm = n.display_name(self.number("params.minilm_l6.display_name"))
            note = ty.small(f"palabras en inglés:\n{minilm} aprendió con textos en inglés")
            note.to_corner(DL, buff=0.35)  # the beat's citation takes the bottom right
            # The words are the stage of the whole scene: on screen from the first frame, dimmed,
            # they light up column by column while the question is asked.
            lists = [c[1] for c in columns.columns]
            for words_of_topic in lists:
                words_of_topic.set_opacity(0.35)
            self.add(heading, badge, *lists)
            self.play(
                LaggedStart(*(w.animate.set_opacity(1.0) for w in lists), lag_ratio=0.3),
                run_time=b.until("lista"),
            )
            self.play(
                FadeIn(note),
                Indicate(VGroup(*(c[1] for c in columns.columns)), color=palette.INK, scale_factor=1.03),
                run_time=b.until("temas"),
            )
            self.play(
                LaggedStart(*(Write(c[0]) for c in columns.columns), lag_ratio=0.5), run_time=b.speech_remaining()
            )
            self.wait(b.remaining())

        with self.beat("nota") as b:
            where = (
                ty.body(
                    f"{n.FFN_LAYER} del bloque {block} de {self.number('closing.n_blocks')} · "
                    f"{ty.fmt_int(self.number('closing.d_ff'))} {n.NEURONS}",
                    color=palette.FFN,
                )
                .next_to(heading, DOWN, buff=0.6)
                .set_x(0)
            )
            # The words stay, dimmed, until the formula that scores them comes.
            self.play(
                FadeIn(where, shift=DOWN * 0.2),
                columns.animate.set_opacity(0.45).shift(DOWN * 0.4),
                FadeOut(note),
                run_time=b.until("formula"),
            )
            # The formula is the beat: large, right under the neurons it scores, each mean braced
            # and named under its own term.
            formula = ty.math(
                r"\text{nota}_i(\text{tema}) = {{ \overline{a_i}\,(\text{tema}) }}"
                r" - {{ \overline{a_i}\,(\text{resto}) }}",
                font_size=64,
            ).next_to(where, DOWN, buff=0.4)
            parts = VGroup()
            for term, wording, color in (
                (formula[1], ("media con las", "palabras del tema"), palette.ACTIVE),
                (formula[3], ("media con", "las demás"), palette.MUTED),
            ):
                brace = Brace(term, DOWN, color=color, buff=0.1)
                name = VGroup(*(ty.label(w, color=color) for w in wording)).arrange(DOWN, buff=0.08)
                parts.add(VGroup(brace, name.next_to(brace, DOWN, buff=0.12)))
            self.play(FadeOut(columns), Write(formula), FadeIn(parts[0]), run_time=0.6 * b.until("ganadora"))
            self.play(FadeIn(parts[1]), run_time=b.until("ganadora"))
            winner = ty.body("la nota más alta  →  la especialista del tema", color=palette.ATTENTION)
            winner.next_to(parts, DOWN, buff=0.35)
            self.play(FadeIn(winner, shift=UP * 0.2), run_time=b.speech_remaining())
            self.wait(b.remaining())
            scoring = VGroup(heading, badge, where, formula, parts, winner)  # goes as the first bars come

        numbers = self._specialist("numbers", 2, names, words, topic_of_word, block)
        with self.beat("numeros") as b:
            self.play(
                FadeOut(scoring),
                FadeIn(numbers["badge"]),
                FadeIn(numbers["bars"].baseline),
                FadeIn(numbers["bars"].words),
                FadeIn(numbers["bars"].names),
                FadeIn(numbers["bars"].axis),
                run_time=b.until("barras"),
            )
            self.play(
                LaggedStart(*(GrowFromEdge(bar, DOWN) for bar in numbers["bars"].bars), lag_ratio=0.05),
                run_time=b.until("altas"),
            )
            focus = SurroundingRectangle(numbers["bars"].names[2], color=topic_color(2), buff=0.1)
            self.play(Create(focus), run_time=b.until("resto"))
            self.play(FadeOut(focus), Create(numbers["means"]), FadeIn(numbers["score"]), run_time=b.speech_remaining())
            self.wait(b.remaining())

        places = self._specialist("places", 3, names, words, topic_of_word, block)
        with self.beat("lugares") as b:
            self.play(*self._swap(numbers, places), run_time=b.until("cambio"))
            self.play(Create(places["means"]), FadeIn(places["score"]), run_time=b.until("limpia"))
            lit = [bar for bar, t in zip(places["bars"].bars, topic_of_word) if t == 3]
            self.play(
                LaggedStart(*(Indicate(bar, color=palette.INK, scale_factor=1.15) for bar in lit), lag_ratio=0.3),
                run_time=b.speech_remaining(),
            )
            self.wait(b.remaining())

        fruits = self._specialist("fruits", 0, names, words, topic_of_word, block)
        with self.beat("frutas") as b:
            self.play(*self._swap(places, fruits), run_time=b.until("timida"))
            self.play(Create(fruits["means"]), FadeIn(fruits["score"]), run_time=b.until("mezcla"))
            outranking = self.number("closing.fruits.outranking")
            rivals = [k for k, word in enumerate(words) if word in outranking]
            self.play(
                *(fruits["bars"].bars[k].animate.set_fill(color=palette.HIGHLIGHT, opacity=1.0) for k in rivals),
                *(fruits["bars"].words[k].animate.set_color(palette.HIGHLIGHT) for k in rivals),
                run_time=0.5 * b.speech_remaining(),
            )
            tally = ty.label(
                f"separación perfecta en {self.number('closing.n_separated')} de "
                f"{self.number('closing.n_topics')} temas",
                color=palette.INK,
            )
            tally.next_to(fruits["badge"], DOWN, buff=0.25).align_to(fruits["badge"], LEFT)
            self.play(FadeIn(tally, shift=UP * 0.2), run_time=b.speech_remaining())
            self.wait(b.remaining())

        with self.beat("edicion") as b:
            strip = FactStrip(self.number("memory.n_facts"), height=3.0).move_to((0, 0.6, 0))
            heading = ty.title("Editar un solo hecho").to_edge(UP, buff=0.4)
            self.play(
                FadeOut(VGroup(*fruits.values(), tally)), Write(heading), FadeIn(strip), run_time=b.until("pianola")
            )
            self.play(strip.repunch(0), run_time=b.until("intactos"))
            kept = ty.body(
                f"{self.number('piano_roll.others_unchanged')} de {self.number('memory.edit.others_count')} "
                "siguen igual",
                color=palette.ACTIVE,
            ).next_to(strip, DOWN, buff=0.6)
            toy = model_badge(self, "fact_model", layout="row").next_to(kept, DOWN, buff=0.35)
            self.play(strip.confirm_others(0), FadeIn(kept, shift=UP * 0.2), FadeIn(toy), run_time=b.speech_remaining())
            self.wait(b.remaining())

        with self.beat("pregunta") as b:
            shelf = KeyValueShelf().scale(1.25).move_to((0, 1.25, 0))
            # The shelf's column heads in the lecture's words (llave, valor), whatever the kit writes.
            for head, word, color in zip(shelf.heads, (n.KEY, n.VALUE), (palette.FFN, palette.POSITIVE)):
                head.become(ty.label(word, color=color).move_to(head))
            self.play(FadeOut(VGroup(heading, strip, kept, toy)), FadeIn(shelf), run_time=b.until("biblioteca"))
            self.play(shelf.answer(), run_time=b.until("pregunta"))
            line1 = ty.title("Recordar un hecho, ¿es pensar,")
            line2 = ty.title("o una búsqueda muy rápida?", color=palette.FFN)
            VGroup(line1, line2).arrange(DOWN, buff=0.35).move_to((0, -1.7, 0))  # the question, two lines
            self.play(Write(line1), run_time=0.5 * b.speech_remaining())
            self.play(Write(line2), run_time=b.speech_remaining())
            self.play(shelf.animate.set_opacity(0.6), run_time=b.remaining())

    # -- pieces of the storyboard ------------------------------------------------------------
    def _specialist(self, topic: str, index: int, names, words, topic_of_word, block) -> dict:
        """Badge, bars, mean lines and score of one topic's specialist, placed on the stage."""
        # Each key written out in full, so `ffn-video numbers` can see which this scene reads.
        reads = {
            "numbers": lambda: (
                self.number("closing.numbers.neuron"),
                self.number("closing.numbers.activations"),
                self.number("closing.numbers.score_shown"),
                self.number("closing.numbers.mean_inside"),
                self.number("closing.numbers.mean_outside"),
            ),
            "places": lambda: (
                self.number("closing.places.neuron"),
                self.number("closing.places.activations"),
                self.number("closing.places.score_shown"),
                self.number("closing.places.mean_inside"),
                self.number("closing.places.mean_outside"),
            ),
            "fruits": lambda: (
                self.number("closing.fruits.neuron"),
                self.number("closing.fruits.activations"),
                self.number("closing.fruits.score_shown"),
                self.number("closing.fruits.mean_inside"),
                self.number("closing.fruits.mean_outside"),
            ),
        }
        neuron, activations, score, inside, outside = reads[topic]()
        bars = TopicBars(
            activations,
            words,
            topic_of_word,
            names,
            focus=index,
            unit_height=UNIT_HEIGHT,
            bar_width=0.24,
            gap=0.08,
            group_gap=0.5,
            value_name="activación",
        )
        bars.shift(-bars.baseline.get_center() + (0, BASELINE_Y, 0))
        badge = NeuronBadge(
            n.neuron(neuron, capitalized=True),
            [
                f"especialista en {names[index].lower()}",
                f"{n.display_name(self.number('params.minilm_l6.display_name'))}, "
                f"bloque {block} de {self.number('closing.n_blocks')}",
            ],
            topic_color(index),
            width=4.3,
        )
        badge.move_to(BADGE_CORNER, aligned_edge=UP + LEFT).set_z_index(2)  # over the bars' axis
        means = bars.mean_lines(inside, outside)
        # The score written as the difference of the two means as shown: it adds up on screen.
        score_text = ty.label(
            f"nota = {n.activation(inside)} − ({n.activation(outside)}) = {n.activation(score)}",
            color=topic_color(index),
        )
        score_text.next_to(badge, RIGHT, buff=0.4).align_to(badge, UP)
        return {"badge": badge, "bars": bars, "means": means, "score": score_text}

    def _swap(self, old: dict, new: dict) -> list:
        """The old specialist's drawing turns into the new one's: bars regrow to the new values."""
        return [
            ReplacementTransform(old["badge"], new["badge"]),
            ReplacementTransform(old["bars"], new["bars"]),
            FadeOut(old["means"]),
            FadeOut(old["score"]),
        ]
