"""La mitad famosa es la más pequeña: the FFN is the hidden mass of every block."""
from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, Create, FadeIn, FadeOut, GrowFromEdge, VGroup, Write

from ffn_core.params import get_config

from scenes.kit import NarratedScene, palette, typography as ty
from scenes.kit.blocks import StageBox, stage_row
from scenes.kit.iceberg import Iceberg as IcebergShape, ShareBar


MODELS = ("gpt2_small", "gpt3_175b", "llama2_7b")


class Iceberg(NarratedScene):
    script = "iceberg"

    def construct(self):
        attention = self.number("params.llama2_7b.attention_per_layer")
        ffn = self.number("params.llama2_7b.ffn_per_layer")
        share = self.number("params.llama2_7b.ffn_share")

        with self.beat("dos_mitades") as b:
            block = stage_row(StageBox("Atención", palette.ATTENTION), StageBox("Feed-forward", palette.FFN))
            att_box, ffn_box = block[0]
            heading = ty.title("Un bloque del transformer").to_edge(UP, buff=0.6)
            self.play(FadeIn(heading), Create(block), run_time=b.until("atencion"))
            self.play(att_box.light_up(), run_time=b.until("ffn"))
            self.play(att_box.light_down(), ffn_box.light_up(), run_time=b.speech_remaining())
            self.play(FadeOut(block), FadeOut(heading), run_time=b.remaining())

        berg = IcebergShape(above=attention, below=ffn, width=4.4, height=5.4).move_to(LEFT * 3.3)
        with self.beat("punta") as b:
            self.play(FadeIn(berg.tip, shift=DOWN * 0.3), run_time=b.until("agua"))
            self.play(Create(berg.waterline), FadeIn(berg.sea), run_time=b.until("cifra_atencion"))
            att_label = _count_label("Atención", attention, palette.ATTENTION).next_to(
                berg.tip, RIGHT, buff=0.8).align_to(berg.tip, UP)
            self.play(Write(att_label), run_time=b.remaining())

        with self.beat("masa") as b:
            self.wait(b.until("masa"))
            self.play(GrowFromEdge(berg.mass, UP), run_time=b.until("cifra_ffn"))
            ffn_label = _count_label("Feed-forward", ffn, palette.FFN).next_to(berg.mass, RIGHT, buff=0.8)
            ffn_label.align_to(att_label, LEFT)
            self.play(Write(ffn_label), run_time=b.until("cuota"))
            verdict = ty.body(f"{ty.fmt_percent(share)} del bloque", color=palette.FFN)
            verdict.next_to(ffn_label, DOWN, buff=0.5).align_to(ffn_label, LEFT)
            self.play(FadeIn(verdict), run_time=b.speech_remaining())
            self.play(FadeOut(VGroup(berg, att_label, ffn_label, verdict)), run_time=b.remaining())

        with self.beat("modelos") as b:
            rows = VGroup(*(self._share_row(key) for key in MODELS))
            rows.arrange(DOWN, buff=0.7).move_to(DOWN * 0.3)
            heading = ty.title("Parámetros de un bloque").to_edge(UP, buff=0.6)
            legend = _legend().next_to(heading, DOWN, buff=0.35)
            self.play(FadeIn(heading), FadeIn(legend), run_time=b.until("gpt2"))
            for row, mark in zip(rows, ("gpt3", "llama", None)):
                self.play(FadeIn(row, shift=RIGHT * 0.3),
                          run_time=b.until(mark) if mark else b.speech_remaining())
            self.play(FadeOut(VGroup(rows, heading, legend)), run_time=b.remaining())

        with self.beat("cierre") as b:
            line1 = ty.title("La parte que todos estudian")
            line2 = ty.title("es la más pequeña.", color=palette.ATTENTION)
            text = VGroup(line1, line2).arrange(DOWN, buff=0.3).move_to(UP * 0.6)
            self.play(Write(text), run_time=b.until("frase"))
            coda = ty.body("Lo que el modelo sabe vive debajo del agua.", color=palette.FFN)
            coda.next_to(text, DOWN, buff=0.8)
            self.play(FadeIn(coda), run_time=b.speech_remaining())
            self.wait(b.remaining())

    def _share_row(self, key: str) -> VGroup:
        attention = self.number(f"params.{key}.attention_per_layer")
        ffn = self.number(f"params.{key}.ffn_per_layer")
        share = self.number(f"params.{key}.ffn_share")
        bar = ShareBar(attention, ffn, width=6.4, height=0.55)
        label = ty.label(get_config(key).display_name).next_to(bar, LEFT, buff=0.4)
        value = ty.label(ty.fmt_percent(share), color=palette.FFN).next_to(bar, RIGHT, buff=0.4)
        return VGroup(label, bar, value)


def _count_label(name: str, count: int, color) -> VGroup:
    head = ty.body(name, color=color)
    figure = ty.label(f"{ty.fmt_int(count)} parámetros")
    return VGroup(head, figure).arrange(DOWN, aligned_edge=LEFT, buff=0.2)


def _legend() -> VGroup:
    att = ty.small("■ atención", color=palette.ATTENTION)
    ffn = ty.small("■ feed-forward", color=palette.FFN)
    return VGroup(att, ffn).arrange(RIGHT, buff=0.6)
