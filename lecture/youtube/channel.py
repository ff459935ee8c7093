"""The lecturer's YouTube settings: `youtube.toml` next to the plan.

The file in use is `youtube.toml` in the plan's folder (see `lecture.plan.plan_path`), or
`lecture/youtube.toml` when that folder has none (a test plan borrows the lecture's).
Everything YouTube shows in writing lives there, in Spanish: the title, the summary that
opens the description, the tags; and the flags YouTube asks about: category, languages,
made for kids, synthetic media, the caption track's name, the default privacy.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from lecture.plan import plan_path
from lecture.youtube import YoutubeError

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "youtube.toml"
PRIVACY_STATUSES = ("private", "unlisted", "public")
MAX_TITLE_CHARS = 100
MAX_DESCRIPTION_BYTES = 5000  # YouTube counts the description's UTF-8 bytes
MAX_TAGS_CHARS = 500  # YouTube counts the tags' characters (a tag with a space counts its quotes too)
CATEGORY_EDUCATION = "27"

_KEYS = {"title", "thumbnail_title", "thumbnail_at_s", "summary", "tags", "youtube"}
_YOUTUBE_KEYS = {"category_id", "language", "caption_name", "made_for_kids", "synthetic_media", "privacy"}


@dataclass(frozen=True)
class YoutubeSettings:
    path: Path  # the file these settings came from
    title: str  # the video's title (at most 100 characters)
    thumbnail_title: str  # the large words on the thumbnail
    thumbnail_at_s: float  # second of the video the thumbnail's frame is taken from
    summary: str  # opens the description
    tags: tuple[str, ...]
    category_id: str  # "27": Education
    language: str  # BCP-47: the video's language, its audio's, and its captions'
    caption_name: str  # the caption track's name as viewers see it
    made_for_kids: bool  # selfDeclaredMadeForKids
    synthetic_media: bool  # containsSyntheticMedia: a synthetic voice narrates
    privacy: str  # private | unlisted | public, for a first upload


def settings_path() -> Path:
    """`youtube.toml` beside the plan in use, else the lecture's own."""
    beside = plan_path().parent / "youtube.toml"
    return beside if beside.exists() else DEFAULT_PATH


def load_settings(path: Path | None = None) -> YoutubeSettings:
    """Read and validate the settings; errors name the file and the key."""
    path = Path(path) if path else settings_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise YoutubeError(f"{path}: no existe el archivo de ajustes de YouTube") from None
    except tomllib.TOMLDecodeError as err:
        raise YoutubeError(f"{path}: error de sintaxis TOML: {err}") from None
    unknown = set(data) - _KEYS
    if unknown:
        raise YoutubeError(f"{path}: claves desconocidas {sorted(unknown)} (válidas: {', '.join(sorted(_KEYS))})")
    yt = data.get("youtube", {})
    unknown = set(yt) - _YOUTUBE_KEYS
    if unknown:
        raise YoutubeError(
            f"{path}: claves desconocidas en [youtube] {sorted(unknown)} (válidas: {', '.join(sorted(_YOUTUBE_KEYS))})"
        )

    def text(table: dict, key: str, default: str | None = None) -> str:
        value = table.get(key, default)
        if not isinstance(value, str) or not value.strip():
            raise YoutubeError(f"{path}: «{key}» debe ser un texto no vacío")
        return value.strip()

    def flag(key: str, default: bool) -> bool:
        value = yt.get(key, default)
        if not isinstance(value, bool):
            raise YoutubeError(f"{path}: [youtube] «{key}» debe ser true o false")
        return value

    title = text(data, "title")
    validate_title(title, path)
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags):
        raise YoutubeError(f"{path}: «tags» debe ser una lista de textos no vacíos")
    tags = tuple(t.strip() for t in tags)
    if tags_length(tags) > MAX_TAGS_CHARS:
        raise YoutubeError(
            f"{path}: las etiquetas suman {tags_length(tags)} caracteres (YouTube admite {MAX_TAGS_CHARS})"
        )
    at_s = data.get("thumbnail_at_s", 0.0)
    if isinstance(at_s, bool) or not isinstance(at_s, (int, float)) or at_s < 0:
        raise YoutubeError(f"{path}: «thumbnail_at_s» debe ser un número de segundos, 0 o más")
    privacy = text(yt, "privacy", "private")
    if privacy not in PRIVACY_STATUSES:
        raise YoutubeError(f"{path}: [youtube] «privacy» debe ser {', '.join(PRIVACY_STATUSES)}; es «{privacy}»")
    return YoutubeSettings(
        path=path,
        title=title,
        thumbnail_title=text(data, "thumbnail_title", title),
        thumbnail_at_s=float(at_s),
        summary=text(data, "summary"),
        tags=tags,
        category_id=text(yt, "category_id", CATEGORY_EDUCATION),
        language=text(yt, "language", "es"),
        caption_name=text(yt, "caption_name", "Español"),
        made_for_kids=flag("made_for_kids", False),
        # Declared synthetic unless every scene's narration is the lecturer's own recording.
        synthetic_media=flag("synthetic_media", True) and not narrated_by_lecturer(),
        privacy=privacy,
    )


def narrated_by_lecturer() -> bool:
    """Every scene of the plan in use is narrated by the lecturer's recordings (one-take or
    beat by beat), as their last-built timelines say."""
    from voiceover.narrate import PlanError, plan_scripts
    from voiceover.takes import narrated_by_recordings
    from voiceover.timeline import load_timeline

    try:
        return narrated_by_recordings(load_timeline(entry.script) for entry in plan_scripts(plan_path()))
    except (OSError, ValueError, KeyError, PlanError):  # a scene never narrated: not known to be recorded
        return False


def validate_title(title: str, where: Path) -> None:
    """YouTube's limits on a title: 1 to 100 characters, no angle brackets."""
    if len(title) > MAX_TITLE_CHARS:
        raise YoutubeError(
            f"{where}: el título tiene {len(title)} caracteres; YouTube admite {MAX_TITLE_CHARS} como máximo: «{title}»"
        )
    if "<" in title or ">" in title:
        raise YoutubeError(f"{where}: el título no puede llevar «<» ni «>» (YouTube los rechaza)")


def tags_length(tags: tuple[str, ...] | list[str]) -> int:
    """Characters YouTube counts for the tags: each tag, quotes around one with a space,
    and a comma between tags."""
    return sum(len(t) + (2 if " " in t else 0) for t in tags) + max(len(tags) - 1, 0)
