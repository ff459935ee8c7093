"""Every `FFN_*` environment variable a lecturer or developer may set, documented once.

This is the only module that reads them (the build<->manim protocol's own variables, which
the build sets for a manim child and nobody else, live in `scenes/kit/protocol.py`). It sits
at the bottom of the import graph, in `ffn_core`, because every layer needs one of them: the
numbers' cache (`ffn_core`), the voice (`voiceover`) and the build (`lecture`).

A function here takes an optional `env` mapping (default: the process environment) so tests
can pass one instead of mutating `os.environ`. Empty values count as unset.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Variable:
    """One setting: its name, what it means and what happens when it is unset."""

    name: str
    meaning: str
    default: str


CACHE_DIR = Variable(
    "FFN_CACHE_DIR",
    "Root of every cache: narration (voiceover/), build work (build/), numbers' results (ffn_core/).",
    "<repo>/.cache",
)
RENDERS_DIR = Variable("FFN_RENDERS_DIR", "Root of the outputs (renders/<quality>/).", "<repo>/renders")
PLAN = Variable("FFN_PLAN", "The plan file to build instead of lecture/plan.toml.", "lecture/plan.toml")
RECORDINGS_DIR = Variable(
    "FFN_RECORDINGS_DIR", "Where a lecturer's recorded narration is looked up.", "voiceover/recordings"
)
VOICE_ENGINE = Variable(
    "FFN_VOICE_ENGINE", "Voice engine: kokoro, espeak or piper.", "kokoro (piper if a model is set)"
)
VOICE = Variable(
    "FFN_VOICE", "The engine's voice: ef_dora, em_alex, em_santa (Kokoro); es-419 (espeak-ng).", "per engine"
)
VOICE_SPEED = Variable(
    "FFN_VOICE_SPEED", "Speaking speed: a factor for Kokoro (0.9) or words per minute (155).", "per engine"
)
PIPER_MODEL = Variable("FFN_PIPER_MODEL", "Path of a Piper .onnx voice model.", "none")
KOKORO_LANG = Variable("FFN_KOKORO_LANG", "Kokoro's accent: es-419 (Latin American) or es (Spain).", "es-419")
KOKORO_DIR = Variable(
    "FFN_KOKORO_DIR", "Folder of Kokoro's model and voices.", "${XDG_CACHE_HOME:-~/.cache}/ffn-video/kokoro"
)
KOKORO_THREADS = Variable("FFN_KOKORO_THREADS", "How many sentences Kokoro speaks at once.", "min(cores, 4)")
DASK_SCHEDULER = Variable(
    "FFN_DASK_SCHEDULER", "A Dask scheduler to render chunks on (tls://HOST:PORT or local:N).", "none: local processes"
)
TLS_CA = Variable(
    "FFN_TLS_CA", "The certificate authority (PEM) that signed the Dask cluster's certificates (tls://).", "none"
)
TLS_CERT = Variable(
    "FFN_TLS_CERT", "This client's certificate (PEM) for the Dask cluster (tls://); it may hold the key too.", "none"
)
TLS_KEY = Variable("FFN_TLS_KEY", "The private key (PEM) of FFN_TLS_CERT.", "none: inside FFN_TLS_CERT")
DASK_INSECURE = Variable(
    "FFN_DASK_INSECURE",
    "1: accept a tcp:// scheduler, unencrypted and unauthenticated (the same as --insecure).",
    "0: refused",
)
CACHE_KEY = Variable(
    "FFN_CACHE_KEY",
    "This user's secret key that signs the numbers' cache entries, kept outside the shared cache.",
    "${XDG_CONFIG_HOME:-~/.config}/ffn-video/cache.key",
)

VARIABLES: tuple[Variable, ...] = (
    CACHE_DIR,
    RENDERS_DIR,
    PLAN,
    RECORDINGS_DIR,
    VOICE_ENGINE,
    VOICE,
    VOICE_SPEED,
    PIPER_MODEL,
    KOKORO_LANG,
    KOKORO_DIR,
    KOKORO_THREADS,
    DASK_SCHEDULER,
    TLS_CA,
    TLS_CERT,
    TLS_KEY,
    DASK_INSECURE,
    CACHE_KEY,
)

_YES = ("1", "true", "yes", "si", "sí")
_NO = ("0", "false", "no")


def raw(variable: Variable, env: Mapping[str, str] | None = None) -> str | None:
    """The variable's value, stripped; None when unset or empty."""
    if variable not in VARIABLES:
        raise KeyError(f"{variable.name} is not a declared setting (ffn_core/settings.py)")
    value = (os.environ if env is None else env).get(variable.name, "").strip()
    return value or None


def _path(variable: Variable, env: Mapping[str, str] | None) -> Path | None:
    value = raw(variable, env)
    return Path(value).expanduser() if value else None


def cache_root(env: Mapping[str, str] | None = None) -> Path:
    """Root of every cache; each user keeps its own folder below it."""
    return _path(CACHE_DIR, env) or REPO_ROOT / ".cache"


def renders_root(env: Mapping[str, str] | None = None) -> Path:
    """Root of the outputs."""
    return _path(RENDERS_DIR, env) or REPO_ROOT / "renders"


def plan_file(env: Mapping[str, str] | None = None) -> Path | None:
    """The plan file asked for, resolved; None for the default plan."""
    path = _path(PLAN, env)
    return path.resolve() if path else None


def recordings_root(env: Mapping[str, str] | None = None) -> Path | None:
    """The recordings folder asked for; None for the default one."""
    return _path(RECORDINGS_DIR, env)


def current(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every setting that is set, by name: what a build's outcome may depend on."""
    return {v.name: value for v in VARIABLES if (value := raw(v, env)) is not None}


def flag(variable: Variable, env: Mapping[str, str] | None = None) -> bool:
    """A yes/no setting: 1/true/sí or 0/false/no (unset: no); anything else is an error naming it."""
    value = raw(variable, env)
    if value is None or value.lower() in _NO:
        return False
    if value.lower() in _YES:
        return True
    raise ValueError(f"{variable.name}={value!r}: usa 1 (sí) o 0 (no)")


def path_setting(variable: Variable, env: Mapping[str, str] | None = None) -> Path | None:
    """A setting that names a file, with ~ expanded; None when unset."""
    return _path(variable, env)


def cache_key_file(env: Mapping[str, str] | None = None) -> Path:
    """This user's key for the numbers' cache: outside the cache, so sharing the cache does
    not share the right to have one's pickles trusted."""
    chosen = _path(CACHE_KEY, env)
    if chosen:
        return chosen
    environ = os.environ if env is None else env
    config = environ.get("XDG_CONFIG_HOME", "").strip()
    return (Path(config).expanduser() if config else Path.home() / ".config") / "ffn-video" / "cache.key"


def table() -> str:
    """Every variable with its meaning and default, one per line (for `python -m ffn_core.settings`)."""
    width = max(len(v.name) for v in VARIABLES)
    return "\n".join(f"{v.name:<{width}}  {v.meaning} [default: {v.default}]" for v in VARIABLES)


if __name__ == "__main__":
    print(table())
