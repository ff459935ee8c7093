"""The lecture's ordered plan of scenes, read from `lecture/plan.toml`."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PLAN_PATH = Path(__file__).resolve().parent / "plan.toml"


@dataclass(frozen=True)
class PlannedScene:
    name: str
    module: Path       # absolute path of the scene's source file
    class_name: str
    script: str        # narration name


def load_plan(path: Path = PLAN_PATH) -> tuple[PlannedScene, ...]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    scenes = []
    for i, entry in enumerate(data.get("scene", []), start=1):
        missing = {"name", "module", "class", "script"} - set(entry)
        if missing:
            raise ValueError(f"{path}: scene #{i} lacks {sorted(missing)}")
        module = REPO_ROOT / entry["module"]
        if not module.exists():
            raise ValueError(f"{path}: scene '{entry['name']}': module {entry['module']} does not exist")
        scenes.append(PlannedScene(entry["name"], module, entry["class"], entry["script"]))
    if not scenes:
        raise ValueError(f"{path}: the plan lists no scenes")
    names = [s.name for s in scenes]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ValueError(f"{path}: scene names repeat: {sorted(dupes)}")
    return tuple(scenes)


def select(plan: tuple[PlannedScene, ...], only: list[str] | None) -> tuple[PlannedScene, ...]:
    if not only:
        return plan
    known = {s.name for s in plan}
    unknown = [n for n in only if n not in known]
    if unknown:
        raise ValueError(f"unknown scene(s) {unknown}; the plan has: {', '.join(s.name for s in plan)}")
    return tuple(s for s in plan if s.name in only)
