"""Which figures written on screen did not come from the numbers a scene read?

Every figure on screen must be one of the audited numbers the scene asked for through
`self.number` (or a plain transformation the type scale applies: a percentage of a
fraction, millions of a count, an index counted from one). A figure is read back from the
text as a viewer reads it (Spanish decimal comma, narrow-space thousands, true minus) and
matched against every value the scene read, at the precision it is written with.

Formulas typeset with LaTeX (`MathTex`, `Tex`) are not read: their digits are constants of
the mathematics (`W_1`, `4d^2`), not measurements.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# A figure as the type scale writes it: optional sign, digits grouped by (narrow) spaces,
# an optional decimal comma.
FIGURE_RE = re.compile(r"(?<![\w,])([\u2212\-+]?)(\d{1,3}(?:[\u202f\u00a0 ]\d{3})+|\d+)(?:,(\d+))?(?![\w])")
SCALES = (1.0, 100.0, 1e-3, 1e-6, 1e-9, 1e-12)  # as is, percent, miles, millones, mil millones, billones


def read_figures(text: str) -> list[tuple[str, float, int]]:
    """(as written, value, decimals) of every figure in `text`."""
    found = []
    for m in FIGURE_RE.finditer(text):
        sign, whole, frac = m.group(1), m.group(2), m.group(3) or ""
        digits = re.sub(r"[\u202f\u00a0 ]", "", whole)
        value = float(f"{digits}.{frac}" if frac else digits)
        if sign in ("\u2212", "-"):
            value = -value
        found.append((m.group(0), value, len(frac)))
    return found


def flatten(value) -> Iterable[float]:
    """Every number inside a registry value (scalars, nested tuples); strings are skipped."""
    if isinstance(value, bool):
        yield float(value)
    elif isinstance(value, (int, float)):
        yield float(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from flatten(v)


def allowed_values(numbers_read: dict) -> set[float]:
    values = set()
    for value in numbers_read.values():
        for v in flatten(value):
            values.add(v)
            if float(v).is_integer():
                values.add(v + 1)  # an index (0-based in code) shown counted from one
    return values


def matches(figure: float, decimals: int, values: set[float]) -> bool:
    """True when some value, at some display scale, rounds to the figure as written."""
    tolerance = 0.5 * 10**-decimals + 1e-9
    for v in values:
        for scale in SCALES:
            shown = v * scale
            if abs(shown - figure) <= tolerance:
                return True
    return False


def registered_strings(value) -> Iterable[str]:
    """Strings inside a registry value (a model's name, the words of a prompt)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from registered_strings(v)


BOUND_RE = re.compile(r"([<>\u2264\u2265])\s*$")  # "< 0,1 %", "> 99,9 %", "≤ 0,01": a bound, not a value


def bound_holds(bound: str, figure: float, values: set[float]) -> bool:
    """True when some value read, at some display scale, lies on the bound's side of the
    figure: "< 0,1 %" is true of 0.0003, "> 99,9 %" of 0.99954 (a bound must be true, not
    rounded into being true)."""
    for v in values:
        for scale in (1.0, 100.0):  # as is or as a percentage: thousands would make any "<" true
            shown = v * scale
            if (bound in "<\u2264" and 0 <= shown <= figure) or (bound in ">\u2265" and shown >= figure):
                if bound in "<>" and shown == figure:
                    continue
                return True
    return False


def unsourced_figures(texts: Iterable[str], numbers_read: dict) -> list[str]:
    """The figures in `texts` that no number the scene read accounts for. Digits inside a
    registered string the scene read ("LLaMA-2 7B") are that string's, not figures."""
    values = allowed_values(numbers_read)
    names = sorted({s for v in numbers_read.values() for s in registered_strings(v) if s}, key=len, reverse=True)
    bad = []
    for text in texts:
        bare = text
        for name in names:
            bare = bare.replace(name, " ")
        for m, (written, value, decimals) in zip(FIGURE_RE.finditer(bare), read_figures(bare)):
            bound = BOUND_RE.search(bare[: m.start()])
            if bound and bound_holds(bound.group(1), value, values):
                continue
            if not matches(value, decimals, values) and written not in bad:
                bad.append(f"{written!r} en {text!r}")
    return bad
