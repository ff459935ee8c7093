"""What an earlier run made and can be kept: a folder's record of the inputs of each file.

Each file made from a scene video is noted with a stamp of what it came from (the video's
size and modification time, the frames, the way it was made); the next run keeps a file
whose stamp is unchanged instead of making it again.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from lecture.classroom.lesson import BeatSpan, Chapter
from voiceover.atomic import write_json


def stamp(chapter: Chapter, beat: BeatSpan, how: str) -> str:
    """What a file made from `beat` of `chapter`'s video depends on."""
    stat = chapter.video.stat()
    return f"{how}:{stat.st_size}:{stat.st_mtime_ns}:{beat.start_frame}:{beat.end_frame}:{beat.fps}"


class Kept:
    """The record `name` of a folder: file name -> stamp."""

    def __init__(self, folder: Path, name: str) -> None:
        self.path = folder / name
        try:
            self.stamps: dict[str, str] = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.stamps = {}

    def fresh(self, file: Path, want: str) -> bool:
        return file.is_file() and self.stamps.get(file.name) == want

    def note(self, file: Path, want: str) -> None:
        self.stamps[file.name] = want

    def prune(self, wanted: set[str], shown: set[str], pattern: str) -> None:
        """Remove the files of `pattern` of the scenes in `shown` that are not `wanted`."""
        for old in self.path.parent.glob(pattern):
            of_shown = any(re.match(rf"{re.escape(scene)}-\d{{2,}}-", old.name) for scene in shown)
            if old.name not in wanted and of_shown:
                old.unlink(missing_ok=True)
                self.stamps.pop(old.name, None)

    def save(self) -> None:
        write_json(self.path, self.stamps)
