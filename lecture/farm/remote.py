"""What a Dask worker runs for one chunk: check that it sees the build's files, then render.

Sent to the workers by value (cloudpickle), not by name, and importing nothing from the
repository until the check passed: a worker without the repository must still be able to
run this and say so, in words, instead of failing to unpickle with a traceback. For the
same reason the chunk travels as a plain dict (`dataclasses.asdict(ChunkUnit)`) and the
result comes back as one.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

SHARED_FILES_HELP = (
    "los trabajadores de Dask necesitan el repositorio, el entorno virtual y la caché de la compilación "
    "en las mismas rutas que la máquina que compila (un sistema de archivos compartido)"
)


def where() -> tuple[str, str]:
    """(the worker's address, the running task's key); this host's name outside Dask."""
    try:
        from distributed import get_worker

        worker = get_worker()
        return worker.address, str(worker.get_current_task() or "")
    except (ImportError, ValueError):
        return socket.gethostname(), ""


def missing_shared_files(fields: dict) -> str:
    """Why this worker cannot render the chunk in `fields` (Spanish), or "" when it can."""
    address, _ = where()
    repo = Path(fields["repo"])
    checks = [
        (repo / "lecture" / "farm" / "chunk.py", "el repositorio", Path.is_file),
        (Path(fields["python"]), "el entorno virtual (su intérprete)", lambda p: os.access(p, os.X_OK)),
        (Path(fields["timeline_json"]), "la caché de la compilación", Path.is_file),
        (Path(fields["output"]).parent, "la caché de la compilación", lambda p: os.access(p, os.W_OK)),
    ]
    for path, what, ok in checks:
        if not ok(path):
            return f"el trabajador {address} no ve {what} en {path}: {SHARED_FILES_HELP}"
    return ""


def run_on_worker(fields: dict) -> dict:
    """Render the chunk described by `fields`; the `ChunkResult` as a dict, with where it ran."""
    address, task = where()
    problem = missing_shared_files(fields)
    if problem:
        return {"scene": fields["scene"], "index": fields["index"], "ok": False, "output": "", "log": "",
                "seconds": 0.0, "error": problem, "worker": address, "task": task}  # fmt: skip
    if fields["repo"] not in sys.path:
        sys.path.insert(0, fields["repo"])
    from dataclasses import asdict

    from lecture.farm.chunk import ChunkUnit, render_chunk

    result = asdict(render_chunk(ChunkUnit(**fields)))
    result.update(worker=address, task=task)
    return result
