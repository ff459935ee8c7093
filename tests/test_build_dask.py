"""Chunks on a Dask cluster: the scheduler option, a worker that cannot see the build's files,
and a worker killed mid-build (its chunk re-run on the surviving worker, every chunk of the
scene in the joined video exactly once)."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from dataclasses import asdict
from pathlib import Path

import pytest
from fixtures.build_support import base_lecture, frames_of, fresh_copy, quiet_console
from test_build_chunks import FPS

from ffn_core import settings
from lecture.build.pipeline import build
from lecture.farm.chunk import ChunkUnit
from lecture.farm.cluster import SchedulerSpec, configured_scheduler, dask_executor, parse_scheduler
from lecture.media.ffmpeg import framemd5

pytest.importorskip("distributed")


def test_the_scheduler_is_an_address_or_a_local_cluster_and_anything_else_is_refused(monkeypatch):
    assert parse_scheduler("tcp://10.0.0.5:8786", insecure=True) == SchedulerSpec(
        address="tcp://10.0.0.5:8786", insecure=True
    )
    assert parse_scheduler("local:3") == SchedulerSpec(local_workers=3)
    for bad in ("local:0", "10.0.0.5:8786", "http://x:1", "local:dos", "tcp://10.0.0.5:8786", "tls://10.0.0.5:1"):
        with pytest.raises(ValueError, match="--scheduler"):
            parse_scheduler(bad)
    for name in ("DASK_SCHEDULER", "DASK_INSECURE", "TLS_CA", "TLS_CERT", "TLS_KEY"):
        monkeypatch.delenv(getattr(settings, name).name, raising=False)
    assert configured_scheduler(None) is None
    monkeypatch.setenv(settings.DASK_SCHEDULER.name, "tcp://planificador:8786")
    monkeypatch.setenv(settings.DASK_INSECURE.name, "1")
    assert configured_scheduler(None).address == "tcp://planificador:8786"
    assert configured_scheduler("local:2").local_workers == 2  # the option wins over the environment


@pytest.fixture(scope="module")
def two_workers():
    with dask_executor(parse_scheduler("local:2")) as run:
        yield run


@pytest.mark.slow
def test_a_worker_that_cannot_see_the_files_fails_its_task_with_words_not_a_traceback(two_workers, tmp_path):
    from lecture.farm.remote import run_on_worker

    unit = ChunkUnit(
        "tiny_c", 0, 1, "x.py", "X", 854, 480, FPS, 0, None, str(tmp_path / "t.json"), str(tmp_path),
        str(tmp_path / "o.mp4"), str(tmp_path / "o.log.json"), repo="/no/existe/ffn-video",
    )  # fmt: skip
    result = two_workers.executor.submit(run_on_worker, asdict(unit)).result(timeout=60)
    assert not result["ok"] and result["worker"].startswith("tcp://")
    assert result["error"].startswith(f"el trabajador {result['worker']} no ve el repositorio en /no/existe")
    assert "mismas rutas" in result["error"] and "Traceback" not in result["error"]


def _kill_a_busy_worker(run, killed: dict, stop: threading.Event) -> None:
    """Once a worker has been rendering a chunk for a while, kill its process (and keep its
    nanny from starting another): note its address and the task it lost."""
    cluster = run.client.cluster
    busy_since: dict[str, float] = {}
    while not stop.is_set():
        for address, tasks in run.client.processing().items():
            if not tasks:
                busy_since.pop(address, None)
                continue
            started = busy_since.setdefault(address, time.monotonic())
            if time.monotonic() - started > 2.0:
                nanny = next(n for n in cluster.workers.values() if n.worker_address == address)
                killed.update(address=address, tasks=list(tasks), pid=nanny.pid)
                nanny.close_gracefully()  # a dead worker stays dead: its chunk must go to the other
                os.kill(nanny.pid, signal.SIGKILL)
                return
        time.sleep(0.2)


@pytest.mark.slow
def test_a_worker_killed_mid_build_loses_no_chunk_and_repeats_none(two_workers, tmp_path, monkeypatch):
    """The tiny plan built on two Dask workers, in chunks of about a second; one worker is
    killed while it renders. The build ends correct: the lost chunk ran again on the other
    worker, and each scene holds each of its chunks once (its frames are the unsplit
    render's, which the shared base lecture made)."""
    base = base_lecture()
    lecture = fresh_copy(tmp_path / "lecture", with_build=False).apply(monkeypatch)
    killed: dict = {}
    stop = threading.Event()
    killer = threading.Thread(target=_kill_a_busy_worker, args=(two_workers, killed, stop), daemon=True)
    killer.start()
    try:
        report = build("preview", executor=two_workers.executor, jobs=2, chunk_s=1.0, console=quiet_console())
    finally:
        stop.set()
        killer.join()
    assert killed, "no worker was seen busy long enough to be killed"
    assert report.ok, report.failed
    survivor = next(iter(two_workers.client.scheduler_info()["workers"]))
    assert survivor != killed["address"]
    outcomes = [o for scene in ("tiny_a", "tiny_b") for o in report.chunks[scene]]
    lost = [o for o in outcomes if o.task in killed["tasks"]]
    assert lost and all(o.worker == survivor for o in lost)  # run again, on the surviving worker
    for scene in ("tiny_a", "tiny_b"):
        chunks = report.chunks[scene]
        assert [o.index for o in chunks] == list(range(chunks[0].count)) and chunks[0].count >= 2
        joined = framemd5(_silent_render(lecture.work(scene)))
        assert joined == framemd5(_silent_render(base.work(scene)))  # every chunk once: no frame lost or doubled
    assert frames_of(lecture.out() / "lecture.mp4") == frames_of(base.out() / "lecture.mp4")


def _silent_render(work: Path) -> Path:
    return next(p for p in work.glob("*.mp4"))


@pytest.mark.slow
def test_the_build_sends_its_chunks_to_the_scheduler_named_in_the_environment(tmp_path, monkeypatch):
    lecture = fresh_copy(tmp_path / "lecture", with_build=False).apply(monkeypatch)
    monkeypatch.setenv(settings.DASK_SCHEDULER.name, "local:2")
    proc = lecture.cli("build", "--only", "tiny_b", "--chunk-s", "1")
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    chunks = sorted((lecture.work("tiny_b") / "chunks").glob("*.record.json"))
    workers = {json.loads(p.read_text(encoding="utf-8"))["extra"]["worker"] for p in chunks}
    assert len(chunks) >= 2 and all(w.startswith("tcp://127.0.0.1:") for w in workers)
    assert frames_of(next(lecture.work("tiny_b").glob("*.mp4"))) == frames_of(
        next(base_lecture().work("tiny_b").glob("*.mp4"))
    )


def test_the_worker_code_travels_by_value_and_runs_where_the_repository_cannot_be_imported(tmp_path):
    """A worker without the repository still unpickles the task and answers in words."""
    import subprocess
    import sys

    from distributed.protocol.pickle import dumps

    from lecture.farm.cluster import _send_worker_code_by_value
    from lecture.farm.remote import run_on_worker

    _send_worker_code_by_value()
    (tmp_path / "task.pkl").write_bytes(dumps(run_on_worker))
    probe = (
        "import importlib.abc, pickle, sys\n"
        "class NoRepository(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] in ('lecture', 'scenes', 'voiceover', 'ffn_core'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, NoRepository())\n"
        f"task = pickle.loads(open({str(tmp_path / 'task.pkl')!r}, 'rb').read())\n"
        "print(task({'scene': 's', 'index': 0, 'repo': '/no/existe', 'python': '/x', 'timeline_json': '/x',"
        " 'output': '/x/o.mp4'})['error'])\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "no ve el repositorio en /no/existe" in out.stdout and "Traceback" not in out.stderr
