"""El cierre: where every figure of the lecture comes from, by kind (computed by the project's
code, a model's published configuration, quoted from the course's texts, as the registry
records each), and the credits. How to list and audit them goes in the video's description.

The registry is drawn as a grid, one cell per number, lit by kind as the voice counts them;
its frame becomes the credits' card, and the card a tower of blocks (attention and
feed-forward, «mirar» and «recordar») for the last words."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    VGroup,
    Write,
)

from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.cards import CreditLine, RegistryGrid
from scenes.kit.layer_stack import LayerStack
from scenes.kit.narrated import NarratedScene

GRID_COLUMNS = 32  # the registry drawn as a grid of cells, one per number, filled by kind
CELL, CELL_GAP = 0.15, 0.035
TEXT_LEFT = -0.2  # the counts' column, right of the grid
CARD_FILL = "#1E232F"  # the credits' card: palette.INK at 7 % over palette.BACKGROUND


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
            # The registry is the drawing: one cell per number, lit by kind as the voice counts them.
            heading = ty.title("Cada cifra, con su origen").to_edge(UP, buff=0.4)
            cells = RegistryGrid(size, columns=GRID_COLUMNS, cell=CELL, gap=CELL_GAP).move_to((-3.75, -0.35, 0))
            frame = SurroundingRectangle(cells, color=palette.MUTED, buff=0.12, stroke_width=2)
            # The scene opens on the registry, never on an empty frame: its cells, small, grow into
            # place as a wave while the voice begins.
            for cell in cells:
                cell.scale(0.5)
            self.add(heading, frame, cells)
            self.play(
                LaggedStart(*(cell.animate.scale(2.0) for cell in cells), lag_ratio=0.002), run_time=b.until("registro")
            )
            words = ty.label("números en el registro,\ncada uno con su origen")
            count = ty.title(ty.fmt_int(size), color=palette.INK).scale(1.5)
            tally = VGroup(count, words).arrange(DOWN, aligned_edge=LEFT, buff=0.25)
            tally.move_to((0, 1.55, 0)).align_to((TEXT_LEFT, 0, 0), LEFT)
            self.play(FadeIn(words, shift=UP * 0.2), run_time=b.until("total"))
            self.play(FadeIn(count, scale=0.6), Indicate(frame, color=palette.INK), run_time=b.until("calculadas"))
            rows = VGroup(
                *(
                    VGroup(
                        ty.body(ty.fmt_int(n), color=color), ty.small(one if n == 1 else many, color=palette.INK)
                    ).arrange(DOWN, aligned_edge=LEFT, buff=0.1)
                    for n, one, many, color in kinds
                )
            ).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
            rows.next_to(tally, DOWN, buff=0.5).align_to(tally, LEFT)
            spans = cells.spans((computed, published, quoted))
            for (row, kind, span), mark in zip(zip(rows, kinds, spans), ("publicadas", "citadas")):
                self.play(
                    FadeIn(row, shift=RIGHT * 0.2), span.animate.set_fill(kind[3], opacity=0.95), run_time=b.until(mark)
                )
            last = spans[-1]
            ring = SurroundingRectangle(last, color=palette.ATTENTION, buff=0.08) if len(last) else VGroup()
            self.play(
                FadeIn(rows[-1], shift=RIGHT * 0.2),
                last.animate.set_fill(kinds[-1][3], opacity=1.0),
                Create(ring),
                run_time=b.fraction(0.5),
            )
            how = ty.small("cómo revisarlas todas: en la descripción del video").to_edge(DOWN, buff=0.35)
            self.play(FadeIn(how), run_time=b.speech_remaining())
            self.wait(b.remaining())

        with self.beat("creditos") as b:
            heading2 = ty.title("Créditos").to_edge(UP, buff=0.5)
            registered = self.number("params.minilm_l6.display_name")
            model = f"{notation.display_name(registered)} ({registered})"
            lines = VGroup(
                CreditLine("Ideas y metáforas:", "los textos del curso"),
                CreditLine("Resultados de investigación:", "los trabajos citados"),
                CreditLine("Animación:", "Manim Community"),
                CreditLine("Voz:", "Kokoro (borradores con espeak-ng)"),
                CreditLine("Modelo preentrenado:", f"{model}, sentence-transformers"),
            ).arrange(DOWN, aligned_edge=LEFT, buff=0.5)
            if lines.width > 13.0:
                lines.scale_to_fit_width(13.0)
            lines.move_to((0, -0.45, 0))
            # The registry's frame becomes the credits' card: the stage stays and changes.
            card = RoundedRectangle(
                corner_radius=0.2,
                width=min(lines.width + 0.6, 13.8),
                height=lines.height + 0.9,
                color=palette.MUTED,
                stroke_width=2,
                # INK at 7 % over the background, as an opaque colour: the role names keep 5:1, and a
                # frame drawn twice by the renderer (its static layer, then its moving one) looks the same.
                fill_color=CARD_FILL,
                fill_opacity=1.0,
            ).move_to(lines)
            self.play(
                FadeOut(VGroup(cells, count, words, rows, ring, how)),
                ReplacementTransform(heading, heading2),
                ReplacementTransform(frame, card),
                FadeIn(lines[0], shift=UP * 0.2),
                FadeIn(lines[1], shift=UP * 0.2),
                run_time=b.until("ideas"),
            )
            self.play(Indicate(lines[1].who, color=palette.INK, scale_factor=1.05), run_time=b.until("manim"))
            for line, mark in zip(lines[2:], ("voz", "minilm")):
                self.play(FadeIn(line, shift=UP * 0.2), run_time=b.until(mark))
            self.play(FadeIn(lines[-1], shift=UP * 0.2), run_time=b.speech_remaining())
            self.wait(b.remaining())

        with self.beat("fin") as b:
            # "Mirar y recordar, bloque tras bloque": a tower of blocks, each an attention part
            # (mirar) and a feed-forward part (recordar), lit as each word is said.
            tower = LayerStack(TOWER_BLOCKS, height=5.2, width=3.0).move_to((-3.3, -0.1, 0))
            motto = VGroup(ty.title("Mirar,", color=palette.ATTENTION), ty.title("recordar.", color=palette.FFN))
            motto.arrange(DOWN, aligned_edge=LEFT, buff=0.35).scale(1.3).move_to((2.9, 0.7, 0))
            tower.attention.set_fill(opacity=0.25)
            tower.ffn.set_fill(opacity=0.25)
            self.play(
                FadeOut(VGroup(heading2, lines)),
                ReplacementTransform(card, tower),
                run_time=b.until("lema"),
            )
            self.play(
                Write(motto[0]), tower.attention.animate.set_fill(opacity=0.95), run_time=0.4 * b.speech_remaining()
            )
            self.play(Write(motto[1]), tower.ffn.animate.set_fill(opacity=0.95), run_time=b.speech_remaining())
            thanks = ty.body("Gracias por vernos.").next_to(motto, DOWN, buff=0.8).align_to(motto, LEFT)
            self.play(FadeIn(thanks, shift=UP * 0.2), run_time=b.remaining())


TOWER_BLOCKS = 6  # a picture of "block after block", not a model's count
