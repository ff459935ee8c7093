"""Narration scripts: one TOML file per scene, an ordered list of beats of Spanish text.

Inside a beat's text:
- `{#nombre}` is a bookmark: a named instant an animation can wait for;
- `{clave:formato}` is a number read from `ffn_core` and spoken the Spanish way
  (see `voiceover.spoken`); numbers are never typed into the narration by hand.

A beat that states a research result or a claim about real models names the works it
rests on: `sources = ["geva2021", ...]`, keys of `voiceover/references.toml`.

Every error names the file, the line and the beat at fault.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voiceover.paths import script_path

BOOKMARK_RE = re.compile(r"\{#([^{}]*)\}")
FIELD_RE = re.compile(r"\{(?!#)([^{}]*)\}")
TOKEN_RE = re.compile(r"\{[^{}]*\}")
VALID_NAME_RE = re.compile(r"^[a-z0-9_]+$")
# What espeak-ng's Spanish voices read well. Anything else (emoji, markup, `<`, `&`) is
# refused at load time instead of being spelled out or skipped silently at synthesis.
SPEAKABLE_RE = re.compile(r"^[\sA-Za-z0-9áéíóúüñÁÉÍÓÚÜÑ.,;:¡!¿?«»\"'()\-–—…/%]*$")
DEFAULT_PAUSE_S = 0.5
MAX_PAUSE_S = 30.0  # a longer silence is a typo (1e6 s would allocate ~96 GB of audio)


class ScriptError(ValueError):
    """A narration file that cannot be used; the message says where and why."""


@dataclass(frozen=True)
class BeatScript:
    """One beat as written. `segments[i]` is the text before `bookmarks[i]`; the last
    segment follows the last bookmark, so there is one more segment than bookmarks.
    Segments still hold `{clave:formato}` fields; `voiceover.spoken` resolves them."""

    name: str
    segments: tuple[str, ...]
    bookmarks: tuple[str, ...]
    pause_s: float
    line: int  # 1-based line of the beat's `[[beat]]` header in its file
    text: str = ""  # the text as written, fields and bookmarks included
    text_line: int = 0  # 1-based line where `text` starts in the file
    sources: tuple[str, ...] = ()  # keys of `voiceover/references.toml` the beat cites

    def line_of(self, token: str) -> int:
        """File line of the first `token` in the beat's text (the header line if absent)."""
        index = self.text.find(token)
        return self.line if index < 0 or not self.text_line else _line_at(self.text, index, self.text_line)


@dataclass(frozen=True)
class Script:
    scene: str
    title: str  # Spanish chapter title
    beats: tuple[BeatScript, ...]
    path: Path

    def beat(self, name: str) -> BeatScript:
        for beat in self.beats:
            if beat.name == name:
                return beat
        known = ", ".join(b.name for b in self.beats)
        raise ScriptError(f"{self.path}: scene '{self.scene}' has no beat '{name}' (beats: {known})")

    def sources(self) -> tuple[str, ...]:
        """Every reference key the beats cite, in order, each once."""
        return tuple(dict.fromkeys(k for b in self.beats for k in b.sources))

    def fields(self) -> tuple[str, ...]:
        """Every `{clave:formato}` field used, in order of appearance."""
        return tuple(m.group(1) for b in self.beats for s in b.segments for m in FIELD_RE.finditer(s))


def load_script(scene: str, path: Path | None = None) -> Script:
    """Read and validate the narration file of `scene`."""
    if not VALID_NAME_RE.match(scene):
        # The name becomes a file name (the script, its timeline): nothing that leaves a folder.
        raise ScriptError(
            f"{path or scene}: el nombre de guion {scene!r} no vale: "
            f"solo minúsculas, cifras y _ ({VALID_NAME_RE.pattern})"
        )
    path = Path(path) if path else script_path(scene)
    if not path.exists():
        raise ScriptError(f"{path}: no narration file for scene '{scene}'")
    raw = read_text(path, ScriptError)
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as err:
        match = re.search(r"at line (\d+), column (\d+)", str(err))
        where = f"{path}:{match.group(1)}" if match else str(path)
        raise ScriptError(f"{where}: TOML syntax error: {err}") from None
    return parse_script(scene, data, raw, path)


