"""The lecture's narration track, made scene by scene so an edit re-encodes one scene.

Loudness. The lecture is normalised as a whole (-16 LUFS integrated, ITU-R BS.1770, true
peak <= -1 dBTP) but processed per scene: each scene's K-weighted 400 ms block energies are
kept, so the lecture's gated loudness is computed from them without reading the audio
again; one gain applies to every scene, followed by a 4x-oversampled true-peak limiter run
on each scene. The gain is sticky: it changes only when the lecture drifts more than
`LOUDNESS_TOLERANCE_LU` from the target, so editing one scene re-limits that scene only.

Joining. AAC cannot be cut or joined at an arbitrary sample: every stream starts with 1024
samples of encoder priming and is made of whole 1024-sample packets. Each scene is encoded
once into a segment whose length is a whole number of packets, and segments are joined by
copying packets. A segment starts with the priming and `lead` samples of silence, then the
scene's narration, so that narration lands on the scene's first video frame; its length is
chosen so that the next scene's narration can land on its own first frame too (the surplus
is cut from the scene's closing pause). A segment encoded earlier is reused while it lands
within `REUSE_TOLERANCE_SAMPLES` of its frame, and a new segment aims the join at the lead
the next scene's reusable segment already has: errors never accumulate, and an edit that
changes a scene's length re-encodes that scene only.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import soundfile

from lecture.mux import concat_streams, run_ffmpeg
from voiceover.atomic import atomic_path, write_json

RATE_HZ = 48_000
AAC_PACKET = 1024             # samples per AAC-LC packet, and the encoder's priming
TARGET_LUFS = -16.0
CEILING_DBTP = -1.0
# The limiter aims this far below the ceiling: room for the resample back to 48 kHz and for
# the overshoot of AAC encoding (measured about 0.4 dB on the lecture's narration).
LIMITER_HEADROOM_DB = 1.0
LOUDNESS_TOLERANCE_LU = 0.5
REUSE_TOLERANCE_SAMPLES = 1024  # 21.3 ms: well inside lip-sync tolerance (EBU R37: +40 / -60 ms)
BLOCK_S, HOP_S = 0.4, 0.1     # BS.1770 gating blocks
SEGMENT_RE = re.compile(r"^(?P<sig>[0-9a-f]+)\.L(?P<lead>\d+)\.k(?P<k>\d+)\.m4a$")


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
    over = resample_poly(data[:, 0], 4, 1)
    peak = float(np.max(np.abs(over))) if over.size else 0.0
    return 20 * np.log10(peak) if peak > 0 else float("-inf")


def limit(in_wav: Path, out_wav: Path, gain_db: float, ceiling_dbtp: float = CEILING_DBTP) -> None:
    """Apply `gain_db`, then a true-peak limiter under the ceiling (run at 4x the rate so
    it sees the peaks between samples), as 48 kHz stereo 16-bit."""
    limit_lin = 10 ** ((ceiling_dbtp - LIMITER_HEADROOM_DB) / 20)
    with atomic_path(Path(out_wav)) as tmp:
        _ffmpeg(["-i", str(in_wav), "-af",
                 f"volume={gain_db:.3f}dB,aresample={4 * RATE_HZ},"
                 f"alimiter=limit={limit_lin:.4f}:level=false:attack=1:release=60,aresample={RATE_HZ}",
                 "-ar", str(RATE_HZ), "-ac", "2", "-c:a", "pcm_s16le", "-f", "wav", str(tmp)],
                f"limiting {Path(in_wav).name}")


def encode_scene(wav: Path, out: Path) -> Path:
    """A scene's narration alone as AAC-LC in MP4, its priming trimmed by the container's
    edit list (kept when the stream is copied), so it starts on the scene's first frame."""
    with atomic_path(out) as tmp:
        _ffmpeg(["-i", str(wav), "-c:a", "aac", "-profile:a", "aac_low", "-b:a", "192k", "-ar", str(RATE_HZ),
                 "-ac", "2", "-f", "mp4", str(tmp)], f"encoding the narration of {Path(wav).name}")
    return out


# -- segments ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Segment:
    path: Path
    lead: int      # samples of silence between the priming and the narration
    packets: int   # whole AAC packets, priming included

    @property
    def samples(self) -> int:
        return self.packets * AAC_PACKET


def cached_segments(folder: Path, sig: str) -> list[Segment]:
    """Segments already encoded from the audio with signature `sig`, most recent first."""
    found = []
    for path in folder.glob(f"{sig}.L*.k*.m4a"):
        m = SEGMENT_RE.match(path.name)
        if m:
            found.append((path.stat().st_mtime, Segment(path, int(m["lead"]), int(m["k"]))))
    return [s for _, s in sorted(found, key=lambda t: t[0], reverse=True)]


