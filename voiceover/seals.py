"""Seals on cached artefacts: a damaged file is never reused.

Every artefact the build reuses (a scene's silent render, the narration tracks, the scene
and lecture MP4s) is sealed when made: its size, modification time and SHA-256. Before
reuse the seal is checked: size and time unchanged is taken as intact (cheap, so a build
with nothing to do stays fast); otherwise the content hash decides (a `touch` or a copy
keeps the file). A damaged file is discarded and made again, with a one-line notice naming
it, collected here and printed in the build's summary.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from voiceover.atomic import sha256_file

_lock = threading.Lock()
_notices: list[str] = []


@dataclass(frozen=True)
class Seal:
    size: int  # bytes
    mtime_ns: int
    sha256: str

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Seal | None:
        try:
            return cls(int(data["size"]), int(data["mtime_ns"]), str(data["sha256"]))
        except (TypeError, KeyError, ValueError):
            return None


def seal(path: Path) -> Seal:
    st = Path(path).stat()
    return Seal(st.st_size, st.st_mtime_ns, sha256_file(path))


def intact(path: Path, sealed: Seal | None) -> bool:
    """True when `path` still holds what was sealed."""
    if sealed is None:
        return False
    try:
        st = Path(path).stat()
    except OSError:
        return False
    if st.st_size != sealed.size:
        return False
    if st.st_mtime_ns == sealed.mtime_ns:
        return True
    return sha256_file(path) == sealed.sha256


def damaged(path: Path, what: str = "") -> None:
    """Record that `path` was found damaged and is being made again."""
    label = f" ({what})" if what else ""
    with _lock:
        _notices.append(f"dañado, se rehace: {path}{label}")


def take_notices() -> list[str]:
    """The notices gathered since the last call (the build reports them once)."""
    with _lock:
        out = list(_notices)
        _notices.clear()
    return out
