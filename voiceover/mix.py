"""The narration track: clips placed at their timeline times, then loudness-normalised.

A scene's track is assembled with pydub, sample-exact: each clip is preceded by exactly
round(start_s * rate) - (samples so far) samples of silence, so the audio and the silent
video share one clock. (pydub's own `overlay(position=...)` counts in milliseconds, which
would move a clip by up to half a millisecond at every bookmark; appending raw frames
never rounds.) The lecture's track is the scenes' tracks end to end, normalised as a
whole to -16 LUFS integrated with true peak <= -1 dBTP: a gain measured with pyloudnorm
(ITU-R BS.1770), then ffmpeg's `alimiter` run at 4x oversampling as a true-peak limiter
(gain alone cannot reach both targets with espeak-ng's 0 dBFS peaks).
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyloudnorm
import soundfile
from pydub import AudioSegment
from scipy.signal import resample_poly

from voiceover.atomic import atomic_path
from voiceover.audio_format import CEILING_DBTP, OVERSAMPLING, RATE_HZ, SAMPLE_WIDTH_BYTES, TARGET_LUFS, limiter_chain
from voiceover.engines import CLIP_RATE_HZ
from voiceover.timeline import Timeline

# The mix runs at the one narration rate; the names are kept for the modules that read them.
MIX_RATE_HZ = RATE_HZ
TRUE_PEAK_CEILING_DBTP = CEILING_DBTP


@dataclass(frozen=True)
class Loudness:
    integrated_lufs: float
    true_peak_dbtp: float


def silence(samples: int, channels: int = 1) -> AudioSegment:
    """Exactly `samples` frames of digital silence at the mix rate."""
    return AudioSegment(
        data=bytes(max(samples, 0) * SAMPLE_WIDTH_BYTES * channels),
        sample_width=SAMPLE_WIDTH_BYTES,
        frame_rate=MIX_RATE_HZ,
        channels=channels,
    )


def read_clip(path: str | Path) -> AudioSegment:
    """One clip as written by the engines: 48 kHz mono 16-bit."""
    clip = AudioSegment.from_wav(str(path))
    if (clip.frame_rate, clip.channels, clip.sample_width) != (MIX_RATE_HZ, 1, SAMPLE_WIDTH_BYTES):
        raise ValueError(
            f"{path}: clip is {clip.frame_rate} Hz, {clip.channels} channel(s), "
            f"{8 * clip.sample_width}-bit; expected {CLIP_RATE_HZ} Hz mono 16-bit"
        )
    return clip


def scene_audio(timeline: Timeline) -> AudioSegment:
    """A scene's narration, mono, exactly round(total_s * rate) samples long."""
    total = int(round(timeline.total_s * MIX_RATE_HZ))
    parts: list[AudioSegment] = []
    position = 0  # samples written so far
    for beat in timeline.beats:
        for seg in beat.segments:
            if not seg.clip:
                continue
            clip = read_clip(seg.clip)
            start = int(round(seg.start_s * MIX_RATE_HZ))
            if start >= position:
                parts.append(silence(start - position))
            else:  # float rounding put the clip a sample early: drop what would overlap
                clip = clip.get_sample_slice(position - start, None)
            parts.append(clip)
            position = max(start, position) + int(clip.frame_count())
    parts.append(silence(total - position))
    data = b"".join(p.raw_data for p in parts)[: total * SAMPLE_WIDTH_BYTES]
    return AudioSegment(data=data, sample_width=SAMPLE_WIDTH_BYTES, frame_rate=MIX_RATE_HZ, channels=1)


def scene_samples(timeline: Timeline) -> np.ndarray:
    """Mono float32 samples of a scene's narration, exactly `total_s` long."""
    audio = scene_audio(timeline)
    return np.frombuffer(audio.raw_data, dtype=np.int16).astype(np.float32) / 32768.0


def write_scene_track(timeline: Timeline, out_wav: Path) -> Path:
    """The scene's narration as 48 kHz stereo 16-bit WAV, not yet normalised."""
    mono = scene_audio(timeline)
    stereo = AudioSegment.from_mono_audiosegments(mono, mono)
    with atomic_path(Path(out_wav)) as tmp:
        stereo.export(str(tmp), format="wav")
    return Path(out_wav)