def parse_script(scene: str, data: dict[str, Any], raw: str, path: Path, references: Path | None = None) -> Script:
    """Validate a parsed narration file; `sources` are checked against `references`
    (default `voiceover/references.toml`)."""
    lines = raw.splitlines()
    header_lines = [i + 1 for i, line in enumerate(lines) if line.strip() == "[[beat]]"]
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise ScriptError(f"{path}:1: scene '{scene}' needs a non-empty `title` (its chapter name)")
    entries = data.get("beat")
    if not isinstance(entries, list) or not entries:
        raise ScriptError(f"{path}:1: scene '{scene}' has no [[beat]] tables")
    beats: list[BeatScript] = []
    seen_beats: set[str] = set()
    seen_marks: dict[str, str] = {}
    for index, entry in enumerate(entries):
        line = header_lines[index] if index < len(header_lines) else 1
        name = entry.get("name")
        where = f"{path}:{line}: beat #{index + 1}"
        if not isinstance(name, str) or not VALID_NAME_RE.match(name):
            raise ScriptError(f"{where}: `name` must be lowercase letters, digits or _ (got {name!r})")
        where = f"{path}:{line}: beat '{name}'"
        if name in seen_beats:
            raise ScriptError(f"{where}: duplicate beat name")
        seen_beats.add(name)
        text = entry.get("text")
        if not isinstance(text, str) or not TOKEN_RE.sub("", text).strip():
            raise ScriptError(f"{where}: empty text")
        text_line = _text_line(lines, line)
        segments, marks = _split(text, path, name, text_line)
        for mark in marks:
            if mark in seen_marks:
                raise ScriptError(
                    f"{path}:{_line_of(text, '{#' + mark + '}', text_line)}: beat '{name}': "
                    f"duplicate bookmark '{mark}' (already in beat '{seen_marks[mark]}')"
                )
            seen_marks[mark] = name
        pause = entry.get("pause_s", DEFAULT_PAUSE_S)
        if (
            isinstance(pause, bool)
            or not isinstance(pause, (int, float))
            or not math.isfinite(pause)
            or not 0 <= pause <= MAX_PAUSE_S
        ):
            raise ScriptError(
                f"{path}:{_key_line(lines, line, 'pause_s')}: beat '{name}': pause_s debe ser un número finito "
                f"de segundos, 0 <= pause_s <= {MAX_PAUSE_S:g} (se leyó {pause!r})"
            )
        unknown = set(entry) - {"name", "text", "pause_s", "sources"}
        if unknown:
            raise ScriptError(f"{where}: unknown keys {sorted(unknown)} (allowed: name, text, pause_s, sources)")
        sources = _sources(
            entry.get("sources", []), f"{path}:{_key_line(lines, line, 'sources')}: beat '{name}'", references
        )
        beats.append(BeatScript(name, segments, marks, float(pause), line, text, text_line, sources))
    return Script(scene, title.strip(), tuple(beats), path)


