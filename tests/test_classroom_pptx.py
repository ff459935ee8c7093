"""`ffn-video slides --format pptx`: one PowerPoint slide per beat, its clip, its narration."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.classroom_lecture import own_renders

from lecture.cli import main

pytestmark = pytest.mark.slow


@pytest.fixture
def renders(tmp_path, monkeypatch) -> Path:
    for key, value in own_renders(tmp_path).items():
        monkeypatch.setenv(key, value)
    return tmp_path / "renders" / "preview"


def test_the_pptx_reopens_with_one_slide_one_clip_and_the_narration_per_beat(renders, capsys):
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    assert main(["slides", "--format", "pptx"]) == 0
    out = renders / "slides" / "lecture.pptx"
    assert capsys.readouterr().out.strip() == str(out)
    deck = Presentation(str(out))
    slugs = ["tiny_c-01-uno", "tiny_c-02-dos", "tiny_c-03-tres", "tiny_a-01-uno"]
    assert len(deck.slides) == len(slugs)
    assert deck.slide_width * 480 == pytest.approx(deck.slide_height * 854, rel=1e-3)  # the video's shape
    texts = [
        "Un cuadrado. Que gira.",
        "Ahora se mueve a la derecha.",
        "Y se vuelve un círculo que gira.",
        "Primera prueba. Un círculo.",
    ]
    clips = renders / "slides" / "clips"
    for slide, slug, text in zip(deck.slides, slugs, texts):
        movies = [s for s in slide.shapes if s.shape_type == MSO_SHAPE_TYPE.MEDIA]
        assert len(movies) == 1
        media = [r.target_part for r in slide.part.rels.values() if r.reltype.endswith("/video")]
        assert len(media) == 1 and media[0].content_type == "video/mp4"
        assert media[0].blob == (clips / f"{slug}.mp4").read_bytes()  # the beat's own clip, embedded whole
        notes = slide.notes_slide.notes_text_frame.text
        assert text in notes and "beat" in notes
    assert "Escena de prueba C · beat 2 de 3" in deck.slides[1].notes_slide.notes_text_frame.text
    parts = [p for p in deck.part.package.iter_parts() if p.content_type == "video/mp4"]
    assert len(parts) == len(slugs)


def test_only_some_scenes(renders):
    from pptx import Presentation

    assert main(["slides", "--format", "pptx", "--only", "tiny_a"]) == 0
    deck = Presentation(str(renders / "slides" / "lecture.pptx"))
    assert len(deck.slides) == 1
    assert "Primera prueba." in deck.slides[0].notes_slide.notes_text_frame.text
