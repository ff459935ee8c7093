"""Step 3, render: the scenes the plan found out of date, run on an executor, each kept in
the cache (its record written last) as soon as it finishes, so a build killed midway keeps
every render already done.

The user sees scenes, the executor sees chunks: `lecture.chunked.run_chunked` cuts each
scene into ranges of its animations (`lecture.farm.cuts`; a short scene stays whole), submits
them, keeps each finished chunk in the chunk cache, and hands back one result per scene,
joined frame for frame, which `keep` checks and records like any render. Any
`concurrent.futures.Executor` works: this process's threads (the default, with frame
progress), a Dask cluster (`--scheduler`, see `lecture.farm.cluster`), or one of your own
(Ray, a process pool): what it runs is `lecture.dask_worker.run_on_worker`, a plain
function of a plain dict.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from lecture.build.failures import disk_full_message, is_disk_full, nearly_full
from lecture.build.freshness import RenderPlan, SceneJob
from lecture.build.narrate import Narrated
from lecture.build.state import Build, BuildProgress, Failure
from lecture.farm import scene_cache
from lecture.farm.cluster import SchedulerSpec, dask_executor
from lecture.farm.jobs import ChunkOutcome, ChunkPolicy, run_chunked
from lecture.farm.launcher import RenderResult
from lecture.farm.runners import ChunkRunner, RemoteRunner, ThreadRunner, runner_for
from voiceover import seals
from voiceover.timeline import Timeline


@dataclass(frozen=True)
class Rendered:
    records: Mapping[str, scene_cache.CacheRecord]  # the scenes rendered and recorded, by name (read only)
    order: tuple[str, ...]  # their names, in the order they finished
    seconds: Mapping[str, float]  # render time of each (its chunks' wall times added up)
    failed: tuple[Failure, ...]
    chunks: Mapping[str, tuple[ChunkOutcome, ...]] = field(default_factory=dict)  # each rendered scene's chunks
    renderer: str = ""  # where the chunks ran, for the summary


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:
        return os.cpu_count() or 1


# Cores one manim process keeps busy at 1080p (measured: about 180 % CPU). At preview one
# alone keeps one core busy, but two side by side on this two-core machine each took 33 s
# for half of stencil, which one draws whole in 37 s: planned as at 1080p.
CORES_PER_MANIM = 2


@dataclass(frozen=True)
class Renderer:
    """The executor chunks run on, and how many run at once."""

    runner: ChunkRunner
    workers: int  # chunks that can render at once, for planning the cuts
    description: str  # in Spanish, for the summary


@contextmanager
def render_executor(
    executor: Executor | None, jobs: int | None, scheduler: SchedulerSpec | None = None
) -> Iterator[Renderer]:
    """`executor` as given (its owner shuts it down; `jobs` says how many units it runs at
    once), a Dask cluster when `scheduler` names one, or our own threads, one per job, each
    driving its own manim process."""
    if executor is not None:
        workers = jobs or default_jobs()
        yield Renderer(runner_for(executor), workers, f"{type(executor).__name__} ({workers} a la vez)")
        return
    if scheduler is not None:
        with dask_executor(scheduler) as run:
            where = "clúster local de Dask" if scheduler.is_local else f"Dask en {scheduler.address}"
            workers = run.workers
            yield Renderer(RemoteRunner(run.executor), workers, f"{where}, {workers} trabajadores")
        return
    threads = max(jobs or default_jobs(), 1)
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="render")
    try:
        # Scenes are cut for the processes this machine can really run side by side: one
        # manim keeps about two cores busy at 1080p, so on two cores a cut scene would only
        # pay the chunks' own cost (--chunk-s still cuts when asked).
        yield Renderer(
            ThreadRunner(pool), max(threads // CORES_PER_MANIM, 1), f"{threads} procesos de manim en esta máquina"
        )
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def render(
    build: Build,
    narrated: Narrated,
    todo: RenderPlan,
    renderer: Renderer,
    display: BuildProgress,
    chunk_s: float | None = None,
) -> Rendered:
    records: dict[str, scene_cache.CacheRecord] = {}
    seconds: dict[str, float] = {}
    chunks: dict[str, tuple[ChunkOutcome, ...]] = {}
    failed: list[Failure] = []
    results = run_chunked(
        todo.to_render,
        renderer.runner,
        display,
        scenes={s.name: s for s in build.plan},
        timelines=todo.timelines or narrated.timelines,
        quality=build.quality,
        policy=ChunkPolicy(renderer.workers, chunk_s),
        numbers_digest=todo.numbers_digest,
    )
    for job, result, outcomes in results:
        chunks[job.unit.scene] = outcomes
        outcome = keep(build, todo.timelines or narrated.timelines, job, result, todo.numbers_digest, outcomes)
        if isinstance(outcome, Failure):
            failed.append(outcome)
            display.failed(outcome.name, outcome.message)
        else:
            records[job.unit.scene] = outcome
            seconds[job.unit.scene] = result.seconds
            display.done(job.unit.scene, result.seconds)
    for scene in build.chosen:
        if scene.name in todo.reused or scene.name in records:
            scene_cache.prune(build.work.scene(scene.name))
    if records:  # the renders added parsed SVGs: the folder stays bounded
        from lecture.farm import mobject_cache

        mobject_cache.MobjectStore(mobject_cache.default_folder()).prune(mobject_cache.MAX_BYTES)
    return Rendered(records, tuple(records), seconds, tuple(failed), chunks, renderer.description)


def keep(
    build: Build,
    timelines: Mapping[str, Timeline],
    job: SceneJob,
    result: RenderResult,
    digest: str,
    outcomes: tuple[ChunkOutcome, ...] = (),
) -> scene_cache.CacheRecord | Failure:
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
    if scene_cache.scene_key(scene, timelines[unit.scene], build.quality) != job.key:
        return Failure(
            unit.scene,
            f"{scene.module}: las fuentes de la escena cambiaron mientras se renderizaba; se descarta el render "
            "(vuelve a compilar)",
        )
    extra = {
        "video_seal": seals.seal(Path(result.output)).to_json(),
        # What this render drew and what it took as it was (chunk cache, an earlier render).
        "chunks": [[o.start_frame, o.end_frame, o.reused] for o in outcomes],
    }
    record = scene_cache.CacheRecord.of_render(job.key, result.output, result.log, result.seconds, digest, extra)
    scene_cache.save_record(work, record)
    return record