def _split(text: str, path: Path, beat: str, text_line: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    # Braces that are neither a bookmark nor a field are typos that would be spoken aloud.
    stray = re.search(r"[{}]", TOKEN_RE.sub("", text))
    if stray:
        raise ScriptError(
            f"{path}:{_line_at(text, stray.start(), text_line)}: beat '{beat}': unbalanced brace {stray.group(0)!r}"
        )
    marks = []
    for m in BOOKMARK_RE.finditer(text):
        if not VALID_NAME_RE.match(m.group(1)):
            raise ScriptError(
                f"{path}:{_line_at(text, m.start(), text_line)}: beat '{beat}': malformed "
                f"bookmark {m.group(0)!r}: use {{#name}} with lowercase letters, digits, _"
            )
        if m.group(1) in marks:
            raise ScriptError(
                f"{path}:{_line_at(text, m.start(), text_line)}: beat '{beat}': duplicate bookmark '{m.group(1)}'"
            )
        marks.append(m.group(1))
    for m in FIELD_RE.finditer(text):
        if not re.match(r"^[a-z0-9_.]+:[a-z_]+$", m.group(1)):
            raise ScriptError(
                f"{path}:{_line_at(text, m.start(), text_line)}: beat '{beat}': malformed "
                f"number field {m.group(0)!r}: use {{clave.del.numero:formato}}"
            )
    plain = TOKEN_RE.sub(" ", text)
    for i, ch in enumerate(plain):
        if not SPEAKABLE_RE.match(ch):
            raise ScriptError(
                f"{path}:{_line_at(text, i, text_line)}: beat '{beat}': the speech engine "
                f"cannot speak {ch!r} (U+{ord(ch):04X}); write it out in words"
            )
    parts = BOOKMARK_RE.split(text)
    segments = tuple(" ".join(p.split()) for p in parts[0::2])
    return segments, tuple(marks)


def _sources(value: Any, where: str, references: Path | None) -> tuple[str, ...]:
    """A beat's `sources`: a list of distinct keys, each in the bibliography."""
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        raise ScriptError(f'{where}: `sources` must be a list of reference keys, e.g. ["geva2021"] (got {value!r})')
    if len(set(value)) != len(value):
        raise ScriptError(f"{where}: `sources` repeats a key ({value!r})")
    if not value:
        return ()
    from voiceover.references import REFERENCES_PATH, BibliographyError, close_matches, load_references

    try:
        known = load_references(references)
    except BibliographyError as err:
        raise ScriptError(f"{where}: cannot check `sources`: {err}") from None
    for key in value:
        if key not in known:
            raise ScriptError(
                f"{where}: unknown source '{key}', not in {references or REFERENCES_PATH}{close_matches(key, known)}"
            )
    return tuple(value)


def _key_line(lines: list[str], header_line: int, key: str) -> int:
    """Line of `key = ...` inside the beat whose header is at `header_line` (else the header)."""
    for i in range(header_line, len(lines)):
        stripped = lines[i].strip()
        if stripped == "[[beat]]":
            break
        if re.match(rf"^{re.escape(key)}\s*=", stripped):
            return i + 1
    return header_line


def _text_line(lines: list[str], header_line: int) -> int:
    """Line where a beat's text starts (the line after `text = \"\"\"` when it opens one)."""
    for i in range(header_line, len(lines)):
        stripped = lines[i].strip()
        if stripped.startswith("text"):
            return i + 2 if stripped.endswith('"""') or stripped.endswith("'''") else i + 1
        if stripped == "[[beat]]":
            break
    return header_line


def _line_at(text: str, index: int, text_line: int) -> int:
    return text_line + text.count("\n", 0, index)


def _line_of(text: str, needle: str, text_line: int) -> int:
    index = text.find(needle)
    return _line_at(text, max(index, 0), text_line)


def read_text(path: Path, error: type[Exception] = ScriptError) -> str:
    """A text file the project reads (script, plan, references, lexicon, scene source), as
    UTF-8; one that is not is `error` naming the file and the byte, never a bare decode error."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        bad = data[err.start : err.start + 1]
        raise error(f"{path}:{line}: no es texto UTF-8 (byte {err.start}: {bad!r}); guárdalo como UTF-8") from None


def declared_script(module: Path, class_name: str) -> str | None:
    """The `script = "..."` a scene class declares in its source (read, not imported:
    loading a plan must not import manim)."""
    source = read_text(module, ScriptError)
    match = re.search(rf"^class {re.escape(class_name)}\(.*?\):\s*\n((?:[ \t]+.*\n|\s*\n)*)", source, re.MULTILINE)
    if not match:
        return None
    found = re.search(r"^[ \t]+script\s*=\s*[\"'](\w+)[\"']", match.group(1), re.MULTILINE)
    return found.group(1) if found else None
