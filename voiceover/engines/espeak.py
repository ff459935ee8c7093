"""espeak-ng: the offline default voice (Latin American Spanish, `es-419`)."""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from voiceover.engines import CLIP_RATE_HZ


class EngineError(RuntimeError):
    pass


@dataclass(frozen=True)
class EspeakEngine:
    voice: str = "es-419"
    speed_wpm: int = 155   # a little slower than espeak's 175: a lecture, not a headline
    pitch: int = 45
    name: str = "espeak-ng"

    def settings(self) -> dict:
        return {"voice": self.voice, "speed_wpm": self.speed_wpm, "pitch": self.pitch,
                "version": _espeak_version()}

    def synthesize(self, text: str, out_wav: Path) -> None:
        exe = shutil.which("espeak-ng")
        if exe is None:
            raise EngineError("espeak-ng is not installed; run ./setup.sh (it installs it with apt)")
        raw = out_wav.with_suffix(".espeak.wav")
        run([exe, "-v", self.voice, "-s", str(self.speed_wpm), "-p", str(self.pitch), "-w", str(raw), text])
        # espeak writes 22.05 kHz; every clip is stored at the mix rate so durations are exact.
        run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", str(raw), "-ac", "1",
             "-ar", str(CLIP_RATE_HZ), "-c:a", "pcm_s16le", "-f", "wav", str(out_wav)])
        raw.unlink(missing_ok=True)


def run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise EngineError(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr.strip()[:500]}")


_VERSION: str | None = None


def _espeak_version() -> str:
    global _VERSION
    if _VERSION is None:
        exe = shutil.which("espeak-ng")
        out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout if exe else ""
        _VERSION = out.split("Data")[0].strip() or "unknown"
    return _VERSION
