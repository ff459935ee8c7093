"""Where chunks run: one interface over this process's threads and any other executor.

A thread of this process renders a chunk by calling `render_chunk` with a progress callback
that feeds the display frame by frame. Anything else (a process pool, a Dask cluster, an
executor of the caller's) gets the chunk as a plain dict and returns one
(`lecture.farm.remote`): the callback cannot cross a process boundary, and a Dask worker
must be able to say in words that it lacks the repository before it imports any of it.
"""

from __future__ import annotations

from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from lecture.farm.chunk import ChunkResult, ChunkUnit, render_chunk
from lecture.farm.launcher import Progress


class ChunkRunner(Protocol):
    """Submits chunks; `reports_progress` says whether `progress` is called while one renders."""

    @property
    def reports_progress(self) -> bool: ...

    def submit(self, unit: ChunkUnit, progress: Progress | None) -> Future[Any]: ...

    def result(self, future: Future[Any]) -> ChunkResult: ...


@dataclass(frozen=True)
class ThreadRunner:
    """Threads of this process, each driving its own manim process."""

    executor: ThreadPoolExecutor
    reports_progress: bool = True

    def submit(self, unit: ChunkUnit, progress: Progress | None) -> Future[Any]:
        return self.executor.submit(render_chunk, unit, progress)

    def result(self, future: Future[Any]) -> ChunkResult:
        return future.result()


@dataclass(frozen=True)
class RemoteRunner:
    """Any other executor: the chunk and its result travel as dicts."""

    executor: Executor
    reports_progress: bool = False

    def submit(self, unit: ChunkUnit, progress: Progress | None) -> Future[Any]:
        from lecture.farm.remote import run_on_worker

        return self.executor.submit(run_on_worker, asdict(unit))

    def result(self, future: Future[Any]) -> ChunkResult:
        return ChunkResult(**future.result())


def runner_for(executor: Executor) -> ChunkRunner:
    """The runner for an executor the caller brought: in-process threads get the callbacks."""
    if isinstance(executor, ThreadPoolExecutor):
        return ThreadRunner(executor)
    return RemoteRunner(executor)
