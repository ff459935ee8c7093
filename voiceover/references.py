"""The lecture's bibliography: `voiceover/references.toml`, one `[[reference]]` per work.

A beat that states a research result names the works it rests on with
`sources = ["clave", ...]` in its `[[beat]]` table (see `voiceover.script`); the scene shows
their `short` labels while the beat plays and the YouTube description lists them in full.

Every error names the file and the line at fault.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

REFERENCES_PATH = Path(__file__).resolve().parent / "references.toml"
FIELDS = ("key", "authors", "short", "year", "title", "venue", "url")
KEY_RE = re.compile(r"^[a-z0-9_]+$")


class BibliographyError(ValueError):
    """A bibliography that cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Reference:
    key: str  # what beats cite: `sources = ["geva2021"]`
    authors: str  # «Geva, M.; Schuster, R.; ...»
    short: str  # the discreet on-screen citation: «Geva et al., 2021»
    year: int
    title: str
    venue: str
    url: str  # may be "" (course material without an address)
    line: int = 0  # 1-based line of the `[[reference]]` header in its file

    def full(self) -> str:
        """One line for a bibliography: «Geva, M.; ... (2021). Title. Venue. URL»."""
        parts = [f"{self.authors} ({self.year}). {_period(self.title)} {_period(self.venue)}"]
        if self.url:
            parts.append(self.url)
        return " ".join(parts)


def _period(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "?", "!")) else text + "."


def load_references(path: Path | None = None) -> dict[str, Reference]:
    """Every reference by key, in file order (cached per file)."""
    return dict(_load(Path(path) if path else REFERENCES_PATH))


def reference(key: str, path: Path | None = None) -> Reference:
    refs = load_references(path)
    if key not in refs:
        raise BibliographyError(f"{path or REFERENCES_PATH}: no reference '{key}'{close_matches(key, refs)}")
    return refs[key]


def close_matches(key: str, known: Any) -> str:
    """« (did you mean: a, b?)» for an unknown key, or «» when nothing is close."""
    near = difflib.get_close_matches(key, list(known), n=3, cutoff=0.6)
    return f" (did you mean: {', '.join(near)}?)" if near else ""


@lru_cache(maxsize=8)
def _load(path: Path) -> tuple[tuple[str, Reference], ...]:
    if not path.exists():
        raise BibliographyError(f"{path}: no bibliography file")
    from voiceover.script import read_text  # script.py reads this module lazily too

    raw = read_text(path, BibliographyError)
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as err:
        match = re.search(r"at line (\d+), column (\d+)", str(err))
        where = f"{path}:{match.group(1)}" if match else str(path)
        raise BibliographyError(f"{where}: TOML syntax error: {err}") from None
    headers = [i + 1 for i, line in enumerate(raw.splitlines()) if line.strip() == "[[reference]]"]
    unknown_tables = set(data) - {"reference"}
    if unknown_tables:
        raise BibliographyError(
            f"{path}:1: unknown top-level keys {sorted(unknown_tables)} (only [[reference]] tables)"
        )
    entries = data.get("reference", [])
    if not isinstance(entries, list):
        raise BibliographyError(f"{path}:1: `reference` must be [[reference]] tables")
    out: dict[str, Reference] = {}
    for index, entry in enumerate(entries):
        line = headers[index] if index < len(headers) else 1
        where = f"{path}:{line}: reference #{index + 1}"
        missing = [f for f in FIELDS if f not in entry]
        if missing:
            raise BibliographyError(f"{where}: missing {missing} (each reference has {', '.join(FIELDS)})")
        extra = set(entry) - set(FIELDS)
        if extra:
            raise BibliographyError(f"{where}: unknown keys {sorted(extra)} (allowed: {', '.join(FIELDS)})")
        key = entry["key"]
        if not isinstance(key, str) or not KEY_RE.match(key):
            raise BibliographyError(f"{where}: `key` must be lowercase letters, digits or _ (got {key!r})")
        where = f"{path}:{line}: reference '{key}'"
        if key in out:
            raise BibliographyError(f"{where}: duplicate key (first at line {out[key].line})")
        year = entry["year"]
        if not isinstance(year, int) or isinstance(year, bool) or not 1000 <= year <= 2100:
            raise BibliographyError(f"{where}: `year` must be a four-digit integer (got {year!r})")
        for name in ("authors", "short", "title", "venue", "url"):
            value = entry[name]
            if not isinstance(value, str) or (name != "url" and not value.strip()):
                raise BibliographyError(f"{where}: `{name}` must be a non-empty string (got {value!r})")
            if "<" in value or ">" in value:
                raise BibliographyError(f"{where}: `{name}` may not contain < or > (YouTube refuses them)")
        url = entry["url"].strip()
        if url and not url.startswith(("https://", "http://")):
            raise BibliographyError(f"{where}: `url` must start with https:// (got {url!r})")
        out[key] = Reference(
            key,
            entry["authors"].strip(),
            entry["short"].strip(),
            year,
            entry["title"].strip(),
            entry["venue"].strip(),
            url,
            line,
        )
    return tuple(out.items())


__all__ = ["REFERENCES_PATH", "Reference", "BibliographyError", "close_matches", "load_references", "reference"]
