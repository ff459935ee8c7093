"""Tokens as word chips in a row, and attention drawn as arcs that mix them."""

from __future__ import annotations

from manim import RIGHT, UP, ArcBetweenPoints, RoundedRectangle, VGroup

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of


class TokenChip(VGroup):
    """One token: its word in a small rounded box (one vector per word, in the story)."""

    def __init__(self, word: str, color=palette.MUTED, width: float = 1.8, height: float = 0.75, **kwargs):
        super().__init__(**kwargs)
        self.word = word
        self.box = RoundedRectangle(
            corner_radius=0.12, width=width, height=height, color=color, fill_opacity=0.12, stroke_width=2.5
        )
        self.label = ty.label(word).move_to(self.box.get_center() + UP * _baseline_offset(word))
        self.add(self.box, self.label)


@sample_of(TokenChip)
def _token_chip():
    return TokenChip("perro")


def _baseline_offset(word: str) -> float:
    """Vertical offset of `word`'s glyphs from the centre of a full text line.

    A Text is centred on its own ink, so "perro" (a descender) would sit higher than
    "come"; measuring the word after a strut with a tall accent and a descender puts
    every word on the same baseline."""
    strut = "Ág"
    line = ty.label(strut + word)
    glyphs = VGroup(*line[len(strut) :])
    return float(glyphs.get_center()[1] - line.get_center()[1])


class TokenRow(VGroup):
    """Chips for `words`, left to right; `chips[i]` is the i-th token."""

    def __init__(self, words, gap: float = 0.6, **kwargs):
        super().__init__(**kwargs)
        self.chips = [TokenChip(w) for w in words]
        self.add(*self.chips)
        self.arrange(RIGHT, buff=gap)

    def index(self, word: str) -> int:
        return [c.word for c in self.chips].index(word)


@sample_of(TokenRow)
def _token_row():
    row = TokenRow(number("relay.prompt_words").value)
    arcs = attention_arcs(row, focus=number("relay.prompt_words").value[-1])
    return VGroup(row, arcs)


def attention_arcs(row: TokenRow, focus: str | None = None, bend_rad: float = 1.3) -> VGroup:
    """One arc above the row for every pair of tokens: information flowing between them.

    Each arc leaves a chip's top from its own point (towards its partner), and arcs of the
    same bend rise with their span, so they nest instead of sharing end points. The arcs
    touching `focus` are bold (the token whose view the narration follows), the others
    thin. All are in the attention hue."""
    arcs = VGroup()
    chips = row.chips
    n = len(chips)
    for i in range(n):
        for j in range(i + 1, n):
            # Spread end points along each chip's top: partners to the right leave further right.
            start = _anchor(chips[i], j, n)
            end = _anchor(chips[j], i, n)
            bold = focus is not None and focus in (chips[i].word, chips[j].word)
            arcs.add(
                ArcBetweenPoints(
                    start,
                    end,
                    angle=-bend_rad,
                    color=palette.ATTENTION,
                    stroke_width=6 if bold else 3,
                    stroke_opacity=1.0 if bold or focus is None else 0.55,
                )
            )
    return arcs


def _anchor(chip: TokenChip, partner: int, n: int):
    share = (partner + 0.5) / n - 0.5  # -0.5 .. 0.5 across the chip, by the partner's place
    return chip.get_top() + RIGHT * share * chip.box.width * 0.8 + UP * 0.05
