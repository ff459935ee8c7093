"""La portada: the lecture's title, a computed hook (the FFN's share of a real model's
weights) and the map of the chapters, each tile appearing as the narration names it."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    LaggedStart,
    VGroup,
    Write,
)

from scenes.kit import NarratedScene, palette
from scenes.kit import typography as ty
from scenes.kit.cards import ChapterTile, ShareBar

# (glyph, name) of each chapter, in the order the narration names them; rows of four.
CHAPTERS = (
    ("iceberg", "El iceberg"),
    ("xor", "XOR"),
    ("relu", "ReLU"),
    ("needles", "Agujas"),
    ("stamps", "Sellos"),
    ("piano_roll", "Pianola"),
    ("stencil", "Plantilla"),
    ("relay", "Relevo"),
)


class TitleCard(NarratedScene):
    script = "title_card"

    def construct(self):
        share = self.number("params.llama2_7b.ffn_share_of_total")
        model = self.number("params.llama2_7b.display_name")

        with self.beat("titulo") as b:
            title = ty.title("La capa feed-forward").scale(1.35).move_to((0, 1.9, 0))
            subtitle = ty.body("la memoria de los transformers", color=palette.FFN).next_to(title, DOWN, buff=0.4)
            self.play(Write(title), FadeIn(subtitle, shift=UP * 0.2), run_time=b.until("gancho"))
            bar = ShareBar(share, width=11.0, height=1.1).move_to((0, -1.2, 0))
            caption = ty.body(f"{ty.fmt_percent(share)} de los pesos de {model}").next_to(bar, DOWN, buff=0.35)
            inside = ty.label("capa feed-forward", color=palette.BACKGROUND).move_to(bar.fill)
            self.play(Create(bar.frame), FadeIn(bar.rest), run_time=0.3 * b.until("tercios"))
            self.play(GrowFromEdge(bar.fill, LEFT), FadeIn(caption), run_time=0.7 * b.until("tercios"))
            self.play(FadeIn(inside), run_time=b.until("tercios"))
            # "Casi dos tercios": a tick at two thirds of the bar, which the fill stops just short of.
            tick = bar.tick(self.number("iceberg.ideal.ffn_share"))
            tick_label = ty.label("dos tercios", color=palette.ATTENTION).next_to(tick, UP, buff=0.12)
            self.play(Create(tick), FadeIn(tick_label), run_time=b.speech_remaining())
            self.play(
                FadeOut(VGroup(bar, tick, tick_label, caption, inside, subtitle)),
                title.animate.scale(0.55).to_edge(UP, buff=0.35),
                run_time=b.remaining(),
            )

        tiles = VGroup(*(ChapterTile(glyph, name) for glyph, name in CHAPTERS))
        tiles.arrange_in_grid(rows=2, cols=4, buff=(0.3, 0.35)).move_to((0, -0.45, 0))

        with self.beat("mapa") as b:
            # The map's empty slots first: eight chapters to fill, one per name the voice says.
            slots = VGroup(*(tile.slot() for tile in tiles))
            self.play(LaggedStart(*(Create(slot) for slot in slots), lag_ratio=0.1), run_time=b.until("iceberg"))
            self._name(tiles, 0, b.until("xor"))
            self._name(tiles, 1, b.until("relu"))
            self._name(tiles, 2, b.speech_remaining())
            self.play(tiles[2].light_down(), run_time=b.remaining())

        with self.beat("memoria") as b:
            self.wait(b.until("agujas"))
            self._name(tiles, 3, b.until("sellos"))
            self._name(tiles, 4, b.until("pianola"))
            self._name(tiles, 5, b.speech_remaining())
            self.play(tiles[5].light_down(), run_time=b.remaining())

        with self.beat("bloque") as b:
            self.wait(b.until("plantilla"))
            self._name(tiles, 6, b.until("relevo"))
            self._name(tiles, 7, b.speech_remaining())
            self.play(tiles[7].light_down(), run_time=b.remaining())

        with self.beat("promesa") as b:
            promise = ty.body("Cada cifra, calculada por el código del proyecto", color=palette.ACTIVE)
            promise.to_edge(DOWN, buff=0.35)
            self.play(
                tiles.animate.shift(UP * 0.25),
                slots.animate.shift(UP * 0.25),
                FadeIn(promise, shift=UP * 0.2),
                run_time=b.until("codigo"),
            )
            self.play(*(tile.light_up() for tile in tiles), run_time=b.speech_remaining())
            self.play(FadeOut(VGroup(tiles, slots, promise, title)), run_time=b.remaining())

    def _name(self, tiles: VGroup, i: int, window) -> None:
        """Tile i appears, lit, as the narration names its chapter; the one before dims."""
        tiles[i].frame.set_stroke(color=palette.FFN, width=4)
        anims = [FadeIn(tiles[i], shift=UP * 0.2)]
        if i and i not in (3, 6):
            anims.append(tiles[i - 1].light_down())
        self.play(*anims, run_time=window)
