"""The lecture's ordered plan of scenes, read from `lecture/plan.toml`.

The plan is data: which scenes play, in which order, and which class draws each; the
narration script that times a scene is the one its class declares (`script = "..."`), so
the name is written once (a plan entry may repeat it, and then the two must agree).
`FFN_PLAN` points the build at another plan file (tests use a tiny one);
paths inside a plan are relative to the repository root, or absolute.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ffn_core import settings
from voiceover.paths import REPO_ROOT
from voiceover.script import Script, declared_script, load_script

PLAN_PATH = Path(__file__).resolve().parent / "plan.toml"
ALLOWED_KEYS = {"name", "module", "class", "script", "script_path"}


@dataclass(frozen=True)
class PlannedScene:
    name: str
    module: Path  # absolute path of the scene's source file
    class_name: str
    script: str  # narration name
    script_path: Path | None = None  # explicit narration file; None: voiceover/script/es/<script>.toml

    def load_script(self) -> Script:
        return load_script(self.script, self.script_path)


def plan_path() -> Path:
    """The plan in use: `$FFN_PLAN` when set, else `lecture/plan.toml`."""
    return settings.plan_file() or PLAN_PATH


def load_plan(path: Path | None = None) -> tuple[PlannedScene, ...]:
    path = Path(path) if path else plan_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no existe ese archivo de plan") from None
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{path}: error de sintaxis TOML: {err}") from None
    scenes = []
    for i, entry in enumerate(data.get("scene", []), start=1):
        label = f"{path}: escena n.º {i}" + (f" «{entry['name']}»" if "name" in entry else "")
        missing = {"name", "module", "class"} - set(entry)
        if missing:
            raise ValueError(f"{label}: le falta {', '.join(sorted(missing))}")
        unknown = set(entry) - ALLOWED_KEYS
        if unknown:
            allowed = ", ".join(sorted(ALLOWED_KEYS))
            raise ValueError(f"{label}: claves desconocidas {', '.join(sorted(unknown))} (se admiten: {allowed})")
        module = REPO_ROOT / entry["module"]
        if not module.exists():
            raise ValueError(f"{label}: no existe el módulo {entry['module']}")
        entry = {**entry, "script": _script_of(module, entry["class"], entry.get("script"), label)}
        script_file = REPO_ROOT / entry["script_path"] if "script_path" in entry else None
        if script_file is not None and not script_file.exists():
            raise ValueError(f"{label}: no existe script_path {entry['script_path']}")
        scenes.append(PlannedScene(entry["name"], module, entry["class"], entry["script"], script_file))
    if not scenes:
        raise ValueError(f"{path}: el plan no tiene escenas")
    names = [s.name for s in scenes]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ValueError(f"{path}: nombres de escena repetidos: {', '.join(sorted(dupes))}")
    return tuple(scenes)


def _script_of(module: Path, class_name: str, planned: str | None, label: str) -> str:
    """A scene's narration name is written once, in its class; a plan may repeat it, but then
    the two must agree."""
    declared = declared_script(module, class_name)
    if declared is None:
        if planned is None:
            raise ValueError(f'{label}: la clase {class_name} de {module} no declara `script = "..."`')
        return planned
    if planned is not None and planned != declared:
        raise ValueError(
            f"{label}: el plan dice script «{planned}» pero la clase {class_name} de {module} "
            f"declara «{declared}»; escríbelo una sola vez, en la clase"
        )
    return declared


def select(plan: tuple[PlannedScene, ...], only: list[str] | None) -> tuple[PlannedScene, ...]:
    if not only:
        return plan
    known = {s.name for s in plan}
    unknown = [n for n in only if n not in known]
    if unknown:
        raise ValueError(
            f"escena(s) desconocida(s): {', '.join(unknown)}; el plan tiene: {', '.join(s.name for s in plan)}"
        )
    return tuple(s for s in plan if s.name in only)
