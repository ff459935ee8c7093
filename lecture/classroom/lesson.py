"""The lecture as a class is taught: chapters (scenes, in plan order) of beats, each beat a
stretch of frames of its scene's video with the narration said over it.

Read from what the build left: the scene's video (`renders/<quality>/scenes/<scene>.mp4`)
and the render the build uses now (its log and the timeline it was drawn to, found as the
storyboard finds them), so the frames are those of the video on disk, whatever the script
says since. A beat's frames are those the render drew for it: from the frame its start
rounds to (`scenes.kit.narrated`) up to the next beat's; the first beat starts at the
scene's first frame and the last one ends with the scene.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lecture.layout import Outputs
from lecture.plan import PlannedScene
from lecture.review.storyboard import _latest_render
from voiceover.timeline import Timeline


class ClassroomError(RuntimeError):
    """The deck or the handout cannot be made; the message (Spanish) says why."""


@dataclass(frozen=True)
class BeatSpan:
    """One beat of one scene: a slide of the deck, a row of the handout."""

    scene: str
    name: str
    number: int  # 1-based, within its scene
    start_frame: int
    end_frame: int  # exclusive
    fps: float
    text: str  # the narration as subtitles show it
    sources: tuple[str, ...]  # reference keys the beat cites

    @property
    def frames(self) -> int:
        return self.end_frame - self.start_frame

    @property
    def start_s(self) -> float:
        return self.start_frame / self.fps

    @property
    def end_s(self) -> float:
        return self.end_frame / self.fps

    @property
    def last_frame_s(self) -> float:
        """Start of the beat's last frame: what is on screen as the beat ends."""
        return (self.end_frame - 1) / self.fps

    @property
    def slug(self) -> str:
        """A file name for it: scene, number and beat (`tiny_c-02-dos`)."""
        return f"{self.scene}-{self.number:02d}-{self.name}"


@dataclass(frozen=True)
class Chapter:
    """One scene: its title, its video and its beats."""

    name: str
    title: str
    video: Path
    fps: float
    frames: int
    width: int
    height: int
    beats: tuple[BeatSpan, ...]
    numbers_read: dict[str, object]  # key -> value, as the render's log has them


def seconds_es(value: float) -> str:
    """Seconds with one decimal, written the Spanish way (2,4)."""
    return f"{value:.1f}".replace(".", ",")


def beat_spans(scene: str, timeline: Timeline, fps: float, frames: int) -> tuple[BeatSpan, ...]:
    """The beats of `timeline` as frame ranges of a video of `frames` frames at `fps`."""
    starts = [0] + [round(beat.start_s * fps) for beat in timeline.beats[1:]]
    ends = starts[1:] + [frames]
    spans = []
    for i, (beat, start, end) in enumerate(zip(timeline.beats, starts, ends)):
        if end <= start:
            raise ClassroomError(
                f"la escena {scene}: el beat '{beat.name}' no tiene fotogramas ({start}–{end}); "
                f"vuelve a compilarla con ffn-video build"
            )
        spans.append(BeatSpan(scene, beat.name, i + 1, start, end, fps, beat.text, tuple(beat.sources)))
    return tuple(spans)


def chapters(
    plan: Sequence[PlannedScene], outputs: Outputs, work_root: Path, only: set[str] | None = None
) -> list[Chapter]:
    """The chapters of the plan's scenes (those in `only`, when given), in plan order."""
    found, missing = [], []
    for scene in plan:
        if only is not None and scene.name not in only:
            continue
        video = outputs.scene(scene.name)
        render = _latest_render(work_root / scene.name)
        if not video.exists() or render is None:
            missing.append(scene.name)
            continue
        log, timeline_json = render
        fps, frames = float(log["fps"]), int(log["frames"])
        timeline = Timeline.from_json(timeline_json)
        width, height = _size(video)
        found.append(
            Chapter(
                scene.name,
                timeline.title,
                video,
                fps,
                frames,
                width,
                height,
                beat_spans(scene.name, timeline, fps, frames),
                dict(log.get("numbers_read", {})),
            )
        )
    if missing:
        raise ClassroomError(
            f"sin render de: {', '.join(missing)}; ffn-video build --quality <calidad> las renderiza primero"
        )
    return found


def _size(video: Path) -> tuple[int, int]:
    from lecture.media.ffmpeg import probe

    stream = next(s for s in probe(video)["streams"] if s["codec_type"] == "video")
    return int(stream["width"]), int(stream["height"])
