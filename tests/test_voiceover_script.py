"""Narration files: bad input is reported with the file, line and beat at fault."""

from __future__ import annotations

import re

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
    assert say(6_738_415_616, "entero").written == "6\u00a0738\u00a0415\u00a0616"
    assert say(0.6683937823834197, "porcentaje").spoken == "sesenta y seis coma ocho por ciento"
    assert say(0.6683937823834197, "porcentaje").written == "66,8\u00a0%"
    assert say(2 / 3, "fraccion").spoken == "dos tercios"
    assert say(0.6683937823834197, "fraccion").spoken == "algo más de dos tercios"
    assert say(2.29, "decimal").spoken == "dos coma veintinueve"
    assert say(2.05, "decimal").spoken == "dos coma cero cinco"


# -- numbers from ffn_core and bookmarks scenes wait for ------------------------------

import types  # noqa: E402

from voiceover.timeline import require_bookmarks  # noqa: E402
from voiceover.timing import build_timeline  # noqa: E402

FIELDS = '''title = "T"

[[beat]]
name = "cifras"
text = """
El bloque suma {params.llama2_7b.attention_per_layer:millones} de pesos,
y la capa guarda {params.no_existe:porcentaje} de ellos.
"""
'''


class NeverSpeaks:
    """Numbers are resolved before any synthesis: an engine that must not be called."""

    name = "ninguno"

    def settings(self) -> dict:
        return {}

    def synthesize(self, text, out_wav):
        raise AssertionError("synthesis before the numbers were checked")


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "no_recordings"))


def test_a_missing_number_key_names_the_script_line_and_key(tmp_path, cache):
    path = write(tmp_path, FIELDS)
    with pytest.raises(ScriptError) as err:
        build_timeline("escena", engine=NeverSpeaks(), script=load_script("escena", path))
    message = str(err.value)
    assert message.startswith(f"{path}:7: beat 'cifras': ")
    assert "number key 'params.no_existe'" in message


def test_a_number_in_the_wrong_format_names_its_field(tmp_path, cache):
    path = write(tmp_path, 'title = "T"\n[[beat]]\nname = "a"\ntext = "Son {x:entero} pesos."\n')
    with pytest.raises(ScriptError, match=rf"{path}:4: beat 'a': field {{x:entero}}: 2.5 is not an integer"):
        build_timeline(
            "escena", engine=NeverSpeaks(), script=load_script("escena", path), lookup={"x": 2.5}.__getitem__
        )


def test_numbers_are_spoken_and_written_from_the_registry(tmp_path, cache):
    path = write(tmp_path, 'title = "T"\n[[beat]]\nname = "a"\ntext = "Son {n:millones} de pesos, {r:fraccion}."\n')
    spoken = []

    class Recorder(NeverSpeaks):
        def synthesize(self, text, out_wav):
            import numpy as np
            import soundfile

            spoken.append(text)
            soundfile.write(str(out_wav), np.zeros(4800, np.float32), 48_000, subtype="PCM_16", format="WAV")

    timeline = build_timeline(
        "escena",
        engine=Recorder(),
        script=load_script("escena", path),
        lookup={"n": 6_738_415_616, "r": 2 / 3}.__getitem__,
    )
    assert spoken == ["Son unos seis mil setecientos treinta y ocho millones de pesos, dos tercios."]
    assert timeline.beats[0].segments[0].text == "Son unos 6\u00a0738 millones de pesos, dos tercios."


def test_the_shipped_fields_are_well_formed():
    from voiceover.paths import SCRIPT_DIR
    from voiceover.spoken import FORMATS

    for path in sorted(SCRIPT_DIR.glob("*.toml")):
        script = load_script(path.stem, path)
        for field in script.fields():
            key, _, fmt = field.partition(":")
            assert fmt in FORMATS, (path, field)


def timeline_with_bookmarks(tmp_path):
    from voiceover.timeline import BeatTiming, Segment, Timeline

    seg = Segment("hola", "hola", 0.0, 1.0, "")
    beat = BeatTiming("saludo", 0.0, 2.0, 0.5, {"hola": 1.0}, (seg, seg))
    return Timeline("escena", "T", (beat,), 2.5, str(tmp_path / "escena.toml"))


def test_a_bookmark_the_scene_waits_for_but_the_script_lacks_is_named(tmp_path):
    timeline = timeline_with_bookmarks(tmp_path)
    assert require_bookmarks(timeline, "saludo", ["hola"]) == {"hola": 1.0}
    with pytest.raises(ScriptError) as err:
        require_bookmarks(timeline, "saludo", ["hola", "adios"])
    message = str(err.value)
    assert f"{tmp_path / 'escena.toml'}: scene 'escena', beat 'saludo' waits for bookmark 'adios'" in message
    assert "(it has: hola)" in message and "{#adios}" in message


def test_the_scene_kit_names_a_missing_bookmark_without_rendering(tmp_path):
    from scenes.kit.narrated import Beat, TimelineError
    from voiceover.timeline import timing_fact

    timeline = timeline_with_bookmarks(tmp_path)
    # What Beat reads of its scene: the clock, and the timeline's facts through timing_fact.
    scene = types.SimpleNamespace(
        timeline=timeline, clock_s=0.0, timing_fact=lambda *fact: timing_fact(timeline, *fact)
    )
    beat = Beat(scene, timeline.beat("saludo"))
    assert beat.until("hola") == pytest.approx(1.0)
    with pytest.raises(TimelineError, match=r"scene 'escena', beat 'saludo' waits for bookmark 'adios'"):
        beat.until("adios")


