"""Where narration sources live and where generated audio and timelines are cached."""

from __future__ import annotations

from pathlib import Path

from ffn_core import settings

REPO_ROOT = Path(__file__).resolve().parent.parent
SCRIPT_DIR = Path(__file__).resolve().parent / "script" / "es"
# The plan in use unless `FFN_PLAN` names another (the same default as `lecture.plan.PLAN_PATH`).
DEFAULT_PLAN = REPO_ROOT / "lecture" / "plan.toml"


def cache_dir() -> Path:
    """Root of the narration cache (clips and timelines), below the root of every cache."""
    path = settings.cache_root() / "voiceover"
    path.mkdir(parents=True, exist_ok=True)
    return path


def clips_dir() -> Path:
    """Every clip: synthesised, cut at bookmarks, or converted from a recording."""
    return cache_dir() / "clips"


def plan_file() -> Path:
    """The plan in use: `$FFN_PLAN` when set, else `lecture/plan.toml` (as `lecture.plan`)."""
    return settings.plan_file() or DEFAULT_PLAN


def script_path(scene: str) -> Path:
    """The narration file of one scene."""
    return SCRIPT_DIR / f"{scene}.toml"
