"""The narration track: clips placed at their timeline times, then loudness-normalised.

A scene's track is built sample-exact with numpy (each clip at round(start_s * rate)), so
the audio and the silent video share one clock. The lecture's track is the scenes' tracks
end to end, normalised as a whole to -16 LUFS integrated with true peak <= -1 dBTP: a gain
measured with pyloudnorm (ITU-R BS.1770), then ffmpeg's `alimiter` run at 4x oversampling
as a true-peak limiter (gain alone cannot reach both targets with espeak-ng's 0 dBFS peaks).
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyloudnorm
import soundfile
from scipy.signal import resample_poly

from voiceover.atomic import atomic_path
from voiceover.engines import CLIP_RATE_HZ
from voiceover.timeline import Timeline

MIX_RATE_HZ = 48_000
TARGET_LUFS = -16.0
TRUE_PEAK_CEILING_DBTP = -1.0


@dataclass(frozen=True)
class Loudness:
    integrated_lufs: float
    true_peak_dbtp: float


def scene_samples(timeline: Timeline) -> np.ndarray:
    """Mono float32 samples of a scene's narration, exactly `total_s` long."""
    total = int(round(timeline.total_s * MIX_RATE_HZ))
    out = np.zeros(total, dtype=np.float32)
    for beat in timeline.beats:
        for seg in beat.segments:
            if not seg.clip:
                continue
            data, rate = soundfile.read(seg.clip, dtype="float32", always_2d=True)
            if rate != MIX_RATE_HZ:
                raise ValueError(f"{seg.clip}: clip at {rate} Hz, expected {CLIP_RATE_HZ}")
            mono = data.mean(axis=1)
            start = int(round(seg.start_s * MIX_RATE_HZ))
            end = min(start + len(mono), total)
            out[start:end] += mono[: end - start]
    return out


def write_scene_track(timeline: Timeline, out_wav: Path) -> Path:
    """The scene's narration as 48 kHz stereo 16-bit WAV, not yet normalised."""
    mono = scene_samples(timeline)
    with atomic_path(Path(out_wav)) as tmp:
        soundfile.write(str(tmp), np.stack([mono, mono], axis=1), MIX_RATE_HZ, subtype="PCM_16", format="WAV")
    return Path(out_wav)


def concat_wavs(wavs: list[Path], out_wav: Path) -> Path:
    parts = [soundfile.read(str(w), dtype="float32", always_2d=True)[0] for w in wavs]
    with atomic_path(Path(out_wav)) as tmp:
        soundfile.write(str(tmp), np.concatenate(parts), MIX_RATE_HZ, subtype="PCM_16", format="WAV")
    return Path(out_wav)


def normalize(in_wav: Path, out_wav: Path, target_lufs: float = TARGET_LUFS,
              ceiling_dbtp: float = TRUE_PEAK_CEILING_DBTP) -> Loudness:
    """Gain to `target_lufs`, then a true-peak limiter under `ceiling_dbtp`; returns what it
    measured on the result.

    The limiter (ffmpeg's `alimiter`) runs at 4x the sample rate so it catches the peaks
    between samples. Limiting takes a little loudness away, so the gain is corrected from
    the measured result (two or three rounds converge to within 0.3 LU)."""
    data, rate = soundfile.read(str(in_wav), dtype="float64", always_2d=True)
    current = pyloudnorm.Meter(rate).integrated_loudness(data)
    if not np.isfinite(current):
        raise ValueError(f"{in_wav}: the narration is silent; nothing to normalise")
    gain_db = target_lufs - current
    limit = 10 ** ((ceiling_dbtp - 0.4) / 20)  # headroom for the final resample to 48 kHz
    result = Loudness(current, float("inf"))
    for _ in range(4):
        with atomic_path(Path(out_wav)) as tmp:
            proc = subprocess.run(
                ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", str(in_wav), "-af",
                 f"volume={gain_db:.3f}dB,aresample={4 * MIX_RATE_HZ},"
                 f"alimiter=limit={limit:.4f}:level=false:attack=1:release=60,aresample={MIX_RATE_HZ}",
                 "-ar", str(MIX_RATE_HZ), "-ac", "2", "-c:a", "pcm_s16le", "-f", "wav", str(tmp)],
                capture_output=True, text=True)
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
    lufs = pyloudnorm.Meter(rate).integrated_loudness(data.astype(np.float64))
    # Dual-mono narration: one channel tells the peak of both.
    channels = data[:, :1] if all(np.array_equal(data[:, 0], data[:, c]) for c in range(1, data.shape[1])) else data
    over = resample_poly(channels, 4, 1, axis=0)
    peak = float(np.max(np.abs(over))) if over.size else 0.0
    dbtp = 20 * np.log10(peak) if peak > 0 else -np.inf
    return Loudness(float(lufs), float(dbtp))
