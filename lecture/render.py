"""Render one scene at one quality into a silent MP4: a pure function from inputs to a file.

`render_unit` takes a picklable `RenderUnit` and returns a `RenderResult`, so any
`concurrent.futures.Executor` (a local pool, or a Dask or Ray executor) can run it. Its
optional `progress` callback only reports; it never changes what is rendered.

Every attempt uses its own manim media directory (manim's TeX cache and partial movie
files are not safe to share between processes, and a render orphaned by a killed build
must never write into the directory of the next one). The result lands by rename, so the
output path holds a complete video or nothing. manim gets SIGKILL when the process that
started it dies (Linux `PR_SET_PDEATHSIG`), so killing a build stops its renders too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lecture.plan import REPO_ROOT

# Runs manim inside a process that dies with its parent. prctl(PR_SET_PDEATHSIG=1, SIGKILL);
# the parent check closes the race of a parent that died before prctl ran.
_LAUNCHER = (
    "import ctypes, os, runpy, signal, sys\n"
    "try:\n"
    "    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)\n"
    "except (OSError, AttributeError):\n"
    "    pass\n"
    "if os.getppid() != int(os.environ.get('FFN_PARENT_PID', os.getppid())):\n"
    "    sys.exit(70)\n"
    "sys.argv = ['manim'] + sys.argv[1:]\n"
    "runpy.run_module('manim', run_name='__main__', alter_sys=True)\n"
)
# tqdm lines of manim's per-animation progress bars: "Animation 3: FadeIn(...):  45%|...| 9/20 [..."
_BAR_RE = re.compile(r"Animation (\d+)\b.*?\|\s*(\d+)/(\d+)\s*\[")
_ERROR_TAIL_LINES = 200
# Each attempt's manim media directory under the unit's `media_dir`: `run-<pid>-<random>`.
ATTEMPT_PREFIX = "run-"
_EXCEPTION_RE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)\b(: .*)?$")
_FRAME_RE = re.compile(r"(\S+\.py):(\d+) in (\S+)")


@dataclass(frozen=True)
class RenderUnit:
    scene: str
    module: str  # path of the scene's source file
    class_name: str
    width_px: int
    height_px: int
    fps: int
    timeline_json: str  # the timeline the scene must follow (the build's own copy)
    media_dir: str  # base of this unit's manim media directories (one per attempt)
    output: str  # where the silent MP4 lands (by rename)
    log: str  # where the scene's log lands (bookmarks fired, numbers read, layout)
    expected_frames: int = 0  # frames the timeline asks for (for progress only)


@dataclass(frozen=True)
class RenderResult:
    scene: str
    ok: bool
    output: str
    log: str
    seconds: float
    error: str = ""


class RenderError(RuntimeError):
    pass


Progress = Callable[[int, int], None]  # (frames written, frames expected)


class FrameCounter:
    """Frames written so far, read from manim's tqdm bars (one bar per animation)."""

    def __init__(self) -> None:
        self.totals: dict[int, int] = {}
        self.current: dict[int, int] = {}

    def feed(self, text: str) -> bool:
        changed = False
        for m in _BAR_RE.finditer(text):
            index, done, total = int(m.group(1)), int(m.group(2)), int(m.group(3))
            self.totals[index] = total
            if self.current.get(index) != done:
                self.current[index] = done
                changed = True
        return changed

    @property
    def frames(self) -> int:
        if not self.totals:
            return 0
        last = max(self.totals)
        # A bar that gave way to a later one finished (tqdm clears it before the end).
        return sum(t for i, t in self.totals.items() if i < last) + self.current.get(last, 0)


