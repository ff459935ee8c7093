"""Step 7, report: what the build did, gathered from the steps' results, for the summary
(`lecture.display.print_summary`), `ffn-video watch` and the exit status."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lecture.media.loudness import Loudness
from voiceover import seals

if TYPE_CHECKING:  # the steps' results: the summary of an unchanged build needs none of them
    from lecture.build.freshness import RenderPlan
    from lecture.build.join import Joined
    from lecture.build.mix import Mixed
    from lecture.build.mux import Muxed
    from lecture.build.narrate import Narrated
    from lecture.build.render import Rendered
    from lecture.build.state import Build


@dataclass
class BuildReport:
    quality: str
    rendered: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    lecture: Path | None = None
    loudness: Loudness | None = None
    seconds: float = 0.0
    order: list[str] = field(default_factory=list)  # the scenes this build was asked for
    render_seconds: dict[str, float] = field(default_factory=dict)
    video_seconds: float = 0.0  # length of lecture.mp4 when made
    subtitles: tuple[Path, ...] = ()
    chapters: Path | None = None
    notes: list[str] = field(default_factory=list)
    voices: list[str] = field(default_factory=list)  # who spoke, one line per distinct voice
    chunks: dict = field(default_factory=dict)  # scene -> its chunks (`lecture.chunked.ChunkOutcome`), as rendered
    renderer: str = ""  # where the renders ran
    encoded_s: dict[str, float] = field(default_factory=dict)  # seconds of narration encoded, by scene
    remuxed: list[str] = field(default_factory=list)  # the scenes whose own MP4 was made again
    lecture_remade: bool = False  # lecture.mp4 was made again
    redone: list[str] = field(default_factory=list)  # what this build made again, one Spanish line each
    # Of `notes`, those about the lecture itself (its chapters), which every build of it says
    # again; the others tell of damage found and repaired on the way.
    lecture_notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed

    def as_unchanged(self) -> dict:
        """This build's outcome as the next one prints it when nothing has changed since
        (`lecture.build.unchanged`): every scene asked for up to date, nothing redone (JSON)."""
        return {
            "quality": self.quality,
            "order": self.order,
            "lecture": str(self.lecture) if self.lecture else None,
            "loudness": [self.loudness.integrated_lufs, self.loudness.true_peak_dbtp] if self.loudness else None,
            "video_seconds": self.video_seconds,
            "subtitles": [str(p) for p in self.subtitles],
            "chapters": str(self.chapters) if self.chapters else None,
            "voices": self.voices,
            "notes": self.lecture_notes,
        }

    @classmethod
    def unchanged(cls, data: dict, seconds: float) -> BuildReport:
        """The report of a build that found nothing changed (`as_unchanged`'s data)."""
        loudness = data.get("loudness")
        return cls(
            str(data["quality"]),
            cached=list(data["order"]),
            lecture=Path(data["lecture"]) if data.get("lecture") else None,
            loudness=Loudness(float(loudness[0]), float(loudness[1])) if loudness else None,
            seconds=seconds,
            order=list(data["order"]),
            video_seconds=float(data.get("video_seconds", 0.0)),
            subtitles=tuple(Path(p) for p in data.get("subtitles", ())),
            chapters=Path(data["chapters"]) if data.get("chapters") else None,
            voices=list(data.get("voices", ())),
            notes=list(data.get("notes", ())),
            lecture_notes=list(data.get("notes", ())),
        )


def start_notices() -> None:
    """Forget findings of earlier builds in this process: only this build's are reported."""
    seals.take_notices()


def report(
    build: Build,
    narrated: Narrated,
    todo: RenderPlan,
    rendered: Rendered,
    mixed: Mixed,
    muxed: Muxed,
    joined: Joined,
    seconds: float,
) -> BuildReport:
    """The steps' results in one report; failures in the order the steps met them, then the
    damage found and repaired on the way."""
    failures = (*narrated.failed, *rendered.failed, *mixed.failed, *muxed.failed, *joined.failed)
    encoded_s = dict(mixed.narration.encoded_s) if mixed.narration is not None else {}
    redone = redone_lines(build, todo, rendered, encoded_s, muxed.remade, joined.remade)
    return BuildReport(
        build.quality.name,
        rendered=list(rendered.order),
        cached=list(todo.cached),
        failed={f.name: f.message for f in failures},
        lecture=joined.lecture,
        loudness=mixed.narration.loudness if mixed.narration is not None else None,
        seconds=seconds,
        order=[s.name for s in build.chosen],
        render_seconds=dict(rendered.seconds),
        video_seconds=joined.video_seconds,
        subtitles=joined.subtitles,
        chapters=joined.chapters,
        notes=[*joined.notes, *seals.take_notices()],
        voices=list(narrated.voices),
        chunks=dict(rendered.chunks),
        renderer=rendered.renderer,
        encoded_s=encoded_s,
        remuxed=list(muxed.remade),
        lecture_remade=joined.remade,
        redone=redone,
        lecture_notes=list(joined.notes),
    )


def redone_lines(
    build: Build,
    todo: RenderPlan,
    rendered: Rendered,
    encoded_s: dict[str, float],
    remuxed: tuple[str, ...],
    lecture_remade: bool,
) -> list[str]:
    """What the build made again, for `watch` and the summary: each render (whole, or from
    which beat, the frames before it taken as they were), the narration encoded, the MP4s."""
    fps = build.quality.fps
    lines = []
    for name in rendered.order:
        chunks = rendered.chunks.get(name, ())
        drawn = [c for c in chunks if not c.reused]
        seconds = rendered.seconds.get(name, 0.0)
        total = max((c.end_frame for c in chunks), default=0)
        if drawn and len(drawn) < len(chunks):
            start = min(c.start_frame for c in drawn)
            beat = _beat_at(todo.timelines.get(name), start, fps)
            lines.append(
                f"render de «{name}» desde el fotograma {start} de {total}{f' (beat «{beat}»)' if beat else ''}: "
                f"{seconds:.1f} s; los {start} anteriores, tal como estaban"
            )
        else:
            lines.append(f"render de «{name}» entera: {seconds:.1f} s")
    if encoded_s:
        parts = ", ".join(f"«{n}» {s:.1f} s" for n, s in encoded_s.items())
        lines.append(f"narración codificada: {parts} de audio")
    if remuxed:
        lines.append("rehechas: " + ", ".join(f"scenes/{n}.mp4" for n in remuxed))
    if lecture_remade:
        lines.append("rehecha: lecture.mp4")
    return lines


def _beat_at(timeline, frame: int, fps: int) -> str:
    """The beat whose first animation starts at or before `frame`, the last such."""
    from lecture.farm.cuts import first_frame_of

    if timeline is None:
        return ""
    names = [b.name for b in timeline.beats if first_frame_of(b, fps) <= frame]
    return names[-1] if names else ""
