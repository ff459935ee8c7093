"""The lecture's chapters in the order the plan plays them, read from the plan file itself.

The title card draws its map from here, so the map cannot disagree with the plan: each
chapter is one `[[scene]]` of the plan in use (`$FFN_PLAN`, else `lecture/plan.toml`) with the
`title` of its narration script. The plan is read with `tomllib` the way `lecture.plan` reads
it (a scene's script is the one its class declares, or the plan's `script`; its file the plan's
`script_path`, or `voiceover/script/es/<script>.toml`), without importing `lecture` (scenes
may not) and without importing manim.

`lecture.farm.scene_cache` adds `signature()` to the cache key of every scene whose sources import this
module: a reordered plan, or a retitled script, re-renders the title card.

Every error names the plan file and the scene at fault.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voiceover.paths import REPO_ROOT, plan_file, script_path
from voiceover.script import declared_script, read_text

MODULE = "voiceover.chapters"  # the import `lecture.farm.scene_cache` looks for


class ChapterError(ValueError):
    """A plan whose chapters cannot be listed; the message says where and why."""


@dataclass(frozen=True)
class Chapter:
    scene: str  # the plan's `name` of the scene ("iceberg")
    script: str  # its narration's name ("iceberg")
    title: str  # the narration's `title`: the chapter's name on the map and on YouTube


def chapters(plan: Path | None = None) -> tuple[Chapter, ...]:
    """Every scene of `plan` (default: the plan in use), in the order it plays, with its title."""
    path = Path(plan) if plan else plan_file()
    try:
        data = tomllib.loads(read_text(path, ChapterError))
    except FileNotFoundError:
        raise ChapterError(f"{path}: no existe ese archivo de plan") from None
    except tomllib.TOMLDecodeError as err:
        raise ChapterError(f"{path}: error de sintaxis TOML: {err}") from None
    found = []
    for i, entry in enumerate(data.get("scene", []), start=1):
        label = f"{path}: escena n.º {i}" + (f" «{entry['name']}»" if "name" in entry else "")
        missing = {"name", "module", "class"} - set(entry)
        if missing:
            raise ChapterError(f"{label}: le falta {', '.join(sorted(missing))}")
        script = _script_of(entry, label)
        found.append(Chapter(entry["name"], script, _title(entry, script, label)))
    if not found:
        raise ChapterError(f"{path}: el plan no tiene escenas")
    return tuple(found)


def signature(plan: Path | None = None) -> list[list[str]]:
    """What a map drawn from the plan depends on: each chapter's scene and title, in order."""
    return [[c.scene, c.title] for c in chapters(plan)]


def _script_of(entry: dict[str, Any], label: str) -> str:
    module = REPO_ROOT / entry["module"]
    declared = declared_script(module, entry["class"]) if module.is_file() else None
    script = declared or entry.get("script")
    if not isinstance(script, str) or not script:
        raise ChapterError(
            f"{label}: no hay narración que le dé título: la clase {entry['class']} de {entry['module']} "
            'no declara `script = "..."` y el plan no da ninguno'
        )
    return script


def _title(entry: dict[str, Any], script: str, label: str) -> str:
    path = REPO_ROOT / entry["script_path"] if "script_path" in entry else script_path(script)
    try:
        data = tomllib.loads(read_text(path, ChapterError))
    except FileNotFoundError:
        raise ChapterError(f"{label}: no existe su narración {path}, así que su capítulo no tiene título") from None
    except tomllib.TOMLDecodeError as err:
        raise ChapterError(f"{label}: {path}: error de sintaxis TOML: {err}") from None
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise ChapterError(f"{label}: {path} no tiene `title` (el nombre de su capítulo)")
    return title.strip()
