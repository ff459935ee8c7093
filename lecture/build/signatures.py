"""Steps that redo only what changed, and survive being killed at any moment.

Each output of a build step has a stamp beside it, `<file>.sig`: the hash of the step's
inputs and the output's seal (see `voiceover.seals`). The stamp is written after the
output, so an interrupted step is redone next time, and a damaged output is made again."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from voiceover import seals
from voiceover.atomic import atomic_path, write_json


def signature(parts) -> str:
    """A short hash of a step's inputs (anything JSON can say, paths included)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Kept:
    """Where an output's earlier versions are kept, and how many."""

    folder: Path
    count: int


def unless_fresh(output: Path, sig: str, make: Callable[[], object], kept: Kept | None = None) -> bool:
    """Run `make` unless `output` exists, was made from inputs with this signature and is
    intact (its seal holds); True when `output` changed.

    With `kept`, the versions made last from other inputs are kept aside (`kept.count` of
    them, in `kept.folder`) and one made from these inputs is put back instead of made
    again: undoing an edit remakes nothing. A version is moved, never copied; where the
    folder is on another file system nothing is kept."""
    stamp = output.with_name(output.name + ".sig")
    recorded = read_stamp(stamp)
    if output.exists() and recorded.get("sig") == sig:
        if seals.intact(output, seals.Seal.from_json(recorded.get("seal"))):
            return False
        seals.damaged(output)
    if kept and output.exists() and isinstance(recorded.get("sig"), str):
        _put_aside(output, recorded, kept.folder)
    stamp.unlink(missing_ok=True)
    if not (kept and _put_back(output, sig, kept.folder)):
        make()
        write_json(stamp, {"sig": sig, "seal": seals.seal(output).to_json()})
    if kept:
        _prune(output, kept.count, kept.folder)
    return True


def _version(folder: Path, output: Path, sig: str) -> Path:
    return folder / f"{output.name}.{sig}"


def _put_aside(output: Path, recorded: dict, folder: Path) -> None:
    """Move an intact `output` made from other inputs into its versions (a damaged one is
    not kept)."""
    sealed = seals.Seal.from_json(recorded.get("seal"))
    if sealed is None or not seals.intact(output, sealed):
        return
    kept = _version(folder, output, recorded["sig"])
    kept_stamp = kept.with_name(kept.name + ".sig")
    folder.mkdir(parents=True, exist_ok=True)
    kept_stamp.unlink(missing_ok=True)  # stale until the version is whole
    try:
        output.replace(kept)
    except OSError:  # another file system: a move would be a copy
        return
    seals.vouch(kept, sealed)
    write_json(kept_stamp, recorded)


def _prune(output: Path, keep: int, folder: Path) -> None:
    """Keep the `keep` versions of `output` put aside last."""
    stamps = sorted(folder.glob(f"{output.name}.*.sig"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in stamps[keep:]:
        old.unlink(missing_ok=True)
        old.with_name(old.name[: -len(".sig")]).unlink(missing_ok=True)


def _put_back(output: Path, sig: str, folder: Path) -> bool:
    """Put the kept version made from inputs `sig` back as `output`, if intact."""
    kept = _version(folder, output, sig)
    kept_stamp = kept.with_name(kept.name + ".sig")
    recorded = read_stamp(kept_stamp)
    sealed = seals.Seal.from_json(recorded.get("seal"))
    if not kept.exists() or recorded.get("sig") != sig or sealed is None:
        return False
    if not seals.intact(kept, sealed):
        seals.damaged(kept)
        kept.unlink(missing_ok=True)
        kept_stamp.unlink(missing_ok=True)
        return False
    kept_stamp.unlink()
    try:
        kept.replace(output)  # a rename keeps the bytes and the times: the seal holds
    except OSError:
        return False
    seals.vouch(output, sealed)
    write_json(output.with_name(output.name + ".sig"), recorded)
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
