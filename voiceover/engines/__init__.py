"""Speech engines behind one interface: text in, a 48 kHz mono WAV clip out."""
from __future__ import annotations

from typing import Protocol
from pathlib import Path

CLIP_RATE_HZ = 48_000


class Engine(Protocol):
    name: str

    def settings(self) -> dict:
        """Everything besides the text that changes the sound (part of the cache key)."""

    def synthesize(self, text: str, out_wav: Path) -> None:
        """Speak `text` into `out_wav` as 48 kHz mono 16-bit PCM."""


def default_engine() -> "Engine":
    from voiceover.engines.espeak import EspeakEngine

    return EspeakEngine()
