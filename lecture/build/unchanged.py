"""A build with nothing to do, answered from a stamp instead of being run.

A build reads the repository (sources, scripts, the plan, recordings), its caches (narration
clips, the numbers, its own work), its outputs, the installed packages, the programs it
runs and the `FFN_*` settings. When a build ends with nothing failed and the lecture made,
it stamps the state of all of them: every file's path, size, modification and change times
and inode (what any rewrite changes, as the seals' verdicts use them), with the summary it
printed. What the build only reads is taken when it starts (a script saved while it ran is
newer than that), what it writes when it ends.

The next `ffn-video build` with the same request takes the same state first (about 20 ms
for the lecture's two thousand files): when it is equal, nothing the build could look at
has changed since, so it would redo nothing and print the same summary; that summary is
printed at once, with this build's own time. Any difference (a saved script, a touched
clip, a deleted output, another voice, a package upgraded) runs the build in full, and the
full build redoes what changed. Only the `build` command asks (long-lived callers, `watch`,
run the full build, which is exact by itself); this module imports nothing heavy, so the
answer costs no more than starting Python.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ffn_core import settings
from lecture.layout import build_dir
from voiceover.atomic import write_json

STAMP_NAME = "unchanged.json"
FORMAT = 1
# Folders whose files no build reads: derived from sources (their stats are taken), or
# tools' own caches. The virtual environment is taken by its packages' names instead.
SKIPPED_FOLDERS = frozenset({".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
# Written by every build, the lock included, before it knows whether it has anything to do.
SKIPPED_FILES = frozenset({".build.lock", ".build.lock.json", STAMP_NAME})
# Besides the `FFN_*` settings: where the user's folders and the programs are found.
ENVIRONMENT = ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "PATH")


@dataclass(frozen=True)
class Request:
    """What a build was asked for: the same request on the same state gives the same lecture."""

    quality: str
    only: tuple[str, ...] = ()  # the scenes asked for, as given (empty: every scene)
    plan: str = ""  # a plan file given by the caller ("": the configured one, an FFN_* setting)

    def to_json(self) -> list:
        return [self.quality, list(self.only), self.plan]


def stamp_path(quality: str) -> Path:
    return build_dir() / quality / STAMP_NAME


def written_roots() -> list[Path]:
    """Where builds write: the caches and the outputs."""
    return [settings.cache_root().resolve(), settings.renders_root().resolve()]


def read_roots() -> list[Path]:
    """Where a build only reads: the repository, the recordings, the folder of a plan given
    elsewhere (its scene modules may live there), Kokoro's model folder and the numbers' key
    (their files, the written roots inside them left out)."""
    from voiceover.engines.kokoro_assets import kokoro_dir

    roots = [settings.REPO_ROOT, kokoro_dir(), settings.cache_key_file()]
    recordings, plan = settings.recordings_root(), settings.plan_file()
    if recordings is not None:
        roots.append(recordings)
    if plan is not None:
        roots.append(plan.parent)
    return [r.expanduser().resolve() for r in roots]


def state_of(roots: Iterable[Path], skipped: Iterable[Path] = ()) -> str:
    """A digest of every file under `roots` (outside `skipped`): path, size, times, inode."""
    skip = {Path(p) for p in skipped}
    digest = hashlib.sha256()
    for root in sorted(set(roots)):
        for line in _file_lines(root, skip):
            digest.update(line.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _file_lines(root: Path, skip: set[Path]) -> Iterator[str]:
    try:
        st = root.stat()
    except OSError:
        yield f"{root}\tabsent\n"
        return
    if not root.is_dir():
        yield _line(root, st)
        return
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            yield f"{folder}\tunreadable\n"
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_FOLDERS and path not in skip:
                    stack.append(path)
            elif entry.name not in SKIPPED_FILES:
                try:
                    yield _line(path, entry.stat())
                except OSError:
                    yield f"{path}\tvanished\n"


def _line(path: Path, st: os.stat_result) -> str:
    return f"{path}\t{st.st_size}\t{st.st_mtime_ns}\t{st.st_ctime_ns}\t{st.st_ino}\n"


def surroundings() -> str:
    """What lies outside the files: the interpreter, its packages, the programs, the settings."""
    parts: list[object] = [sys.executable, sys.version]
    for folder in sorted({p for p in sys.path if p.endswith("site-packages")}):
        try:
            parts.append(sorted(os.listdir(folder)))  # a package installed or upgraded changes a name
        except OSError:
            parts.append(folder)
    from lecture.build.preflight import TOOLS

    for tool in TOOLS:
        where = shutil.which(tool.program)
        parts.append([tool.program, where, _stat_or_none(where)])
    parts.append(sorted(settings.current().items()))
    parts.append(sorted((k, v) for k, v in os.environ.items() if k in ENVIRONMENT))
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


def _stat_or_none(where: str | None) -> list[int] | None:
    if where is None:
        return None
    try:
        st = Path(where).resolve().stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


@dataclass(frozen=True)
class Before:
    """The state a build starts from, as far as it only reads it."""

    request: Request
    read: str  # `state_of(read_roots())`, written roots left out
    around: str  # `surroundings()`


def before(request: Request) -> Before:
    return Before(request, state_of(read_roots(), written_roots()), surroundings())


def stamp(start: Before, summary: dict) -> None:
    """After a build that made the lecture and failed nothing: the state it started from,
    the state it left, and the summary it printed (`summary`: JSON)."""
    write_json(
        stamp_path(start.request.quality),
        {
            "format": FORMAT,
            "request": start.request.to_json(),
            "read": start.read,
            "around": start.around,
            "written": state_of(written_roots()),
            "ended": datetime.now().strftime("%H:%M:%S"),
            "summary": summary,
        },
    )


def forget(quality: str) -> None:
    """A build that failed, or was cut short: the next one runs in full."""
    stamp_path(quality).unlink(missing_ok=True)


def unchanged_summary(request: Request) -> dict | None:
    """The summary of the last build, when nothing has changed since it ended (with the
    time it ended, `ended`); else None."""
    try:
        kept = json.loads(stamp_path(request.quality).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("format") != FORMAT or kept.get("request") != request.to_json():
        return None
    # Cheapest first: any difference ends the check.
    if kept.get("around") != surroundings():
        return None
    if kept.get("written") != state_of(written_roots()):
        return None
    if kept.get("read") != state_of(read_roots(), written_roots()):
        return None
    summary = kept.get("summary")
    return {**summary, "ended": str(kept.get("ended", ""))} if isinstance(summary, dict) else None
