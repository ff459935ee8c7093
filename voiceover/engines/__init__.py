"""Speech engines behind one interface: text in, a 48 kHz mono WAV clip out.

Engines are found through one registry, `ENGINES` (a name mapped to the engine's class,
each engine in its own module): adding an engine is one module and one line here. Which
engine speaks is chosen in one place, `resolve_engine`, from explicit options or, when
there are none, from the environment, so `ffn-video build`, `ffn-video narrate` and a
standalone `manim` render of one scene all hear the same voice:

- `FFN_VOICE_ENGINE`  `kokoro`, `espeak` or `piper` (default: `DEFAULT_ENGINE`);
- `FFN_VOICE`         the engine's voice: Kokoro `ef_dora` (default), `em_alex`, `em_santa`;
                      espeak-ng `es-419` (default); the speaker number of a multi-speaker
                      Piper model;
- `FFN_VOICE_SPEED`   speaking rate: words per minute (espeak-ng, Piper, and Kokoro too),
                      or for Kokoro a factor of its natural rate (`0.9`, the default);
- `FFN_PIPER_MODEL`   a local Piper voice model (`.onnx` with its `.json` beside it);
                      pointing at one selects Piper unless `FFN_VOICE_ENGINE` says otherwise.

An engine that cannot run here raises `EngineUnavailable` and the choice falls back to
espeak-ng, saying why (Piper without a model); one that is installed but broken (a
Kokoro voice file missing or corrupted) raises `EngineError` naming the file and the
command that repairs it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeGuard

from ffn_core import settings
from voiceover.audio_format import RATE_HZ

CLIP_RATE_HZ = RATE_HZ  # every clip is at the narration's one rate

# The engine used when nothing asks for another: Kokoro-82M (`kokoro`), the natural voice of
# every build at every quality; espeak-ng stays the fast draft engine (`--engine espeak`).
DEFAULT_ENGINE = "kokoro"

# name -> "module:Class". Imported only when chosen (Kokoro's runtime takes a second).
ENGINES: dict[str, str] = {
    "kokoro": "voiceover.engines.kokoro:KokoroEngine",
    "espeak": "voiceover.engines.espeak:EspeakEngine",
    "piper": "voiceover.engines.piper:PiperEngine",
}
ENGINE_NAMES = tuple(ENGINES)
ALIASES = {"espeak-ng": "espeak", "espeak_ng": "espeak", "kokoro-82m": "kokoro"}
FALLBACK_ENGINE = "espeak"  # needs nothing but the espeak-ng package setup.sh installs

# What an engine reports about itself (settings, identity): JSON-ready values.
EngineFacts = dict[str, object]


class EngineError(RuntimeError):
    """A speech engine that cannot be set up or that failed to speak."""


class EngineUnavailable(EngineError):
    """An engine that cannot run here; the choice falls back to espeak-ng with a notice."""


class Engine(Protocol):
    name: str

    def settings(self) -> EngineFacts:
        """Everything besides the text that changes the sound (part of the cache key)."""

    def synthesize(self, text: str, out_wav: Path) -> None:
        """Speak `text` into `out_wav` as 48 kHz mono 16-bit PCM."""


class AlignedEngine(Engine, Protocol):
    """An engine that speaks a whole sentence in one pass and knows when each word starts.

    The timeline gives such an engine whole sentences and takes bookmark times from the
    returned word starts, instead of cutting the sentence at its bookmarks."""

    def synthesize_words(self, units: Sequence[str], out_wav: Path) -> list[int]:
        """Speak the words `units` (one sentence; a unit may hold several words, e.g. a
        respelling) in one pass into `out_wav` (48 kHz mono 16-bit). Returns, for each
        unit, the sample of `out_wav` where it starts to sound, then the clip's
        length in samples (len(units) + 1 numbers, non-decreasing)."""


class EngineFactory(Protocol):
    """An engine class as `ENGINES` registers it: builds its engine from the user's options
    (None: not given; each engine reads only the options it understands)."""

    def from_options(
        self,
        *,
        voice: str | None = None,
        speed: int | str | None = None,
        piper_model: str | Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Engine: ...


def is_aligned(engine: Engine) -> TypeGuard[AlignedEngine]:
    return callable(getattr(engine, "synthesize_words", None))


def identity(engine: Engine) -> EngineFacts:
    """Which engine, voice and model speak (for timelines and the build's summary)."""
    describe = getattr(engine, "identity", None)
    return dict(describe()) if callable(describe) else {"engine": engine.name}


@dataclass(frozen=True)
class EngineChoice:
    engine: Engine
    notice: str | None  # why the engine asked for could not be used, if it could not


def canonical_name(name: str) -> str:
    name = name.strip().lower()
    name = ALIASES.get(name, name)
    if name not in ENGINES:
        raise EngineError(
            f"unknown speech engine '{name}' (FFN_VOICE_ENGINE / --engine): use one of {', '.join(ENGINE_NAMES)}"
        )
    return name


def engine_class(name: str) -> EngineFactory:
    """The class registered under `name` (imported now)."""
    module, _, cls = ENGINES[canonical_name(name)].partition(":")
    factory: EngineFactory = getattr(importlib.import_module(module), cls)
    return factory


def resolve_engine(
    engine: str | None = None,
    voice: str | None = None,
    speed_wpm: int | str | None = None,
    piper_model: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> EngineChoice:
    """The engine for these options; an option left as None is read from `env` (default:
    the process environment). Bad values raise `EngineError`; an engine that cannot run
    here (`EngineUnavailable`) falls back to espeak-ng with a `notice` saying why.

    Every registered class offers `from_options(voice=, speed=, piper_model=, env=)`."""
    name = engine or settings.raw(settings.VOICE_ENGINE, env)
    voice = voice or settings.raw(settings.VOICE, env)
    speed = speed_wpm if speed_wpm is not None else settings.raw(settings.VOICE_SPEED, env)
    model = piper_model or settings.raw(settings.PIPER_MODEL, env)
    if name is None:
        name = "piper" if model else DEFAULT_ENGINE
    name = canonical_name(name)
    try:
        return EngineChoice(engine_class(name).from_options(voice=voice, speed=speed, piper_model=model, env=env), None)
    except EngineUnavailable as why:
        fallback_cls = engine_class(FALLBACK_ENGINE)
        try:  # the same speed when it means the same thing to espeak-ng; its own default if not
            fallback = fallback_cls.from_options(voice=None, speed=speed, piper_model=model, env=env)
        except EngineError:
            fallback = fallback_cls.from_options(voice=None, speed=None, piper_model=model, env=env)
        # espeak-ng (the fallback) has a voice; the Engine protocol does not promise one.
        return EngineChoice(fallback, f"{why}. Se usa espeak-ng ({getattr(fallback, 'voice', fallback.name)}).")


def default_engine() -> Engine:
    """The engine the environment asks for (see the module docstring); a fallback notice
    is printed once to stderr."""
    choice = resolve_engine()
    if choice.notice and choice.notice not in _NOTICED:
        _NOTICED.add(choice.notice)
        print(choice.notice, file=sys.stderr)
    return choice.engine


_NOTICED: set[str] = set()


def speed_wpm(value: int | str | None) -> int | None:
    """A speaking speed in whole words per minute (80-450), or None."""
    if value is None:
        return None
    try:
        speed = int(str(value).strip())
    except ValueError:
        raise EngineError(
            f"speaking speed must be whole words per minute (FFN_VOICE_SPEED / --speed), got {value!r}"
        ) from None
    if not 80 <= speed <= 450:
        raise EngineError(f"speaking speed {speed} wpm is outside 80-450 (FFN_VOICE_SPEED / --speed)")
    return speed
