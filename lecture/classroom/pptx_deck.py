"""The PowerPoint deck (`ffn-video slides --format pptx`): one slide per beat, its clip
embedded over the whole slide (its first frame as the poster), a discreet label of where it
is, and the beat's narration as the slide's notes. Written with python-pptx; the video
plays when clicked (PowerPoint's own controls), with its synthetic narration."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from lecture.classroom.lesson import Chapter
from voiceover.atomic import atomic_path

SLIDE_WIDTH_EMU = 12_192_000  # 13.333 in: PowerPoint's 16:9 slide
LABEL_PT = 11


def write_pptx(
    chapters: Sequence[Chapter],
    clips: Mapping[str, Path],
    posters: Mapping[str, Path],
    out: Path,
    sources: Mapping[str, str],
) -> Path:
    """Write the deck to `out`; `clips` and `posters` map beat slugs to files, `sources`
    reference keys to their short labels."""
    from pptx import Presentation
    from pptx.dml.color import RGBColor
    from pptx.util import Emu, Pt

    deck = Presentation()
    width, height = (chapters[0].width, chapters[0].height) if chapters else (16, 9)
    slide_width, slide_height = Emu(SLIDE_WIDTH_EMU), Emu(round(SLIDE_WIDTH_EMU * height / width))
    deck.slide_width, deck.slide_height = slide_width, slide_height
    blank = deck.slide_layouts[6]
    core = deck.core_properties
    core.title, core.language = "Diapositivas de la clase", "es-419"
    for chapter in chapters:
        for beat in chapter.beats:
            slide = deck.slides.add_slide(blank)
            background = slide.background.fill
            background.solid()
            background.fore_color.rgb = RGBColor(0, 0, 0)
            slide.shapes.add_movie(
                str(clips[beat.slug]),
                0,
                0,
                slide_width,
                slide_height,
                poster_frame_image=str(posters[beat.slug]),
                mime_type="video/mp4",
            )
            label = slide.shapes.add_textbox(Pt(8), Emu(slide_height - Pt(26)), Pt(400), Pt(20))
            run = label.text_frame.paragraphs[0].add_run()
            run.text = f"{chapter.title} · {beat.number}/{len(chapter.beats)}"
            run.font.size = Pt(LABEL_PT)
            run.font.color.rgb = RGBColor(0xCF, 0xD6, 0xE4)
            notes = [f"{chapter.title} · beat {beat.number} de {len(chapter.beats)} («{beat.name}»)", beat.text]
            if beat.sources:
                notes.append("Fuentes: " + "; ".join(sources.get(key, key) for key in beat.sources))
            slide.notes_slide.notes_text_frame.text = "\n\n".join(notes)
    with atomic_path(out) as tmp:
        deck.save(str(tmp))
    return out
