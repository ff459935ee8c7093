"""Narration files: bad input is reported with the file, line and beat at fault."""
from __future__ import annotations

import pytest

from voiceover.script import ScriptError, load_script
from voiceover.spoken import say


def write(tmp_path, body: str):
    path = tmp_path / "escena.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_a_syntax_error_names_the_file_and_line(tmp_path):
    path = write(tmp_path, 'title = "T"\n\n[[beat]]\nname = "a"\ntext = "hola\n')
    with pytest.raises(ScriptError) as err:
        load_script("escena", path)
    assert f"{path}:5" in str(err.value)


def test_empty_text_names_the_beat_and_line(tmp_path):
    path = write(tmp_path, 'title = "T"\n[[beat]]\nname = "a"\ntext = "hola"\n\n[[beat]]\nname = "b"\ntext = "  "\n')
    with pytest.raises(ScriptError, match=rf"{path}:6: beat 'b': empty text"):
        load_script("escena", path)


def test_duplicate_bookmark_is_refused(tmp_path):
    path = write(tmp_path, 'title = "T"\n[[beat]]\nname = "a"\ntext = """\nuno {#x} dos\ntres {#x}\n"""\n')
    with pytest.raises(ScriptError, match=rf"{path}:6: beat 'a': duplicate bookmark 'x'"):
        load_script("escena", path)


def test_malformed_bookmark_is_refused(tmp_path):
    path = write(tmp_path, 'title = "T"\n[[beat]]\nname = "a"\ntext = "uno {#Mal Nombre} dos"\n')
    with pytest.raises(ScriptError, match=r"malformed bookmark"):
        load_script("escena", path)


def test_unspeakable_text_is_refused(tmp_path):
    path = write(tmp_path, 'title = "T"\n[[beat]]\nname = "a"\ntext = "hola 🔥 mundo"\n')
    with pytest.raises(ScriptError, match=rf"{path}:4: beat 'a': the speech engine cannot speak"):
        load_script("escena", path)


def test_bookmarks_split_the_text_into_segments(tmp_path):
    path = write(tmp_path, 'title = "T"\n[[beat]]\nname = "a"\ntext = "uno {#x} dos {#y} tres"\npause_s = 0.2\n')
    beat = load_script("escena", path).beats[0]
    assert beat.segments == ("uno", "dos", "tres")
    assert beat.bookmarks == ("x", "y")
    assert beat.pause_s == 0.2


def test_numbers_are_said_the_spanish_way():
    assert say(6_738_415_616, "millones").spoken == "unos seis mil setecientos treinta y ocho millones"
    assert say(6_738_415_616, "entero").written == "6\u202f738\u202f415\u202f616"
    assert say(0.6683937823834197, "porcentaje").spoken == "sesenta y seis coma ocho por ciento"
    assert say(0.6683937823834197, "porcentaje").written == "66,8 %"
    assert say(2 / 3, "fraccion").spoken == "dos tercios"
    assert say(0.6683937823834197, "fraccion").spoken == "algo más de dos tercios"
    assert say(2.29, "decimal").spoken == "dos coma veintinueve"
    assert say(2.05, "decimal").spoken == "dos coma cero cinco"
