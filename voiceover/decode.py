"""The voice package's one door to ffmpeg: any audio file in, the narration's PCM format out.

Engines that write their own rate (espeak-ng, Piper) and a lecturer's recordings (any
format) all become clips at `RATE_HZ`, mono, through here. `lecture.media.ffmpeg` is the
build's door; `voiceover` sits below `lecture` in the import graph, so it keeps its own, and
no other module of it starts ffmpeg or ffprobe.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from voiceover.audio_format import RATE_HZ


class DecodeError(RuntimeError):
    """ffmpeg could not read an audio file."""


def decode(path: Path, error: type[Exception] = DecodeError) -> np.ndarray:
    """Any audio file ffmpeg reads -> mono float32 samples at the narration rate."""
    pcm = _ffmpeg(["-i", str(path), "-vn", "-ac", "1", "-ar", str(RATE_HZ), "-f", "f32le", "-"], path, error)
    return np.frombuffer(pcm, dtype=np.float32)


def decode_span(
    path: Path,
    start_s: float,
    duration_s: float | None,
    rate: int = RATE_HZ,
    error: type[Exception] = DecodeError,
) -> np.ndarray:
    """Mono float32 samples at `rate` of `duration_s` (None: to the end) from `start_s` on."""
    span = ["-t", f"{duration_s:.6f}"] if duration_s is not None else []
    args = ["-ss", f"{max(start_s, 0.0):.6f}", *span, "-i", str(path), "-vn", "-ac", "1", "-ar", str(rate)]
    return np.frombuffer(_ffmpeg([*args, "-f", "f32le", "-"], path, error), dtype=np.float32)


def stream(path: Path, rate: int, block_samples: int, error: type[Exception] = DecodeError) -> Iterator[np.ndarray]:
    """A long file as consecutive blocks of mono float32 samples at `rate`, so a 30-minute
    take is never held whole in memory."""
    args = ["ffmpeg", "-nostdin", "-loglevel", "error", "-i", str(path), "-vn", "-ac", "1", "-ar", str(rate)]
    proc = subprocess.Popen([*args, "-f", "f32le", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None  # both are pipes
    try:
        while block := proc.stdout.read(4 * block_samples):
            yield np.frombuffer(block[: len(block) // 4 * 4], dtype=np.float32)
        problem = proc.stderr.read().decode(errors="replace").strip()
    finally:
        proc.stdout.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stderr.close()
    if proc.returncode != 0:
        raise error(f"{path}: not a readable audio file: {problem[-300:]}")


def to_clip(source: Path, out_wav: Path, error: type[Exception] = DecodeError) -> None:
    """Any audio file -> 48 kHz mono 16-bit WAV (the format of every clip)."""
    args = ["-y", "-i", str(source), "-ac", "1", "-ar", str(RATE_HZ), "-c:a", "pcm_s16le", "-f", "wav", str(out_wav)]
    _ffmpeg(args, source, error)


def _ffmpeg(args: Sequence[str], source: Path, error: type[Exception]) -> bytes:
    proc = subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", *args], capture_output=True)
    if proc.returncode != 0:
        raise error(f"{source}: not a readable audio file: {proc.stderr.decode(errors='replace').strip()[-300:]}")
    return proc.stdout
