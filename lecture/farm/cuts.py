"""Chunks: a scene's render split into ranges of its animations, planned from its timeline.

A chunk is a range of frames `[start_frame, end_frame)` on the scene's narration clock.
It owns every animation (every `play` or `wait`) that *starts* inside the range, and its
own manim process renders only those, running `construct()` with the others skipped
(`lecture.farm.manim_entry`). Ownership by start frame is what makes the chunks tile the scene
exactly: an animation that runs past `end_frame` stays whole in its chunk and the next
chunk begins where it ends, so the joined chunks hold exactly the frames of an unsplit
render (the actual boundaries are recorded by each chunk and checked before the join).

Plans are cut at beat starts where one lies near the target length, inside a long beat
otherwise, and greedily from the scene's start, so an edit to one beat leaves the cuts
(and the cache keys) of the chunks well before it as they were.

A chunk's cache key hashes its scene's key computed on the timeline *up to the chunk's
end* (the scene's source, the kit, the quality, the manim version; the timing of the
beats that reach into the chunk or precede it) and its range. Editing one beat's
narration thus re-renders the chunks from that beat on, whose frames move; the chunks
before it keep their keys. A source edit changes every key: the whole scene renders again.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lecture.plan import REPO_ROOT, PlannedScene
from lecture.qualities import Quality
from voiceover.timeline import Timeline

# The shortest chunk a build plans by itself, in seconds of video (--chunk-s may ask for
# less). Every chunk pays a manim start (about 1.5 CPU seconds) and runs construct() with the
# animations before it skipped (about 6 CPU seconds for the first 28 s of the closing card:
# transforms copy their mobjects even when skipped), so short chunks cost more CPU than they
# save in wall time.
MIN_CHUNK_S = 20.0


@dataclass(frozen=True)
class Chunk:
    """One render unit of a scene: the animations starting in `[start_frame, end_frame)`."""

    scene: str
    index: int  # 0-based position in the scene
    count: int  # chunks in the scene
    start_frame: int
    end_frame: int  # planned end; the last chunk's is the scene's total frames

    @property
    def is_last(self) -> bool:
        return self.index == self.count - 1

    @property
    def frames(self) -> int:
        """Planned frames: the cost estimate (the actual range ends on an animation's start)."""
        return self.end_frame - self.start_frame

    @property
    def label(self) -> str:
        return f"{self.scene} [{self.index + 1}/{self.count}]"


def on_audio_grid(timeline: Timeline, quality: Quality) -> Timeline:
    """The timeline a scene renders to: its total lengthened to whole AAC packets of
    narration (at most 0.53 s of its last frame held longer), so every scene starts on the
    narration's packet grid (see `lecture.media.soundtrack`). Its cache key is computed on it."""
    from lecture.media.soundtrack import on_grid

    frames = round(timeline.total_s * quality.fps)
    padded = on_grid(frames, quality.fps)
    return timeline if padded == frames else replace(timeline, total_s=padded / quality.fps)


def beat_start_frames(timeline: Timeline, fps: int) -> list[int]:
    return [round(b.start_s * fps) for b in timeline.beats]


def total_frames(timeline: Timeline, fps: int) -> int:
    return round(timeline.total_s * fps)


def plan_chunks(
    scene: str, timeline: Timeline, fps: int, target_s: float | None, kept_cuts: Sequence[int] = ()
) -> tuple[Chunk, ...]:
    """The scene's chunks for a target length (`None`: no cut beyond `kept_cuts`).

    `kept_cuts` are cuts already decided (the ends of chunks rendered before and still
    valid, in order); planning goes on from the last of them. Greedy: each cut goes to the
    beat start nearest `start + target` within half a target either way, or exactly at
    `start + target` inside a long beat; the last chunk takes what is left when that is
    under one and a half targets."""
    total = total_frames(timeline, fps)
    if target_s is not None and target_s <= 0:
        raise ValueError(f"--chunk-s must be positive (got {target_s})")
    cuts = [0]
    for cut in kept_cuts:
        if not cuts[-1] < cut < total:
            raise ValueError(f"scene '{scene}': kept cuts {list(kept_cuts)} are not increasing inside 0-{total}")
        cuts.append(cut)
    if target_s is not None:
        target = max(round(target_s * fps), 1)
        beats = beat_start_frames(timeline, fps)
        while total - cuts[-1] > 1.5 * target:
            start = cuts[-1]
            ideal = start + target
            near = [f for f in beats if start + target / 2 <= f <= start + 1.5 * target and f < total - target / 2]
            cut = min(near, key=lambda f: (abs(f - ideal), f)) if near else ideal
            cuts.append(cut)
    ends = cuts[1:] + [total]
    return tuple(Chunk(scene, i, len(cuts), s, e) for i, (s, e) in enumerate(zip(cuts, ends)))


def target_seconds(durations_s: Mapping[str, float], workers: int, chunk_s: float | None = None) -> dict:
    """Target chunk length for each scene to render (`None`: render it whole).

    With `chunk_s`, that. Otherwise a worker's share is the scenes' total length over the
    workers, and a scene is split when it is long, that is longer than a share (whole, it
    would finish after every other worker), or when there are more workers than scenes:
    into as few equal parts as keep each within a share, none under `MIN_CHUNK_S`. A build
    of many scenes on few workers splits nothing: every chunk costs CPU. (The targets move
    with the lengths; an edit still finds its earlier chunks, see `lecture.farm.jobs`.)"""
    if chunk_s is not None:
        if chunk_s <= 0:
            raise ValueError(f"--chunk-s must be positive (got {chunk_s})")
        return {name: chunk_s for name in durations_s}
    if workers < 1:
        raise ValueError(f"workers must be at least 1 (got {workers})")
    share = sum(durations_s.values()) / workers
    targets: dict[str, float | None] = {}
    for name, seconds in durations_s.items():
        if seconds > share or workers > len(durations_s):
            targets[name] = max(seconds / math.ceil(seconds / share), MIN_CHUNK_S)
        else:
            targets[name] = None
    return targets


def first_frame_of(beat, fps: int) -> int:
    """The frame a beat's first animation starts at, by `NarratedScene.beat`'s rule: a beat
    with a bookmark at its very start begins one frame before that bookmark."""
    start = round(beat.start_s * fps)
    if beat.bookmarks:
        start = min(start, round(min(beat.bookmarks.values()) * fps) - 1)
    return start


def prefix_timeline(timeline: Timeline, fps: int, chunk: Chunk) -> Timeline:
    """The timeline as far as `chunk` can see it: every beat whose first animation starts
    before the chunk's planned end, and (for the last chunk) the scene's total."""
    if chunk.is_last:
        return timeline
    beats = tuple(b for b in timeline.beats if first_frame_of(b, fps) < chunk.end_frame)
    end_s = max((b.end_s for b in beats), default=0.0)
    return replace(timeline, beats=beats, total_s=end_s)


def chunk_key(scene: PlannedScene, timeline: Timeline, quality: Quality, chunk: Chunk, root: Path = REPO_ROOT) -> str:
    from lecture.farm.scene_cache import scene_key

    base = scene_key(scene, prefix_timeline(timeline, quality.fps, chunk), quality, root)
    parts = ["chunk", base, chunk.start_frame, chunk.end_frame, chunk.is_last]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:20]


