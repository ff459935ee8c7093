"""The steps of a build, in the order `lecture.build.pipeline` runs them, one module each:

  narrate  every scene's timeline (cheap when nothing changed)
  freshness  from the cache keys, which scenes are up to date and which to render
  render   the scenes to render, on an executor, each kept in the cache as it finishes
  mix      the narration, limited and encoded (started ahead, while the scenes render)
  mux      each chosen scene's own MP4: its video and its narration
  join     lecture.mp4, scenes.json, subtitles and chapters
  report   what the build did, for the summary

`freshness` follows `narrate` because a scene's key hashes its timeline's timing. Each step takes
the `Build` and the frozen results of the steps before it, and returns its own; failures
travel in those results, so the report lists them in the order they happened. Steps tell
the lecturer what they do through `BuildProgress` (the terminal's `BuildDisplay` is one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from lecture.farm.jobs import RenderProgress
from lecture.layout import Outputs, Workspace
from lecture.plan import PlannedScene
from lecture.qualities import Quality


@dataclass(frozen=True)
class Build:
    """What every step of one build knows."""

    quality: Quality
    plan: tuple[PlannedScene, ...]  # every scene of the lecture, in order
    chosen: tuple[PlannedScene, ...]  # the scenes this build was asked for
    outputs: Outputs
    work: Workspace

    @property
    def chosen_names(self) -> frozenset[str]:
        return frozenset(s.name for s in self.chosen)

    def scene(self, name: str) -> PlannedScene:
        return next(s for s in self.plan if s.name == name)


@dataclass(frozen=True)
class Failure:
    """One thing the build could not make: a scene, or a part of the lecture."""

    name: str  # the scene's name, or "narración" / "clase"
    message: str  # for the lecturer, in Spanish unless a tool's own words


class BuildProgress(RenderProgress, Protocol):
    """What the steps report while they work, beside the renders' own progress."""

    def cached(self, scene: str) -> None: ...

    def stale(self, scene: str) -> None: ...

    def waiting(self, scene: str, frames: int) -> None: ...

    def done(self, scene: str, seconds: float) -> None: ...

    def failed(self, scene: str, error: str) -> None: ...

    def step(self, message: str) -> None: ...
