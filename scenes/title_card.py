"""La portada: the lecture's title, a computed hook (the FFN's share of a real model's
parameters) and the map of the chapters, built from the plan (`voiceover.chapters`): one line
per scene in the order the scenes play, named by each scene's script title, so the map cannot
disagree with the plan. Then the promise about where every figure comes from."""

from __future__ import annotations

from manim import (
    DOWN,
    DR,
    LEFT,
    RIGHT,
    UP,
    UR,
    Create,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    LaggedStart,
    VGroup,
    Write,
)

from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.cards import GLYPHS, ChapterTile, ShareBar, chapter_map
from scenes.kit.narrated import NarratedScene
from voiceover.chapters import chapters

# Where a figure comes from, as the promise says it: the registry's three kinds of number.
ORIGINS = (
    "calculada por el código del proyecto",
    "configuración publicada de un modelo",
    "citada de los textos del curso, y marcada como cita",
)


class TitleCard(NarratedScene):
    script = "title_card"
    citation_corners = {"titulo": UR}  # the bar and its caption fill the bottom of the frame

    def construct(self):
        share = self.number("params.llama2_7b.ffn_share_of_total")
        model = notation.display_name(self.number("params.llama2_7b.display_name"))
        blocks = self.number("params.llama2_7b.n_layers")

        with self.beat("titulo") as b:
            title = ty.title("La capa feed-forward").scale(1.35).move_to((0, 1.9, 0))
            subtitle = ty.body("la memoria de los transformers", color=palette.FFN).next_to(title, DOWN, buff=0.4)
            self.play(Write(title), FadeIn(subtitle, shift=UP * 0.2), run_time=b.until("gancho"))
            bar = ShareBar(share, width=11.0, height=1.1).move_to((0, -1.2, 0))
            caption = ty.body(f"{ty.fmt_percent(share)} de los parámetros de {model}").next_to(bar, DOWN, buff=0.35)
            # Dark, bold type on the fill made opaque: 6,8:1 (WCAG AA asks 4,5:1), large enough to read.
            bar.fill.set_fill(opacity=1.0)
            inside = ty.body(f"capas feed-forward · {blocks} bloques", color=palette.BACKGROUND, weight="BOLD")
            inside.scale_to_fit_height(0.42)
            if inside.width > bar.fill.width - 0.4:
                inside.scale_to_fit_width(bar.fill.width - 0.4)
            inside.move_to(bar.fill)
            self.play(Create(bar.frame), FadeIn(bar.rest), run_time=0.3 * b.until("tercios"))
            badge = model_badge(self, "llama2_7b").to_corner(DR, buff=0.3)
            self.play(GrowFromEdge(bar.fill, LEFT), FadeIn(caption), FadeIn(badge), run_time=0.7 * b.until("tercios"))
            self.play(FadeIn(inside), run_time=b.until("tercios"))
            # "Casi dos tercios": a tick at two thirds of the bar, which the fill stops just short of.
            tick = bar.tick(self.number("iceberg.ideal.ffn_share"))
            tick_label = ty.label("dos tercios", color=palette.ATTENTION).next_to(tick, UP, buff=0.12)
            self.play(Create(tick), FadeIn(tick_label), run_time=b.speech_remaining())
            # The bar stays until the map's slots take its place: no title over an empty frame.
            self.play(
                FadeOut(VGroup(subtitle, badge)),
                title.animate.scale(0.55).to_edge(UP, buff=0.3),
                run_time=b.remaining(),
            )
            hook = VGroup(bar, tick, tick_label, caption, inside)

        # The map: every other scene of the plan, in the order they play, by its script title.
        entries = [c for c in chapters() if c.script != self.script]
        tiles = VGroup(*(ChapterTile(c.scene if c.scene in GLYPHS else None, c.title) for c in entries))
        chapter_map(tiles)
        if tiles.height > 5.6:  # a longer plan still fits between the title and the promise
            tiles.scale_to_fit_height(5.6)
        tiles.move_to((0, -0.05, 0))

        with self.beat("mapa") as b:
            slots = VGroup(*(tile.slot() for tile in tiles))
            self.play(
                FadeOut(hook),
                LaggedStart(*(Create(slot) for slot in slots), lag_ratio=0.05),
                run_time=b.until("recorrido"),
            )
            # The voice tells the three parts; the lines come in, in playing order, meanwhile.
            self.play(
                LaggedStart(*(FadeIn(tile, shift=RIGHT * 0.15) for tile in tiles), lag_ratio=0.5),
                run_time=b.speech_remaining(),
            )
            self.wait(b.remaining())

        with self.beat("promesa") as b:
            heading = ty.body("Cada cifra, con su origen declarado:")
            rows = VGroup(*(ty.label(text, color=palette.ACTIVE) for text in ORIGINS))
            rows.arrange(DOWN, aligned_edge=LEFT, buff=0.4)
            promise = VGroup(heading, rows).arrange(DOWN, aligned_edge=LEFT, buff=0.6).move_to((0, -0.2, 0))
            self.play(FadeOut(VGroup(tiles, slots)), FadeIn(heading, shift=UP * 0.2), run_time=b.until("calculada"))
            for row, mark in zip(rows, ("publicada", "citada")):
                self.play(FadeIn(row, shift=RIGHT * 0.2), run_time=b.until(mark))
            self.play(FadeIn(rows[-1], shift=RIGHT * 0.2), run_time=b.speech_remaining())
            self.play(FadeOut(VGroup(promise, title)), run_time=b.remaining())
