"""The lecture's ordered plan of scenes, read from `lecture/plan.toml`.

The plan is data: which scenes play, in which order, and which class draws each; the
narration script that times a scene is the one its class declares (`script = "..."`), so
the name is written once (a plan entry may repeat it, and then the two must agree).
`FFN_PLAN` points the build at another plan file (tests use a tiny one);
paths inside a plan are relative to the repository root, or absolute.

A plan names Python modules that manim runs, so it is code, not data: a module outside
the repository is refused unless the plan is the one `FFN_PLAN` names and the module lives
beside it (in its folder or below). A scene's name and its script's name become file names
(`renders/<quality>/scenes/<name>.mp4`, `.cache/build/<quality>/<name>/`, ...): they match
`NAME_PATTERN` and a scene cannot take a name the build's own outputs use
(`lecture.layout.RESERVED_NAMES`). Every error names the plan file and line.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ffn_core import settings
from lecture.layout import RESERVED_NAMES
from voiceover.paths import REPO_ROOT
from voiceover.script import Script, declared_script, load_script

PLAN_PATH = Path(__file__).resolve().parent / "plan.toml"
ALLOWED_KEYS = {"name", "module", "class", "script", "script_path"}
NAME_PATTERN = r"^[a-z0-9_]+$"  # a scene's and a script's name: it becomes a file name
NAME_RE = re.compile(NAME_PATTERN)


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
        raw = path.read_text(encoding="utf-8")
        data = tomllib.loads(raw)
    except FileNotFoundError:
        raise ValueError(f"{path}: no existe ese archivo de plan") from None
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: el plan no está en UTF-8 (byte {err.start}); guárdalo como UTF-8") from None
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{path}: error de sintaxis TOML: {err}") from None
    headers = [i + 1 for i, line in enumerate(raw.splitlines()) if line.strip() == "[[scene]]"]
    lines = raw.splitlines()
    scenes = []
    for i, entry in enumerate(data.get("scene", []), start=1):
        header = headers[i - 1] if i <= len(headers) else 1
        label = f"{path}:{header}: escena n.º {i}" + (f" «{entry['name']}»" if "name" in entry else "")
        missing = {"name", "module", "class"} - set(entry)
        if missing:
            raise ValueError(f"{label}: le falta {', '.join(sorted(missing))}")
        unknown = set(entry) - ALLOWED_KEYS
        if unknown:
            allowed = ", ".join(sorted(ALLOWED_KEYS))
            raise ValueError(f"{label}: claves desconocidas {', '.join(sorted(unknown))} (se admiten: {allowed})")
        _check_name(entry["name"], f"{path}:{_key_line(lines, header, 'name')}: escena n.º {i}", "name")
        module = _module_of(entry["module"], path, f"{path}:{_key_line(lines, header, 'module')}: escena n.º {i}")
        if not module.exists():
            raise ValueError(f"{label}: no existe el módulo {entry['module']}")
        script_where = f"{path}:{_key_line(lines, header, 'script')}: escena n.º {i}"
        if "script" in entry:
            _check_name(entry["script"], script_where, "script")
        script = _script_of(module, entry["class"], entry.get("script"), label)
        _check_name(script, script_where, "script")
        entry = {**entry, "script": script}
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


def _check_name(value: object, where: str, key: str) -> None:
    """A scene's (`name`) or script's (`script`) name: it becomes a file name, so it holds
    nothing that could leave its folder, and a scene takes no name of the build's outputs."""
    if not isinstance(value, str) or not NAME_RE.match(value):
        raise ValueError(
            f"{where}: {key} = {value!r} no vale: solo minúsculas sin acentos, cifras y _ ({NAME_PATTERN}), "
            "porque se usa como nombre de archivo"
        )
    if key == "name" and value in RESERVED_NAMES:
        raise ValueError(
            f"{where}: el nombre «{value}» está reservado para los archivos de la clase "
            f"({', '.join(sorted(RESERVED_NAMES))}); elige otro"
        )


def _module_of(written: object, plan: Path, where: str) -> Path:
    """The scene module a plan entry names. It is code manim runs: it must live in the
    repository, or beside the plan `FFN_PLAN` names (a lecture kept in its own folder)."""
    if not isinstance(written, str):
        raise ValueError(f"{where}: module debe ser una ruta (recibí {written!r})")
    module = (REPO_ROOT / written).resolve()
    if module.is_relative_to(REPO_ROOT.resolve()):
        return REPO_ROOT / written
    chosen = settings.plan_file()
    if chosen is not None and chosen.resolve() == plan.resolve() and module.is_relative_to(plan.resolve().parent):
        return REPO_ROOT / written
    raise ValueError(
        f"{where}: el módulo {written} está fuera del repositorio ({REPO_ROOT}); un plan nombra código que "
        "manim ejecuta, así que solo se admite fuera si FFN_PLAN apunta a un plan en la misma carpeta que el módulo"
    )


def _key_line(lines: list[str], header_line: int, key: str) -> int:
    """Line of `key = ...` in the entry whose `[[scene]]` header is at `header_line`
    (the header itself when the key is not written there)."""
    for i in range(header_line, len(lines)):
        stripped = lines[i].strip()
        if stripped.startswith("["):
            break
        if re.match(rf"^{re.escape(key)}\s*=", stripped):
            return i + 1
    return header_line


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
