"""Where narration sources live and where generated audio and timelines are cached."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SCRIPT_DIR = Path(__file__).resolve().parent / "script" / "es"


def cache_root() -> Path:
    """Root of every cache (narration, build, numbers' results); `FFN_CACHE_DIR` moves it."""
    base = os.environ.get("FFN_CACHE_DIR")
    return Path(base) if base else REPO_ROOT / ".cache"


def cache_dir() -> Path:
    """Root of the narration cache (clips and timelines)."""
    path = cache_root() / "voiceover"
    path.mkdir(parents=True, exist_ok=True)
    return path


def script_path(scene: str) -> Path:
    """The narration file of one scene."""
    return SCRIPT_DIR / f"{scene}.toml"
