"""Stills of beats, taken from the scene videos as the storyboard takes them
(`lecture.review.storyboard.extract_still`): the first frame of a beat (the deck's posters,
what a slide shows before its clip plays) and its last frame (the handout's pictures)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lecture.classroom.kept import Kept, stamp
from lecture.classroom.lesson import BeatSpan, Chapter
from lecture.review.storyboard import extract_still

FIRST, LAST = "first", "last"


def write_stills(chapters: Iterable[Chapter], folder: Path, which: str, jobs: int | None = None) -> dict[str, Path]:
    """A PNG of the `which` (FIRST or LAST) frame of every beat in `folder`, by beat slug."""
    kept = Kept(folder, "stills.json")
    chapters = list(chapters)
    work = [(chapter, beat, folder / f"{beat.slug}.png") for chapter in chapters for beat in chapter.beats]

    def one(item: tuple[Chapter, BeatSpan, Path]) -> None:
        chapter, beat, path = item
        if not kept.fresh(path, stamp(chapter, beat, which)):
            at = beat.start_s if which == FIRST else beat.last_frame_s
            extract_still(chapter.video, at, chapter.fps, path)

    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        list(pool.map(one, work))
    for chapter, beat, path in work:
        kept.note(path, stamp(chapter, beat, which))
    kept.prune({path.name for *_, path in work}, {chapter.name for chapter in chapters}, "*.png")
    kept.save()
    return {beat.slug: path for _, beat, path in work}
