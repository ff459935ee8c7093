"""Steps that redo only what changed, and survive being killed at any moment.

Each output of a build step has a stamp beside it, `<file>.sig`: the hash of the step's
inputs and the output's seal (see `voiceover.seals`). The stamp is written after the
output, so an interrupted step is redone next time, and a damaged output is made again."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from voiceover import seals
from voiceover.atomic import atomic_path, write_json


def signature(parts) -> str:
    """A short hash of a step's inputs (anything JSON can say, paths included)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:20]


def unless_fresh(output: Path, sig: str, make: Callable[[], object]) -> bool:
    """Run `make` unless `output` exists, was made from inputs with this signature and is
    intact (its seal holds); True when it ran."""
    stamp = output.with_name(output.name + ".sig")
    recorded = read_stamp(stamp)
    if output.exists() and recorded.get("sig") == sig:
        if seals.intact(output, seals.Seal.from_json(recorded.get("seal"))):
            return False
        seals.damaged(output)
    stamp.unlink(missing_ok=True)
    make()
    write_json(stamp, {"sig": sig, "seal": seals.seal(output).to_json()})
    return True


def read_stamp(stamp: Path) -> dict:
    try:
        data = json.loads(stamp.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def write_atomically(target: Path, write: Callable[[Path], object]) -> None:
    """`write(tmp)` into a temporary name, renamed to `target` once complete."""
    with atomic_path(target) as tmp:
        write(tmp)
