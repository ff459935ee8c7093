"""One way to write a number, for the screen and for the subtitles, in Spanish.

The rules (RAE and the lecture's style):
- decimal comma: `66,8`;
- thousands grouped in threes by a space that never breaks: `6 738 415 616`;
- a percentage is the number, that same space, then `%`: `66,8 %`;
- a probability is a percentage with one decimal that never shows a certainty it is not:
  `< 0,1 %` under 0,05 %, `> 99,9 %` just short of 1 (see `probability`);
- a negative number takes the true minus sign `−`, never a hyphen, and `−0,00` is `0,00`.

The screen and the subtitles apply the same rules. They differ in one character, for one
reason: the space. On screen it is the narrow no-break space (U+202F), the typographic one,
which our font has. Subtitles are drawn by the viewer's player in fonts we do not choose,
some of which lack U+202F; they get the ordinary no-break space (U+00A0), which every
caption font has. Nothing else may differ (tests/test_voiceover_numerals.py checks pairs).
"""

from __future__ import annotations

SCREEN = "screen"
SUBTITLES = "subtitles"
GROUP_SPACE = {SCREEN: "\u202f", SUBTITLES: "\u00a0"}
MINUS = "\u2212"


def _space(medium: str) -> str:
    try:
        return GROUP_SPACE[medium]
    except KeyError:
        raise ValueError(f"unknown medium {medium!r} (known: {', '.join(GROUP_SPACE)})") from None


def _signed(text: str) -> str:
    if text.startswith("-"):
        return MINUS + text[1:]
    return text


def integer(n: int, medium: str = SCREEN) -> str:
    """6738415616 -> '6 738 415 616'."""
    return _signed(f"{int(n):,}".replace(",", _space(medium)))


def decimal(x: float, places: int = 2, medium: str = SCREEN, trim_zeros: bool = False) -> str:
    """2.29 -> '2,29'; -0.004 -> '0,00'; with `trim_zeros`, 2.50 -> '2,5' and 3.00 -> '3'.
    The integer part is grouped like `integer`."""
    text = f"{x:.{places}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    whole, _, frac = text.partition(".")
    if trim_zeros:
        frac = frac.rstrip("0")
    grouped = integer(int(whole), medium) if whole not in ("-0",) else MINUS + "0"
    return grouped + ("," + frac if frac else "")


def percent(ratio: float, places: int = 1, medium: str = SCREEN) -> str:
    """0.6684 -> '66,8 %'."""
    return decimal(ratio * 100, places, medium) + _space(medium) + "%"


PROBABILITY_FLOOR = 0.0005  # under 0,05 %, one decimal would write 0,0 %: the screen writes < 0,1 %


def probability(p: float, medium: str = SCREEN) -> str:
    """A probability with one decimal, never rounded to a certainty it is not: 0.98 -> '98,0 %';
    under 0,05 % -> '< 0,1 %' (not '0,0 %'); above 99,95 % but short of 1 -> '> 99,9 %' (not '100,0 %')."""
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{p!r} is not a probability (between 0 and 1)")
    space = _space(medium)
    if p < PROBABILITY_FLOOR:
        return f"< {decimal(0.1, 1, medium)}{space}%"
    if p < 1.0 and round(p * 100, 1) >= 100.0:
        return f"> {decimal(99.9, 1, medium)}{space}%"
    return percent(p, 1, medium)


def millions(n: float, medium: str = SCREEN) -> str:
    """6738415616 -> '6 738 millones' (rounded to the nearest million)."""
    return integer(round(float(n) / 1e6), medium) + " millones"
