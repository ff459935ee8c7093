"""The voice package's one door to ffmpeg: any audio file in, the narration's PCM format out.

Engines that write their own rate (espeak-ng, Piper) and a lecturer's recordings (any
format) all become clips at `RATE_HZ`, mono, through here. `lecture.media.ffmpeg` is the
build's door; `voiceover` sits below `lecture` in the import graph, so it keeps its own, and
no other module of it starts ffmpeg or ffprobe.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from voiceover.audio_format import RATE_HZ


class DecodeError(RuntimeError):
    """ffmpeg could not read an audio file."""


def decode(path: Path, error: type[Exception] = DecodeError) -> np.ndarray:
    """Any audio file ffmpeg reads -> mono float32 samples at the narration rate."""
    pcm = _ffmpeg(["-i", str(path), "-vn", "-ac", "1", "-ar", str(RATE_HZ), "-f", "f32le", "-"], path, error)
    return np.frombuffer(pcm, dtype=np.float32)


def to_clip(source: Path, out_wav: Path, error: type[Exception] = DecodeError) -> None:
    """Any audio file -> 48 kHz mono 16-bit WAV (the format of every clip)."""
    args = ["-y", "-i", str(source), "-ac", "1", "-ar", str(RATE_HZ), "-c:a", "pcm_s16le", "-f", "wav", str(out_wav)]
    _ffmpeg(args, source, error)


def _ffmpeg(args: Sequence[str], source: Path, error: type[Exception]) -> bytes:
    proc = subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", *args], capture_output=True)
    if proc.returncode != 0:
        raise error(f"{source}: not a readable audio file: {proc.stderr.decode(errors='replace').strip()[-300:]}")
    return proc.stdout
