"""reveal.js for the deck: pinned, hash-checked, copied beside the deck so it opens offline."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from fixtures.classroom_lecture import own_renders

from lecture.classroom import revealjs
from lecture.cli import main
from voiceover.atomic import sha256_file


def test_the_installed_files_are_the_pinned_ones():
    root = revealjs.check()  # setup.sh installs them; a missing one names the repair
    assert root.name == f"reveal.js-{revealjs.VERSION}"
    assert set(revealjs.FILES) == {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_a_damaged_or_missing_file_is_refused_with_its_repair(tmp_path):
    root = tmp_path / "reveal"
    shutil.copytree(revealjs.check(), root)
    (root / "dist" / "reveal.js").write_text("/* not reveal.js */", encoding="utf-8")
    with pytest.raises(revealjs.RevealAssetError, match=r"dist/reveal.js está dañado .* se repara con: "):
        revealjs.check(root)
    (root / "dist" / "reveal.js").unlink()
    with pytest.raises(revealjs.RevealAssetError, match=r"falta .*dist/reveal.js"):
        revealjs.copy_into(tmp_path / "deck", root)


@pytest.mark.slow
def test_the_deck_folder_holds_everything_it_loads(tmp_path, monkeypatch, capsys):
    for key, value in own_renders(tmp_path).items():
        monkeypatch.setenv(key, value)
    assert main(["slides"]) == 0
    deck = Path(capsys.readouterr().out.strip())
    folder = deck.parent
    assert deck == tmp_path / "renders" / "preview" / "slides" / "index.html"
    page = deck.read_text(encoding="utf-8")
    for name, digest in revealjs.FILES.items():
        assert sha256_file(folder / "reveal.js" / name) == digest
    loaded = re.findall(r"(?:src|href|data-src|poster)=['\"]([^'\"]+)['\"]", page)
    assert loaded and not [u for u in loaded if "//" in u or u.startswith("/")]  # nothing from a network
    assert all((folder / u).is_file() for u in loaded), [u for u in loaded if not (folder / u).is_file()]
    assert page.count('<video class="beat"') == 4 and page.count('<aside class="notes">') == 4
    assert 'navigationMode: "linear"' in page and "<html lang='es'>" in page
