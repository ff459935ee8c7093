"""Contrast of text against what is drawn behind it (WCAG 2.1's ratio, AA level: 4.5:1).

For each text on screen, each of its glyphs is compared with the colour behind the glyph's
centre: the background with every filled shape drawn before the glyph (in manim's drawing
order: the scene's mobjects' families in order, then by z-index) whose outline holds that
point laid over it at its fill opacity. A glyph shown at under full opacity is left out: it
is dimmed on purpose (an inactive item, which WCAG exempts) or caught mid-fade (a citation
coming in); at full opacity its colour is measured as written. Stroke-only shapes (outlines,
arrows, axes) put no colour behind a glyph's body and are not counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from manim import MarkupText, MathTex, Mobject, Tex, Text, VMobject
from manim.utils.family import extract_mobject_family_members

MIN_CONTRAST = 4.5  # WCAG 2.1 AA, normal text
SHOWN_OPACITY = 0.95  # a glyph under this opacity is dimmed on purpose or fading: not checked
FILL_OPACITY = 0.05  # a shape under this fill opacity puts nothing behind a text
TEXT_TYPES = (Text, MarkupText, Tex, MathTex)
Rgb = Sequence[float] | np.ndarray  # an sRGB colour, channels in 0-1


def relative_luminance(rgb: Rgb) -> float:
    """WCAG's relative luminance of an sRGB colour with channels in 0-1."""

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(float(c)) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: Rgb, b: Rgb) -> float:
    """(L1 + 0.05) / (L2 + 0.05), the lighter colour's luminance over the darker's."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def over(top: Rgb, alpha: float, below: Rgb) -> np.ndarray:
    """`top` laid over `below` at opacity `alpha`."""
    return alpha * np.asarray(top[:3], dtype=float) + (1 - alpha) * np.asarray(below[:3], dtype=float)


@dataclass(frozen=True)
class TextContrast:
    text: str  # the text as written, or a formula's TeX
    ratio: float  # the lowest of its glyphs'
    text_hex: str
    behind_hex: str


@dataclass(frozen=True)
class _Fill:
    subpaths: tuple[np.ndarray, ...]  # closed outlines, (n, 2) in scene units each
    lo: np.ndarray
    hi: np.ndarray
    rgb: np.ndarray
    alpha: float

    def holds(self, x: float, y: float) -> bool:
        """Even-odd test of (x, y) against the outlines (manim fills even-odd, so a hole
        cut in a card is not behind what shows through it); the Bézier control points
        stand for the curves, which stay close to them."""
        if not (self.lo[0] <= x <= self.hi[0] and self.lo[1] <= y <= self.hi[1]):
            return False
        crossings = 0
        for pts in self.subpaths:
            xs, ys = pts[:, 0], pts[:, 1]
            xn, yn = np.roll(xs, -1), np.roll(ys, -1)
            spans = (ys > y) != (yn > y)
            with np.errstate(divide="ignore", invalid="ignore"):
                at = xs + (y - ys) * (xn - xs) / (yn - ys)
            crossings += int(np.count_nonzero(spans & (x < at)))
        return crossings % 2 == 1


def _hex(rgb: Rgb) -> str:
    return "#" + "".join(f"{round(float(c) * 255):02X}" for c in rgb[:3])


def _text_of(mob: Mobject) -> str:
    if isinstance(mob, (Text, MarkupText)):
        return str(getattr(mob, "original_text", None) or getattr(mob, "text", "") or "")
    return str(getattr(mob, "tex_string", "") or type(mob).__name__)


def _fill_of(mob: VMobject) -> _Fill:
    subpaths = tuple(np.asarray(sp[:, :2], dtype=float) for sp in mob.get_subpaths() if len(sp) >= 3)
    pts = np.asarray(mob.points[:, :2], dtype=float)
    rgb = np.asarray(mob.get_fill_color().to_rgb(), dtype=float)
    return _Fill(subpaths, pts.min(axis=0), pts.max(axis=0), rgb, float(mob.get_fill_opacity()))


def text_contrasts(mobjects: Iterable[Mobject], background: Sequence[float]) -> list[TextContrast]:
    """Every shown text's lowest glyph contrast against what is behind it; `mobjects` as the
    scene holds them (drawn in manim's order: families in order, then by z-index),
    `background` the camera's colour (0-1 channels)."""
    mobjects = list(mobjects)
    owner: dict[int, Mobject] = {}  # a glyph's id -> the text it belongs to

    def find(mob: Mobject) -> None:
        if isinstance(mob, TEXT_TYPES):
            for glyph in mob.family_members_with_points():
                owner[id(glyph)] = mob
            return
        for sub in mob.submobjects:
            find(sub)

    for mob in mobjects:
        find(mob)
    fills: list[_Fill] = []
    worst: dict[int, tuple[Mobject, float, np.ndarray, np.ndarray]] = {}
    for mob in extract_mobject_family_members(mobjects, use_z_index=True, only_those_with_points=True):
        text = owner.get(id(mob))
        if text is None:
            if isinstance(mob, VMobject) and mob.get_fill_opacity() > FILL_OPACITY:
                fills.append(_fill_of(mob))
            continue
        alpha = float(mob.get_fill_opacity())
        if alpha < SHOWN_OPACITY:
            continue
        x, y = mob.get_center()[:2]
        behind = np.asarray(background[:3], dtype=float)
        for fill in fills:
            if fill.holds(x, y):
                behind = over(fill.rgb, fill.alpha, behind)
        ink = over(mob.get_fill_color().to_rgb(), alpha, behind)
        ratio = contrast_ratio(ink, behind)
        if id(text) not in worst or ratio < worst[id(text)][1]:
            worst[id(text)] = (text, ratio, ink, behind)
    return [TextContrast(_text_of(t), r, _hex(ink), _hex(behind)) for t, r, ink, behind in worst.values()]


def contrast_problems(mobjects: Iterable[Mobject], background: Sequence[float], beat: str) -> list[str]:
    """One line per text under `MIN_CONTRAST`, naming the beat, the text and both colours."""
    return [
        f"beat '{beat}': {c.text[:40]!r} ({c.text_hex}) on {c.behind_hex} has contrast {c.ratio:.2f}:1 "
        f"(under {MIN_CONTRAST}:1)"
        for c in text_contrasts(mobjects, background)
        if c.ratio < MIN_CONTRAST
    ]
