"""Numbers from `ffn_core`, said the Spanish way and written for subtitles.

A script writes `{params.llama2_7b.ffn_share:porcentaje}`; this module reads the key from
`ffn_core.registry` and returns what the voice says ("sesenta y seis coma ocho por ciento")
and what the subtitle shows ("66,8 %", written by `voiceover.numerals`, the same rules as the
screen). Formats:

- `entero`      exact integer: "seis mil setecientos treinta y ocho millones ..." / "6 738 415 616"
- `millones`    rounded to millions: "unos sesenta y siete millones" / "unos 67 millones"
- `porcentaje`  a ratio as a percentage with one decimal: "sesenta y seis coma ocho por ciento"
- `probabilidad` a probability, like `porcentaje`, never «cero por ciento» nor a false «cien»:
                under 1 % "menos del uno por ciento" / "menos del 1 %"; just short of 1
                "más del noventa y nueve coma nueve por ciento" / "más del 99,9 %"
- `fraccion`    a ratio as the nearest simple fraction, honest about the gap: "casi dos tercios"
- `decimal`     a real number with up to two decimals: "dos coma veintinueve"
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from num2words import num2words

from voiceover import numerals
from voiceover.script import FIELD_RE


@dataclass(frozen=True)
class SpokenNumber:
    spoken: str  # words for the speech engine
    written: str  # text for subtitles


# A number's key -> its value (ffn_core.registry.Value); a field speaks only a single number.
Lookup = Callable[[str], int | float | tuple[object, ...] | str]


class FieldError(ValueError):
    """A `{clave:formato}` field that cannot be resolved."""

    field: str | None = None  # the field's text, set where it is known (the timeline, for its line)


def words(n: int) -> str:
    spelled: str = num2words(int(n), lang="es")  # num2words ships no type information
    return spelled


def _decimal_words(x: float, places: int) -> str:
    text = f"{abs(x):.{places}f}".rstrip("0").rstrip(".")
    whole, _, frac = text.partition(".")
    said = words(int(whole))
    if frac:
        # Leading zeros are said one by one ("cero cinco"), the rest as one number.
        zeros = len(frac) - len(frac.lstrip("0"))
        said += " coma " + " ".join(["cero"] * zeros + ([words(int(frac))] if frac.lstrip("0") else []))
    return ("menos " if x < 0 else "") + said


_FRACTION_NAMES = {
    2: ("medio", "medios"),
    3: ("tercio", "tercios"),
    4: ("cuarto", "cuartos"),
    5: ("quinto", "quintos"),
    6: ("sexto", "sextos"),
    7: ("séptimo", "séptimos"),
    8: ("octavo", "octavos"),
    9: ("noveno", "novenos"),
    10: ("décimo", "décimos"),
}


def _fraction_words(x: float) -> str:
    frac = Fraction(x).limit_denominator(10)
    if frac.denominator == 1 or not 0 < x < 1:
        raise FieldError(f"{x!r} is not a ratio between 0 and 1")
    singular, plural = _FRACTION_NAMES[frac.denominator]
    num = frac.numerator
    name = ("un " + singular) if num == 1 else f"{words(num)} {plural}"
    if frac.denominator == 2 and num == 1:
        name = "la mitad"
    gap = (x - float(frac)) / float(frac)
    if abs(gap) < 0.002:
        return name
    return ("algo más de " if gap > 0 else "casi ") + name


FORMATS = ("entero", "millones", "porcentaje", "probabilidad", "fraccion", "decimal")
PROBABILITY_FLOOR = 0.01  # under it the voice says «menos del uno por ciento»


def _probability(p: float) -> SpokenNumber:
    if not 0.0 <= p <= 1.0:
        raise FieldError(f"{p!r} is not a probability (between 0 and 1)")
    space = numerals.GROUP_SPACE[numerals.SUBTITLES]
    if p < PROBABILITY_FLOOR:
        return SpokenNumber("menos del uno por ciento", f"menos del 1{space}%")
    if p < 1.0 and round(p * 100, 1) >= 100.0:
        return SpokenNumber(
            f"más del {_decimal_words(99.9, 1)} por ciento",
            f"más del {numerals.decimal(99.9, 1, numerals.SUBTITLES)}{space}%",
        )
    return say(p, "porcentaje")


def say(value: float | int, fmt: str) -> SpokenNumber:
    """Render one value in one format (see the module docstring)."""
    if fmt == "entero":
        if float(value) != int(value):
            raise FieldError(f"{value!r} is not an integer; use 'decimal' or 'millones'")
        return SpokenNumber(words(int(value)), numerals.integer(int(value), numerals.SUBTITLES))
    if fmt == "millones":
        millions = round(float(value) / 1e6)
        exact = millions * 1_000_000 == value
        prefix = "" if exact else "unos "
        return SpokenNumber(
            f"{prefix}{words(millions)} millones", prefix + numerals.millions(value, numerals.SUBTITLES)
        )
    if fmt == "porcentaje":
        pct = round(float(value) * 100, 1)
        return SpokenNumber(
            f"{_decimal_words(pct, 1)} por ciento", numerals.percent(float(value), 1, numerals.SUBTITLES)
        )
    if fmt == "probabilidad":
        return _probability(float(value))
    if fmt == "fraccion":
        text = _fraction_words(float(value))
        return SpokenNumber(text, text)
    if fmt == "decimal":
        return SpokenNumber(
            _decimal_words(float(value), 2), numerals.decimal(float(value), 2, numerals.SUBTITLES, trim_zeros=True)
        )
    raise FieldError(f"unknown format '{fmt}' (known: {', '.join(FORMATS)})")


def resolve_field(field: str, lookup: Lookup) -> SpokenNumber:
    """`field` is 'clave:formato'; `lookup(key)` returns the number's value."""
    key, _, fmt = field.partition(":")
    value = lookup(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FieldError(f"'{key}' is {value!r}, not a single number: a field speaks one number")
    return say(value, fmt)


def render(segment: str, lookup: Lookup) -> tuple[str, str]:
    """Replace every field of a segment; returns (spoken text, written text)."""
    spoken, written = [], []
    pos = 0
    for m in FIELD_RE.finditer(segment):
        number = resolve_field(m.group(1), lookup)
        spoken.append(segment[pos : m.start()] + number.spoken)
        written.append(segment[pos : m.start()] + number.written)
        pos = m.end()
    spoken.append(segment[pos:])
    written.append(segment[pos:])
    return "".join(spoken), "".join(written)
