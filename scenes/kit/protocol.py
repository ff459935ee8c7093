"""What the build and a manim child process tell each other: environment variables and files.

The build (`lecture.farm.chunk`) starts manim with `ChildRequest.env()`; the scene
(`scenes.kit.narrated`) and the chunk gate (`lecture.farm.manim_entry`) read it back with
`ChildRequest.from_env()`. The names live here once, in the lowest package that both sides
import (a standalone `manim` run sets none of them, and every field is then None).

The chunk gate's answer is `chunk.json` beside the scene log (`ChunkInfo`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TIMELINE = "FFN_TIMELINE"  # the scene's prepared timeline (JSON file)
SCENE_LOG = "FFN_SCENE_LOG"  # where the scene writes its log (JSON)
CHUNK_FRAMES = "FFN_CHUNK_FRAMES"  # START:END of the narration clock's frames to draw (END empty: to the end)
CHUNK_INFO = "FFN_CHUNK_INFO"  # where the chunk gate writes `ChunkInfo`
PARENT_PID = "FFN_PARENT_PID"  # the build's pid: the child exits when it is orphaned

CHUNK_INFO_FILE = "chunk.json"


@dataclass(frozen=True)
class ChildRequest:
    """What the build asks of one manim process; None where it asks nothing."""

    timeline: Path | None = None
    scene_log: Path | None = None
    chunk_frames: tuple[int, int | None] | None = None  # [start, end) frames; end None: the scene's end
    chunk_info: Path | None = None
    parent_pid: int | None = None

    def env(self) -> dict[str, str]:
        """The variables to add to the child's environment."""
        out: dict[str, str] = {}
        if self.timeline is not None:
            out[TIMELINE] = str(self.timeline)
        if self.scene_log is not None:
            out[SCENE_LOG] = str(self.scene_log)
        if self.chunk_frames is not None:
            start, end = self.chunk_frames
            out[CHUNK_FRAMES] = f"{start}:{'' if end is None else end}"
        if self.chunk_info is not None:
            out[CHUNK_INFO] = str(self.chunk_info)
        if self.parent_pid is not None:
            out[PARENT_PID] = str(self.parent_pid)
        return out

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ChildRequest:
        env = os.environ if env is None else env

        def path(name: str) -> Path | None:
            value = env.get(name, "").strip()
            return Path(value) if value else None

        frames = env.get(CHUNK_FRAMES, "").strip()
        pid = env.get(PARENT_PID, "").strip()
        return cls(
            timeline=path(TIMELINE),
            scene_log=path(SCENE_LOG),
            chunk_frames=parse_frames(frames) if frames else None,
            chunk_info=path(CHUNK_INFO),
            parent_pid=int(pid) if pid else None,
        )


def parse_frames(text: str) -> tuple[int, int | None]:
    """`START:END` -> (start, end); END empty -> None."""
    start, _, end = text.partition(":")
    return int(start), (int(end) if end.strip() else None)


@dataclass(frozen=True)
class ChunkInfo:
    """The chunk gate's answer: where the drawn range really started and ended, and its cost."""

    first_frame: int | None  # the first drawn animation's start; None: none started inside the range
    past_frame: int | None  # the first animation past the range; None: the scene's end
    cpu_s: float  # CPU seconds of the manim process, its children included
    cpu_to_first_s: float | None  # CPU seconds spent before the first drawn animation

    def to_json(self) -> dict[str, Any]:
        return {
            "first_frame": self.first_frame,
            "past_frame": self.past_frame,
            "cpu_s": round(self.cpu_s, 3),
            "cpu_to_first_s": None if self.cpu_to_first_s is None else round(self.cpu_to_first_s, 3),
        }

    @classmethod
    def read(cls, path: Path) -> ChunkInfo:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(data["first_frame"], data["past_frame"], float(data["cpu_s"]), data.get("cpu_to_first_s"))
