"""The discreet citation a narrated beat shows while it states a research result.

A beat whose script says `sources = ["geva2021", "dai2022"]` shows «Geva et al., 2021;
Dai et al., 2022» (the references' `short` labels, `voiceover/references.toml`) in small
muted type in a corner of the frame while it plays. `NarratedScene.beat` adds it, fades it
in and out with an updater (the beat's clock is not touched) and removes it; a scene only
chooses the corner (`citation_corner`) when its own text sits there.

The years in it are bibliography, checked against the references file by the script
parser, not measurements: the layout check sees a citation, the figure check does not.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, DR, RIGHT, Text, VGroup, config

from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

SEPARATOR = "; "
CORNER_BUFF = 0.25  # scene units from the frame's edges (the layout check keeps 0.1 free)
MAX_WIDTH_SHARE = 0.55  # a longer citation is set on one line per reference
FADE_S = 0.4  # how long it takes to fade in (at the beat's start) and out (at its end)


def citation_text(shorts: Sequence[str]) -> str:
    """«Geva et al., 2021; Dai et al., 2022»: each label once, in the order cited."""
    return SEPARATOR.join(dict.fromkeys(s.strip() for s in shorts if s.strip()))


class Citation(VGroup):
    """The `short` labels of some references, joined by «; », in ty.small muted type.

    `Citation.of(keys)` reads the labels from the bibliography; `Citation(shorts)` takes
    them as given. Set on one line, or one line per reference (right-aligned) when one
    line would take more than `MAX_WIDTH_SHARE` of the frame's width."""

    def __init__(self, shorts: Sequence[str], keys: Sequence[str] = (), **kwargs):
        labels = list(dict.fromkeys(s.strip() for s in shorts if s.strip()))
        if not labels:
            raise ValueError("a citation needs at least one reference label")
        self.keys = tuple(keys)
        self.text = citation_text(labels)
        one_line = ty.small(self.text, color=palette.MUTED)
        if one_line.width <= MAX_WIDTH_SHARE * config.frame_width or len(labels) == 1:
            lines = [one_line]
        else:
            lines = [
                ty.small(label + (";" if i < len(labels) - 1 else ""), color=palette.MUTED)
                for i, label in enumerate(labels)
            ]
        super().__init__(*lines, **kwargs)
        if len(lines) > 1:
            self.arrange(DOWN, aligned_edge=RIGHT, buff=0.08)

    @classmethod
    def of(cls, keys: Sequence[str]) -> Citation:
        """The citation of reference `keys` (`voiceover/references.toml`)."""
        from voiceover.references import reference

        return cls([reference(k).short for k in keys], keys)

    @property
    def lines(self) -> list[Text]:
        return [m for m in self.submobjects if isinstance(m, Text)]

    def place(self, corner: np.ndarray = DR) -> Citation:
        """Put it in `corner` (DR, DL, UR, UL), inside the frame's margin."""
        self.to_corner(np.asarray(corner, dtype=float), buff=CORNER_BUFF)
        return self

    def fade(self, shown: float) -> None:
        """Set how much of it shows, 0 (hidden) to 1 (fully shown)."""
        shown = float(min(max(shown, 0.0), 1.0))
        for line in self.lines:
            line.set_opacity(shown)


@sample_of(Citation)
def _citation():
    return Citation.of(("geva2021", "dai2022"))


def fade_share(t: float, start: float, end: float, fade_s: float = FADE_S) -> float:
    """How much a citation shown from `start` to `end` (scene seconds) shows at `t`: it
    fades in over `fade_s` after `start` and out over `fade_s` before `end` (each at most a
    quarter of the span)."""
    span = max(end - start, 0.0)
    fade = min(fade_s, span / 4) if span > 0 else 0.0
    if fade <= 0:
        return 1.0 if start <= t <= end else 0.0
    return float(min(max((t - start) / fade, 0.0), max((end - t) / fade, 0.0), 1.0))


__all__ = ["Citation", "citation_text", "fade_share", "FADE_S", "CORNER_BUFF"]
