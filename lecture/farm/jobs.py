"""Render scenes as chunks on an executor, and join each scene as soon as its chunks are in.

The user sees scenes, the executor sees chunks (`lecture.farm.cuts`): every scene to render is
planned into chunks, every chunk not already in the cache is submitted (longest first, over
all scenes), and when a scene's last chunk comes back its chunks are checked to tile the
scene frame for frame and joined into the scene's video, which the render step then keeps
like any other render. A scene left whole is one chunk written straight to the scene's file.

Chunk cache. Each finished chunk of a split scene is kept in `<scene>/chunks/` under its
key, its record written last, as soon as it comes back: a killed build resumes with the
chunks it finished. Planning first follows the chunks kept from earlier builds from the
scene's start while their keys still hold (so an edit to one beat re-renders only from
that beat on, whatever the target length was then), then plans the rest. Chunks that no
longer tile with the others (the scene read ahead in its timeline) are all rendered again,
once. A chunk that matters to no current render is deleted when its scene is joined.

Earlier renders. A scene to render that is planned whole may still have an earlier render
kept in the scene cache (the edit loop: `build` after an edit, `--only`, `watch`) made from
the same sources on a timeline that still times the frames before the edit alike. Its
first frames are then those of the new render: the scene is cut at the last animation
before which every timing fact the earlier render had read still reads the same
(`drawn_alike`; the start of the first beat that changed for a render whose log does not
list them), so an edit late in a long beat keeps the beat's earlier animations; only the
rest is rendered (by one manim process per worker when
it is long enough, `rest_target_s`, each skipping the animations before its part), and
the head is copied from the earlier render up to the frame where the rest begins (a group
of pictures starts at every animation), so the joined scene holds exactly the frames an
unsplit render would (`MIN_HEAD_S`: not for less).

Executors. On this process's own threads a chunk runs `render_chunk` and reports frame
progress; on any other executor (Dask, a process pool, Ray) it runs
`lecture.dask_worker.run_on_worker`, which travels by value and checks that the worker
sees the build's files before importing any of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from lecture import layout
from lecture.farm import scene_cache
from lecture.farm.chunk import ChunkResult, ChunkUnit, join_chunks
from lecture.farm.cuts import (
    MIN_CHUNK_S,
    Chunk,
    TilingError,
    check_tiling,
    chunk_key,
    first_frame_of,
    plan_chunks,
    prefix_timeline,
    target_seconds,
    total_frames,
)
from lecture.farm.launcher import Progress, RenderResult, RenderUnit, read_log
from lecture.farm.runners import ChunkRunner
from lecture.plan import PlannedScene
from lecture.qualities import Quality
from voiceover import seals
from voiceover.timeline import Timeline, timing_fact

CHUNKS_FOLDER = "chunks"
POLL_S = 0.5
# The shortest head an earlier render lends: a cut costs a manim start and the skipped
# construct() before it (about 2 s at preview), which a shorter head would not pay back.
MIN_HEAD_S = 10.0


@dataclass(frozen=True)
class ChunkPolicy:
    """How scenes are cut for one build."""

    workers: int  # chunks that can render at once (the executor's workers)
    chunk_s: float | None = None  # target chunk length (--chunk-s); None: chosen per build


@dataclass(frozen=True)
class ChunkOutcome:
    """One chunk of a rendered scene, as the build's report tells it."""

    scene: str
    index: int
    count: int
    key: str
    start_frame: int  # the frames it holds (actual, not planned)
    end_frame: int
    reused: bool  # kept from an earlier build
    seconds: float  # wall time of its render (0 when reused)
    cpu_s: float  # CPU time of its render (0 when reused)
    worker: str = ""
    task: str = ""
    cpu_to_first_s: float = 0.0  # of `cpu_s`, before its first drawn frame: manim's start, skipped construct()


@dataclass(frozen=True)
class SceneJob:
    """A scene to render: the unit of its unsplit render (output, log, timeline copy) and
    the key its render is kept under."""

    unit: RenderUnit
    key: str


