"""Build the lecture at one quality: narrate, render what changed, mix, mux, join.

The outputs and the work folders are laid out in `lecture.layout` (see renders/README.md).

`build` checks the tools, loads the plan and takes the lock; `_build_locked` then runs the
steps of `lecture.build.state` in turn, each a function taking the frozen results of the ones
before it: narrate, plan, render (while the narration is mixed on another thread), mix,
mux, join, report.

Safety: every file is written under a temporary name and renamed; each step after the
render leaves a stamp (`<file>.sig`, the hash of its inputs and the output's seal, see
`lecture.build.signatures`) written after its output, so a build killed at any moment redoes exactly
the steps it had not finished, and a damaged output is made again. One build runs at a
time per checkout (a lock in the cache folder); a second one stops with a message.
"""

from __future__ import annotations

import shutil
import time
from concurrent.futures import Executor
from contextlib import nullcontext
from pathlib import Path

from rich.console import Console

from lecture import layout
from lecture.build import unchanged
from lecture.build.display import BuildDisplay
from lecture.build.freshness import plan
from lecture.build.join import join
from lecture.build.lock import build_lock
from lecture.build.mix import mix, mixing_ahead
from lecture.build.mux import mux
from lecture.build.narrate import narrate
from lecture.build.preflight import check_tools
from lecture.build.render import default_jobs, render, render_executor
from lecture.build.report import BuildReport, report, start_notices
from lecture.build.state import Build
from lecture.farm import warm_start
from lecture.farm.cluster import SchedulerSpec, configured_scheduler
from lecture.farm.launcher import ATTEMPT_PREFIX
from lecture.plan import PlannedScene, load_plan, select
from lecture.qualities import Quality, get_quality

__all__ = ["BuildReport", "build"]


def build(
    quality_name: str = "preview",
    only: list[str] | None = None,
    jobs: int | None = None,
    executor: Executor | None = None,
    console: Console | None = None,
    plan_path: Path | None = None,
    scheduler: str | SchedulerSpec | None = None,
    chunk_s: float | None = None,
) -> BuildReport:
    """Bring `renders/<quality>/` up to date with the plan; render only what changed.

    The renders run as chunks of scenes (`lecture.farm.cuts`; `chunk_s` sets their target
    length, by default chosen from the scenes and the workers). `executor` runs them
    (default: `jobs` threads, each driving its own manim process); any
    `concurrent.futures.Executor` works. `scheduler` (or $FFN_DASK_SCHEDULER), when no
    executor is given, sends them to a Dask cluster: `tls://HOST:PORT` (certificates from
    FFN_TLS_*), or `local:N` for N worker processes on this machine, or a `SchedulerSpec` the
    command line resolved (see `lecture.farm.cluster`)."""
    console = console or Console(stderr=True)
    quality = get_quality(quality_name)
    check_tools()  # before any work: a missing program is named now, not after the renders
    lecture_plan = load_plan(plan_path)
    chosen = select(lecture_plan, only)
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs must be at least 1 (got {jobs})")
    if chunk_s is not None and chunk_s <= 0:
        raise ValueError(f"--chunk-s must be positive (got {chunk_s})")
    spec = configured_scheduler(scheduler) if executor is None else None
    with build_lock(quality):
        start = unchanged.before(unchanged.Request(quality.name, tuple(only or ()), str(plan_path or "")))
        try:
            result = _build_locked(quality, lecture_plan, chosen, jobs, executor, console, spec, chunk_s)
        except BaseException:
            unchanged.forget(quality.name)
            raise
        # Stamped only when the lecture was made and nothing failed: the next build with
        # nothing changed prints this summary at once (`lecture.build.unchanged`).
        if result.ok and result.lecture is not None:
            unchanged.stamp(start, result.as_unchanged())
        else:
            unchanged.forget(quality.name)
        return result


def _build_locked(
    quality: Quality,
    lecture_plan: tuple[PlannedScene, ...],
    chosen: tuple[PlannedScene, ...],
    jobs: int | None,
    executor: Executor | None,
    console: Console,
    scheduler: SchedulerSpec | None = None,
    chunk_s: float | None = None,
) -> BuildReport:
    start = time.monotonic()
    start_notices()
    outputs, work = layout.for_quality(quality.name)
    _clean_leftovers([outputs.folder, work.folder])
    this = Build(quality, lecture_plan, chosen, outputs, work)
    # With more than one job the narration is mixed while the scenes render; with one,
    # everything runs in turn.
    background = (jobs or default_jobs()) > 1 or executor is not None or scheduler is not None
    # This process's own manim renders start from processes started ahead, which import
    # manim on the other core while the build narrates and plans (`lecture.farm.warm_start`):
    # the command line's (or watch's), else the build's own.
    local = executor is None and scheduler is None
    started = warm_start.current() if local else None
    own = warm_start.for_local_renders() if local and started is None else nullcontext(started)
    with BuildDisplay(console) as display, own as warm:
        narrated = narrate(this, display)
        todo = plan(this, narrated, display)
        if warm is not None:
            warm.expect(len(todo.to_render))
        with mixing_ahead(this, narrated, todo.reused, background) as ahead:
            # A cluster is started (or joined) only when there is something to render.
            with render_executor(executor, jobs, scheduler if todo.to_render else None) as renderer:
                rendered = render(this, narrated, todo, renderer, display, chunk_s)
            records = {**todo.reused, **rendered.records}  # every scene up to date
            mixed = mix(this, narrated, records, ahead)
        failed = {f.name for f in (*narrated.failed, *rendered.failed, *mixed.failed)}
        muxed = mux(this, records, mixed, frozenset(failed), display)
        joined = join(this, records, mixed, bool(failed or muxed.failed), display)
    return report(this, narrated, todo, rendered, mixed, muxed, joined, time.monotonic() - start)


def _clean_leftovers(roots: list[Path]) -> None:
    """Remove what a killed build left half-made: temporary files and manim media folders.
    Safe because the caller holds the lock: no live build owns them."""
    for root in roots:
        if not root.exists():
            continue
        for part in root.rglob("*.part"):
            part.unlink(missing_ok=True)
        for media in root.glob(f"*/{layout.MEDIA_FOLDER}/{ATTEMPT_PREFIX}*"):
            shutil.rmtree(media, ignore_errors=True)
