"""El cierre: where every figure of the lecture comes from, by kind (computed by the project's
code, a model's published configuration, quoted from the course's texts, as the registry
records each), and the credits. How to list and audit them goes in the video's description."""

from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, FadeIn, FadeOut, VGroup, Write

from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.cards import CreditLine
from scenes.kit.narrated import NarratedScene


class ClosingCard(NarratedScene):
    script = "closing_card"

    def construct(self):
        size = self.number("cards.registry_size")
        computed, published, quoted = (self.number(f"cards.n_{k}") for k in ("computed", "published", "quoted"))
        kinds = (
            (computed, "calculada por el código del proyecto", "calculadas por el código del proyecto", palette.ACTIVE),
            (published, "configuración publicada de un modelo", "configuraciones publicadas de modelos", palette.FFN),
            (quoted, "citada de los textos, y marcada", "citadas de los textos, y marcadas", palette.ATTENTION),
        )

        with self.beat("cifras") as b:
            heading = ty.title("Cada cifra, con su origen").to_edge(UP, buff=0.5)
            self.play(Write(heading), run_time=b.until("registro"))
            words = ty.body("números en el registro, cada uno con su origen")
            self.play(FadeIn(words, shift=UP * 0.2), run_time=b.until("total"))
            count = ty.title(ty.fmt_int(size), color=palette.INK).scale(1.5)
            tally = VGroup(count, words.copy()).arrange(DOWN, buff=0.3).move_to((0, 1.3, 0))
            self.play(FadeIn(count, scale=0.6), words.animate.move_to(tally[1]), run_time=b.until("calculadas"))
            rows = VGroup(
                *(
                    VGroup(ty.body(ty.fmt_int(n), color=color), ty.label(one if n == 1 else many)).arrange(
                        RIGHT, buff=0.35
                    )
                    for n, one, many, color in kinds
                )
            ).arrange(DOWN, aligned_edge=LEFT, buff=0.35)
            # Counts right-aligned in one column, their words in the next.
            column = rows.get_left()[0] + max(row[0].width for row in rows)
            for row in rows:
                row[0].align_to((column, 0, 0), RIGHT)
                row[1].align_to((column + 0.35, 0, 0), LEFT)
            rows.next_to(tally, DOWN, buff=0.7)
            for row, mark in zip(rows, ("publicadas", "citadas")):
                self.play(FadeIn(row, shift=RIGHT * 0.2), run_time=b.until(mark))
            self.play(FadeIn(rows[-1], shift=RIGHT * 0.2), run_time=b.fraction(0.5))
            how = ty.small("cómo revisarlas todas: en la descripción del video").to_edge(DOWN, buff=0.45)
            self.play(FadeIn(how), run_time=b.speech_remaining())
            self.play(FadeOut(VGroup(heading, count, words, rows, how)), run_time=b.remaining())

        with self.beat("creditos") as b:
            heading = ty.title("Créditos").to_edge(UP, buff=0.6)
            registered = self.number("params.minilm_l6.display_name")
            model = f"{notation.display_name(registered)} ({registered})"
            lines = (
                VGroup(
                    CreditLine("Ideas y metáforas:", "los textos del curso"),
                    CreditLine("Resultados de investigación:", "los trabajos citados"),
                    CreditLine("Animación:", "Manim Community"),
                    CreditLine("Voz:", "Kokoro (borradores con espeak-ng)"),
                    CreditLine("Modelo preentrenado:", f"{model}, sentence-transformers"),
                )
                .arrange(DOWN, aligned_edge=LEFT, buff=0.5)
                .move_to((0, -0.4, 0))
            )
            if lines.width > 13.0:
                lines.scale_to_fit_width(13.0)
            self.play(FadeIn(heading), run_time=b.until("ideas"))
            self.play(FadeIn(lines[0], shift=UP * 0.2), FadeIn(lines[1], shift=UP * 0.2), run_time=b.until("manim"))
            for line, mark in zip(lines[2:], ("voz", "minilm")):
                self.play(FadeIn(line, shift=UP * 0.2), run_time=b.until(mark))
            self.play(FadeIn(lines[-1], shift=UP * 0.2), run_time=b.speech_remaining())
            self.play(FadeOut(VGroup(heading, lines)), run_time=b.remaining())

        with self.beat("fin") as b:
            motto = VGroup(ty.title("Mirar,", color=palette.ATTENTION), ty.title("recordar.", color=palette.FFN))
            motto.arrange(RIGHT, buff=0.4).scale(1.3).move_to((0, 0.6, 0))
            self.wait(b.until("lema"))
            self.play(Write(motto[0]), run_time=0.4 * b.speech_remaining())
            self.play(Write(motto[1]), run_time=b.speech_remaining())
            thanks = ty.body("Gracias por vernos.").next_to(motto, DOWN, buff=0.8)
            self.play(FadeIn(thanks, shift=UP * 0.2), run_time=b.remaining())
