"""What every manim render shares: the picklable `RenderUnit` of a scene at one quality,
the `RenderResult` it gives, running manim while reading its progress bars
(`run_manim`), the error a failed run ends with (`last_error`), and the scene's log.

The build renders through `lecture.chunk_render.render_chunk`, one range of a scene's
animations per manim process (the whole scene when it is not cut), run by any
`concurrent.futures.Executor` (a local pool, or a Dask or Ray executor). Every attempt uses
its own manim media directory (manim's TeX cache and partial movie files are not safe to
share between processes, and a render orphaned by a killed build must never write into the
directory of the next one); manim gets SIGKILL when the process that started it dies
(`lecture.farm.manim_entry`), so killing a build stops its renders too.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lecture.plan import REPO_ROOT

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


def run_manim(cmd: list[str], env: dict, expected: int, progress: Progress | None) -> tuple[int, str]:
    """Run manim, feeding its progress bars to `progress`; (exit status, output tail). A
    process the build started ahead runs it when one can (`lecture.farm.warm_start`)."""
    from lecture.farm import warm_start

    warm = warm_start.current()
    proc = warm.take(cmd, env) if warm is not None else None
    if proc is None:
        proc = subprocess.Popen(
            cmd, cwd=REPO_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
    assert proc.stdout is not None  # noqa: S101 - Popen with stdout=PIPE always has it; tells mypy
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


def last_error(text: str) -> str:
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
