"""The scene cache: when a rendered scene can be reused without running manim at all.

A scene's key hashes everything that can change its pixels: its source and the kit's,
the timing of its timeline (not the words: a narration edit that keeps every duration
only re-muxes audio), the quality and the manim version. The numbers a scene read are
known only after it ran, so its record keeps them; the cache hits only while every one
of them still has the same value in `ffn_core` (like a compiler's depfile).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from lecture.plan import REPO_ROOT, PlannedScene
from lecture.qualities import Quality
from voiceover.atomic import write_json
from voiceover.timeline import Timeline

KEY_VERSION = 1
KIT_DIR = REPO_ROOT / "scenes" / "kit"


@dataclass(frozen=True)
class CacheRecord:
    key: str
    video: str
    numbers_read: dict


def timing_signature(timeline: Timeline) -> list:
    """What a scene's frames depend on in its timeline: times, never text."""
    return [timeline.total_s] + [
        [b.name, b.start_s, b.speech_s, b.pause_s, sorted(b.bookmarks.items())] for b in timeline.beats]


def scene_key(scene: PlannedScene, timeline: Timeline, quality: Quality) -> str:
    h = hashlib.sha256()
    parts = {
        "version": KEY_VERSION,
        "class": scene.class_name,
        "quality": [quality.width_px, quality.height_px, quality.fps],
        "manim": version("manim"),
        "timing": timing_signature(timeline),
    }
    h.update(json.dumps(parts, sort_keys=True).encode())
    for path in [scene.module, *sorted(KIT_DIR.rglob("*.py"))]:
        h.update(str(path.relative_to(REPO_ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:20]


def record_path(work_dir: Path) -> Path:
    return work_dir / "record.json"


def load_record(work_dir: Path) -> CacheRecord | None:
    try:
        data = json.loads(record_path(work_dir).read_text(encoding="utf-8"))
        return CacheRecord(data["key"], data["video"], data["numbers_read"])
    except (OSError, ValueError, KeyError):
        return None


def is_fresh(record: CacheRecord | None, key: str, current_number) -> bool:
    """True when the recorded render can be reused as it is."""
    if record is None or record.key != key or not Path(record.video).exists():
        return False
    for k, v in record.numbers_read.items():
        try:
            now = current_number(k)
        except (KeyError, ValueError):
            return False
        if _canonical(now) != _canonical(v):
            return False
    return True


def save_record(work_dir: Path, record: CacheRecord) -> None:
    write_json(record_path(work_dir), {"key": record.key, "video": record.video,
                                       "numbers_read": record.numbers_read})


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, default=str)
