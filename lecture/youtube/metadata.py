"""The words YouTube shows: the description, and the request body of `videos.insert`.

The description is the settings' summary, the chapters of the build (chapters.txt, one
`M:SS Título` line each, which YouTube turns into chapters), a note on where the numbers come
from (computed, published, quoted) with the command that lists them, and «Referencias»: every
work the lecture's beats cite (`sources` in the scripts of the plan, in the order the plan
plays them, each once), in full from `voiceover/references.toml`. YouTube takes at most 5000
bytes of description and no `<` or `>`: when the full entries would not fit, they are
shortened step by step (`REFERENCE_STYLES`: authors cut to «First, A. et al.», then the
short label, title and address, then the short label and address), and a description that
still does not fit is an error.
`metadata.json` in the bundle holds the body sent to YouTube (`snippet` and `status`, as the
Data API v3 names them) and the caption track's language and name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lecture.youtube import YoutubeError
from lecture.youtube.channel import MAX_DESCRIPTION_BYTES, YoutubeSettings
from voiceover.references import Reference

NUMBERS_NOTE = (
    "De dónde sale cada número de esta clase, en pantalla o en la narración: casi todos los "
    "calcula el código del proyecto (con modelos reales o con los modelos pequeños que entrena "
    "aquí); las configuraciones de los modelos (anchos, bloques, tamaños) son las que publicaron "
    "sus autores; y una cifra tomada de un texto fuente se muestra y se dice como cifra citada. "
    "Para ver la lista completa, con el tipo de cada número, su fuente y la escena en que "
    "aparece: ffn-video numbers"
)
REFERENCES_TITLE = "Referencias:"
SYNTHETIC_NOTE = "La narración es una voz sintética generada a partir del guion."

_CHAPTER_LINE = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{2})\s+(\S.*)$")


@dataclass(frozen=True)
class ChapterMark:
    start_s: int  # whole seconds, as written
    title: str


def parse_chapters(text: str) -> list[ChapterMark]:
    """The chapter lines (`M:SS Título` or `H:MM:SS Título`) of a text, in order."""
    marks = []
    for line in text.splitlines():
        m = _CHAPTER_LINE.match(line.strip())
        if m:
            hours, minutes, seconds, title = m.groups()
            marks.append(ChapterMark(int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds), title.strip()))
    return marks


def read_chapters(path: Path) -> str:
    """chapters.txt as written by the build; an error naming it when it has no chapter."""
    text = Path(path).read_text(encoding="utf-8")
    if not parse_chapters(text):
        raise YoutubeError(f"{path}: no tiene ninguna línea de capítulo («M:SS Título»)")
    return "".join(line.strip() + "\n" for line in text.splitlines() if line.strip())


def description_text(settings: YoutubeSettings, chapters: str, references: Sequence[Reference] | None = None) -> str:
    """Summary, chapters, the numbers note, the references (`references`, by default those
    the plan in use cites: `cited_references()`) and the synthetic voice, when it is one."""
    refs = list(cited_references() if references is None else references)
    for style in REFERENCE_STYLES if refs else ("full",):
        parts = [settings.summary.strip(), "Capítulos:\n" + chapters.strip(), NUMBERS_NOTE]
        if refs:
            parts.append(references_section(refs, style))
        if settings.synthetic_media:
            parts.append(SYNTHETIC_NOTE)
        text = "\n\n".join(parts) + "\n"
        if len(text.encode("utf-8")) <= MAX_DESCRIPTION_BYTES:
            return text
    raise YoutubeError(
        f"{settings.path}: la descripción ocupa {len(text.encode('utf-8'))} bytes aun con sus {len(refs)} "
        f"referencias abreviadas; YouTube admite {MAX_DESCRIPTION_BYTES}: acorta «summary»"
    )


# From the fullest to the shortest; the description takes the first that fits.
REFERENCE_STYLES = ("full", "et_al", "label_title", "label")


def references_section(refs: Sequence[Reference], style: str = "full") -> str:
    """«Referencias:» and one line per work, by default «Geva, M.; ... (2021). Title. Venue. URL»."""
    lines = [reference_line(r, style) for r in refs]
    bad = [line for line in lines if "<" in line or ">" in line]
    if bad:
        raise YoutubeError(f"una referencia lleva «<» o «>», que YouTube rechaza: {bad[0]}")
    return REFERENCES_TITLE + "\n" + "\n".join(lines)


def reference_line(ref: Reference, style: str = "full") -> str:
    """One work: "full" as the bibliography has it; "et_al" with three or more authors cut to
    the first and «et al.»; "label_title" «Geva et al., 2021. Title. URL»; "label"
    «Geva et al., 2021: URL»."""
    if style == "full":
        return ref.full()
    if style == "et_al":
        authors = [a.strip() for a in ref.authors.split(";") if a.strip() and a.strip() != "et al."]
        shown = f"{authors[0]} et al." if len(authors) > 2 else ref.authors
        return Reference(ref.key, shown, ref.short, ref.year, ref.title, ref.venue, ref.url).full()
    if style == "label_title":
        title = ref.title if ref.title.endswith((".", "?", "!")) else ref.title + "."
        return " ".join(p for p in (f"{ref.short}.", title, ref.url) if p)
    if style == "label":
        return f"{ref.short}: {ref.url}" if ref.url else f"{ref.short}: {ref.title}"
    raise ValueError(f"unknown reference style {style!r} (styles: {', '.join(REFERENCE_STYLES)})")


def cited_references(plan_file: Path | None = None) -> list[Reference]:
    """The works the lecture cites: each beat's `sources`, over the scripts of the plan in
    the order it plays them, each work once. No plan file (a test's fake build): none."""
    from lecture.plan import load_plan, plan_path
    from voiceover.references import BibliographyError, load_references
    from voiceover.script import ScriptError

    path = Path(plan_file) if plan_file else plan_path()
    if not path.exists():
        return []
    try:
        keys = dict.fromkeys(k for scene in load_plan(path) for k in scene.load_script().sources())
        known = load_references()
    except (ScriptError, BibliographyError, ValueError) as err:
        raise YoutubeError(f"las referencias de la descripción: {err}") from None
    return [known[k] for k in keys]


def video_body(settings: YoutubeSettings, description: str, privacy: str) -> dict:
    """The `snippet` and `status` parts of a YouTube video resource."""
    return {
        "snippet": {
            "title": settings.title,
            "description": description,
            "tags": list(settings.tags),
            "categoryId": settings.category_id,
            "defaultLanguage": settings.language,
            "defaultAudioLanguage": settings.language,
        },
        "status": {
            "privacyStatus": privacy,
            "selfDeclaredMadeForKids": settings.made_for_kids,
            "containsSyntheticMedia": settings.synthetic_media,
        },
    }


def metadata_document(settings: YoutubeSettings, description: str, privacy: str) -> dict:
    """What metadata.json holds: the video body and the caption track."""
    return {
        **video_body(settings, description, privacy),
        "caption": {"language": settings.language, "name": settings.caption_name},
    }


@dataclass(frozen=True)
class Metadata:
    """metadata.json, read back."""

    path: Path
    snippet: dict
    status: dict
    caption: dict

    @property
    def title(self) -> str:
        return self.snippet.get("title", "")

    @property
    def description(self) -> str:
        return self.snippet.get("description", "")

    def body(self, privacy: str | None = None) -> dict:
        """The request body for videos.insert/update, with another privacy if given."""
        status = dict(self.status)
        if privacy:
            status["privacyStatus"] = privacy
        return {"snippet": dict(self.snippet), "status": status}


def load_metadata(path: Path) -> Metadata:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise YoutubeError(f"{path}: no existe; créalo con `ffn-video publish --dry-run`") from None
    except json.JSONDecodeError as err:
        raise YoutubeError(f"{path}: no es JSON válido ({err})") from None
    if not isinstance(data, dict):
        raise YoutubeError(f"{path}: debe ser un objeto JSON")
    parts = {}
    for key in ("snippet", "status", "caption"):
        value = data.get(key)
        if not isinstance(value, dict):
            raise YoutubeError(f"{path}: falta el objeto «{key}»")
        parts[key] = value
    return Metadata(Path(path), **parts)