@dataclass(frozen=True)
class RenderedRange:
    """The frames a rendered chunk actually holds: from the start of its first animation to
    the start of the first animation past its range (the scene's end for the last chunk)."""

    first_frame: int | None  # None: no animation started inside the range (an empty chunk)
    end_frame: int
    frames_written: int  # frames counted in the chunk's video

    @property
    def empty(self) -> bool:
        return self.first_frame is None


class TilingError(RuntimeError):
    """Rendered chunks that would not join into the scene frame for frame."""


def check_tiling(scene: str, ranges: Sequence[RenderedRange], scene_frames: int) -> None:
    """Chunks join frame-exactly when each starts where the one before ended, the first at
    frame 0, the last ends at the scene's end, and each video holds its range's frames."""
    clock = 0
    for i, r in enumerate(ranges):
        if r.empty:
            if r.frames_written:
                raise TilingError(
                    f"escena «{scene}», trozo {i + 1}: vacío, pero se escribieron {r.frames_written} fotogramas"
                )
            continue
        if r.first_frame != clock:
            raise TilingError(
                f"escena «{scene}», trozo {i + 1}: empieza en el fotograma {r.first_frame}, pero los trozos "
                f"anteriores acaban en el {clock}; su render y el de ellos vienen de tiempos distintos"
            )
        if r.end_frame - r.first_frame != r.frames_written:
            raise TilingError(
                f"escena «{scene}», trozo {i + 1}: los fotogramas {r.first_frame}-{r.end_frame} deberían ser "
                f"{r.end_frame - r.first_frame}, y su vídeo tiene {r.frames_written}"
            )
        clock = r.end_frame
    if clock != scene_frames:
        raise TilingError(
            f"escena «{scene}»: los trozos acaban en el fotograma {clock} y la escena en el {scene_frames}"
        )
