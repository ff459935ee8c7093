"""Step 7, report: what the build did, gathered from the steps' results, for the summary
(`lecture.display.print_summary`), `ffn-video watch` and the exit status."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lecture.build.freshness import RenderPlan
from lecture.build.join import Joined
from lecture.build.mix import Mixed
from lecture.build.mux import Muxed
from lecture.build.narrate import Narrated
from lecture.build.render import Rendered
from lecture.build.state import Build
from lecture.media.loudness import Loudness
from voiceover import seals


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

    @property
    def ok(self) -> bool:
        return not self.failed


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
    )
