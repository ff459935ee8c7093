"""A scene's narration track: its clips placed at their timeline times, sample-exact.

The track is assembled with pydub: each clip is preceded by exactly
round(start_s * rate) - (samples so far) samples of silence, so the audio and the silent
video share one clock. (pydub's own `overlay(position=...)` counts in milliseconds, which
would move a clip by up to half a millisecond at every bookmark; appending raw frames
never rounds.) The track is not yet loudness-normalised: the build does that for the
lecture as a whole (`lecture.media.soundtrack`).
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
from pydub import AudioSegment

from voiceover.atomic import atomic_path
from voiceover.audio_format import RATE_HZ, SAMPLE_WIDTH_BYTES
from voiceover.timeline import Timeline


def silence(samples: int, channels: int = 1) -> AudioSegment:
    """Exactly `samples` frames of digital silence at the narration rate."""
    return AudioSegment(
        data=bytes(max(samples, 0) * SAMPLE_WIDTH_BYTES * channels),
        sample_width=SAMPLE_WIDTH_BYTES,
        frame_rate=RATE_HZ,
        channels=channels,
    )


def read_clip(path: str | Path) -> AudioSegment:
    """One clip as written by the engines: 48 kHz mono 16-bit."""
    clip = AudioSegment.from_wav(str(path))
    if (clip.frame_rate, clip.channels, clip.sample_width) != (RATE_HZ, 1, SAMPLE_WIDTH_BYTES):
        raise ValueError(
            f"{path}: clip is {clip.frame_rate} Hz, {clip.channels} channel(s), "
            f"{8 * clip.sample_width}-bit; expected {RATE_HZ} Hz mono 16-bit"
        )
    return clip


def scene_audio(timeline: Timeline) -> AudioSegment:
    """A scene's narration, mono, exactly round(total_s * rate) samples long."""
    total = int(round(timeline.total_s * RATE_HZ))
    parts: list[AudioSegment] = []
    position = 0  # samples written so far
    for beat in timeline.beats:
        for seg in beat.segments:
            if not seg.clip:
                continue
            clip = read_clip(seg.clip)
            start = int(round(seg.start_s * RATE_HZ))
            if start >= position:
                parts.append(silence(start - position))
            else:  # float rounding put the clip a sample early: drop what would overlap
                clip = clip.get_sample_slice(position - start, None)
            parts.append(clip)
            position = max(start, position) + int(clip.frame_count())
    parts.append(silence(total - position))
    data = b"".join(p.raw_data for p in parts)[: total * SAMPLE_WIDTH_BYTES]
    return AudioSegment(data=data, sample_width=SAMPLE_WIDTH_BYTES, frame_rate=RATE_HZ, channels=1)


def scene_samples(timeline: Timeline) -> np.ndarray:
    """Mono float32 samples of a scene's narration, exactly `total_s` long."""
    audio = scene_audio(timeline)
    return np.frombuffer(audio.raw_data, dtype=np.int16).astype(np.float32) / 32768.0


def write_scene_track(timeline: Timeline, out_wav: Path) -> Path:
    """The scene's narration as 48 kHz stereo 16-bit WAV, not yet normalised: each sample
    twice (what pydub's `from_mono_audiosegments` and `export` write, at a tenth of the CPU)."""
    mono = np.frombuffer(scene_audio(timeline).raw_data, dtype="<i2")
    with atomic_path(Path(out_wav)) as tmp, wave.open(str(tmp), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(SAMPLE_WIDTH_BYTES)
        out.setframerate(RATE_HZ)
        out.writeframes(np.repeat(mono, 2).tobytes())
    return Path(out_wav)