@dataclass
class _Scene:
    """A scene's chunks while they render (owned by the generator below)."""

    job: SceneJob
    scene: PlannedScene
    timeline: Timeline
    chunks: tuple[Chunk, ...]
    keys: tuple[str, ...]
    folder: Path  # where its chunks are kept
    results: dict[int, ChunkResult] = field(default_factory=dict)
    reused: set[int] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    retried: bool = False
    head: scene_cache.CacheRecord | None = None  # an earlier render lending chunk 0's frames
    # Those frames copied while the rest renders, up to where the rest is planned to start:
    # (that frame, the copy or None when it did not come out whole).
    head_copy: Future | None = None

    @property
    def split(self) -> bool:
        return len(self.chunks) > 1

    def missing(self) -> list[int]:
        lent = {0} if self.head is not None else set()
        return [i for i in range(len(self.chunks)) if i not in self.results and i not in lent]

    @property
    def complete(self) -> bool:
        return not self.missing()


class RenderProgress(Protocol):
    """What the renders report: a scene started, its frames so far, a callback per scene."""

    def rendering(self, scene: str) -> None: ...

    def frames(self, scene: str, done: int, total: int) -> None: ...

    def callback(self, scene: str) -> Progress: ...


def run_chunked(
    jobs: Sequence[SceneJob],
    runner: ChunkRunner,
    display: RenderProgress,
    *,
    scenes: Mapping[str, PlannedScene],
    timelines: Mapping[str, Timeline],
    quality: Quality,
    policy: ChunkPolicy,
    numbers_digest: str,
) -> Iterator[tuple[SceneJob, RenderResult, tuple[ChunkOutcome, ...]]]:
    """Render `jobs` as chunks on `runner`; yield each scene when it is whole (or failed)."""
    current = _numbers_now()
    lengths_s = {j.unit.scene: timelines[j.unit.scene].total_s for j in jobs}
    targets = target_seconds(lengths_s, policy.workers, policy.chunk_s)
    progress: dict[str, dict[int, int]] = {}
    states: list[_Scene] = []
    for job in jobs:
        name = job.unit.scene
        state = _plan_scene(
            job, scenes[name], timelines[name], quality, targets[name], current, numbers_digest, policy.workers
        )
        states.append(state)
        progress[name] = {i: state.results[i].frames_written for i in state.reused}

    pending: dict[Future[Any], tuple[_Scene, int]] = {}  # a ChunkResult, or its dict from a Dask worker

    def submit(state: _Scene, indices: list[int]) -> None:
        for i in indices:
            unit = _chunk_unit(state, i)
            if runner.reports_progress:
                fut = runner.submit(unit, _progress(display, state, i, progress))
            else:
                fut = runner.submit(unit, None)
                display.rendering(state.job.unit.scene)
            pending[fut] = (state, i)

    # Longest first over every scene: the last chunks to start should be short ones.
    order = sorted(((s, i) for s in states for i in s.missing()), key=lambda si: -si[0].chunks[si[1]].frames)
    for state, i in order:
        submit(state, [i])
    # A lent head is copied while the rest renders, not after it (the rest starts at the
    # animation it was planned at, unless the scene's code changed where its animations fall).
    lending = ThreadPoolExecutor(max_workers=1, thread_name_prefix="head")
    try:
        for state in states:
            if state.head is not None:
                state.head_copy = lending.submit(_copy_head, state, state.chunks[1].start_frame)
        for state in states:
            if state.complete:  # every chunk kept from earlier builds
                done = _finish(state, submit)
                if done is not None:
                    yield done
        while pending:
            finished, _ = wait(list(pending), timeout=POLL_S, return_when=FIRST_COMPLETED)
            for fut in finished:
                state, i = pending.pop(fut)
                state.results[i] = _collect(runner, fut, state, i, numbers_digest)
                if state.results[i].ok and state.split:  # remote chunks report no frames while they run
                    name = state.job.unit.scene
                    progress[name][i] = state.results[i].frames_written
                    display.frames(name, sum(progress[name].values()), total_frames(state.timeline, quality.fps))
                if state.complete:
                    done = _finish(state, submit)
                    if done is not None:
                        yield done
    finally:
        lending.shutdown(wait=True)


