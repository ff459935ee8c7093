"""Where things are: a build's outputs (the bundle's sources) and the upload bundle."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lecture.youtube import YoutubeError


@dataclass(frozen=True)
class BuildOutputs:
    """What `ffn-video build --quality Q` leaves in renders/<Q>/."""

    quality: str
    folder: Path

    @property
    def lecture(self) -> Path:
        return self.folder / "lecture.mp4"

    @property
    def subtitles(self) -> Path:
        return self.folder / "lecture.es.srt"

    @property
    def chapters(self) -> Path:
        return self.folder / "chapters.txt"

    def require(self) -> None:
        """Stop, naming the files and the command that makes them, when any is missing."""
        missing = [p for p in (self.lecture, self.subtitles, self.chapters) if not p.exists()]
        if missing:
            raise YoutubeError(
                f"faltan {', '.join(str(p) for p in missing)}: genéralos con `ffn-video build --quality {self.quality}`"
            )


@dataclass(frozen=True)
class BundlePaths:
    """The upload bundle, renders/<Q>/youtube/."""

    folder: Path

    @property
    def video(self) -> Path:
        return self.folder / "video.mp4"

    @property
    def captions(self) -> Path:
        return self.folder / "captions.es.srt"

    @property
    def thumbnail(self) -> Path:
        return self.folder / "thumbnail.png"

    @property
    def description(self) -> Path:
        return self.folder / "description.txt"

    @property
    def metadata(self) -> Path:
        return self.folder / "metadata.json"

    @property
    def published(self) -> Path:
        """The YouTube video this bundle was uploaded as, or the upload under way (written by
        the upload)."""
        return self.folder / "published.json"

    @property
    def lock(self) -> Path:
        """Held by the publish under way: two at once would upload two videos."""
        return self.folder / ".publish.lock"

    @property
    def lock_owner(self) -> Path:
        """Who holds the lock (pid, host, start), for the message of a publish refused."""
        return self.folder / ".publish.lock.json"

    def files(self) -> tuple[Path, ...]:
        return (self.video, self.captions, self.thumbnail, self.description, self.metadata)


def build_outputs(quality: str) -> BuildOutputs:
    from lecture.layout import renders_dir

    return BuildOutputs(quality, renders_dir() / quality)


def bundle_paths(quality: str) -> BundlePaths:
    from lecture.layout import renders_dir

    return BundlePaths(renders_dir() / quality / "youtube")
