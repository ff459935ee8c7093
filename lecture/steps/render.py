"""Step 3, render: the scenes the plan found out of date, run on an executor, each kept in
the cache (its record written last) as soon as it finishes, so a build killed midway keeps
every render already done.

The seam. `render` receives the units to render and an executor; `run_units` is the only
code that submits work and collects results, as they finish. Anything that splits a
scene's render into several units (ranges of its animations) and assembles their results
into the scene's video belongs between the two: `render` still gets one result per scene
to check and record. Any `concurrent.futures.Executor` works (a local thread pool, a
Dask or Ray one): `render_unit` and its `RenderUnit` are picklable.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lecture import cache, integrity
from lecture.display import BuildDisplay
from lecture.failures import disk_full_message, is_disk_full, nearly_full
from lecture.render import RenderResult, read_log, render_unit
from lecture.steps import Build, Failure
from lecture.steps.narrate import Narrated
from lecture.steps.plan import RenderPlan, SceneRender

POLL_S = 0.5  # how often the wait for renders wakes (an interrupt is seen within this)


@dataclass(frozen=True)
class Rendered:
    records: Mapping[str, cache.CacheRecord]  # the scenes rendered and recorded, by name (read only)
    order: tuple[str, ...]  # their names, in the order they finished
    seconds: Mapping[str, float]  # wall time of each render
    failed: tuple[Failure, ...]


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:
        return os.cpu_count() or 1


@contextmanager
def render_executor(executor: Executor | None, jobs: int | None, units: int) -> Iterator[Executor]:
    """`executor` as given (its owner shuts it down), or our own threads, one per job and
    no more than the units, each driving its own manim process."""
    if executor is not None:
        yield executor
        return
    pool = ThreadPoolExecutor(max_workers=max(min(jobs or default_jobs(), units), 1), thread_name_prefix="render")
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def render(build: Build, narrated: Narrated, todo: RenderPlan, executor: Executor, display: BuildDisplay) -> Rendered:
    records: dict[str, cache.CacheRecord] = {}
    seconds: dict[str, float] = {}
    failed: list[Failure] = []
    for job, result in run_units(todo.to_render, executor, display):
        outcome = keep(build, narrated, job, result, todo.numbers_digest)
        if isinstance(outcome, Failure):
            failed.append(outcome)
            display.failed(outcome.name, outcome.message)
        else:
            records[job.unit.scene] = outcome
            seconds[job.unit.scene] = result.seconds
            display.done(job.unit.scene, result.seconds)
    for scene in build.chosen:
        if scene.name in todo.reused or scene.name in records:
            cache.prune(build.work.scene(scene.name))
    return Rendered(records, tuple(records), seconds, tuple(failed))


def run_units(
    todo: Sequence[SceneRender], executor: Executor, display: BuildDisplay
) -> Iterator[tuple[SceneRender, RenderResult]]:
    """Run the units on `executor`, yielding each result as it finishes; an executor's own
    failure (not manim's) comes back as a failed result."""
    # Progress callbacks can only reach this process's display from threads of it.
    local = isinstance(executor, ThreadPoolExecutor)
    futures: dict[Future, SceneRender] = {}
    for job in todo:
        if local:
            fut = executor.submit(render_unit, job.unit, display.callback(job.unit.scene))
        else:
            fut = executor.submit(render_unit, job.unit)
            display.rendering(job.unit.scene)
        futures[fut] = job
    pending = set(futures)
    while pending:
        finished, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
        for fut in finished:
            job = futures[fut]
            try:
                result = fut.result()
            except Exception as err:  # noqa: BLE001 - an executor's failure, not manim's
                result = RenderResult(job.unit.scene, False, "", "", 0.0, f"{type(err).__name__}: {err}")
            yield job, result


def keep(
    build: Build, narrated: Narrated, job: SceneRender, result: RenderResult, digest: str
) -> cache.CacheRecord | Failure:
    """The render's cache record, saved last (a render without one is never reused), or why
    the render cannot be kept."""
    unit = job.unit
    work = Path(unit.output).parent
    if not result.ok:
        error = result.error
        if is_disk_full(error) or nearly_full(work):
            error = disk_full_message("render", work)
        return Failure(unit.scene, error)
    scene = build.scene(unit.scene)
    if cache.scene_key(scene, narrated.timelines[unit.scene], build.quality) != job.key:
        return Failure(
            unit.scene,
            f"{scene.module}: the scene's sources changed while it rendered; the render is discarded (build again)",
        )
    log = read_log(result.log)
    record = cache.CacheRecord(
        key=job.key,
        video=Path(result.output).name,
        numbers_read=log["numbers_read"],
        log=Path(result.log).name,
        frames=int(log["frames"]),
        fps=float(log["fps"]),
        numbers_digest=digest,
        render_s=result.seconds,
        extra={"video_seal": integrity.seal(Path(result.output)).to_json()},
    )
    cache.save_record(work, record)
    return record