def _numbers_now():
    from ffn_core.registry import logged_value

    return logged_value  # a number's value, a dataset's digest: what a render's record kept


def _plan_scene(
    job: SceneJob,
    scene: PlannedScene,
    timeline: Timeline,
    quality: Quality,
    target_s,
    current,
    digest: str,
    workers: int = 1,
) -> _Scene:
    folder = Path(job.unit.output).parent / CHUNKS_FOLDER
    kept = _kept_prefix(folder, scene, timeline, quality, current, digest)
    kept_cuts = [int(r.extra["end_frame"]) for r in kept]
    lent = earlier_head(job, scene, timeline, quality, current, digest)
    if lent is not None and lent[0] > max(kept_cuts, default=0):
        # An earlier render shares more frames than the kept chunks: its head is lent and
        # only the rest is drawn, by every worker (a target cut would redraw from an older cut).
        cut, record = lent
        rest_s = (total_frames(timeline, quality.fps) - cut) / quality.fps
        chunks = plan_chunks(job.unit.scene, timeline, quality.fps, rest_target_s(rest_s, workers), [cut])
        keys = tuple(chunk_key(scene, timeline, quality, c) for c in chunks)
        state = _Scene(job, scene, timeline, chunks, keys, folder, head=record)
        _reuse_kept(state, current, digest)
        return state
    chunks = plan_chunks(job.unit.scene, timeline, quality.fps, target_s, kept_cuts)
    if len(chunks) == 1:  # whole: no chunk cache, the scene's own render and record
        return _Scene(job, scene, timeline, chunks, (job.key,), folder)
    keys = tuple(chunk_key(scene, timeline, quality, c) for c in chunks)
    state = _Scene(job, scene, timeline, chunks, keys, folder)
    _reuse_kept(state, current, digest)
    return state


