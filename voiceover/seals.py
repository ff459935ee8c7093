"""Seals on cached artefacts: a damaged file is never reused.

Every artefact the build reuses (a scene's silent render, every narration clip: synthesised,
spoken as a sentence, cut from sentences or converted from a recording; the narration
tracks, the scene and lecture MP4s) is sealed when made: its size, modification time and
SHA-256. Before reuse the content hash decides: size and time unchanged is not taken as
proof, since a crash, a sync tool or a bad disk can change the bytes and keep both (zeroed
samples behind an intact header, with the old time put back). Only a good verdict is kept,
keyed by what any rewrite changes: size, modification time, the change time (which no
program can put back: writing the bytes or restoring the old mtime both set it to now) and
inode, beside the sealed hash. Verdicts are kept across builds in `<cache>/seals.json`,
so a build with nothing to do hashes nothing; hashing every sealed file of the lecture
(about 1 GB of narration and clips) would cost it about a second. A `touch` or a copy
makes the file be hashed again, and kept when its content holds. A damaged file is
discarded and made again, with a one-line notice naming it, collected here and printed in
the build's summary.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ffn_core import settings
from voiceover.atomic import sha256_file, write_json

_lock = threading.Lock()
_notices: list[str] = []
Verdict = tuple[str, int, int, int, int, str]  # (path, size, mtime_ns, ctime_ns, inode, sealed sha256)
_good: set[Verdict] = set()
_loaded_from: list[Path] = []  # the verdicts file read into `_good`, once per cache root
KEPT_VERDICTS = 50_000  # far more than the lecture's sealed files; bounds a long-lived cache


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
    """The file's seal; its good verdict is kept too (the hash was just taken), so the
    next build does not hash what this one made."""
    before = Path(path).stat()
    digest = sha256_file(path)
    after = Path(path).stat()
    if _stat_key(before) == _stat_key(after):
        with _lock:
            _load()
            _good.add((str(path), *_stat_key(after), digest))
    return Seal(after.st_size, after.st_mtime_ns, digest)


def vouch(path: Path, sealed: Seal) -> None:
    """`path` was found intact and then renamed (which keeps its bytes but not its change
    time): its good verdict carries over, so it is not hashed again."""
    st = Path(path).stat()
    if st.st_size == sealed.size and st.st_mtime_ns == sealed.mtime_ns:
        with _lock:
            _load()
            _good.add((str(path), *_stat_key(st), sealed.sha256))


def _stat_key(st: os.stat_result) -> tuple[int, int, int, int]:
    """What any rewrite of a file changes: size, modification and change times, inode."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def intact(path: Path, sealed: Seal | None) -> bool:
    """True when `path` still holds what was sealed, by its content's SHA-256 (checked once
    per build while the file's size, times and inode stay as they were)."""
    if sealed is None:
        return False
    try:
        st = Path(path).stat()
    except OSError:
        return False
    if st.st_size != sealed.size:
        return False
    key: Verdict = (str(path), *_stat_key(st), sealed.sha256)
    with _lock:
        _load()
        if key in _good:
            return True
    try:
        verdict = sha256_file(path) == sealed.sha256
    except OSError:
        return False
    if verdict:
        with _lock:
            _good.add(key)
    return verdict


def _verdicts_file() -> Path:
    return settings.cache_root() / "seals.json"


def _load() -> None:
    """Read the kept verdicts of this cache root (callers hold `_lock`)."""
    path = _verdicts_file()
    if _loaded_from == [path]:
        return
    _loaded_from[:] = [path]
    _good.clear()
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))["good"]
        _good.update((str(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]), str(r[5])) for r in rows)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        _good.clear()  # no file, or one this version cannot read: every seal is hashed again


def _save() -> None:
    """Keep the good verdicts for the next build (callers hold `_lock`); best effort."""
    if not _loaded_from:
        return
    rows = sorted(_good)[-KEPT_VERDICTS:]
    try:
        write_json(_loaded_from[0], {"good": [list(r) for r in rows]})
    except OSError:
        pass  # a full disk costs the next build a hash of each file, nothing more


def damaged(path: Path, what: str = "") -> None:
    """Record that `path` was found damaged and is being made again."""
    label = f" ({what})" if what else ""
    with _lock:
        _notices.append(f"dañado, se rehace: {path}{label}")


def take_notices() -> list[str]:
    """The notices gathered since the last call (the build reports them once). A build
    starts and ends with this call; the good verdicts found meanwhile are kept for the next."""
    with _lock:
        out = list(_notices)
        _notices.clear()
        _save()
    return out