def render_unit(unit: RenderUnit, progress: Progress | None = None) -> RenderResult:
    start = time.monotonic()
    attempt = Path(unit.media_dir) / f"{ATTEMPT_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    attempt.mkdir(parents=True, exist_ok=True)
    tmp_log = attempt / "scene.log.json"
    env = dict(
        os.environ,
        FFN_TIMELINE=unit.timeline_json,
        FFN_SCENE_LOG=str(tmp_log),
        FFN_PARENT_PID=str(os.getpid()),
        COLUMNS="160",  # tracebacks not cut at 80 columns
        PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    cmd = [
        sys.executable,
        "-c",
        _LAUNCHER,
        "render",
        "--media_dir",
        str(attempt),
        "--resolution",
        f"{unit.width_px},{unit.height_px}",
        "--frame_rate",
        str(unit.fps),
        "--disable_caching",
        "--progress_bar",
        "display",
        "--verbosity",
        "WARNING",
        unit.module,
        unit.class_name,
    ]
    try:
        returncode, output = _run(cmd, env, unit.expected_frames, progress)
        if returncode != 0:
            return RenderResult(
                unit.scene,
                False,
                "",
                "",
                time.monotonic() - start,
                _last_error(output) or f"manim exited with status {returncode}",
            )
        videos = attempt / "videos"
        found = [p for p in videos.rglob(f"{unit.class_name}.mp4") if "partial_movie_files" not in p.parts]
        if len(found) != 1 or not tmp_log.exists():
            return RenderResult(
                unit.scene,
                False,
                "",
                "",
                time.monotonic() - start,
                f"manim finished but left {len(found)} videos and "
                f"{'a' if tmp_log.exists() else 'no'} scene log under {attempt}",
            )
        out = Path(unit.output)
        out.parent.mkdir(parents=True, exist_ok=True)
        # Same filesystem: a rename, never a half-copied file at `out`.
        tmp_out = out.with_name(f".{out.name}.{uuid.uuid4().hex[:8]}.part")
        shutil.move(str(found[0]), tmp_out)
        os.replace(tmp_out, out)
        tmp_final_log = Path(unit.log).with_name(f".{Path(unit.log).name}.{uuid.uuid4().hex[:8]}.part")
        shutil.move(str(tmp_log), tmp_final_log)
        os.replace(tmp_final_log, unit.log)
        if progress is not None and unit.expected_frames:
            progress(unit.expected_frames, unit.expected_frames)
        return RenderResult(unit.scene, True, str(out), unit.log, time.monotonic() - start)
    finally:
        shutil.rmtree(attempt, ignore_errors=True)


def _run(cmd: list[str], env: dict, expected: int, progress: Progress | None) -> tuple[int, str]:
    """Run manim, feeding its progress bars to `progress`; (exit status, output tail)."""
    proc = subprocess.Popen(
        cmd, cwd=REPO_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    counter = FrameCounter()
    lines: list[str] = []
    pending = ""
    try:
        while True:
            chunk = proc.stdout.read1(65536) if hasattr(proc.stdout, "read1") else proc.stdout.read(4096)
            if not chunk:
                break
            text = pending + chunk.decode("utf-8", errors="replace")
            pieces = re.split(r"[\r\n]", text)
            pending = pieces.pop()
            if progress is not None and counter.feed("\n".join(pieces)):
                progress(counter.frames, max(expected, counter.frames))
            lines.extend(p for p in pieces if p.strip() and not _BAR_RE.search(p))
            del lines[:-_ERROR_TAIL_LINES]
        if pending.strip() and not _BAR_RE.search(pending):
            lines.append(pending)
        return proc.wait(), "\n".join(lines)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _last_error(text: str) -> str:
    """The exception and where in the scene it was raised, then the end of manim's
    traceback (rich boxes stripped)."""
    lines = [ln.strip(" │╭╮╰╯─") for ln in text.strip().splitlines()]
    lines = [ln for ln in lines if ln.strip() and not ln.startswith("Manim Community")]
    exception = next((ln for ln in reversed(lines) if _EXCEPTION_RE.match(ln)), "")
    where = next((m for m in (_FRAME_RE.search(ln) for ln in reversed(lines)) if m), None)
    head = exception + (f" ({where.group(1)}:{where.group(2)}, en {where.group(3)})" if where else "")
    tail = "\n".join(lines[-12:])
    return f"{head}\n{tail}" if head else tail


def read_log(path: str | Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
