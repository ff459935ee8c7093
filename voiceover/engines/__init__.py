"""Speech engines behind one interface: text in, a 48 kHz mono WAV clip out.

Which engine speaks is chosen in one place, `resolve_engine`, from explicit options or,
when there are none, from the environment, so `ffn-video build`, `ffn-video narrate` and
a standalone `manim` render of one scene all hear the same voice:

- `FFN_VOICE_ENGINE`  `espeak` (default) or `piper`;
- `FFN_VOICE`         espeak-ng voice (default `es-419`), or the speaker number of a
                      multi-speaker Piper model;
- `FFN_VOICE_SPEED`   speaking rate in words per minute;
- `FFN_PIPER_MODEL`   a local Piper voice model (`.onnx` with its `.json` beside it);
                      pointing at one selects Piper unless `FFN_VOICE_ENGINE` says espeak.

Piper is optional: when its model or program is missing the choice falls back to
espeak-ng and says why, instead of failing the build.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

CLIP_RATE_HZ = 48_000
ENGINE_NAMES = ("espeak", "piper")


class EngineError(RuntimeError):
    """A speech engine that cannot be set up or that failed to speak."""


class Engine(Protocol):
    name: str

    def settings(self) -> dict:
        """Everything besides the text that changes the sound (part of the cache key)."""

    def synthesize(self, text: str, out_wav: Path) -> None:
        """Speak `text` into `out_wav` as 48 kHz mono 16-bit PCM."""


@dataclass(frozen=True)
class EngineChoice:
    engine: Engine
    notice: str | None  # why the engine asked for could not be used, if it could not


def resolve_engine(engine: str | None = None, voice: str | None = None, speed_wpm: int | str | None = None,
                   piper_model: str | Path | None = None, env: dict | None = None) -> EngineChoice:
    """The engine for these options; an option left as None is read from `env` (default:
    the process environment). Bad values raise `EngineError`; a Piper voice that cannot be
    used falls back to espeak-ng with a `notice` saying why."""
    from voiceover.engines.espeak import EspeakEngine
    from voiceover.engines.piper import PiperEngine, PiperUnavailable, find_piper

    env = os.environ if env is None else env
    engine = engine or env.get("FFN_VOICE_ENGINE") or None
    voice = voice or env.get("FFN_VOICE") or None
    speed = _speed(speed_wpm if speed_wpm is not None else env.get("FFN_VOICE_SPEED") or None)
    model = piper_model or env.get("FFN_PIPER_MODEL") or None
    if engine is None:
        engine = "piper" if model else "espeak"
    engine = engine.strip().lower()
    if engine in ("espeak-ng", "espeak_ng"):
        engine = "espeak"
    if engine not in ENGINE_NAMES:
        raise EngineError(f"unknown speech engine '{engine}' (FFN_VOICE_ENGINE / --engine): "
                          f"use one of {', '.join(ENGINE_NAMES)}")
    espeak = EspeakEngine(**({"voice": voice} if voice else {}), **({"speed_wpm": speed} if speed else {}))
    if engine == "espeak":
        return EngineChoice(espeak, None)
    try:
        return EngineChoice(PiperEngine.from_model(model, speaker=voice, speed_wpm=speed, exe=find_piper()), None)
    except PiperUnavailable as why:
        # A Piper speaker number is no espeak-ng voice: fall back to espeak's own default.
        fallback = EspeakEngine(**({"speed_wpm": speed} if speed else {}))
        return EngineChoice(fallback, f"Piper no disponible: {why}. Se usa espeak-ng ({fallback.voice}).")


def default_engine() -> Engine:
    """The engine the environment asks for (see the module docstring); a fallback notice
    is printed once to stderr."""
    choice = resolve_engine()
    if choice.notice and choice.notice not in _NOTICED:
        _NOTICED.add(choice.notice)
        print(choice.notice, file=sys.stderr)
    return choice.engine


_NOTICED: set[str] = set()


def _speed(value) -> int | None:
    if value is None:
        return None
    try:
        speed = int(str(value).strip())
    except ValueError:
        raise EngineError(f"speaking speed must be whole words per minute (FFN_VOICE_SPEED / --speed), "
                          f"got {value!r}") from None
    if not 80 <= speed <= 450:
        raise EngineError(f"speaking speed {speed} wpm is outside 80-450 (FFN_VOICE_SPEED / --speed)")
    return speed
