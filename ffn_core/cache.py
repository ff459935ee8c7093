"""On-disk cache of computed results, keyed by the code that computes them and its inputs.

A result is stored once per key: a hash of the provider module's source (plus the sources
of the ffn_core modules it declares it depends on), the function's name, its arguments and
the versions of python, numpy and torch. Editing the provider changes the key, so a stale
result is never served. Entries are written atomically (temp file + rename) so an
interrupted run never leaves a half-written entry; an entry that cannot be read (corrupt,
truncated, written by an incompatible version) is recomputed and overwritten.

The directory is ``$FFN_CACHE_DIR`` when set, else ``<repo>/.cache/ffn_core``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import inspect
import os
import pickle
import platform
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV_VAR = "FFN_CACHE_DIR"
# Bumped when the entry format itself changes.
_FORMAT = "ffn_core-cache-v1"


def cache_dir() -> Path:
    """Directory holding cache entries: $FFN_CACHE_DIR, or <repo>/.cache/ffn_core."""
    configured = os.environ.get(ENV_VAR)
    return Path(configured) if configured else REPO_ROOT / ".cache" / "ffn_core"


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


@functools.cache
def _environment_fingerprint() -> str:
    # Results of float computations may change with these versions.
    return "|".join((platform.python_version(), _version("numpy"), _version("torch")))


def _module_source(module_name: str) -> str:
    # Read the file rather than import the module: a cache hit must not pay for importing
    # torch just to compute its key.
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.origin is None:
        raise ValueError(f"cannot find the source of module {module_name!r} for the cache key")
    return Path(spec.origin).read_text(encoding="utf-8")


def cache_key(module_names: tuple[str, ...], function_name: str, inputs: Any) -> str:
    """Hex key for ``function_name`` of the given modules' sources called with ``inputs``.

    ``inputs`` must have a deterministic ``repr`` (numbers, strings, tuples, frozen
    dataclasses of those).
    """
    digest = hashlib.sha256()
    for part in (_FORMAT, _environment_fingerprint(), function_name, repr(inputs)):
        digest.update(part.encode())
        digest.update(b"\0")
    for name in module_names:
        digest.update(name.encode())
        digest.update(_module_source(name).encode())
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


def disk_cached(*depends_on: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorator: cache a pure function's result on disk (and in memory for this process).

    The key covers the decorated function's module source, the sources of the ffn_core
    modules named in ``depends_on``, the function's name and its arguments. Set
    ``FFN_CACHE_DIR`` to move the cache; delete the directory to clear it.
    """

    def decorate(function: Callable[..., T]) -> Callable[..., T]:
        modules = (function.__module__, *depends_on)
        memory: dict[str, T] = {}

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> T:
            bound = inspect.signature(function).bind(*args, **kwargs)
            bound.apply_defaults()
            inputs = tuple(sorted(bound.arguments.items()))
            key = cache_key(modules, function.__qualname__, inputs)
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

        wrapper.cache_modules = modules  # type: ignore[attr-defined]  # a function attribute mypy cannot declare
        wrapper.uncached = function  # type: ignore[attr-defined]  # a function attribute mypy cannot declare
        wrapper.clear_memory = memory.clear  # type: ignore[attr-defined]  # a function attribute mypy cannot declare
        return wrapper

    return decorate
