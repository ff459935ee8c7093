"""La portada: the lecture's title beside the real model it is about (LLaMA-2 7B's 32 blocks,
attention and feed-forward), a computed hook (the FFN's share of that model's parameters) and
the map of the chapters, built from the plan (`voiceover.chapters`): one line per scene in the
order the scenes play, named by each scene's script title, so the map cannot disagree with
the plan. Then the promise about where every figure comes from, drawn as the registry itself:
one cell per number, lit by its kind as the voice names it (the closing card shows it again)."""

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
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Square,
    VGroup,
    Write,
)

from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.cards import GLYPHS, ChapterTile, RegistryGrid, ShareBar, chapter_map
from scenes.kit.layer_stack import LayerStack
from scenes.kit.narrated import NarratedScene
from voiceover.chapters import chapters

# Where a figure comes from, as the promise says it: the registry's three kinds of number.
ORIGINS = (
    "calculada por el código del proyecto",
    "configuración publicada de un modelo",
    "citada de los textos del curso, y marcada como cita",
)
KIND_COLORS = (palette.ACTIVE, palette.FFN, palette.ATTENTION)  # as on the closing card
RIGHT_X = -3.4  # the left edge of the text column, right of the tower and of the registry
TEXT_ROOM = 10.0  # how wide that column may be (to the frame's right margin)


