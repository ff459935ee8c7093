"""`ffn-video slides`: the deck of one quality's build, as reveal.js (HTML) or PowerPoint.

  renders/<quality>/slides/index.html     the reveal.js deck (opens from file://)
  renders/<quality>/slides/lecture.pptx   the PowerPoint deck (`--format pptx`)
  renders/<quality>/slides/clips/         one clip per beat, shared by both
  renders/<quality>/slides/posters/       each beat's first frame
  renders/<quality>/slides/reveal.js/     reveal.js's pinned files
  renders/<quality>/slides/check/         the browser test's screenshots

Nothing is rendered: clips and stills come from the scene videos the build wrote.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lecture.classroom import revealjs
from lecture.classroom.clips import write_clips
from lecture.classroom.deck import relative, render_deck
from lecture.classroom.lesson import chapters
from lecture.classroom.stills import FIRST, write_stills
from lecture.layout import for_quality
from lecture.plan import PlannedScene
from voiceover.atomic import write_text
from voiceover.references import load_references

HTML, PPTX = "html", "pptx"
FORMATS = (HTML, PPTX)


@dataclass(frozen=True)
class SlidesFolder:
    """Where the deck of one quality goes (`renders/<quality>/slides/`)."""

    folder: Path

    @property
    def deck(self) -> Path:
        return self.folder / "index.html"

    @property
    def pptx(self) -> Path:
        return self.folder / "lecture.pptx"

    @property
    def clips(self) -> Path:
        return self.folder / "clips"

    @property
    def posters(self) -> Path:
        return self.folder / "posters"

    @property
    def reveal(self) -> Path:
        return self.folder / "reveal.js"

    @property
    def check(self) -> Path:
        return self.folder / "check"


def slides_folder(quality: str) -> SlidesFolder:
    outputs, _ = for_quality(quality)
    return SlidesFolder(outputs.folder / "slides")


@dataclass(frozen=True)
class SlidesReport:
    path: Path  # the deck written
    slides: int
    cuts: dict[str, int]  # how the clips were made: "copy", "encode", "kept" -> how many
    seconds: float

    def line(self) -> str:
        how = ", ".join(f"{n} {_CUT_ES[k]}" for k, n in sorted(self.cuts.items()))
        return f"{self.slides} diapositivas ({how}) en {self.seconds:.1f} s: {self.path}"


_CUT_ES = {"copy": "copiados sin recodificar", "encode": "recodificados", "kept": "ya hechos"}


def make_slides(
    plan: Sequence[PlannedScene], quality: str, only: set[str] | None = None, fmt: str = HTML
) -> SlidesReport:
    """Write the deck of `quality`'s build (scenes of `only`, when given) in `fmt`."""
    started = time.monotonic()
    outputs, workspace = for_quality(quality)
    found = chapters(plan, outputs, workspace.folder, only)
    folder = slides_folder(quality)
    clips = write_clips(found, folder.clips)
    posters = write_stills(found, folder.posters, FIRST)
    sources = {key: ref.short for key, ref in load_references().items()}
    if fmt == PPTX:
        from lecture.classroom.pptx_deck import write_pptx

        path = write_pptx(found, {c.beat.slug: c.path for c in clips}, posters, folder.pptx, sources)
    else:
        revealjs.copy_into(folder.reveal)
        clip_paths = relative({c.beat.slug: c.path for c in clips}, folder.folder)
        write_text(folder.deck, render_deck(found, clip_paths, relative(posters, folder.folder), quality, sources))
        path = folder.deck
    cuts = Counter(c.how for c in clips)
    return SlidesReport(path, len(clips), dict(cuts), time.monotonic() - started)
