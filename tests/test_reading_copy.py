"""`ffn-video script`: the script a lecturer reads aloud for a one-take recording."""

from __future__ import annotations

from pathlib import Path

from lecture.cli import main
from voiceover.reading_copy import MARK, reading_copy
from voiceover.script import load_script

SCRIPT = """title = "Prueba"

[[beat]]
name = "uno"
text = "{#inicio}Hay {params.llama2_7b.d_model:entero} dimensiones. {#mitad}Y nada más."
pause_s = 0.5

[[beat]]
name = "dos"
text = "Segundo beat, sin marcas."
pause_s = 0
"""


def test_each_beat_is_numbered_with_marks_for_its_bookmarks_numbers_written_and_its_pause(tmp_path):
    path = tmp_path / "prueba.toml"
    path.write_text(SCRIPT, encoding="utf-8")
    copy = reading_copy(load_script("prueba", path), {"params.llama2_7b.d_model": 4096}.__getitem__)
    lines = copy.splitlines()
    assert lines[0] == "Prueba  (escena «prueba», prueba.toml)"
    assert "1. uno" in lines and "2. dos" in lines
    assert f"{MARK} Hay 4 096 dimensiones. {MARK} Y nada más." in copy  # as the subtitles write it
    assert "{" not in copy and "#inicio" not in copy
    assert "[pausa de 0,5 s]" in copy and copy.count("[pausa") == 1  # a beat with no pause says none


def test_the_command_prints_the_plans_scenes_in_order_or_writes_a_file(tmp_path, capsys):
    assert main(["script", "relu", "xor"]) == 0
    out = capsys.readouterr().out
    assert out.index("(escena «xor»") < out.index("(escena «relu»")  # the plan's order, not the arguments'
    assert "voiceover/recordings/<escena>.wav" in out.splitlines()[0]
    target = tmp_path / "guion.txt"
    assert main(["script", "relu", "--out", str(target)]) == 0
    assert Path(target).read_text(encoding="utf-8").count("(escena «") == 1


def test_an_unknown_scene_is_one_spanish_line_and_status_2(capsys):
    assert main(["script", "nada"]) == 2
    err = capsys.readouterr().err
    assert "escena(s) desconocida(s): nada" in err and len(err.strip().splitlines()) == 1
