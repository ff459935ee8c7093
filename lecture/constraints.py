"""The lock of the verified environment: `constraints.txt`, the exact version of every package
the project needs, read from a virtual environment whose tests pass.

`setup.sh` installs with it (`pip install -c constraints.txt ...`), so a fresh machine next
year gets the numpy, pydub or rich this project was tested with, not whatever is newest.
Refresh it after a green run of the tests, in one line:

    .venv/bin/python -m lecture.constraints

Only the project's own dependency closure is written (its requirements with the `dev` extra,
and theirs, as installed), never tools someone installed by hand into the environment.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from datetime import date
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

from lecture.plan import REPO_ROOT
from voiceover.atomic import write_text

PYPROJECT = REPO_ROOT / "pyproject.toml"
EXTRAS = ("dev",)
LOCK_PATH = REPO_ROOT / "constraints.txt"
# A local version label (torch's "+cpu") names a build, not a release: pip matches the plain
# release against the CPU wheel on disk, and an index elsewhere offers the plain one too.
_LOCAL_LABEL = re.compile(r"\+.*$")


@dataclass(frozen=True)
class Pin:
    """One locked package: its canonical name and the exact installed release."""

    name: str
    version: str

    def line(self) -> str:
        return f"{self.name}=={self.version}"


def canonical(name: str) -> str:
    """PEP 503 name: lower case, runs of -_. as one dash."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _applies(req: Requirement, extras: tuple[str, ...]) -> bool:
    if req.marker is None:
        return True
    env = {key: str(value) for key, value in default_environment().items()}
    return any(req.marker.evaluate({**env, "extra": extra}) for extra in ("", *extras))


def declared(pyproject: Path = PYPROJECT, extras: tuple[str, ...] = EXTRAS) -> list[str]:
    """The project's own requirements, from pyproject.toml (not from possibly stale metadata)."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    found = list(project["dependencies"])
    for extra in extras:
        found += project["optional-dependencies"][extra]
    return found


def closure(top: list[str] | None = None) -> tuple[Pin, ...]:
    """Every installed distribution the project needs, with its version, sorted by name."""
    pins: dict[str, Pin] = {}
    todo: list[tuple[list[str], tuple[str, ...]]] = [(declared() if top is None else top, ())]
    while todo:
        texts, wanted = todo.pop()
        for text in texts:
            req = Requirement(text)
            if not _applies(req, wanted):
                continue
            key = canonical(req.name)
            if key in pins:
                continue
            try:
                dist = metadata.distribution(req.name)
            except metadata.PackageNotFoundError as exc:
                if req.marker is not None:
                    continue  # an optional dependency this platform does not take
                raise RuntimeError(
                    f"{req.name} is required but not installed in {sys.prefix}: run ./setup.sh before locking"
                ) from exc
            pins[key] = Pin(key, _LOCAL_LABEL.sub("", dist.version))
            todo.append((list(dist.requires or []), tuple(req.extras)))
    return tuple(sorted(pins.values(), key=lambda p: p.name))


def lock_text(pins: tuple[Pin, ...], on: date) -> str:
    header = (
        "# The verified environment of ffn-video: setup.sh installs with these exact versions.\n"
        f"# Made on {on.isoformat()} from a virtual environment whose tests passed, with:\n"
        "#   .venv/bin/python -m lecture.constraints\n"
        "# (run it again after a green test run to move the lock forward)\n"
    )
    return header + "".join(p.line() + "\n" for p in pins)


def read_lock(path: Path = LOCK_PATH) -> dict[str, str]:
    """The pins of a lock file: canonical name -> version."""
    pins = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name or not version:
            raise ValueError(f"{path}:{number}: se esperaba «paquete==versión», no {raw!r}")
        pins[canonical(name)] = version.strip()
    return pins


def main() -> None:
    pins = closure()
    write_text(LOCK_PATH, lock_text(pins, date.today()))
    print(f"{LOCK_PATH}: {len(pins)} paquetes fijados")


if __name__ == "__main__":
    main()