class TitleCard(NarratedScene):
    script = "title_card"
    citation_corners = {"titulo": UR}  # the bar and its caption fill the bottom of the frame

    def construct(self):
        share = self.number("params.llama2_7b.ffn_share_of_total")
        model = notation.display_name(self.number("params.llama2_7b.display_name"))
        blocks = self.number("params.llama2_7b.n_layers")

        with self.beat("titulo") as b:
            # The model the hook is about, as its stack of blocks: attention and feed-forward.
            tower = LayerStack(blocks, height=5.8, width=2.2).move_to((-5.3, -0.25, 0))
            tower.attention.set_fill(opacity=0.35)
            title = ty.title("La capa feed-forward").scale(1.2)
            subtitle = ty.body("la memoria de los transformers", color=palette.FFN)
            VGroup(title, subtitle).arrange(DOWN, aligned_edge=LEFT, buff=0.35).move_to((0, 1.2, 0))
            VGroup(title, subtitle).align_to((RIGHT_X, 0, 0), LEFT)
            self.add(tower)  # the first frame is the model, not an empty field
            self.play(Write(title), FadeIn(subtitle, shift=UP * 0.2), run_time=b.until("gancho"))
            bar = ShareBar(share, width=TEXT_ROOM, height=1.3).move_to((0, -1.05, 0)).align_to((RIGHT_X, 0, 0), LEFT)
            caption = ty.body(f"{ty.fmt_percent(share)} de los parámetros de {model}").next_to(bar, DOWN, buff=0.3)
            caption.align_to(bar, LEFT)
            # Dark, bold type on the fill made opaque: 6,8:1 (WCAG AA asks 4,5:1), large enough to read.
            bar.fill.set_fill(opacity=1.0)
            inside = ty.body(f"capas feed-forward · {blocks} bloques", color=palette.BACKGROUND, weight="BOLD")
            if inside.width > bar.fill.width - 0.4:
                inside.scale_to_fit_width(bar.fill.width - 0.4)
            inside.move_to(bar.fill)
            badge = model_badge(self, "llama2_7b").next_to(caption, DOWN, buff=0.3).align_to(bar, RIGHT)
            self.play(Create(bar.frame), FadeIn(bar.rest), FadeIn(badge), run_time=0.3 * b.until("tercios"))
            # The bar fills as the voice names the feed-forward layers of the blocks: they light up.
            self.play(
                GrowFromEdge(bar.fill, LEFT),
                FadeIn(caption),
                Indicate(tower.ffn, color=palette.INK, scale_factor=1.0),
                run_time=0.7 * b.until("tercios"),
            )
            self.play(FadeIn(inside), run_time=b.until("tercios"))
            # "Casi dos tercios": a tick at two thirds of the bar, which the fill stops just short of.
            tick = bar.tick(self.number("iceberg.ideal.ffn_share"))
            tick_label = ty.label("dos tercios", color=palette.ATTENTION).next_to(tick, UP, buff=0.12)
            self.play(Create(tick), FadeIn(tick_label), run_time=b.speech_remaining())
            # The hook stays until the map's lines take its place: no title over an empty frame.
            self.play(FadeOut(subtitle), title.animate.scale(0.55 / 1.2).to_edge(UP, buff=0.3), run_time=b.remaining())
            hook = VGroup(tower, bar, tick, tick_label, caption, inside, badge)

        # The map: every other scene of the plan, in the order they play, by its script title.
        entries = [c for c in chapters() if c.script != self.script]
        tiles = VGroup(*(ChapterTile(c.scene if c.scene in GLYPHS else None, c.title) for c in entries))
        chapter_map(tiles)
        if tiles.height > 5.6:  # a longer plan still fits between the title and the promise
            tiles.scale_to_fit_height(5.6)
        tiles.move_to((0, -0.05, 0))

        with self.beat("mapa") as b:
            # The lines' frames first, the whole map at once; then each chapter comes into its frame.
            self.play(
                FadeOut(hook),
                LaggedStart(*(Create(tile.frame) for tile in tiles), lag_ratio=0.05),
                run_time=b.until("recorrido"),
            )
            # The voice tells the three parts; the lines come in, in playing order, meanwhile.
            self.play(
                LaggedStart(
                    *(FadeIn(VGroup(tile.picture, tile.name), shift=RIGHT * 0.15) for tile in tiles), lag_ratio=0.5
                ),
                run_time=b.speech_remaining(),
            )
            self.wait(b.remaining())

        with self.beat("promesa") as b:
            # Every figure of the lecture, one cell each: the registry the promise is about.
            size = self.number("cards.registry_size")
            counts = [self.number(f"cards.n_{kind}") for kind in ("computed", "published", "quoted")]
            grid = RegistryGrid(size, columns=28, cell=0.15, gap=0.035).move_to((-4.3, -0.35, 0))
            heading = VGroup(ty.body("Cada cifra,"), ty.body("con su origen declarado:"))
            heading.arrange(DOWN, aligned_edge=LEFT, buff=0.15)
            rows = VGroup(*(_origin_row(text, color) for text, color in zip(ORIGINS, KIND_COLORS)))
            rows.arrange(DOWN, aligned_edge=LEFT, buff=0.4)
            promise = VGroup(heading, rows).arrange(DOWN, aligned_edge=LEFT, buff=0.55)
            promise.move_to((0, grid.get_y(), 0)).align_to((grid.get_right()[0] + 0.6, 0, 0), LEFT)
            self.play(
                FadeOut(tiles),
                FadeIn(grid, lag_ratio=0.002),
                FadeIn(heading, shift=UP * 0.2),
                run_time=b.until("calculada"),
            )
            spans = grid.spans(counts)
            for row, span, color, mark in zip(rows, spans, KIND_COLORS, ("publicada", "citada", None)):
                window = b.until(mark) if mark else b.speech_remaining()
                self.play(FadeIn(row, shift=RIGHT * 0.2), span.animate.set_fill(color, opacity=0.95), run_time=window)
            # The promise stays to the last frame: the next scene does not cut in from black.
            self.play(Indicate(spans[-1], color=palette.ATTENTION), run_time=b.remaining())


def _origin_row(text: str, color) -> VGroup:
    """One kind of figure: a cell of its colour (as in the grid), then its wording, on two
    lines when one would leave the frame."""
    words = text.split()
    line = ty.label(text, color=color)
    lines = VGroup(line)
    if line.width > TEXT_ROOM - 2.9:
        half = len(words) // 2
        lines = VGroup(ty.label(" ".join(words[:half]), color=color), ty.label(" ".join(words[half:]), color=color))
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.1)
    swatch = Square(0.26, stroke_width=0, fill_color=color, fill_opacity=0.95)
    swatch.next_to(lines[0], LEFT, buff=0.25)
    return VGroup(swatch, lines)
