"""YouTube chapters from the scenes' start times and Spanish titles.

YouTube turns timestamps in a description into chapters when the first is at 0:00, there
are at least three, and each lasts at least 10 seconds. Timestamps are whole seconds, so
durations are measured between the timestamps as written. A scene too short to be a
chapter of its own joins the previous chapter (the first scene's chapter absorbs the next
one instead), and the merge is reported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MIN_CHAPTER_S = 10
MIN_CHAPTERS = 3


@dataclass(frozen=True)
class SceneSpan:
    scene: str
    title: str
    start_s: float  # in the lecture video
    duration_s: float


@dataclass(frozen=True)
class Chapter:
    start_s: int  # whole seconds, as written in the timestamp
    title: str
    scenes: tuple[str, ...]


def timestamp(seconds: int, with_hours: bool = False) -> str:
    h, rest = divmod(int(seconds), 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if with_hours else f"{m}:{s:02d}"


def make_chapters(spans: Sequence[SceneSpan]) -> tuple[list[Chapter], list[str]]:
    """Chapters for scenes played end to end, and notes on each merge made."""
    if not spans:
        return [], []
    total = spans[-1].start_s + spans[-1].duration_s
    end = math.floor(total)
    chapters = [Chapter(0 if i == 0 else math.floor(s.start_s), s.title, (s.scene,)) for i, s in enumerate(spans)]
    notes: list[str] = []

    def length(i: int) -> int:
        nxt = chapters[i + 1].start_s if i + 1 < len(chapters) else end
        return nxt - chapters[i].start_s

    while len(chapters) > 1:
        short = next((i for i in range(len(chapters)) if length(i) < MIN_CHAPTER_S), None)
        if short is None:
            break
        if short == 0:
            absorbed, into = chapters[1], chapters[0]
            merged = Chapter(into.start_s, into.title, into.scenes + absorbed.scenes)
            chapters[0:2] = [merged]
            notes.append(
                f"el capítulo «{into.title}» dura menos de {MIN_CHAPTER_S} s: "
                f"absorbe «{absorbed.title}» ({', '.join(absorbed.scenes)})"
            )
        else:
            absorbed, into = chapters[short], chapters[short - 1]
            merged = Chapter(into.start_s, into.title, into.scenes + absorbed.scenes)
            chapters[short - 1 : short + 1] = [merged]
            notes.append(
                f"«{absorbed.title}» ({', '.join(absorbed.scenes)}) dura menos de "
                f"{MIN_CHAPTER_S} s: se une al capítulo anterior, «{into.title}»"
            )
    return chapters, notes


def youtube_problems(chapters: Sequence[Chapter], total_s: float) -> list[str]:
    """Why YouTube would not show these chapters (empty when it would)."""
    problems = []
    if not chapters or chapters[0].start_s != 0:
        problems.append("el primer capítulo debe empezar en 0:00")
    if len(chapters) < MIN_CHAPTERS:
        problems.append(f"YouTube pide al menos {MIN_CHAPTERS} capítulos; la clase tiene {len(chapters)}")
    end = math.floor(total_s)
    for i, ch in enumerate(chapters):
        nxt = chapters[i + 1].start_s if i + 1 < len(chapters) else end
        if nxt - ch.start_s < MIN_CHAPTER_S:
            problems.append(f"el capítulo «{ch.title}» dura {nxt - ch.start_s} s (mínimo {MIN_CHAPTER_S} s)")
    return problems


def chapters_text(chapters: Sequence[Chapter], total_s: float) -> str:
    """One `M:SS Título` line per chapter (`H:MM:SS` when the video reaches an hour)."""
    hours = total_s >= 3600
    return "".join(f"{timestamp(ch.start_s, hours)} {ch.title}\n" for ch in chapters)
