"""Respellings for the speaker only (`voiceover/lexicon.es.toml`).

`respell("La capa feed-forward.")` -> "La capa fid fóruard.": a word found in the lexicon
(ignoring the punctuation around it) is replaced by how the engine should say it. The
timeline applies it to the text it hands any synthetic engine (unless the engine sets
`respell = False`), so clips are cached by what is really said: editing one entry
re-synthesises only the sentences that use it. Subtitles keep the written form.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from voiceover.script import ScriptError, read_text

LEXICON_PATH = Path(__file__).resolve().parent.parent / "lexicon.es.toml"
_WORD_RE = re.compile(r"^([¿¡«\"'(\[]*)(.*?)([.,;:!?…»\"')\]]*)$", re.S)


@dataclass(frozen=True)
class Lexicon:
    entries: dict[str, str]  # word as written -> how to say it
    path: Path

    def word(self, token: str) -> str:
        """One whitespace-free token, respelled if its core is an entry."""
        match = _WORD_RE.match(token)
        assert match is not None, "every string matches: each of the three parts may be empty"
        lead, core, tail = match.groups()
        said = self.entries.get(core)
        if said is None and core[:1].isupper() and (core[1:].islower() or len(core) == 1):
            said = self.entries.get(core.lower())  # "Tokens" at a sentence start, "W" for the letter "w"
        return token if said is None else f"{lead}{said}{tail}"

    def respell(self, text: str) -> str:
        return " ".join(self.word(t) for t in text.split())


_CACHE: dict[tuple[str, int, int], Lexicon] = {}


def load_lexicon(path: Path | None = None) -> Lexicon:
    """The lexicon at `path` (default `voiceover/lexicon.es.toml`), re-read when it changes."""
    path = Path(path or LEXICON_PATH)
    try:
        st = path.stat()
    except FileNotFoundError:
        return Lexicon({}, path)
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _CACHE:
        try:
            data = tomllib.loads(read_text(path, ScriptError))
        except tomllib.TOMLDecodeError as err:
            raise ScriptError(f"{path}: TOML syntax error: {err}") from None
        entries = data.get("respell", {})
        bad = [
            k
            for k, v in entries.items()
            if not isinstance(v, str) or not v.strip() or not k.strip() or any(c.isspace() for c in k)
        ]
        # [spanish]: Spanish words the coverage test's word list lacks, each with why (not read here).
        spanish = data.get("spanish", {})
        bad += [k for k, v in spanish.items() if not isinstance(v, str) or not v.strip()]
        if bad or set(data) - {"respell", "spanish"}:
            raise ScriptError(
                f"{path}: [respell] maps one written word (no spaces) to its respelling "
                f"(text), [spanish] a Spanish word to why it is one; bad entries: "
                f"{bad or sorted(set(data) - {'respell', 'spanish'})}"
            )
        _CACHE[key] = Lexicon({k: " ".join(v.split()) for k, v in entries.items()}, path)
    return _CACHE[key]


def respell(text: str, path: Path | None = None) -> str:
    return load_lexicon(path).respell(text)
