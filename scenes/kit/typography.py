"""One type scale and one way to write numbers on screen.

Numbers use the Spanish conventions: decimal comma, and thousands grouped with a narrow
no-break space (`6 738 415 616`, `66,8 %`), the same values `ffn-video numbers` lists.
"""

from __future__ import annotations

from manim import MathTex, Tex, Text, TexTemplate

from scenes.kit import palette
from voiceover import numerals

FONT = "DejaVu Sans"  # has á é í ó ú ü ñ ¿ ¡ « » and the narrow no-break space
TITLE_SIZE = 44
BODY_SIZE = 32
LABEL_SIZE = 26
SMALL_SIZE = 22  # about 21 px for a line with accents at 854x480: legible (>= 20 px)
THIN_SPACE = numerals.GROUP_SPACE[numerals.SCREEN]

# LaTeX through one template that needs only the TeX packages setup.sh installs.
TEX_TEMPLATE = TexTemplate(
    preamble=r"""
\usepackage[utf8]{inputenc}
\usepackage[T1]{fontenc}
\usepackage[spanish,es-nodecimaldot,es-noshorthands]{babel}
\usepackage{amsmath}
\usepackage{amssymb}
"""
)


def title(text: str, **kwargs) -> Text:
    kwargs.setdefault("color", palette.INK)
    return Text(text, font=FONT, font_size=TITLE_SIZE, weight="BOLD", **kwargs)


def body(text: str, **kwargs) -> Text:
    kwargs.setdefault("color", palette.INK)
    return Text(text, font=FONT, font_size=BODY_SIZE, **kwargs)


def label(text: str, **kwargs) -> Text:
    kwargs.setdefault("color", palette.INK)
    return Text(text, font=FONT, font_size=LABEL_SIZE, **kwargs)


def small(text: str, **kwargs) -> Text:
    kwargs.setdefault("color", palette.MUTED)
    return Text(text, font=FONT, font_size=SMALL_SIZE, **kwargs)


def math(tex: str, **kwargs) -> MathTex:
    kwargs.setdefault("color", palette.INK)
    return MathTex(tex, tex_template=TEX_TEMPLATE, **kwargs)


def tex(text: str, **kwargs) -> Tex:
    kwargs.setdefault("color", palette.INK)
    return Tex(text, tex_template=TEX_TEMPLATE, **kwargs)


def fmt_int(n: int) -> str:
    """6738415616 -> '6 738 415 616' (see `voiceover.numerals`, shared with the subtitles)."""
    return numerals.integer(n)


def fmt_percent(ratio: float, places: int = 1) -> str:
    """0.6684 -> '66,8 %'."""
    return numerals.percent(ratio, places)


def fmt_probability(p: float) -> str:
    """0.9803 -> '98,0 %'; under 0,05 % '< 0,1 %', just short of 1 '> 99,9 %' (never '0,0 %' or
    '100,0 %' for what is not a certainty)."""
    return numerals.probability(p)


def fmt_decimal(x: float, places: int = 2) -> str:
    """2.29 -> '2,29'; a minus sign, not a hyphen, for negatives; never '−0,00'."""
    return numerals.decimal(x, places)
