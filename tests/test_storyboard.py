"""`ffn-video storyboard`: one page, a still at every bookmark and beat end, from the renders."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from fixtures.build_support import fresh_copy
from PIL import Image

from lecture.cli import main

pytestmark = pytest.mark.slow


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    return fresh_copy(tmp_path / "lecture").apply(monkeypatch)


def test_storyboard_has_a_still_per_bookmark_and_beat_end_with_its_narration(tiny, capsys):
    assert main(["storyboard"]) == 0
    page = tiny.out() / "storyboard" / "index.html"
    assert capsys.readouterr().out.strip() == str(page)
    text = page.read_text(encoding="utf-8")
    # tiny_a: one beat with one bookmark -> 2 stills; tiny_b: one beat, no bookmark -> 1.
    images = re.findall(r"<img src='([^']+)'", text)
    assert images == ["tiny_a-000.png", "tiny_a-001.png", "tiny_b-000.png"]
    for name in images:
        with Image.open(page.parent / name) as im:
            assert im.size[0] == 480 and im.size[1] == 270
    assert "Primera prueba." in text and "Un círculo." in text and "Segunda prueba, un cuadrado." in text
    assert "params.gpt2_small.d_model" in text  # the number tiny_a read
    assert "sin problemas de composición" in text


def test_the_bookmark_still_shows_what_the_scene_drew_by_then(tiny):
    assert main(["storyboard"]) == 0
    folder = tiny.out() / "storyboard"
    # At the bookmark the label has faded in, and the circle has not yet appeared: by the beat's
    # end the circle is there, so the two stills differ on the left of the frame.
    at_mark = np.asarray(Image.open(folder / "tiny_a-000.png").convert("L"), dtype=float)
    at_end = np.asarray(Image.open(folder / "tiny_a-001.png").convert("L"), dtype=float)
    left = slice(0, at_mark.shape[1] // 3)
    assert at_end[:, left].mean() > at_mark[:, left].mean() + 0.2


def test_layout_problems_of_a_beat_are_shown_in_red_under_its_end(tiny):
    work = tiny.work("tiny_b")
    log_file = next(work.glob("*.log.json"))
    log = json.loads(log_file.read_text(encoding="utf-8"))
    log["layout_problems"] = ["beat 'uno': Text('Segunda') leaves the frame"]
    log_file.write_text(json.dumps(log), encoding="utf-8")
    assert main(["storyboard"]) == 0
    text = (tiny.out() / "storyboard" / "index.html").read_text(encoding="utf-8")
    assert "<div class='p'>beat &#x27;uno&#x27;: Text(&#x27;Segunda&#x27;) leaves the frame</div>" in text
    assert "1 problemas de composición" in text


def test_only_one_scene_keeps_lecture_times_and_a_missing_render_is_named(tiny, capsys):
    assert main(["storyboard", "--only", "tiny_b"]) == 0
    text = (tiny.out() / "storyboard" / "index.html").read_text(encoding="utf-8")
    assert "tiny_a-000.png" not in text and "empieza en 0:0" not in text.split("tiny_b")[1][:40]
    (tiny.out() / "scenes" / "tiny_a.mp4").unlink()
    assert main(["storyboard"]) == 2
    assert "sin render de: tiny_a" in capsys.readouterr().err


def test_the_storyboard_lists_every_visible_string_of_each_scene_beat_by_beat(tiny):
    # What the render logged for each beat (`visible_texts`), read as the render wrote it.
    work = tiny.work("tiny_a")
    log = json.loads(next(work.glob("*.log.json")).read_text(encoding="utf-8"))
    assert log["visible_texts"] == {"uno": ["768"]}  # TinyA's one label, the width it read
    assert main(["storyboard"]) == 0
    text = (tiny.out() / "storyboard" / "index.html").read_text(encoding="utf-8")
    section = text.split("id='tiny_a'")[1].split("id='tiny_b'")[0]
    assert "1 textos en pantalla, por beat" in section
    assert "<tr><td>uno</td><td><ul><li>768</li></ul></td></tr>" in section
    assert "0 textos en pantalla" in text.split("id='tiny_b'")[1]  # the square scene shows none


def test_visible_strings_are_escaped_and_formulas_marked_as_tex(tiny):
    work = tiny.work("tiny_b")
    log_file = next(work.glob("*.log.json"))
    log = json.loads(log_file.read_text(encoding="utf-8"))
    log["visible_texts"] = {"uno": ["nota = <valor>", r"x \leftarrow x + \mathrm{FFN}(x)"], "dos": ["llave kᵢ"]}
    log_file.write_text(json.dumps(log), encoding="utf-8")
    assert main(["storyboard"]) == 0
    section = (tiny.out() / "storyboard" / "index.html").read_text(encoding="utf-8").split("id='tiny_b'")[1]
    assert "3 textos en pantalla, por beat" in section
    assert "<li>nota = &lt;valor&gt;</li>" in section
    assert r"<li class='tex'>x \leftarrow x + \mathrm{FFN}(x)</li>" in section
    assert section.index("<td>uno</td>") < section.index("<td>dos</td>") and "<li>llave kᵢ</li>" in section


@pytest.fixture
def sparse_lecture(tmp_path, monkeypatch):
    """A lecture of two fixture scenes (tests/fixtures/sparse_scenes.py) built at preview:
    a large drawing under its title, then a title over nothing."""
    import shutil

    from fixtures.build_support import FIXTURES, quiet_console

    from lecture.build.pipeline import build

    lecture = fresh_copy(tmp_path / "lecture", with_build=False)
    shutil.copy2(FIXTURES / "sparse_scenes.py", lecture.root / "sparse_scenes.py")
    lecture.plan.write_text(
        "".join(
            f'[[scene]]\nname = "{name}"\nmodule = "{lecture.root / "sparse_scenes.py"}"\nclass = "{cls}"\n'
            f'script = "{script}"\nscript_path = "{lecture.script(script)}"\n\n'
            for name, cls, script in (("full", "FullStage", "tiny_a"), ("empty", "TitleOverNothing", "tiny_b"))
        ),
        encoding="utf-8",
    )
    lecture.apply(monkeypatch)
    report = build("preview", jobs=1, console=quiet_console())
    assert report.ok, report.failed
    return lecture


def test_check_fails_on_a_title_over_nothing_and_names_its_stills(sparse_lecture, capsys):
    assert main(["storyboard"]) == 0  # without --check the page is written and nothing fails
    capsys.readouterr()
    assert main(["storyboard", "--check"]) == 1
    err = capsys.readouterr().err
    assert "empty, beat 'uno', fin del beat" in err and "empty-000.png" in err
    assert "cuadro casi vacío" in err and "dibujo principal bajo" in err
    assert "full," not in err  # the large drawing passes
    # The cut from full's last frame, a large drawing, to empty's first, nothing: flagged too.
    cut = "empty, beat 'uno', primer fotograma (0.00 s, empty-inicio.png): corte desde el último cuadro de «full»"
    assert cut in err
    assert "2 fotogramas escasos" in err
    text = (sparse_lecture.out() / "storyboard" / "index.html").read_text(encoding="utf-8")
    full, empty = text.split("id='full'")[1].split("id='empty'")
    assert "escaso:" not in full and full.count("texto mínimo 42 px") == 2  # the title, 44 pt
    assert "<div class='m flag'>" in empty and "<div class='p sparse'>escaso: cuadro casi vacío" in empty
    assert "<span class='p'>2 fotogramas escasos</span>" in text
    assert "<h2>Cortes entre escenas</h2>" in text and "src='empty-inicio.png'" in text
    assert (sparse_lecture.out() / "storyboard" / "empty-inicio.png").is_file()


def test_check_passes_when_every_still_carries_a_drawing(sparse_lecture, capsys):
    assert main(["storyboard", "--check", "--only", "full"]) == 0
    assert "escasos" not in capsys.readouterr().err