def encode_segment(wav: Path, folder: Path, sig: str, lead: int, packets: int) -> Segment:
    """Encode `lead` samples of silence then `wav`, cut or padded so that with the priming
    it is exactly `packets` AAC packets long."""
    data, rate = soundfile.read(str(wav), dtype="int16", always_2d=True)
    content = (packets - 1) * AAC_PACKET
    body = np.zeros((content, data.shape[1]), dtype=np.int16)
    take = max(min(len(data), content - lead), 0)
    body[lead:lead + take] = data[:take]
    out = folder / f"{sig}.L{lead}.k{packets}.m4a"
    fd, name = tempfile.mkstemp(prefix=f".{sig}.", suffix=".wav.part", dir=folder)
    os.close(fd)
    pcm = Path(name)
    try:
        soundfile.write(str(pcm), body, rate, subtype="PCM_16", format="WAV")
        with atomic_path(out) as tmp:
            _ffmpeg(["-i", str(pcm), "-c:a", "aac", "-profile:a", "aac_low", "-b:a", "192k", "-ar", str(RATE_HZ),
                     "-ac", "2", "-f", "mp4", str(tmp)], f"encoding the narration of {Path(wav).name}")
            got = _packets(tmp)
            if got != packets:
                raise SoundtrackError(f"{out.name}: the AAC encoder wrote {got} packets, expected {packets}; "
                                      f"scenes could not be joined without drift")
    finally:
        pcm.unlink(missing_ok=True)
    return Segment(out, lead, packets)


def _packets(m4a: Path) -> int:
    proc = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-count_packets",
                           "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", str(m4a)],
                          capture_output=True, text=True)
    try:
        return int(proc.stdout.strip())
    except ValueError:
        raise SoundtrackError(f"ffprobe cannot read {m4a}: {proc.stderr.strip()}") from None


@dataclass(frozen=True)
class Placed:
    scene: str
    segment: Segment
    error_samples: int  # narration start minus video start (positive: audio late)
    encoded: bool       # made in this build


def place_segments(scenes: Sequence[tuple[str, Path, str, int]], folder: Path) -> list[Placed]:
    """Choose (reuse or encode) one segment per scene so that each scene's narration starts
    on its first video frame within the tolerance. `scenes`: (name, limited wav, its
    signature, video length in samples)."""
    folder.mkdir(parents=True, exist_ok=True)
    placed: list[Placed] = []
    audio_pos = video_pos = 0
    for index, (name, wav, sig, video_samples) in enumerate(scenes):
        segment = _best_cached(folder, sig, audio_pos, video_pos)
        encoded = segment is None
        if segment is None:
            lead = max(video_pos - audio_pos - AAC_PACKET, 0)  # lands the narration on its frame
            fewest = 2 + -(-lead // AAC_PACKET)                 # the lead and one packet of narration
            if index + 1 < len(scenes):
                # Aim the join so the scenes after this one, encoded earlier, still land on
                # their frames: try the packet counts around the ideal one.
                nxt = cached_segments(folder, scenes[index + 1][2])
                target_lead = nxt[0].lead if nxt else AAC_PACKET // 2
                end = video_pos + video_samples - AAC_PACKET - target_lead
                ideal = max(round((end - audio_pos) / AAC_PACKET), fewest)
                candidates = [k for k in (ideal, ideal - 1, ideal + 1) if k >= fewest]
                packets = min(candidates, key=lambda k: _worst_after(
                    scenes, index + 1, folder, audio_pos + k * AAC_PACKET, video_pos + video_samples))
            else:
                packets = max(1 + -(-(lead + video_samples) // AAC_PACKET), fewest)
            segment = encode_segment(wav, folder, sig, lead, packets)
        placed.append(Placed(name, segment, audio_pos + AAC_PACKET + segment.lead - video_pos, encoded))
        audio_pos += segment.samples
        video_pos += video_samples
    return placed


def _error(segment: Segment, audio_pos: int, video_pos: int) -> int:
    """Where the segment's narration starts against its scene's first frame (samples)."""
    return audio_pos + AAC_PACKET + segment.lead - video_pos


def _best_cached(folder: Path, sig: str, audio_pos: int, video_pos: int) -> Segment | None:
    usable = [s for s in cached_segments(folder, sig)
              if abs(_error(s, audio_pos, video_pos)) <= REUSE_TOLERANCE_SAMPLES]
    return min(usable, key=lambda s: abs(_error(s, audio_pos, video_pos))) if usable else None


def _worst_after(scenes, start: int, folder: Path, audio_pos: int, video_pos: int) -> int:
    """The largest error among the scenes from `start` on that would reuse a segment (up to
    the first that would need a new one, which realigns those after it)."""
    worst = 0
    for _, _, sig, video_samples in scenes[start:]:
        cached = cached_segments(folder, sig)
        if not cached:
            break
        segment = min(cached, key=lambda s: abs(_error(s, audio_pos, video_pos)))
        worst = max(worst, abs(_error(segment, audio_pos, video_pos)))
        audio_pos += segment.samples
        video_pos += video_samples
    return worst


def prune_segments(folder: Path, keep: set[Path], per_signature: int = 2) -> None:
    """Drop segments neither used now nor among the most recent few of their audio."""
    by_sig: dict[str, list[Path]] = {}
    for path in folder.glob("*.m4a"):
        m = SEGMENT_RE.match(path.name)
        if m:
            by_sig.setdefault(m["sig"], []).append(path)
    for paths in by_sig.values():
        paths.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        for path in paths[per_signature:]:
            if path not in keep:
                path.unlink(missing_ok=True)


def join_segments(segments: Sequence[Path], out: Path) -> Path:
    """The segments' packets one after another: nothing is encoded again."""
    return concat_streams(segments, out, "narration segments")


def save_json(path: Path, data: dict) -> None:
    write_json(path, data)


def load_json(path: Path) -> dict | None:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
