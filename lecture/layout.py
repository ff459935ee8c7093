"""Where a build reads and writes: the folders and file names of its outputs and of its
work, each named once (see renders/README.md).

  renders/<quality>/lecture.mp4         the whole lecture with narration
  renders/<quality>/scenes/<scene>.mp4  each scene with its own narration
  renders/<quality>/scenes.json         which scene files the lecture is made of, in order
  renders/<quality>/lecture.es.srt      Spanish subtitles (SubRip)
  renders/<quality>/lecture.es.vtt      Spanish subtitles (WebVTT)
  renders/<quality>/chapters.txt        YouTube chapters
  .cache/build/<quality>/<scene>/       a scene's silent renders, their records and logs
  .cache/build/<quality>/<scene>/media/ manim's folders while the scene renders
  .cache/build/<quality>/audio/         the narration, scene by scene and whole
  .cache/build/<quality>/versions/      earlier versions of the outputs, put back on undo
  .cache/build/<quality>/unchanged.json the last build's stamp (`lecture.build.unchanged`)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ffn_core import settings

SCENES_FOLDER = "scenes"
MEDIA_FOLDER = "media"
AUDIO_FOLDER = "audio"
VERSIONS_FOLDER = "versions"

# Names a scene cannot take: a scene's files are `<name>.mp4` beside the lecture's own
# outputs, `<name>/` beside the workspace's folders and `<name>.wav` beside the lecture's
# narration, so a scene called `lecture` would share (and its prune delete) their files.
RESERVED_NAMES = frozenset(
    {
        "lecture",  # lecture.mp4, lecture.m4a, lecture.wav, lecture.es.srt
        SCENES_FOLDER,
        "chapters",
        "subtitles",
        AUDIO_FOLDER,
        MEDIA_FOLDER,
        VERSIONS_FOLDER,
        "chunks",
        "gain",  # audio/gain.json
        "storyboard",
        "gallery",
        "youtube",
        "slides",
        "handout",
    }
)


def renders_dir() -> Path:
    """Root of the outputs; `FFN_RENDERS_DIR` moves it."""
    return settings.renders_root()


def build_dir() -> Path:
    """Root of the build's work (under the cache root that `FFN_CACHE_DIR` moves)."""
    return settings.cache_root() / "build"


def svg_cache_dir() -> Path:
    """The SVGs manim made of every formula any render has drawn (LaTeX), kept across
    renders and qualities (they depend on neither), so a render compiles only the formulas
    it is the first to show."""
    return build_dir() / "svg"


@dataclass(frozen=True)
class Outputs:
    """The files a build delivers at one quality (`renders/<quality>/`)."""

    folder: Path

    @property
    def scenes(self) -> Path:
        return self.folder / SCENES_FOLDER

    def scene(self, name: str) -> Path:
        """A scene's own MP4, with its narration."""
        return self.scenes / f"{name}.mp4"

    def scene_entry(self, name: str) -> str:
        """How `scenes.json` names a scene's file: relative to the outputs' folder."""
        return f"{SCENES_FOLDER}/{name}.mp4"

    @property
    def lecture(self) -> Path:
        return self.folder / "lecture.mp4"

    @property
    def scenes_manifest(self) -> Path:
        return self.folder / "scenes.json"

    @property
    def srt(self) -> Path:
        return self.folder / "lecture.es.srt"

    @property
    def vtt(self) -> Path:
        return self.folder / "lecture.es.vtt"

    @property
    def chapters(self) -> Path:
        return self.folder / "chapters.txt"


@dataclass(frozen=True)
class Workspace:
    """The build's intermediate files at one quality (`.cache/build/<quality>/`)."""

    folder: Path

    def scene(self, name: str) -> Path:
        """A scene's renders: `<key>.mp4`, `<key>.log.json`, `<key>.record.json`."""
        return self.folder / name

    def media(self, name: str) -> Path:
        """Where a scene's renders run: one manim media folder per attempt, removed after it."""
        return self.scene(name) / MEDIA_FOLDER

    @property
    def audio(self) -> Path:
        return self.folder / AUDIO_FOLDER

    @property
    def versions(self) -> Path:
        """Earlier versions of the outputs (lecture, scene MP4s, subtitles), kept so that
        undoing an edit puts them back instead of making them again."""
        return self.folder / VERSIONS_FOLDER


def for_quality(quality_name: str) -> tuple[Outputs, Workspace]:
    return Outputs(renders_dir() / quality_name), Workspace(build_dir() / quality_name)
