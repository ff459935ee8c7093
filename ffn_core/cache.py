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

An entry is a pickle, and unpickling runs code: whoever can write the cache folder could
otherwise run code as every user who reads it (a shared cache, a cluster's workers). So each
entry is signed, HMAC-SHA256 over its key and its bytes, with a secret key that lives outside
the cache (`ffn_core.settings.cache_key_file`: ``~/.config/ffn-video/cache.key``, made on
first use, readable by its owner only), and the signature is checked before anything is
unpickled. An entry that is not signed by this key (tampered, written by another user or
another machine, or in the unsigned format of before) is recomputed and overwritten like a
corrupt one. To share results between users or machines, give them the same key file: it is
the right to run code as each other. When no key can be kept (a home folder that cannot be
written) the results are computed and not stored.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import importlib.metadata
import inspect
import os
import pickle
import platform
import secrets
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ffn_core import settings, sources

T = TypeVar("T")

# Bumped when the entry format itself changes.
_FORMAT = "ffn_core-cache-v1"
FOLLOWED_PACKAGES = ("ffn_core",)
# An entry on disk: this header, the HMAC-SHA256 of (entry key, payload), the pickled payload.
_SIGNED = b"ffn_core-signed-v1\n"
_MAC_BYTES = hashlib.sha256().digest_size
_KEY_BYTES = 32


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


def signing_key() -> bytes | None:
    """This user's secret for signing entries, made on first use; None when it cannot be kept."""
    return _signing_key(settings.cache_key_file())


@functools.cache
def _signing_key(path: Path) -> bytes | None:
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as err:  # unreadable, or not a key: never guess one
        _warn_unsigned(path, err)
        return None
    try:
        return _make_key(path)
    except OSError as err:
        _warn_unsigned(path, err)
        return None


def _read_key(path: Path) -> bytes:
    key = bytes.fromhex(path.read_text(encoding="ascii").strip() or "00")
    if len(key) < _KEY_BYTES:
        raise OSError(f"{path}: la clave de la caché es demasiado corta (bórrala y se hará otra)")
    return key


def _make_key(path: Path) -> bytes:
    """A new random key at `path`, owner-only; if another process made one first, that one."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = secrets.token_bytes(_KEY_BYTES)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".cache.key.", suffix=".tmp")  # mode 0600
    try:
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(key.hex() + "\n")
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temp, path)  # never replaces a key another process made meanwhile
        except FileExistsError:
            return _read_key(path)
    finally:
        Path(temp).unlink(missing_ok=True)
    return key


def _warn_unsigned(path: Path, err: Exception) -> None:
    print(
        f"aviso: la caché de resultados numéricos no se guarda: no se puede leer ni crear su clave {path} ({err})",
        file=sys.stderr,
    )


def _mac(secret: bytes, key: str, payload: bytes) -> bytes:
    return hmac.new(secret, key.encode() + b"\0" + payload, hashlib.sha256).digest()


def signed(key: str, payload: bytes) -> bytes | None:
    """`payload` as an entry for `key` signed by this user's key (header, HMAC, payload);
    None when there is no key to sign with. Any cache of pickles signs its entries so."""
    secret = signing_key()
    if secret is None:
        return None
    return _SIGNED + _mac(secret, key, payload) + payload


def verified(key: str, data: bytes) -> bytes | None:
    """The payload of an entry for `key` when this user's key signed it; None otherwise
    (not ours, tampered, damaged): check this before unpickling anything."""
    secret = signing_key()
    if secret is None:
        return None
    header, mac, payload = (
        data[: len(_SIGNED)],
        data[len(_SIGNED) : len(_SIGNED) + _MAC_BYTES],
        data[len(_SIGNED) + _MAC_BYTES :],
    )
    if header != _SIGNED or not hmac.compare_digest(mac, _mac(secret, key, payload)):
        return None
    return payload


def load(key: str) -> tuple[bool, Any]:
    """(True, value) when an entry signed by this user's key exists for ``key``; (False, None)
    otherwise. Nothing is unpickled before its signature is checked."""
    path = cache_dir() / f"{key}.pkl"
    try:
        data = path.read_bytes()
    except OSError:
        return False, None
    payload = verified(key, data)
    if payload is None:
        return False, None  # not ours, or damaged: recomputed, never unpickled
    try:
        stored_key, value = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - signed but unreadable (an incompatible version): recomputed
        return False, None
    if stored_key != key:
        return False, None
    return True, value


def store(key: str, value: Any) -> Path | None:
    """Write ``value`` under ``key`` atomically, signed; returns the entry's path (None when
    there is no key to sign with, so nothing is stored)."""
    if signing_key() is None:
        return None
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{key}.pkl"
    entry = signed(key, pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL))
    if entry is None:
        return None
    handle = tempfile.NamedTemporaryFile(dir=directory, prefix=f".{key[:16]}.", suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(entry)
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
