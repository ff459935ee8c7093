"""espeak-ng: the offline default voice (Latin American Spanish, `es-419`)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from voiceover.decode import to_clip
from voiceover.engines import EngineError, EngineFacts, speed_wpm

# A segment that ends here ends a sentence; any other segment was cut by a bookmark in
# mid-sentence and is spoken without espeak's final pause (about 0.37 s), so a bookmark
# never inserts a silence the sentence would not have.
SENTENCE_END_RE = re.compile(r"[.!?…:;][»\"')]*\s*$")
CLIP_RULES = 2  # bump when the way text becomes a clip changes (part of the cache key)


@dataclass(frozen=True)
class EspeakEngine:
    voice: str = "es-419"
    speed_wpm: int = 155  # a little slower than espeak's 175: a lecture, not a headline
    pitch: int = 45
    name: str = "espeak-ng"

    @classmethod
    def from_options(cls, voice: str | None = None, speed: int | str | None = None, **_: object) -> EspeakEngine:
        """The engine for `FFN_VOICE` / `--voice` and `FFN_VOICE_SPEED` / `--speed` (words per minute)."""
        wpm = speed_wpm(speed)
        return cls(voice=voice or cls.voice, speed_wpm=wpm or cls.speed_wpm)  # the class's defaults if not given

    def identity(self) -> EngineFacts:
        return {
            "engine": self.name,
            "voice": self.voice,
            "speed": self.speed_wpm,
            "model": _espeak_version(),
            "model_sha256": None,
        }

    def settings(self) -> EngineFacts:
        return {
            "voice": self.voice,
            "speed_wpm": self.speed_wpm,
            "pitch": self.pitch,
            "version": _espeak_version(),
            "rules": CLIP_RULES,
        }

    def command(self, text: str, out_wav: Path) -> list[str]:
        exe = shutil.which("espeak-ng")
        if exe is None:
            raise EngineError("espeak-ng is not installed; run ./setup.sh (it installs it with apt)")
        final_pause = [] if SENTENCE_END_RE.search(text) else ["-z"]
        return [
            exe,
            "-v",
            self.voice,
            "-s",
            str(self.speed_wpm),
            "-p",
            str(self.pitch),
            *final_pause,
            "-w",
            str(out_wav),
            text,
        ]

    def synthesize(self, text: str, out_wav: Path) -> None:
        raw = out_wav.with_suffix(".espeak.wav")
        try:
            proc = subprocess.run(self.command(text, raw), capture_output=True, text=True)
            if proc.returncode != 0 or not raw.exists():
                if "voice does not exist" in proc.stderr:
                    raise EngineError(
                        f"espeak-ng has no voice '{self.voice}' (FFN_VOICE / --voice); "
                        f"list them with `espeak-ng --voices=es`"
                    )
                raise EngineError(f"espeak-ng failed ({proc.returncode}) on {text[:60]!r}: {proc.stderr.strip()[:400]}")
            # espeak writes 22.05 kHz; every clip is stored at the narration rate so durations are exact.
            to_clip(raw, out_wav, EngineError)
        finally:
            raw.unlink(missing_ok=True)


_VERSION: str | None = None


def _espeak_version() -> str:
    global _VERSION
    if _VERSION is None:
        exe = shutil.which("espeak-ng")
        out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout if exe else ""
        _VERSION = out.split("Data")[0].strip() or "unknown"
    return _VERSION
