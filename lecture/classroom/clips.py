"""Beat clips: each beat's stretch of its scene video, cut at its frames exactly.

A render writes a keyframe where each animation starts (manim encodes every `play` as its
own file and joins them by stream copy), and every beat starts with one; there the clip is
a stream copy of the video, bit for bit the scene's frames, cut in milliseconds. Where no
keyframe sits on a beat's first frame the clip is encoded again from the decoded frames.
Either way the video is cut first by frame count, then the narration of the same stretch is
put beside it (decoded from the scene at its exact start, encoded as the lecture's AAC), so
a slide can play the synthetic voice.

Clips are kept between runs: `clips.json` records, per clip, the scene video it came from
(size and modification time) and its frames; a clip whose record still matches is not cut
again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lecture.classroom.kept import Kept, stamp
from lecture.classroom.lesson import BeatSpan, Chapter, ClassroomError
from lecture.media.ffmpeg import AAC_ARGS, FfmpegError, run_ffmpeg, run_ffprobe
from voiceover.atomic import atomic_path

CLIP_FORMAT = "clip-1"  # change it when the way clips are cut changes: every clip is cut again
COPY, ENCODE = "copy", "encode"
# A re-encoded clip: visually lossless for the flat drawings of the scenes, fast on 2 cores.
ENCODE_ARGS = ("-c:v", "libx264", "-preset", "veryfast", "-crf", "16", "-pix_fmt", "yuv420p")


@dataclass(frozen=True)
class Clip:
    beat: BeatSpan
    path: Path
    how: str  # COPY, ENCODE, or "kept" when the clip of an earlier run was still right


def keyframes(video: Path, fps: float) -> dict[int, str]:
    """Frame index -> presentation time (as ffprobe prints it) of each keyframe of the first
    video stream, read from the packets (nothing decoded)."""
    args = ["-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0"]
    out: dict[int, str] = {}
    for line in run_ffprobe(args, video).splitlines():
        pts, _, flags = line.partition(",")
        if "K" in flags and pts not in ("", "N/A"):
            out[round(float(pts) * fps)] = pts
    return out


def cut(video: Path, beat: BeatSpan, keyframe_at: dict[int, str], out: Path) -> str:
    """Write `beat`'s clip of `video` to `out`; returns COPY or ENCODE, how it was cut."""
    how = COPY if beat.start_frame in keyframe_at else ENCODE
    with atomic_path(out) as tmp:
        silent = tmp.with_name(tmp.stem + ".video.mp4")
        try:
            if how == COPY:  # seeking a stream copy lands on the keyframe at that time
                video_args = ["-ss", keyframe_at[beat.start_frame], "-i", str(video), "-c:v", "copy"]
            else:  # decoded seeking drops the frames before the target: aim a quarter frame early
                video_args = ["-ss", f"{max(beat.start_frame - 0.25, 0) / beat.fps:.6f}", "-i", str(video)]
                video_args += ENCODE_ARGS
            run_ffmpeg(
                [*video_args, "-map", "0:v:0", "-frames:v", str(beat.frames), "-an", "-f", "mp4", str(silent)],
                f"cutting the video of {beat.slug}",
            )
            run_ffmpeg(
                [
                    "-i",
                    str(silent),
                    "-ss",
                    f"{beat.start_s:.6f}",
                    "-t",
                    f"{beat.frames / beat.fps:.6f}",
                    "-i",
                    str(video),
                    "-map",
                    "0:v:0",
                    "-map",
                    "1:a:0?",
                    "-c:v",
                    "copy",
                    *AAC_ARGS,
                    "-movflags",
                    "+faststart",
                    "-f",
                    "mp4",
                    str(tmp),
                ],
                f"adding the narration of {beat.slug}",
            )
        except FfmpegError as err:
            raise ClassroomError(f"no se pudo cortar el clip del beat {beat.slug}: {err}") from None
        finally:
            silent.unlink(missing_ok=True)
    return how


def write_clips(chapters: Iterable[Chapter], folder: Path, jobs: int | None = None) -> list[Clip]:
    """Every beat's clip in `folder` (`<slug>.mp4`), in plan order; clips of these scenes'
    beats that no longer exist are removed."""
    kept = Kept(folder, "clips.json")
    chapters = list(chapters)
    work = []
    for chapter in chapters:
        keyframe_at = keyframes(chapter.video, chapter.fps)
        for beat in chapter.beats:
            work.append((chapter, beat, keyframe_at, folder / f"{beat.slug}.mp4"))

    def one(item: tuple[Chapter, BeatSpan, dict[int, str], Path]) -> Clip:
        chapter, beat, keyframe_at, path = item
        if kept.fresh(path, stamp(chapter, beat, CLIP_FORMAT)):
            return Clip(beat, path, "kept")
        return Clip(beat, path, cut(chapter.video, beat, keyframe_at, path))

    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        clips = list(pool.map(one, work))
    for chapter, beat, _, path in work:
        kept.note(path, stamp(chapter, beat, CLIP_FORMAT))
    kept.prune({path.name for *_, path in work}, {chapter.name for chapter in chapters}, "*.mp4")
    kept.save()
    return clips
