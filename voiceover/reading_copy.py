"""The script as a lecturer reads it aloud for a one-take recording (`ffn-video script`).

Numbers are written as the subtitles show them (the lecturer reads them naturally; the
alignment compares the take with the synthetic voice, which says the same number), each
bookmark is a discreet `·` where an animation waits (nothing to do there but keep reading),
and each beat's pause is said so the take can keep it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from voiceover.script import Script
from voiceover.spoken import Lookup, render

MARK = "·"
WIDTH = 88  # characters a line: a printed A4 page in a readable size


def beat_text(segments: Sequence[str], lookup: Lookup) -> str:
    """One beat's written text with a mark at each bookmark."""
    written = [render(segment, lookup)[1].strip() for segment in segments]
    return " ".join(f" {MARK} ".join(written).split())


def reading_copy(script: Script, lookup: Lookup) -> str:
    """The whole scene: its title, then each beat numbered, wrapped, with its pause."""
    lines = [f"{script.title}  (escena «{script.scene}», {script.path.name})", ""]
    for i, beat in enumerate(script.beats, start=1):
        lines.append(f"{i}. {beat.name}")
        text = beat_text(beat.segments, lookup)
        lines += textwrap.wrap(text, WIDTH, initial_indent="   ", subsequent_indent="   ")
        if beat.pause_s:
            lines.append(f"   [pausa de {beat.pause_s:.1f} s]".replace(".", ",", 1))
        lines.append("")
    return "\n".join(lines)


HEADER = (
    f"Lee cada escena de corrido, con tus pausas; «{MARK}» marca un instante que espera una animación "
    "(no hace falta hacer nada en él). Guarda la toma en voiceover/recordings/<escena>.wav "
    "(o la clase entera en voiceover/recordings/lecture.wav)."
)
