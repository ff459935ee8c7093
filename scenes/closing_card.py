"""El cierre: every number of the lecture was computed by the project's code; how to list
and audit them (`ffn-video numbers`, `--json`); the credits."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowArrow,
    LaggedStart,
    VGroup,
    Write,
)

from scenes.kit import NarratedScene, palette
from scenes.kit import typography as ty
from scenes.kit.blocks import StageBox, stage_row
from scenes.kit.cards import CreditLine, TerminalBox


class ClosingCard(NarratedScene):
    script = "closing_card"

    def construct(self):
        size = self.number("cards.registry_size")
        layers = self.number("params.llama2_7b.n_layers")
        facts = self.number("memory.n_facts")

        with self.beat("cifras") as b:
            heading = ty.title("Ninguna cifra escrita a mano").to_edge(UP, buff=0.5)
            self.play(Write(heading), run_time=b.until("registro"))
            flow = stage_row(
                StageBox("Modelos reales", palette.MUTED, width=3.3),
                StageBox("ffn_core", palette.FFN, width=3.3),
                StageBox("Pantalla y voz", palette.ACTIVE, width=3.3),
                gap=0.8,
            )
            flow.move_to((0, 0.9, 0))
            boxes, arrows = flow[0], flow[1:]
            self.play(
                LaggedStart(
                    FadeIn(boxes[0]),
                    GrowArrow(arrows[0]),
                    FadeIn(boxes[1]),
                    GrowArrow(arrows[1]),
                    FadeIn(boxes[2]),
                    lag_ratio=0.4,
                ),
                run_time=b.until("total"),
            )
            count = ty.title(ty.fmt_int(size), color=palette.ACTIVE).scale(1.8)
            words = ty.body("números en el registro")
            tally = VGroup(count, words).arrange(DOWN, buff=0.3).move_to((0, -1.9, 0))
            self.play(FadeIn(count, scale=0.6), FadeIn(words), run_time=b.speech_remaining())
            self.play(FadeOut(VGroup(flow, tally)), run_time=b.remaining())

        with self.beat("comando") as b:
            table = TerminalBox(
                [
                    "$ ffn-video numbers",
                    f"cards.registry_size         {size}    numbers",
                    f"params.llama2_7b.n_layers   {layers}     layers",
                    f"memory.n_facts              {facts}     facts",
                    "…",
                ]
            ).move_to((0, -0.4, 0))
            self.play(
                FadeOut(heading),
                FadeIn(table.window),
                FadeIn(table.bar),
                FadeIn(table.dots),
                run_time=0.4 * b.until("terminal"),
            )
            self.play(Write(table.lines[0]), run_time=b.until("terminal"))
            self.play(LaggedStart(*(FadeIn(line) for line in table.lines[1:]), lag_ratio=0.4), run_time=b.until("json"))
            listing = TerminalBox(
                [
                    "$ ffn-video numbers --json",
                    "  {",
                    '    "key": "cards.registry_size",',
                    f'    "value": {size},',
                    '    "unit": "numbers",',
                    '    "source": "len(ffn_core.numbers.all_numbers()) …",',
                    '    "scenes": ["closing_card"]',
                    "  }, …",
                ],
                font_size=26,
            ).move_to((0, -0.1, 0))
            self.play(FadeTransform(table, listing), run_time=0.3 * b.speech_remaining())
            fields = VGroup(*(listing.lines[k] for k in range(2, 7)))
            self.play(
                LaggedStart(*(line.animate.set_color(palette.ATTENTION) for line in fields), lag_ratio=0.5),
                run_time=b.speech_remaining(),
            )
            self.play(FadeOut(listing), run_time=b.remaining())

        with self.beat("creditos") as b:
            heading = ty.title("Créditos").to_edge(UP, buff=0.6)
            lines = (
                VGroup(
                    CreditLine("Ideas y metáforas:", "los textos semilla del proyecto"),
                    CreditLine("Animación:", "Manim Community"),
                    CreditLine("Voz:", "Kokoro (borradores con espeak-ng)"),
                    CreditLine(
                        "Modelo real:", f"{self.number('params.minilm_l6.display_name')}, sentence-transformers"
                    ),
                )
                .arrange(DOWN, aligned_edge=LEFT, buff=0.6)
                .move_to((0, -0.4, 0))
            )
            self.play(FadeIn(heading), run_time=b.until("ideas"))
            for line, mark in zip(lines, ("manim", "voz", "minilm")):
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