def test_a_beat_the_scene_asks_for_but_the_script_lacks_is_named(tmp_path):
    with pytest.raises(ScriptError, match=r"scene 'escena' has no beat 'despedida' \(beats: saludo\)"):
        require_bookmarks(timeline_with_bookmarks(tmp_path), "despedida", [])


@pytest.mark.parametrize(
    "text, message",
    [
        ("hola {#x mundo", r":4: beat 'a': unbalanced brace '\{'"),
        ("hola {clave} mundo", r":4: beat 'a': malformed number field '\{clave\}'"),
        ("hola {#} mundo", r":4: beat 'a': malformed bookmark"),
        ("a < b", r":4: beat 'a': the speech engine cannot speak '<'"),
    ],
)
def test_each_malformed_text_names_file_line_and_beat(tmp_path, text, message):
    path = write(tmp_path, f'title = "T"\n[[beat]]\nname = "a"\ntext = "{text}"\n')
    with pytest.raises(ScriptError, match=re.escape(str(path)) + message):
        load_script("escena", path)


def test_a_bookmark_repeated_in_another_beat_names_both(tmp_path):
    path = write(
        tmp_path,
        'title = "T"\n[[beat]]\nname = "a"\ntext = "uno {#x} dos"\n[[beat]]\nname = "b"\ntext = "tres {#x} cuatro"\n',
    )
    with pytest.raises(ScriptError, match=rf"{path}:7: beat 'b': duplicate bookmark 'x' \(already in beat 'a'\)"):
        load_script("escena", path)


def test_a_beat_names_the_works_it_rests_on_with_sources(tmp_path):
    path = write(tmp_path, 'title = "T"\n[[beat]]\nname = "a"\ntext = "hola"\nsources = ["geva2021"]\n')
    beat = load_script("escena", path).beats[0]
    assert beat.sources == ("geva2021",)
    path = write(tmp_path, 'title = "T"\n[[beat]]\nname = "a"\ntext = "hola"\nfuentes = ["geva2021"]\n')
    with pytest.raises(ScriptError, match=r"unknown keys \['fuentes'\] \(allowed: name, text, pause_s, sources\)"):
        load_script("escena", path)


# --- pauses with bounds, and files that are not UTF-8 -----------------------------------


@pytest.mark.parametrize("pause", ["inf", "-inf", "nan", "1e6", "30.5", "-0.1", "true", '"0.5"'])
def test_a_pause_that_is_not_finite_or_out_of_0_to_30_s_is_refused_naming_file_line_and_beat(tmp_path, pause):
    path = write(
        tmp_path,
        'title = "T"\n[[beat]]\nname = "a"\ntext = "hola"\n\n'
        f'[[beat]]\nname = "b"\ntext = "adiós"\npause_s = {pause}\n',
    )
    with pytest.raises(
        ScriptError, match=rf"^{path}:9: beat 'b': pause_s debe ser un número finito.*0 <= pause_s <= 30"
    ):
        load_script("escena", path)


@pytest.mark.parametrize("pause", ["0", "0.0", "30", "12.5"])
def test_a_pause_from_0_to_30_s_is_kept(tmp_path, pause):
    path = write(tmp_path, f'title = "T"\n[[beat]]\nname = "a"\ntext = "hola"\npause_s = {pause}\n')
    assert load_script("escena", path).beats[0].pause_s == float(pause)


def test_a_script_that_is_not_utf8_is_refused_naming_the_file_and_line(tmp_path):
    path = tmp_path / "escena.toml"
    path.write_bytes('title = "T"\n[[beat]]\nname = "a"\ntext = "canción"\n'.encode("latin-1"))
    with pytest.raises(ScriptError, match=rf"^{path}:4: no es texto UTF-8"):
        load_script("escena", path)


@pytest.mark.parametrize("name", ["../escena", "Escena", "es-cena"])
def test_a_script_name_that_is_not_a_plain_file_name_is_refused(tmp_path, name):
    path = write(tmp_path, 'title = "T"\n[[beat]]\nname = "a"\ntext = "hola"\n')
    with pytest.raises(ScriptError, match="no vale: solo minúsculas"):
        load_script(name, path)


def test_references_that_are_not_utf8_are_refused_naming_the_file(tmp_path):
    from voiceover.references import BibliographyError, load_references

    path = tmp_path / "refs.toml"
    path.write_bytes('[[reference]]\nkey = "x"\ntitle = "Año"\n'.encode("latin-1"))
    with pytest.raises(BibliographyError, match=rf"^{path}:3: no es texto UTF-8"):
        load_references(path)


def test_a_lexicon_that_is_not_utf8_is_refused_naming_the_file(tmp_path):
    from voiceover.engines.lexicon import load_lexicon

    path = tmp_path / "lexicon.toml"
    path.write_bytes('[respell]\nMLP = "eme ele pé"\n'.encode("latin-1"))
    with pytest.raises(ScriptError, match=rf"^{path}:2: no es texto UTF-8"):
        load_lexicon(path)


def test_a_scene_module_that_is_not_utf8_is_refused_naming_it(tmp_path):
    from voiceover.script import declared_script

    path = tmp_path / "escena.py"
    path.write_bytes('# canción\nclass A:\n    script = "a"\n'.encode("latin-1"))
    with pytest.raises(ScriptError, match=rf"^{path}:1: no es texto UTF-8"):
        declared_script(path, "A")
