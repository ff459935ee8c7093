"""`ffn-video handout`: the students' PDF, read back as a reader would (pdftoppm, pdftotext)."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
from fixtures.classroom_lecture import own_renders
from PIL import Image

from lecture.cli import main

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="sin poppler-utils (pdftoppm): ./setup.sh lo instala"),
]

SLUGS = ["tiny_c-01-uno", "tiny_c-02-dos", "tiny_c-03-tres", "tiny_a-01-uno"]


@pytest.fixture(scope="module")
def handout(tmp_path_factory):
    root = tmp_path_factory.mktemp("handout")
    mp = pytest.MonkeyPatch()
    for key, value in own_renders(root).items():
        mp.setenv(key, value)
    try:
        assert main(["handout"]) == 0
        yield root / "renders" / "preview"
    finally:
        mp.undo()


def poppler(*args: str) -> str:
    return subprocess.run(list(args), capture_output=True, text=True, check=True).stdout


def test_a_cover_then_a_page_per_scene_rendered_by_pdftoppm(handout, tmp_path):
    pdf = handout / "handout.pdf"
    info = poppler("pdfinfo", str(pdf))
    assert re.search(r"^Pages:\s+3$", info, re.M) and "(A4)" in info
    poppler("pdftoppm", "-r", "40", "-png", str(pdf), str(tmp_path / "page"))
    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) == 3
    for page in pages:
        with Image.open(page) as im:
            assert im.size == (331, 468)  # A4 at 40 dpi
    shutil.copy2(pages[1], handout / "handout" / "check-page-2.png")  # to look at


def test_every_beats_last_frame_is_in_the_pdf(handout, tmp_path):
    listing = poppler("pdfimages", "-list", str(handout / "handout.pdf")).splitlines()[2:]
    assert [int(line.split()[0]) for line in listing] == [2, 2, 2, 3]  # pages of the four stills
    poppler("pdfimages", "-png", str(handout / "handout.pdf"), str(tmp_path / "img"))
    images = sorted(tmp_path.glob("img-*.png"))
    assert len(images) == len(SLUGS)
    for got, slug in zip(images, SLUGS):
        want = handout / "handout" / f"{slug}.png"
        a = np.asarray(Image.open(got).convert("RGB"), dtype=float)
        b = np.asarray(Image.open(want).convert("RGB"), dtype=float)
        assert a.shape == b.shape == (270, 480, 3) and np.abs(a - b).mean() < 1.0, slug


def test_the_text_layer_has_every_title_narration_number_and_reference(handout):
    text = poppler("pdftotext", "-layout", str(handout / "handout.pdf"), "-")
    for title in ("Escena de prueba C", "Escena de prueba A"):
        assert text.count(title) >= 2  # the contents and the scene's own page
    for said in ("Un cuadrado. Que gira.", "Ahora se mueve a la derecha.", "Y se vuelve un círculo que gira."):
        assert said in text
    assert "Paso 2 de 3" in text and "Los números de esta escena" in text
    assert "768 dimensiones" in text and "params.gpt2_small.d_model" in text
    assert "publicado: Radford et al., 2019" in text  # the audit's kind and citation
    assert "Language Models are" in text  # the reference in full
    fonts = poppler("pdffonts", str(handout / "handout.pdf"))
    assert "DejaVu" in fonts and all(line.split()[-5] == "yes" for line in fonts.splitlines()[2:])  # embedded


def test_the_page_it_was_made_from_is_kept(handout):
    page = (handout / "handout" / "index.html").read_text(encoding="utf-8")
    assert "<html lang='es'>" in page and all(f"src='{slug}.png'" in page for slug in SLUGS)
