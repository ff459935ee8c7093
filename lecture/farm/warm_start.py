"""Manim processes started ahead of their chunk, their imports already done.

A chunk's manim process spends its first 1.5-2.5 CPU-s starting Python and importing manim,
numpy, scipy and the scene kit: the same for every chunk, and on the critical path of an
edit, whose one chunk can render only once the build has narrated and planned. `WarmStarts`
starts such a process before the build narrates (on the core the build leaves idle), and
the first chunk to run takes it instead of starting its own (`lecture.farm.launcher`): it is
handed its command line and its own variables on its standard input and goes on exactly as
a cold start would (`lecture.farm.manim_entry`), in the same environment. `ffn-video build` starts
it first thing (before its own imports); `watch` keeps one waiting between rebuilds, so an
edit's chunk finds manim imported.

Only a process started in the environment the chunk asks for is taken, so what a warm start
draws is what a cold start draws: every variable it was started with must be the chunk's
too (but the chunk's own, `REQUEST_VARIABLES`); a variable the build set since
(`ffn_core.pretrained` sets HF_HUB_OFFLINE when the narration reads a model's figure) is
handed over and set before anything of the chunk runs, unless Python or a library reads it
as the process starts (`STARTUP_PREFIXES`). One more is started each time one is taken while chunks are still to come
(`expect`), and those left waiting when the build ends are stopped.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from lecture.plan import REPO_ROOT
from scenes.kit.protocol import CHUNK_FRAMES, CHUNK_INFO, SCENE_LOG, TIMELINE

ENTRY = "lecture.farm.manim_entry"
WAIT_FLAG = "--warm-start"  # manim_entry's first argument in a process started ahead
# What differs from one chunk to the next: handed over with the command line.
REQUEST_VARIABLES = frozenset({TIMELINE, SCENE_LOG, CHUNK_FRAMES, CHUNK_INFO})
# Variables read as a process starts or as manim is imported: one added later cannot be handed over.
STARTUP_PREFIXES = ("PYTHON", "MALLOC_", "LD_", "LC_", "LANG", "COLUMNS", "LINES", "TERM", "NO_COLOR", "FORCE_COLOR")
AHEAD = 1  # processes kept waiting at most: each holds manim imported (about 150 MB)


def handed_over(started: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str] | None:
    """The variables a process started in `started` must be given to run in `env`, or
    None when it cannot: one of its own differs or is gone, or one read at start is new."""
    if any(env.get(k) != v for k, v in started.items() if k not in REQUEST_VARIABLES):
        return None
    added = {k: v for k, v in env.items() if k not in started or k in REQUEST_VARIABLES}
    if any(k.startswith(STARTUP_PREFIXES) for k in added):
        return None
    return added


class WarmStarts:
    """Processes of `python -m lecture.farm.manim_entry` waiting for their chunk."""

    def __init__(self, python: str, env: Mapping[str, str], standing: int = 0):
        self.python = python
        self.env = dict(env)
        self.standing = standing  # kept waiting even when no chunk is expected (`watch`: the next edit's)
        self._lock = threading.Lock()
        self._ready: list[subprocess.Popen] = []
        self._expected = 1  # chunks still to come that may take one; a guess until `expect`
        self._closed = False
        self.taken = 0
        self._fill()

    def expect(self, chunks: int) -> None:
        """About `chunks` more chunks will run: keep up to `AHEAD` started while some are
        to come; none (but `standing`) when nothing will render: the others are stopped."""
        with self._lock:
            self._expected = max(chunks, 0)
            surplus = self._ready[self._wanted() :]
            del self._ready[self._wanted() :]
        for proc in surplus:
            _stop(proc)
        self._fill()

    def take(self, cmd: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen | None:
        """A waiting process that runs `cmd` in `env` exactly as a new one would, told
        what to do; None when there is none that can."""
        own = handed_over(self.env, env)
        if list(cmd[:3]) != [self.python, "-m", ENTRY] or own is None:
            return None
        with self._lock:
            proc = None
            while self._ready and proc is None:
                candidate = self._ready.pop(0)
                if candidate.poll() is None:
                    proc = candidate
            if proc is None:
                return None
            self.taken += 1
            self._expected = max(self._expected - 1, 0)
        request = {"argv": list(cmd[3:]), "env": own}
        try:
            assert proc.stdin is not None  # noqa: S101 - started with stdin=PIPE; tells mypy
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.close()
        except OSError:  # it died waiting: the caller starts its own
            _stop(proc)
            return None
        self._fill()
        return proc

    def _wanted(self) -> int:
        return min(max(self._expected, self.standing), AHEAD)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            waiting, self._ready = self._ready, []
        for proc in waiting:
            _stop(proc)

    def _fill(self) -> None:
        with self._lock:
            while not self._closed and len(self._ready) < self._wanted():
                self._ready.append(
                    subprocess.Popen(
                        [self.python, "-m", ENTRY, WAIT_FLAG],
                        cwd=REPO_ROOT,
                        env=self.env,
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,
                    )
                )


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()


_current: WarmStarts | None = None


def current() -> WarmStarts | None:
    """The build's warm starts, while it has them."""
    return _current


@contextmanager
def warm_starts(python: str, env: Mapping[str, str], standing: int = 0) -> Iterator[WarmStarts]:
    """Warm starts for this process's renders until the block ends."""
    global _current
    starts = WarmStarts(python, env, standing)
    previous, _current = _current, starts
    try:
        yield starts
    finally:
        _current = previous
        starts.close()


def for_local_renders(standing: int = 0):
    """Warm starts for the chunks this process renders with its own manim processes (the
    interpreter, repository and environment `lecture.farm.chunk` gives them); the build's
    own when the command line started none."""
    import sys

    from lecture.farm.chunk import chunk_base_env

    return warm_starts(sys.executable, chunk_base_env(str(REPO_ROOT)), standing)


def wait_for_request(stdin) -> tuple[list[str], dict[str, str]]:
    """In the process started ahead: the command line and variables its chunk hands over."""
    line = stdin.readline()
    if not line:
        raise SystemExit(0)  # the build ended without needing it
    request = json.loads(line)
    return list(request["argv"]), dict(request["env"])
