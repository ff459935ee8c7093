"""The words YouTube shows: the description, and the request body of `videos.insert`.

The description is the settings' summary, the chapters of the build (chapters.txt, one
`M:SS Título` line each, which YouTube turns into chapters), and a note that every number is
computed, with the command that lists them. `metadata.json` in the bundle holds the body sent
to YouTube (`snippet` and `status`, as the Data API v3 names them) and the caption track's
language and name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from lecture.youtube import YoutubeError
from lecture.youtube.settings import YoutubeSettings

NUMBERS_NOTE = (
    "Cada número de esta clase, en pantalla o en la narración, lo calcula el código del "
    "proyecto a partir de modelos reales; ninguno está copiado a mano. Para ver la lista "
    "completa, con qué se calcula cada uno y en qué escena aparece: ffn-video numbers"
)
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


def description_text(settings: YoutubeSettings, chapters: str) -> str:
    """Summary, chapters, the numbers note (and the synthetic voice, when it is one)."""
    parts = [settings.summary.strip(), "Capítulos:\n" + chapters.strip(), NUMBERS_NOTE]
    if settings.synthetic_media:
        parts.append(SYNTHETIC_NOTE)
    return "\n\n".join(parts) + "\n"


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
