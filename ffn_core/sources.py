"""The repository sources a module runs: its file and every repository module it reaches
through imports, found by reading the files (never by importing them).

This is the one rule by which cached work knows what it depends on: the numbers' cache
(`ffn_core.cache`, a result and the ffn_core code that computes it) and the scene cache
(`lecture.farm.scene_cache`, a render and the scene, kit and ffn_core code that draws it) both
hash the files found here, so neither keeps a list of dependencies by hand. It sits in
`ffn_core`, the lowest layer, so that both can use it.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ffn_core import settings
from ffn_core.settings import REPO_ROOT

# (importing module, imported module) -> whether the import is followed; both dotted names.
Follows = Callable[[str, str], bool]


@functools.lru_cache(maxsize=4096)
def module_file(name: str, root: Path = REPO_ROOT) -> Path | None:
    """The file of repository module `name` (`a.b` -> a/b.py or a/b/__init__.py), if any
    (remembered for the process: a module's file does not come and go while it runs)."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


@functools.lru_cache(maxsize=4096)
def module_name(path: Path, root: Path = REPO_ROOT) -> str | None:
    """The dotted name of the module at `path` (None when it lies outside `root`)."""
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
    own = module_name(path, root) or ""
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    stat = path.stat()
    stamp = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, package]
    known = _scanned()
    entry = known.get(str(path))
    if entry is not None and entry[:4] == stamp:
        return set(entry[4])
    names = _imports(path.read_text(encoding="utf-8"), package, str(path))
    known[str(path)] = [*stamp, sorted(names)]
    _save_scanned(known)
    return set(names)


# What each file imports, kept on disk by its size, times and package, so that a build with
# nothing changed parses no source (a no-op build walks the imports of every scene).
_SCANNED_FILE = "imports.json"
_memo: dict[str, dict[str, list[Any]]] = {}


def _scanned_path() -> Path:
    return settings.cache_root() / "sources" / _SCANNED_FILE


def _scanned() -> dict[str, list[Any]]:
    where = str(_scanned_path())
    if where not in _memo:
        try:
            loaded = json.loads(Path(where).read_text(encoding="utf-8"))
            _memo[where] = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            _memo[where] = {}
    return _memo[where]


def _save_scanned(known: dict[str, list[Any]]) -> None:
    """Written whole under a temporary name and renamed; a cache that cannot be written is
    only slower."""
    path = _scanned_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.part")
        tmp.write_text(json.dumps(known, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


# Keyed by the source text itself: each module is parsed once per content, however many
# cache keys walk through it (every cached ffn_core result walks the same few modules).
@functools.lru_cache(maxsize=1024)
def _imports(source: str, package: str, filename: str) -> frozenset[str]:
    tree = ast.parse(source, filename=filename)
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
    return frozenset(names)


def source_files(
    module: Path, packages: tuple[str, ...], root: Path = REPO_ROOT, follows: Follows | None = None
) -> tuple[Path, ...]:
    """`module` and every module of `packages` it reaches through imports (packages' own
    `__init__.py` included, since importing a submodule runs them), sorted. An import is
    not followed when `follows(importer, imported)` says so."""
    seen: set[Path] = set()
    todo = [Path(module).resolve()]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        importer = module_name(path, root) or ""
        for name in imported_modules(path, root):
            if name.split(".")[0] not in packages:
                continue
            if follows is not None and not follows(importer, name):
                continue
            parts = name.split(".")
            for i in range(1, len(parts) + 1):  # the package chain runs on import
                found = module_file(".".join(parts[:i]), root)
                if found is not None and found not in seen:
                    todo.append(found)
    return tuple(sorted(seen))
