"""The narration made ahead of the renders yields the CPU to them (`lecture.build.mix`)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from lecture.build import mix

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a niceness per thread is Linux's")


def niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def child_niceness() -> int:
    out = subprocess.run([sys.executable, "-c", "import os; print(os.nice(0))"], capture_output=True, check=True)
    return int(out.stdout)


def test_the_work_and_the_processes_it_starts_run_nicer_than_the_caller():
    before = niceness()
    with ThreadPoolExecutor(max_workers=1) as pool:
        inside, child = pool.submit(mix.yielding, lambda: (niceness(), child_niceness())).result()
    assert inside == min(before + mix.AHEAD_NICENESS, 19)
    assert child == inside
    assert niceness() == before  # the calling thread keeps its priority


def test_the_narration_ahead_runs_nicer_than_the_renders(monkeypatch):
    seen: list[int] = []
    monkeypatch.setattr(mix, "fitted_timelines", lambda *args: {})
    monkeypatch.setattr(mix, "prepare_audio", lambda build, fitted: seen.append(niceness()))
    with mix.mixing_ahead(None, None, {}, background=True) as ahead:  # type: ignore[arg-type]
        ahead.job.result()
    assert seen == [min(niceness() + mix.AHEAD_NICENESS, 19)]


def test_without_background_nothing_is_started(monkeypatch):
    monkeypatch.setattr(mix, "fitted_timelines", lambda *args: {})
    monkeypatch.setattr(mix, "prepare_audio", lambda *args: pytest.fail("started"))
    with mix.mixing_ahead(None, None, {}, background=False) as ahead:  # type: ignore[arg-type]
        assert ahead.job is None
