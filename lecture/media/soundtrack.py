"""The lecture's narration track: loudness worked out scene by scene, encoded once as a whole.

Loudness. The lecture is normalised as a whole (-16 LUFS integrated, ITU-R BS.1770, true
peak <= -1 dBTP) but processed per scene: each scene's K-weighted 400 ms block energies are
kept, so the lecture's gated loudness is computed from them without reading the audio
again; one gain applies to every scene, followed by a 4x-oversampled true-peak limiter run
on each scene. The gain is sticky: it changes only when the lecture drifts more than
`LOUDNESS_TOLERANCE_LU` from the target, so editing one scene re-limits that scene only.

Joining. AAC cannot be cut or joined at an arbitrary sample: every stream starts with the
encoder's priming and is made of whole 1024-sample packets, so joining encoded scenes by
copying packets loses or adds up to a packet at every join, and the error grows scene after
scene. The lecture's narration is therefore joined as PCM, each scene cut or padded to
exactly its video's samples, and encoded once as a single AAC stream (a 25-minute lecture
in seconds): no join exists in the audio at all. Each scene's own MP4 gets its own
encoding of the same limited PCM.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import soundfile

from lecture.media.ffmpeg import AAC_ARGS, run_ffmpeg
from voiceover.atomic import atomic_path, write_json
from voiceover.audio_format import CEILING_DBTP, CHANNELS, OVERSAMPLING, RATE_HZ, limiter_chain

# The limiter aims this far below the ceiling: room for the resample back to 48 kHz and for
# the overshoot of AAC encoding (measured about 0.4 dB on the lecture's narration).
LIMITER_HEADROOM_DB = 1.0
LOUDNESS_TOLERANCE_LU = 0.5
BLOCK_S, HOP_S = 0.4, 0.1  # BS.1770 gating blocks


class SoundtrackError(RuntimeError):
    pass


def _ffmpeg(args: list[str], what: str) -> None:
    run_ffmpeg(args, what, SoundtrackError)


# -- loudness ------------------------------------------------------------------------------
def block_energies(wav: Path) -> np.ndarray:
    """Mean square of the K-weighted signal in each 400 ms block (100 ms hop), summed over
    channels: everything BS.1770 gating needs from one scene."""
    import pyloudnorm

    data, rate = soundfile.read(str(wav), dtype="float64", always_2d=True)
    if rate != RATE_HZ:
        raise SoundtrackError(f"{wav}: {rate} Hz, expected {RATE_HZ}")
    meter = pyloudnorm.Meter(rate)
    block, hop = int(BLOCK_S * rate), int(HOP_S * rate)
    if len(data) < block:
        return np.zeros(0)
    total = np.zeros(1 + (len(data) - block) // hop)
    for ch in range(data.shape[1]):
        x = data[:, ch]
        for stage in meter._filters.values():  # the K-weighting pre-filter and RLB high-pass
            x = stage.apply_filter(x)
        sums = np.concatenate([[0.0], np.cumsum(x * x)])
        starts = np.arange(len(total)) * hop
        total += (sums[starts + block] - sums[starts]) / block
    return total


def integrated_lufs(energies: Sequence[np.ndarray]) -> float:
    """Gated integrated loudness (BS.1770-4) of scenes played end to end."""
    z = np.concatenate([e for e in energies if len(e)]) if energies else np.zeros(0)
    with np.errstate(divide="ignore"):
        loud = -0.691 + 10 * np.log10(z)
    gated = z[loud >= -70.0]
    if not len(gated):
        return float("-inf")
    relative = -0.691 + 10 * np.log10(gated.mean()) - 10.0
    final = z[(loud >= -70.0) & (loud >= relative)]
    return float(-0.691 + 10 * np.log10(final.mean()))


def true_peak_dbtp(wav: Path) -> float:
    """True peak, 4x oversampled (dual-mono narration: one channel tells both)."""
    from scipy.signal import resample_poly

    data, _ = soundfile.read(str(wav), dtype="float32", always_2d=True)
    over = resample_poly(data[:, 0], OVERSAMPLING, 1)
    peak = float(np.max(np.abs(over))) if over.size else 0.0
    return 20 * np.log10(peak) if peak > 0 else float("-inf")


def limit(in_wav: Path, out_wav: Path, gain_db: float, ceiling_dbtp: float = CEILING_DBTP) -> None:
    """Apply `gain_db`, then a true-peak limiter under the ceiling (run at 4x the rate so
    it sees the peaks between samples), as 48 kHz stereo 16-bit. A silent narration has no
    loudness to bring to the target: its gain is infinite, and refused."""
    if not math.isfinite(gain_db):
        raise ValueError(f"{in_wav}: la narración está en silencio; no hay sonoridad que normalizar")
    limit_lin = 10 ** ((ceiling_dbtp - LIMITER_HEADROOM_DB) / 20)
    with atomic_path(Path(out_wav)) as tmp:
        _ffmpeg(
            [
                "-i",
                str(in_wav),
                "-af",
                limiter_chain(gain_db, limit_lin),
                "-ar",
                str(RATE_HZ),
                "-ac",
                str(CHANNELS),
                "-c:a",
                "pcm_s16le",
                "-f",
                "wav",
                str(tmp),
            ],
            f"limiting {Path(in_wav).name}",
        )


def encode_scene(wav: Path, out: Path) -> Path:
    """A scene's narration alone as AAC-LC in MP4, its priming trimmed by the container's
    edit list (kept when the stream is copied), so it starts on the scene's first frame."""
    with atomic_path(out) as tmp:
        _ffmpeg(
            [
                "-i",
                str(wav),
                *AAC_ARGS,
                "-f",
                "mp4",
                str(tmp),
            ],
            f"encoding the narration of {Path(wav).name}",
        )
    return out


# -- the lecture's track ---------------------------------------------------------------
def join_pcm(scenes: Sequence[tuple[Path, int]], out_wav: Path) -> Path:
    """The scenes' limited narration end to end as one 48 kHz WAV, each cut or padded with
    silence to exactly `samples` (its video's length in samples), so every scene's
    narration starts on its first frame and the track lasts exactly as long as the video.

    Streamed a block at a time: a 25-minute lecture never sits in memory whole."""
    block = RATE_HZ * 10
    with atomic_path(Path(out_wav)) as tmp:
        with soundfile.SoundFile(
            str(tmp), "w", samplerate=RATE_HZ, channels=CHANNELS, subtype="PCM_16", format="WAV"
        ) as out:
            for wav, samples in scenes:
                written = 0
                with soundfile.SoundFile(str(wav)) as src:
                    if src.samplerate != RATE_HZ or src.channels != CHANNELS:
                        raise SoundtrackError(
                            f"{wav}: {src.samplerate} Hz, {src.channels} channels; expected {RATE_HZ} Hz stereo"
                        )
                    while written < samples:
                        data = src.read(min(block, samples - written), dtype="int16", always_2d=True)
                        if not len(data):
                            break
                        out.write(data)
                        written += len(data)
                while written < samples:  # the narration is shorter than its video: silence
                    n = min(block, samples - written)
                    out.write(np.zeros((n, CHANNELS), dtype=np.int16))
                    written += n
    return Path(out_wav)


def encode_lecture(wav: Path, out: Path) -> Path:
    """The whole lecture's narration encoded once: one AAC stream with no joins, its
    priming trimmed by the container's edit list, so no scene drifts against its frames."""
    return encode_scene(wav, out)


def save_json(path: Path, data: dict) -> None:
    write_json(path, data)


def load_json(path: Path) -> dict | None:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
