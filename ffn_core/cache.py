"""On-disk cache of computed results, keyed by the code that computes them and its inputs.

A result is stored once per key: a hash of the provider module's source and of every
ffn_core module it reaches through its imports (followed by `ffn_core.sources`, as the scene
cache follows a scene's), the function's name, its arguments and the versions of python,
numpy and torch. Editing the provider or any module it imports changes the key, so a stale
result is never served, and no list of dependencies is kept by hand to go stale. The
imports of this module are not followed: the cache computes no result (a change in its
entries' format bumps ``_FORMAT``). Entries are written atomically (temp file + rename) so an
interrupted run never leaves a half-written entry; an entry that cannot be read (corrupt,
truncated, written by an incompatible version) is recomputed and overwritten.

The directory is ``ffn_core/`` under the root of every cache (`ffn_core.settings.cache_root`:
``$FFN_CACHE_DIR`` when set, else ``<repo>/.cache``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import inspect
import os
import pickle
import platform
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ffn_core import settings, sources

T = TypeVar("T")

# Bumped when the entry format itself changes.
_FORMAT = "ffn_core-cache-v1"
FOLLOWED_PACKAGES = ("ffn_core",)


def cache_dir() -> Path:
    """Directory holding cache entries: <cache root>/ffn_core."""
    return settings.cache_root() / "ffn_core"


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


@functools.cache
def _environment_fingerprint() -> str:
    # Results of float computations may change with these versions.
    return "|".join((platform.python_version(), _version("numpy"), _version("torch")))


def _follows(importer: str, imported: str) -> bool:
    # The cache's own code (and what only it imports) computes no result.
    return imported != __name__ and not imported.startswith(__name__ + ".")


def dependency_files(module_name: str, root: Path = settings.REPO_ROOT) -> tuple[Path, ...]:
    """The source of ``module_name`` and of every ffn_core module it reaches through imports.

    Found by reading the files, not importing them: a cache hit must not pay for importing
    torch just to compute its key."""
    path = sources.module_file(module_name, root)
    if path is None:
        raise ValueError(f"cannot find the source of module {module_name!r} for the cache key")
    return sources.source_files(path, FOLLOWED_PACKAGES, root, _follows)


def cache_key(module_name: str, function_name: str, inputs: Any, root: Path = settings.REPO_ROOT) -> str:
    """Hex key for ``function_name`` of module ``module_name`` called with ``inputs``,
    covering the sources of that module and of the ffn_core modules it imports.

    ``inputs`` must have a deterministic ``repr`` (numbers, strings, tuples, frozen
    dataclasses of those).
    """
    digest = hashlib.sha256()
    for part in (_FORMAT, _environment_fingerprint(), function_name, repr(inputs)):
        digest.update(part.encode())
        digest.update(b"\0")
    for path in dependency_files(module_name, root):
        digest.update((sources.module_name(path, root) or path.name).encode())
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def load(key: str) -> tuple[bool, Any]:
    """(True, value) when a readable entry exists for ``key``; (False, None) otherwise."""
    path = cache_dir() / f"{key}.pkl"
    try:
        with path.open("rb") as handle:
            stored_key, value = pickle.load(handle)
    except FileNotFoundError:
        return False, None
    except Exception:  # noqa: BLE001 - any unreadable entry is simply recomputed
        return False, None
    if stored_key != key:
        return False, None
    return True, value


def store(key: str, value: Any) -> Path:
    """Write ``value`` under ``key`` atomically; returns the entry's path."""
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{key}.pkl"
    handle = tempfile.NamedTemporaryFile(dir=directory, prefix=f".{key[:16]}.", suffix=".tmp", delete=False)
    try:
        with handle:
            pickle.dump((key, value), handle, protocol=pickle.HIGHEST_PROTOCOL)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return path


def disk_cached(function: Callable[..., T]) -> Callable[..., T]:
    """Decorator: cache a pure function's result on disk (and in memory for this process).

    The key covers the source of the decorated function's module and of every ffn_core
    module it imports, the function's name and its arguments. Set ``FFN_CACHE_DIR`` to
    move the root of every cache; delete ``<root>/ffn_core`` to clear this one.
    """
    memory: dict[str, T] = {}

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        bound = inspect.signature(function).bind(*args, **kwargs)
        bound.apply_defaults()
        inputs = tuple(sorted(bound.arguments.items()))
        key = cache_key(function.__module__, function.__qualname__, inputs)
        memory_key = f"{cache_dir()}:{key}"
        if memory_key in memory:
            return memory[memory_key]
        found, stored = load(key)
        value: T = stored  # what ``store`` pickled for this key: the function's own result
        if not found:
            value = function(*args, **kwargs)
            store(key, value)
        memory[memory_key] = value
        return value

    wrapper.uncached = function  # type: ignore[attr-defined]  # a function attribute mypy cannot declare
    wrapper.clear_memory = memory.clear  # type: ignore[attr-defined]  # a function attribute mypy cannot declare
    return wrapper