def concat_wavs(wavs: Sequence[Path], out_wav: Path) -> Path:
    """Tracks end to end (as 48 kHz stereo 16-bit), sample-exact."""
    parts = []
    for wav in wavs:
        part = AudioSegment.from_wav(str(wav))
        if part.frame_rate != MIX_RATE_HZ:
            part = part.set_frame_rate(MIX_RATE_HZ)
        if part.channels != 2:
            part = part.set_channels(2)
        parts.append(part.set_sample_width(SAMPLE_WIDTH_BYTES))
    whole = AudioSegment(
        data=b"".join(p.raw_data for p in parts), sample_width=SAMPLE_WIDTH_BYTES, frame_rate=MIX_RATE_HZ, channels=2
    )
    with atomic_path(Path(out_wav)) as tmp:
        whole.export(str(tmp), format="wav")
    return Path(out_wav)


def normalize(
    in_wav: Path, out_wav: Path, target_lufs: float = TARGET_LUFS, ceiling_dbtp: float = TRUE_PEAK_CEILING_DBTP
) -> Loudness:
    """Gain to `target_lufs`, then a true-peak limiter under `ceiling_dbtp`; returns what it
    measured on the result (48 kHz stereo 16-bit).

    The limiter (ffmpeg's `alimiter`) runs at 4x the sample rate so it catches the peaks
    between samples. Limiting takes a little loudness away, so the gain is corrected from
    the measured result (two or three rounds converge to within 0.3 LU). Dual-mono input
    (the narration always is) is processed as one channel and written back as two, which
    halves the work without changing a sample."""
    data, rate = soundfile.read(str(in_wav), dtype="float32", always_2d=True)
    # A mono file comes out as two identical channels: measure it as it will play.
    current = _integrated_lufs(data if data.shape[1] > 1 else np.repeat(data, 2, axis=1), rate)
    if not np.isfinite(current):
        raise ValueError(f"{in_wav}: the narration is silent; nothing to normalise")
    # ffmpeg would upmix mono at -3 dB per side; `pan` copies the channel instead.
    first = "pan=mono|c0=c0," if _dual_mono(data) else ""
    last = ",pan=stereo|c0=c0|c1=c0" if first or data.shape[1] == 1 else ""
    del data
    gain_db = target_lufs - current
    limit = 10 ** ((ceiling_dbtp - 0.4) / 20)  # headroom for the final resample to 48 kHz
    result = Loudness(current, float("inf"))
    for _ in range(4):
        with atomic_path(Path(out_wav)) as tmp:
            proc = subprocess.run(
                [
                    "ffmpeg",
                    "-nostdin",
                    "-loglevel",
                    "error",
                    "-y",
                    "-i",
                    str(in_wav),
                    "-af",
                    f"{first}{limiter_chain(gain_db, limit)}{last}",
                    "-ar",
                    str(MIX_RATE_HZ),
                    "-ac",
                    "2",
                    "-c:a",
                    "pcm_s16le",
                    "-f",
                    "wav",
                    str(tmp),
                ],
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                raise RuntimeError(f"ffmpeg could not normalise {in_wav}: {proc.stderr.strip()[-400:]}")
        result = measure(out_wav)
        if abs(result.integrated_lufs - target_lufs) <= 0.3 and result.true_peak_dbtp <= ceiling_dbtp:
            break
        gain_db += target_lufs - result.integrated_lufs
    return result


def measure(wav: Path) -> Loudness:
    """Integrated loudness (ITU-R BS.1770 via pyloudnorm) and true peak (4x oversampled)."""
    data, rate = soundfile.read(str(wav), dtype="float32", always_2d=True)
    # Dual-mono narration: one channel tells the peak of both.
    channels = data[:, :1] if _dual_mono(data) else data
    over = resample_poly(channels, OVERSAMPLING, 1, axis=0)
    peak = float(np.max(np.abs(over))) if over.size else 0.0
    dbtp = 20 * np.log10(peak) if peak > 0 else -np.inf
    return Loudness(float(_integrated_lufs(data, rate)), float(dbtp))


def _dual_mono(data: np.ndarray) -> bool:
    return data.shape[1] > 1 and all(np.array_equal(data[:, 0], data[:, c]) for c in range(1, data.shape[1]))


def _integrated_lufs(data: np.ndarray, rate: int) -> float:
    """BS.1770 integrated loudness of (samples, channels) audio.

    For N identical channels, every block's summed mean square is N times one channel's,
    so measuring one channel scaled by sqrt(N) gives the same block loudness and the same
    gating, bit for bit in the formula, at 1/N of the cost."""
    if _dual_mono(data):
        data = data[:, :1] * np.sqrt(data.shape[1])
    loudness: float = pyloudnorm.Meter(rate).integrated_loudness(data.astype(np.float64))  # pyloudnorm is untyped
    return loudness
