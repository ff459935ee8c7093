"""Render chunks on a Dask cluster (`distributed`): which scheduler, and its lifetime.

    ffn-video build --quality 1080p --scheduler tcp://HOST:8786   # a running cluster
    ffn-video build --quality 1080p --scheduler local:4            # 4 worker processes here
    FFN_DASK_SCHEDULER=tcp://HOST:8786 ffn-video build ...          # the same, from the environment

The build submits every chunk through distributed's `concurrent.futures` executor
(`Client.get_executor()`), so it waits for chunks exactly as it waits for a local pool.
A worker that dies mid-chunk loses nothing that was finished: the scheduler gives its task
to another worker, and each chunk's file lands by rename, so a half-written one is never
seen. Workers need the repository, the virtual environment and the cache at the same paths
as this machine (a shared filesystem); a worker that cannot see them fails its first task
saying so (`lecture.farm.remote`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ffn_core import settings

if TYPE_CHECKING:
    from distributed import Client

_ADDRESS_RE = re.compile(r"^(tcp|tls|ucx|inproc)://[^\s:/]+(:\d+)?$")
_LOCAL_RE = re.compile(r"^local:(\d+)$")


@dataclass(frozen=True)
class SchedulerSpec:
    """Where chunks go: a running scheduler's address, or a cluster of local processes."""

    address: str = ""  # e.g. "tcp://10.0.0.5:8786"
    local_workers: int = 0  # >0: start a LocalCluster with this many worker processes

    @property
    def is_local(self) -> bool:
        return self.local_workers > 0


def parse_scheduler(text: str) -> SchedulerSpec:
    """`tcp://HOST:PORT` (or tls://, ucx://) or `local:N`; anything else is an error that says why."""
    value = text.strip()
    local = _LOCAL_RE.match(value)
    if local:
        workers = int(local.group(1))
        if workers < 1:
            raise ValueError(f"--scheduler {value}: un clúster local necesita al menos un trabajador (local:N, N >= 1)")
        return SchedulerSpec(local_workers=workers)
    if _ADDRESS_RE.match(value):
        return SchedulerSpec(address=value)
    raise ValueError(
        f"--scheduler {value!r} no es una dirección de Dask: usa tcp://SERVIDOR:PUERTO (p. ej. tcp://10.0.0.5:8786) "
        f"o local:N para N procesos trabajadores en esta máquina"
    )


def configured_scheduler(cli_value: str | None) -> SchedulerSpec | None:
    """The scheduler asked for: `--scheduler`, else $FFN_DASK_SCHEDULER, else none (local pool)."""
    value = cli_value or settings.raw(settings.DASK_SCHEDULER) or ""
    return parse_scheduler(value) if value else None


@dataclass(frozen=True)
class DaskRun:
    """A connected client and its executor, for the length of one build."""

    client: Client
    executor: Executor

    @property
    def workers(self) -> int:
        return max(len(self.client.scheduler_info(n_workers=-1)["workers"]), 1)


@contextmanager
def dask_executor(spec: SchedulerSpec, timeout_s: float = 30.0) -> Iterator[DaskRun]:
    """A Dask client on `spec` for one build; a local cluster is started and stopped with it."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise RuntimeError(
            "--scheduler necesita Dask: instala 'distributed' en el entorno virtual (.venv/bin/pip install distributed)"
        ) from None
    _send_worker_code_by_value()
    cluster = None
    try:
        if spec.is_local:
            # One thread per worker: each chunk is one manim process, which keeps about two
            # cores busy at 1080p; more threads per worker would only oversubscribe.
            cluster = LocalCluster(
                n_workers=spec.local_workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
            client = Client(cluster, timeout=timeout_s)
        else:
            try:
                client = Client(spec.address, timeout=timeout_s)
            except OSError as err:
                raise RuntimeError(
                    f"no se pudo conectar con el planificador de Dask en {spec.address} ({err}); "
                    f"¿está en marcha (dask scheduler) y es accesible desde esta máquina?"
                ) from None
        try:
            # pure=False: a chunk submitted again after a failure is new work, not a cached result.
            yield DaskRun(client, client.get_executor(pure=False))
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _send_worker_code_by_value() -> None:
    import cloudpickle

    from lecture.farm import remote as dask_worker

    cloudpickle.register_pickle_by_value(dask_worker)
