"""The build lock: one build at a time per checkout (the cache and the renders are shared
by all qualities). An OS file lock, so a killed build (SIGKILL included) releases it; a
second build stops with a message naming the first."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from filelock import FileLock, Timeout

from lecture.layout import build_dir
from lecture.qualities import Quality
from voiceover.atomic import write_json


class BuildLocked(RuntimeError):
    """Another build holds this checkout's lock."""


# The lock files this thread holds: taken again inside (the command line holds it across
# its quick answer and the build), it is already ours, with no gap a second build could take.
_HELD = threading.local()


@contextmanager
def build_lock(quality: Quality) -> Iterator[None]:
    """One build at a time per checkout: the cache and the renders are shared by all qualities.

    The lock is an OS file lock, so a killed build (SIGKILL included) releases it. Taken
    again while this thread holds it, it is held on, not taken twice."""
    path = build_dir() / ".build.lock"
    held: set[Path] = _HELD.__dict__.setdefault("paths", set())
    if path in held:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    info = path.with_name(".build.lock.json")
    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise BuildLocked(_locked_message(info, path)) from None
    held.add(path)
    try:
        write_json(info, {"pid": os.getpid(), "quality": quality.name, "started": datetime.now().strftime("%H:%M:%S")})
        yield
    finally:
        held.discard(path)
        lock.release()


def _locked_message(info: Path, path: Path) -> str:
    try:
        data = json.loads(info.read_text(encoding="utf-8"))
        who = f" (pid {data['pid']}, calidad {data['quality']}, empezó a las {data['started']})"
    except (OSError, ValueError, KeyError):
        who = ""
    return (
        f"otra compilación de ffn-video está en curso en esta copia del proyecto{who}; "
        f"espera a que termine y vuelve a intentarlo (cerrojo: {path})"
    )
