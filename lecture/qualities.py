"""Render qualities: frame size and rate."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Quality:
    name: str
    width_px: int
    height_px: int
    fps: int


QUALITIES = {
    "preview": Quality("preview", 854, 480, 15),
    "1080p": Quality("1080p", 1920, 1080, 60),
    "4k": Quality("4k", 3840, 2160, 60),
}


def get_quality(name: str) -> Quality:
    try:
        return QUALITIES[name]
    except KeyError:
        raise ValueError(f"calidad desconocida «{name}» (hay: {', '.join(QUALITIES)})") from None
