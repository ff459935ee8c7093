"""A manim process started ahead (`lecture.farm.warm_start`) renders a chunk exactly as one
started for it would, is taken only when it was started in the chunk's own environment,
and does not outlive the build that started it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_build_chunks import FPS, ChunkScene

from lecture.farm import warm_start
from lecture.farm.chunk import ChunkUnit, chunk_base_env, render_chunk
from lecture.farm.cuts import first_frame_of
from lecture.media.ffmpeg import framemd5
from lecture.plan import REPO_ROOT
from scenes.kit import protocol


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie has exited
        return stat.read().split(") ")[-1][0] != "Z"


@pytest.mark.slow
def test_a_chunk_taken_by_a_process_started_ahead_shows_the_frames_of_one_started_for_it(tmp_path, monkeypatch):
    c = ChunkScene(tmp_path, monkeypatch)
    timeline = c.timeline()
    timeline_json = c.job(timeline, "x").unit.timeline_json
    start = first_frame_of(timeline.beats[1], FPS)

    def chunk(name: str) -> ChunkUnit:
        return ChunkUnit(
            "tiny_c", 1, 2, str(c.scene.module), "TinyC", 854, 480, FPS, start, None, timeline_json,
            str(tmp_path / "media"), str(tmp_path / f"{name}.mp4"), str(tmp_path / f"{name}.log.json"),
        )  # fmt: skip

    cold = render_chunk(chunk("cold"))
    assert cold.ok, cold.error
    with warm_start.warm_starts(sys.executable, chunk_base_env(str(REPO_ROOT))) as starts:
        warm = render_chunk(chunk("warm"))
        assert starts.taken == 1
    assert warm.ok, warm.error
    assert (warm.first_frame, warm.end_frame, warm.frames_written) == (
        cold.first_frame,
        cold.end_frame,
        cold.frames_written,
    )
    assert framemd5(Path(warm.output)) == framemd5(Path(cold.output))
    assert json.loads(Path(warm.log).read_text(encoding="utf-8")) == json.loads(
        Path(cold.log).read_text(encoding="utf-8")
    )


def test_a_variable_set_since_the_start_is_handed_over_unless_python_reads_it_as_it_starts():
    started = {"PATH": "/usr/bin", "FFN_CACHE_DIR": "/tmp/c", protocol.TIMELINE: "/tmp/old.json"}
    chunk = {**started, protocol.TIMELINE: "/tmp/t.json", protocol.CHUNK_FRAMES: "10:"}
    assert warm_start.handed_over(started, chunk) == {protocol.TIMELINE: "/tmp/t.json", protocol.CHUNK_FRAMES: "10:"}
    assert warm_start.handed_over(started, {**chunk, "HF_HUB_OFFLINE": "1"}) == {
        protocol.TIMELINE: "/tmp/t.json",
        protocol.CHUNK_FRAMES: "10:",
        "HF_HUB_OFFLINE": "1",
    }
    assert warm_start.handed_over(started, {**chunk, "PATH": "/opt/bin"}) is None  # changed
    assert warm_start.handed_over(started, {k: v for k, v in chunk.items() if k != "PATH"}) is None  # gone
    assert warm_start.handed_over(started, {**chunk, "PYTHONHASHSEED": "0"}) is None  # read as Python starts
    assert warm_start.handed_over(started, {**chunk, "MALLOC_ARENA_MAX": "2"}) is None


def test_a_process_started_in_another_environment_is_not_taken():
    env = chunk_base_env(str(REPO_ROOT))
    with warm_start.warm_starts(sys.executable, env) as starts:
        cmd = [sys.executable, "-m", warm_start.ENTRY, "render"]
        assert starts.take(cmd, {**env, "PATH": env["PATH"] + ":/otra/parte"}) is None  # a variable differs
        assert starts.take(["/usr/bin/python3", "-m", warm_start.ENTRY], env) is None  # another interpreter
        assert starts.taken == 0


def test_the_processes_left_waiting_are_stopped_when_nothing_more_will_render():
    with warm_start.warm_starts(sys.executable, chunk_base_env(str(REPO_ROOT))) as starts:
        waiting = list(starts._ready)
        assert len(waiting) == 1 and waiting[0].poll() is None
        starts.expect(0)
        assert waiting[0].poll() is not None
        assert not starts._ready
    with warm_start.warm_starts(sys.executable, chunk_base_env(str(REPO_ROOT))) as starts:
        waiting = list(starts._ready)
    assert waiting[0].poll() is not None  # the block's end stops it too
    assert warm_start.current() is None


def test_watch_keeps_one_waiting_for_the_next_edit_when_a_build_renders_nothing():
    with warm_start.warm_starts(sys.executable, chunk_base_env(str(REPO_ROOT)), standing=1) as starts:
        waiting = list(starts._ready)
        starts.expect(0)
        assert starts._ready == waiting and waiting[0].poll() is None
    assert waiting[0].poll() is not None


def test_a_waiting_process_dies_with_the_build_that_started_it(tmp_path):
    """A build killed (SIGKILL: no clean-up runs) leaves no manim process waiting."""
    code = (
        "import os, sys\n"
        "from lecture.farm import warm_start\n"
        "from lecture.farm.chunk import chunk_base_env\n"
        "from lecture.plan import REPO_ROOT\n"
        "starts = warm_start.WarmStarts(sys.executable, chunk_base_env(str(REPO_ROOT)))\n"
        "print(starts._ready[0].pid, flush=True)\n"
        "sys.stdin.read()\n"
    )
    build = subprocess.Popen(
        [sys.executable, "-c", code], cwd=REPO_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert build.stdout is not None
    child = int(build.stdout.readline())
    assert _alive(child)
    build.kill()
    build.wait()
    deadline = time.monotonic() + 20
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)
