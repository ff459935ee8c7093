"""Is the joined lecture's narration where each scene's own file has it?

Measured from the outside, as a viewer's player would see it: both files are decoded by
ffmpeg, the first seconds of each scene file's audio are cross-correlated against the
lecture's audio around that scene's first frame (the scenes' starts come from their video
frame counts), and the lag of the best match is the scene's offset. A positive offset
means the narration comes late in the lecture.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lecture.media.ffmpeg import run_ffmpeg, run_ffprobe
from voiceover.audio_format import RATE_HZ

MAX_OFFSET_MS = 12.0  # the narration of any scene within this of its own file
MAX_LENGTH_GAP_MS = 25.0  # audio track and video track of equal length within this
PROBE_S = 10.0  # seconds of each scene's audio that are matched
SEARCH_S = 0.5  # how far either side of the expected start the match may lie
PHAT_BETA = 0.75  # partial whitening: sharp peaks, yet weak bands do not drown in codec noise


class SyncCheckError(RuntimeError):
    pass


@dataclass(frozen=True)
class SceneOffset:
    scene: str
    start_s: float  # where the scene's first frame is in the lecture
    offset_ms: float  # narration in the lecture minus narration in the scene's file


@dataclass(frozen=True)
class SyncReport:
    offsets: tuple[SceneOffset, ...]
    video_s: float
    audio_s: float

    @property
    def worst_offset_ms(self) -> float:
        return max((abs(o.offset_ms) for o in self.offsets), default=0.0)

    @property
    def length_gap_ms(self) -> float:
        return abs(self.audio_s - self.video_s) * 1000

    @property
    def ok(self) -> bool:
        return self.worst_offset_ms <= MAX_OFFSET_MS and self.length_gap_ms <= MAX_LENGTH_GAP_MS

    def lines(self) -> list[str]:
        """One Spanish line per scene, then the lengths."""
        out = [f"{o.scene}: empieza en {o.start_s:.3f} s, narración {o.offset_ms:+.1f} ms" for o in self.offsets]
        out.append(f"audio {self.audio_s:.3f} s, vídeo {self.video_s:.3f} s (diferencia {self.length_gap_ms:.1f} ms)")
        return out


def decode_audio(path: Path, start_s: float = 0.0, seconds: float | None = None) -> np.ndarray:
    """Mono float32 samples at 48 kHz of `path`'s first audio stream, as a player decodes it."""
    args = ["-i", str(path)]
    if start_s > 0:
        # After -i: decode from the start and discard, so the edit list is honoured exactly.
        args += ["-ss", f"{start_s:.6f}"]
    if seconds is not None:
        args += ["-t", f"{seconds:.6f}"]
    args += ["-vn", "-ac", "1", "-ar", str(RATE_HZ), "-f", "f32le", "-"]
    pcm = run_ffmpeg(args, f"decoding the audio of {path}", SyncCheckError)
    return np.frombuffer(pcm, dtype=np.float32)


def stream_seconds(path: Path) -> tuple[float, float]:
    """(video, audio) durations of `path`, from the streams' own time stamps."""
    entries = ["-show_entries", "stream=codec_type,duration,nb_frames,r_frame_rate", "-of", "json"]
    streams = json.loads(run_ffprobe(entries, path, SyncCheckError))["streams"]
    video = next((s for s in streams if s["codec_type"] == "video"), None)
    audio = next((s for s in streams if s["codec_type"] == "audio"), None)
    if video is None or audio is None:
        raise SyncCheckError(f"{path}: needs one video and one audio stream")
    return float(video["duration"]), float(audio["duration"])


def video_frames(path: Path) -> tuple[int, float]:
    """(frames, fps) of `path`'s video stream: the frames a player shows, from the stream's
    duration (which honours the edit list; a packet count may include hidden frames)."""
    entries = ["-select_streams", "v:0", "-show_entries", "stream=duration,r_frame_rate", "-of", "json"]
    stream = json.loads(run_ffprobe(entries, path, SyncCheckError))["streams"][0]
    num, den = stream["r_frame_rate"].split("/")
    fps = int(num) / int(den)
    return round(float(stream["duration"]) * fps), fps


def best_lag(reference: np.ndarray, signal: np.ndarray) -> int:
    """The lag (samples) at which `reference` best matches inside `signal`: generalised
    cross-correlation with a partial phase transform (GCC-PHAT, beta < 1), computed with FFTs. Whitening the
    cross-spectrum makes the peak sharp and unique even when a steady tone or a hum would
    give a plain correlation many near-equal peaks."""
    n = len(signal) + len(reference)
    size = 1 << (n - 1).bit_length()
    cross = np.fft.rfft(signal, size) * np.conj(np.fft.rfft(reference, size))
    cross /= np.maximum(np.abs(cross), 1e-12) ** PHAT_BETA
    corr = np.fft.irfft(cross, size)
    valid = corr[: len(signal) - len(reference) + 1]
    return int(np.argmax(valid))


def measure(lecture: Path, scenes: Sequence[tuple[str, Path]]) -> SyncReport:
    """Offsets of every scene's narration in `lecture` against its own file (`scenes`:
    (name, scene mp4) in the order they play)."""
    whole = decode_audio(lecture)
    offsets, start_frames, fps = [], 0, None
    for name, path in scenes:
        frames, scene_fps = video_frames(path)
        if fps is None:
            fps = scene_fps
        elif abs(scene_fps - fps) > 1e-6:
            raise SyncCheckError(f"{path}: {scene_fps} fps, the lecture's first scene has {fps}")
        start_s = start_frames / fps
        own = decode_audio(path, seconds=min(PROBE_S, frames / fps))
        if not np.any(np.abs(own) > 1e-3):
            raise SyncCheckError(f"{path}: the scene's narration is silent; nothing to match")
        lo = max(int(round((start_s - SEARCH_S) * RATE_HZ)), 0)
        hi = min(int(round((start_s + SEARCH_S) * RATE_HZ)) + len(own), len(whole))
        if hi - lo < len(own):
            raise SyncCheckError(f"{lecture}: its audio ends before scene {name} at {start_s:.3f} s")
        lag = best_lag(own, whole[lo:hi])
        offset_ms = (lo + lag - start_s * RATE_HZ) / RATE_HZ * 1000
        offsets.append(SceneOffset(name, start_s, offset_ms))
        start_frames += frames
    video_s, audio_s = stream_seconds(lecture)
    return SyncReport(tuple(offsets), video_s, audio_s)
