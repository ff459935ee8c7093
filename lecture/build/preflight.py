"""Before any work: are the programs the build runs on this machine?

A build that finds ffmpeg missing at the mux, after minutes of rendering, wastes the
lecturer's time; one that finds LaTeX missing inside a manim process prints a traceback.
`check_tools` looks for every external program first and says, in one message, what is
missing and the command that installs it.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from lecture.media.ffmpeg import FFMPEG, FFMPEG_PACKAGE, FFPROBE


@dataclass(frozen=True)
class Tool:
    program: str
    package: str  # the Debian package that provides it
    why: str  # what the build needs it for, in Spanish


# The mux, the narration's encoding, manim's LaTeX, and espeak-ng (the draft voice, and
# the voice any other engine falls back to).
TOOLS = (
    Tool(FFMPEG, FFMPEG_PACKAGE, "unir vídeo y narración"),
    Tool(FFPROBE, FFMPEG_PACKAGE, "medir vídeos y audio"),
    Tool("latex", "texlive-latex-base", "fórmulas de las escenas (LaTeX)"),
    Tool("dvisvgm", "dvisvgm", "fórmulas de las escenas (LaTeX a SVG)"),
    Tool("espeak-ng", "espeak-ng", "la voz de borrador y la de reserva"),
)


class MissingTools(RuntimeError):
    """External programs the build needs are not on the PATH."""


def missing_tools() -> list[Tool]:
    return [t for t in TOOLS if shutil.which(t.program) is None]


def check_tools() -> None:
    """Raise `MissingTools` listing every missing program and how to install them."""
    missing = missing_tools()
    if not missing:
        return
    listed = "; ".join(f"{t.program} ({t.why})" for t in missing)
    packages = " ".join(dict.fromkeys(t.package for t in missing))
    raise MissingTools(
        f"faltan programas que la compilación necesita: {listed}. "
        f"Instálalos con: ./setup.sh   (o: sudo apt-get install -y {packages})"
    )