def rest_target_s(rest_s: float, workers: int) -> float | None:
    """The chunk length the rest after a lent head is cut to: one part per worker, none
    shorter than a chunk the build would plan by itself (`MIN_CHUNK_S`: each part pays a
    manim start and the skipped construct() before it, and on two cores a second part
    beside the build's own narration work made a 20 s rest slower, 18 s against 13.5 s);
    None: the rest whole."""
    parts = min(workers, int(rest_s // MIN_CHUNK_S))
    return rest_s / parts if parts > 1 else None


def _reuse_kept(state: _Scene, current, digest: str) -> None:
    """The scene's chunks found in the chunk cache, taken as they are."""
    for i, key in enumerate(state.keys):
        record = scene_cache.load_record(state.folder, key)
        if scene_cache.is_fresh(record, key, current, state.folder, digest):
            state.results[i] = _reused_result(state, i, record)
            state.reused.add(i)


def earlier_head(
    job: SceneJob, scene: PlannedScene, timeline: Timeline, quality: Quality, current, digest: str
) -> tuple[int, scene_cache.CacheRecord] | None:
    """The latest beat start before which an earlier render of the scene, still valid for
    its own timeline, has the same frames as this one's: (cut frame, that render's record),
    or None when no earlier render shares `MIN_HEAD_S` with it."""
    from lecture.farm.scene_cache import scene_key

    work = Path(job.unit.output).parent
    best: tuple[int, scene_cache.CacheRecord] | None = None
    for path in work.glob("*.record.json"):
        key = path.name.split(".")[0]
        copy = work / f"{key}.timeline.json"
        if key == job.key or not copy.is_file():
            continue
        try:
            old = Timeline.from_json(json.loads(copy.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        record = scene_cache.load_record(work, key)
        if record is None:
            continue
        cut = drawn_alike(timeline, _log_of(work, record), quality.fps)
        if cut is None:  # a log from before timing facts were noted: the beat starts tell
            cut = shared_cut(timeline, old, quality.fps)
        if cut < MIN_HEAD_S * quality.fps or (best is not None and cut <= best[0]):
            continue
        # Its key on its own timeline now: equal only when the sources, the quality and the
        # versions are those it was rendered with.
        if scene_key(scene, old, quality) != key or not scene_cache.is_fresh(record, key, current, work, digest):
            continue
        best = (cut, record)
    return best


def drawn_alike(new: Timeline, log: dict, fps: int) -> int | None:
    """The latest animation start of an earlier render before which its frames are those a
    render on `new` draws: every timing fact it had read when its clock reached that frame
    (`NarratedScene.timing_fact`) reads the same on `new`. 0 when none but the first; None
    when the log does not say what was read."""
    facts, starts = log.get("timing_facts"), log.get("animation_starts")
    if not isinstance(facts, list) or not isinstance(starts, list):
        return None
    total = total_frames(new, fps)
    # How many of the facts, in the order read, hold on the new timeline.
    holding = 0
    for beat, fact, name, value in facts:
        if timing_fact(new, beat, fact, name) != value:
            break
        holding += 1
    cuts = [int(frame) for frame, needed in starts if needed <= holding and 0 < int(frame) < total]
    return max(cuts, default=0)


def _log_of(work: Path, record: scene_cache.CacheRecord) -> dict:
    try:
        data = json.loads((work / record.log).read_text(encoding="utf-8")) if record.log else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def shared_cut(new: Timeline, old: Timeline, fps: int) -> int:
    """The latest beat start (as a first animation frame, `first_frame_of`) before which
    both timelines time everything alike, so a scene's frames before it are the same; 0
    when the first beat already differs."""
    total = min(total_frames(new, fps), total_frames(old, fps))
    for beat in reversed(range(1, min(len(new.beats), len(old.beats)))):
        cut = first_frame_of(new.beats[beat], fps)
        if not 0 < cut < total or cut != first_frame_of(old.beats[beat], fps):
            continue
        probe = Chunk("", 0, 2, 0, cut)
        signature = scene_cache.timing_signature
        if signature(prefix_timeline(new, fps, probe)) == signature(prefix_timeline(old, fps, probe)):
            return cut
    return 0


def _kept_prefix(folder: Path, scene, timeline, quality, current, digest) -> list[scene_cache.CacheRecord]:
    """Chunks kept from earlier builds that still hold, following each other from frame 0."""
    if not folder.is_dir():
        return []
    by_start: dict[int, list[scene_cache.CacheRecord]] = {}
    for path in folder.glob("*.record.json"):
        record = scene_cache.load_record(folder, path.name.split(".")[0])
        if record is not None and not record.extra.get("last"):
            by_start.setdefault(int(record.extra["start_frame"]), []).append(record)
    kept: list[scene_cache.CacheRecord] = []
    clock, total = 0, total_frames(timeline, quality.fps)
    while True:
        found = None
        for record in sorted(by_start.get(clock, []), key=lambda r: -int(r.extra["end_frame"])):
            end = int(record.extra["end_frame"])
            probe = Chunk(scene.name, 0, 2, clock, end)  # any non-last chunk with this range
            if end < total and record.key == chunk_key(scene, timeline, quality, probe):
                if scene_cache.is_fresh(record, record.key, current, folder, digest):
                    found = record
                    break
        if found is None:
            return kept
        kept.append(found)
        clock = int(found.extra["end_frame"])


def _reused_result(state: _Scene, i: int, record: scene_cache.CacheRecord) -> ChunkResult:
    return ChunkResult(
        state.job.unit.scene,
        i,
        True,
        str(record.video_path(state.folder)),
        str(record.log_path(state.folder)),
        0.0,
        first_frame=record.extra["first_frame"],
        end_frame=int(record.extra["past_frame"]),
        frames_written=record.frames,
    )


def _chunk_unit(state: _Scene, i: int) -> ChunkUnit:
    scene_unit, chunk = state.job.unit, state.chunks[i]
    if state.split:
        state.folder.mkdir(parents=True, exist_ok=True)
        output, log = state.folder / f"{state.keys[i]}.mp4", state.folder / f"{state.keys[i]}.log.json"
    else:
        output, log = Path(scene_unit.output), Path(scene_unit.log)
    return ChunkUnit(
        scene=scene_unit.scene,
        index=i,
        count=len(state.chunks),
        module=scene_unit.module,
        class_name=scene_unit.class_name,
        width_px=scene_unit.width_px,
        height_px=scene_unit.height_px,
        fps=scene_unit.fps,
        start_frame=chunk.start_frame,
        end_frame=None if chunk.is_last else chunk.end_frame,
        timeline_json=scene_unit.timeline_json,
        media_dir=scene_unit.media_dir,
        svg_cache=str(layout.svg_cache_dir()),
        output=str(output),
        log=str(log),
        expected_frames=chunk.frames,
    )


def _progress(display: RenderProgress, state: _Scene, i: int, progress: dict[str, dict[int, int]]):
    """The scene's progress bar fed by all its chunks (each reports its own frames)."""
    name = state.job.unit.scene
    report = display.callback(name)
    scene_frames = total_frames(state.timeline, state.job.unit.fps)

    def chunk_progress(done: int, _expected: int) -> None:
        progress[name][i] = done
        report(min(sum(progress[name].values()), scene_frames), scene_frames)

    return chunk_progress


def _collect(runner: ChunkRunner, fut: Future, state: _Scene, i: int, digest: str) -> ChunkResult:
    """The chunk's result (an executor's own failure becomes a failed result), kept in the
    chunk cache when the scene is split and the chunk holds frames."""
    try:
        result = runner.result(fut)
    except Exception as err:  # noqa: BLE001 - an executor's failure, not manim's
        result = ChunkResult(state.job.unit.scene, i, False, "", "", 0.0, error=f"{type(err).__name__}: {err}")
    if not result.ok:
        state.errors.append(f"trozo {i + 1}/{len(state.chunks)}: {result.error}" if state.split else result.error)
    elif state.split and result.output:
        try:
            _keep_chunk(state, i, result, digest)
        except (OSError, ValueError, KeyError) as err:  # a full disk, an unreadable log
            result = replace(result, ok=False, error=f"guardando el trozo en {state.folder}: {err}")
            state.errors.append(f"trozo {i + 1}/{len(state.chunks)}: {result.error}")
    return result


def _keep_chunk(state: _Scene, i: int, result: ChunkResult, digest: str) -> None:
    """The chunk's record in the chunk cache, written last (a chunk without one is never reused)."""
    chunk = state.chunks[i]
    record = scene_cache.CacheRecord.of_render(
        state.keys[i],
        result.output,
        result.log,
        result.seconds,
        digest,
        frames=result.frames_written,
        extra={
            "video_seal": seals.seal(Path(result.output)).to_json(),
            "start_frame": chunk.start_frame,
            "end_frame": chunk.end_frame,
            "last": chunk.is_last,
            "first_frame": result.first_frame,
            "past_frame": result.end_frame,
            "cpu_s": result.cpu_s,
            "cpu_to_first_s": result.cpu_to_first_s,
            "worker": result.worker,
        },
    )
    scene_cache.save_record(state.folder, record)


def _finish(state: _Scene, submit) -> tuple[SceneJob, RenderResult, tuple[ChunkOutcome, ...]] | None:
    """The scene's result once every chunk is back: joined, or why not. None when chunks
    had to be submitted again (kept ones that no longer tile with the new)."""
    job, unit = state.job, state.job.unit
    if state.head is not None and not state.errors:
        if not _lend_head(state):  # the earlier render could not lend its frames: render them
            state.head = None
            submit(state, [0])
            return None
    seconds = sum(r.seconds for r in state.results.values())
    outcomes = _outcomes(state)
    if state.errors:
        return job, RenderResult(unit.scene, False, "", "", seconds, "\n".join(state.errors)), outcomes
    ordered = [state.results[i] for i in range(len(state.chunks))]
    try:
        frames = int(read_log(ordered[-1].log)["frames"])
        check_tiling(unit.scene, [r.range for r in ordered], frames)
    except TilingError as err:
        if state.reused and not state.retried:
            state.retried = True
            state.head = None  # a lent head is rendered too
            again = sorted(state.reused)
            for i in again:
                scene_cache.record_path(state.folder, state.keys[i]).unlink(missing_ok=True)
                del state.results[i]
            state.reused.clear()
            submit(state, again)
            return None
        return job, RenderResult(unit.scene, False, "", "", seconds, str(err)), outcomes
    if state.split:
        try:
            join_chunks([Path(r.output) for r in ordered if r.output], Path(unit.output))
            _copy(Path(ordered[-1].log), Path(unit.log))  # the last chunk ran construct() whole: the scene's log
        except (OSError, RuntimeError) as err:  # a full disk, a failing ffmpeg: the scene fails, the chunks stay
            return job, RenderResult(unit.scene, False, "", "", seconds, f"uniendo los trozos: {err}"), outcomes
        _prune(state)
    return job, RenderResult(unit.scene, True, unit.output, unit.log, seconds), outcomes


def _lend_head(state: _Scene) -> bool:
    """Chunk 0 copied from the earlier render: its frames up to where chunk 1's first
    animation starts (a group of pictures starts there). False when they do not come out so."""
    record, rest = state.head, state.results[1]
    assert record is not None
    past = rest.first_frame if rest.first_frame is not None else rest.end_frame
    if not 0 < past <= record.frames:
        return False
    copied = state.head_copy.result() if state.head_copy is not None else None
    out = copied[1] if copied is not None and copied[0] == past else _copy_head(state, past)[1]
    if out is None:
        return False
    state.results[0] = ChunkResult(
        state.job.unit.scene, 0, True, str(out), rest.log, 0.0, first_frame=0, end_frame=past, frames_written=past
    )
    state.reused.add(0)
    return True


def _copy_head(state: _Scene, past: int) -> tuple[int, Path | None]:
    """The earlier render's first `past` frames as chunk 0: (past, the copy, or None when
    it did not come out with exactly those frames)."""
    from lecture.media.ffmpeg import FfmpegError, copy_first_frames, count_packets

    record = state.head
    assert record is not None
    out = state.folder / f"{state.keys[0]}.mp4"
    if not 0 < past <= record.frames:
        return past, None
    try:
        copy_first_frames(record.video_path(Path(state.job.unit.output).parent), past, out)
        return past, out if count_packets(out) == past else None
    except (OSError, FfmpegError, ValueError):
        return past, None


def _outcomes(state: _Scene) -> tuple[ChunkOutcome, ...]:
    return tuple(
        ChunkOutcome(
            r.scene,
            i,
            len(state.chunks),
            state.keys[i],
            r.first_frame if r.first_frame is not None else r.end_frame,
            r.end_frame,
            i in state.reused,
            r.seconds,
            r.cpu_s,
            r.worker,
            r.task,
            r.cpu_to_first_s,
        )
        for i, r in sorted(state.results.items())
    )


def _copy(src: Path, dest: Path) -> None:
    from voiceover.atomic import atomic_path

    with atomic_path(dest) as tmp:
        tmp.write_bytes(src.read_bytes())


def _prune(state: _Scene) -> None:
    """Delete the kept chunks of this scene that are not this render's."""
    keep = set(state.keys)
    for path in state.folder.glob("*"):
        if path.is_file() and path.name.split(".")[0] not in keep:
            path.unlink(missing_ok=True)
