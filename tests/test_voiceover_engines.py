"""Engines behind one interface: the environment picks the voice, Piper falls back to
espeak-ng with a clear message when it cannot run, and a Piper voice really speaks
through the `piper` program when one is there."""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest
import soundfile

from voiceover.clips import clip_key
from voiceover.engines import DEFAULT_ENGINE, ENGINES, EngineError, default_engine, engine_class, resolve_engine
from voiceover.engines.espeak import EspeakEngine
from voiceover.engines.piper import NATURAL_WPM, PiperEngine
from voiceover.script import load_script
from voiceover.timing import build_timeline

ENV_KEYS = ("FFN_VOICE_ENGINE", "FFN_VOICE", "FFN_VOICE_SPEED", "FFN_PIPER_MODEL", "FFN_RECORDINGS_DIR")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in ENV_KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "no_recordings"))


FAKE_PIPER = '''#!{python}
"""A stand-in for piper-tts's `piper` program: same options, a tone instead of a voice."""
import argparse, json, math, struct, sys, wave
p = argparse.ArgumentParser()
p.add_argument("-m", "--model", required=True)
p.add_argument("-c", "--config")
p.add_argument("-f", "--output-file", "--output_file")
p.add_argument("--length-scale", "--length_scale", type=float, default=1.0)
p.add_argument("-s", "--speaker", type=int)
args = p.parse_args()
text = sys.stdin.read()
with open({log!r}, "a", encoding="utf-8") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "stdin": text}}) + "\\n")
rate = json.load(open(args.config))["audio"]["sample_rate"]
frames = int(rate * 0.05 * len(text.strip()) * args.length_scale)  # 50 ms a character
with wave.open(args.output_file, "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)
    w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 220 * i / rate)))
                           for i in range(frames)))
'''


@pytest.fixture
def fake_piper(tmp_path, monkeypatch):
    """A `piper` program on PATH and a voice model (.onnx + .onnx.json) in a temp dir."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "piper_calls.jsonl"
    exe = bindir / "piper"
    exe.write_text(FAKE_PIPER.format(python=sys.executable, log=str(log)), encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    model = tmp_path / "voces" / "es_MX-prueba-medium.onnx"
    model.parent.mkdir()
    model.write_bytes(b"not a real network")
    model.with_name(model.name + ".json").write_text(json.dumps({"audio": {"sample_rate": 22050}}))
    return model, log


def test_without_settings_the_default_engine_speaks():
    assert DEFAULT_ENGINE in ENGINES
    assert isinstance(default_engine(), engine_class(DEFAULT_ENGINE))


def test_espeak_speaks_latin_american_spanish_by_default():
    engine = resolve_engine(env={"FFN_VOICE_ENGINE": "espeak"}).engine
    assert isinstance(engine, EspeakEngine)
    assert (engine.voice, engine.speed_wpm) == ("es-419", 155)


def test_every_registered_engine_is_a_class_in_its_own_module():
    modules = set()
    for name in ENGINES:
        cls = engine_class(name)
        assert callable(cls.from_options) and callable(cls.synthesize)
        modules.add(cls.__module__)
    assert len(modules) == len(ENGINES)
    assert isinstance(resolve_engine("espeak-ng").engine, EspeakEngine)  # an alias


def test_environment_sets_engine_voice_and_speed(monkeypatch):
    monkeypatch.setenv("FFN_VOICE_ENGINE", "espeak")
    monkeypatch.setenv("FFN_VOICE", "es")
    monkeypatch.setenv("FFN_VOICE_SPEED", "170")
    engine = default_engine()
    assert (engine.voice, engine.speed_wpm) == ("es", 170)


def test_explicit_options_override_the_environment(monkeypatch):
    monkeypatch.setenv("FFN_VOICE_ENGINE", "espeak")
    monkeypatch.setenv("FFN_VOICE_SPEED", "170")
    assert resolve_engine(speed_wpm=140).engine.speed_wpm == 140


@pytest.mark.parametrize(
    "env, message",
    [
        ({"FFN_VOICE_ENGINE": "festival"}, "unknown speech engine 'festival'"),
        ({"FFN_VOICE_ENGINE": "espeak", "FFN_VOICE_SPEED": "rápido"}, "whole words per minute"),
        ({"FFN_VOICE_ENGINE": "espeak", "FFN_VOICE_SPEED": "900"}, "outside 80-450"),
    ],
)
def test_bad_engine_settings_are_refused_by_name(env, message):
    with pytest.raises(EngineError, match=message):
        resolve_engine(env=env)


def test_an_unknown_espeak_voice_is_an_error_naming_it(tmp_path):
    with pytest.raises(EngineError, match="espeak-ng has no voice 'xx-nada'"):
        EspeakEngine(voice="xx-nada").synthesize("hola", tmp_path / "a.wav")


def test_piper_without_a_model_falls_back_to_espeak_and_says_why(capsys, monkeypatch):
    monkeypatch.setenv("FFN_VOICE_ENGINE", "piper")
    engine = default_engine()
    assert isinstance(engine, EspeakEngine)
    err = capsys.readouterr().err
    assert "Piper no disponible" in err and "modelo de voz" in err and "espeak-ng" in err


def test_piper_with_a_missing_model_file_names_it(tmp_path):
    choice = resolve_engine(env={"FFN_PIPER_MODEL": str(tmp_path / "no_existe.onnx")})
    assert isinstance(choice.engine, EspeakEngine)
    assert f"{tmp_path / 'no_existe.onnx'} no existe" in choice.notice


def test_piper_model_without_its_json_is_refused(tmp_path, fake_piper):
    model, _ = fake_piper
    model.with_name(model.name + ".json").unlink()
    choice = resolve_engine(env={"FFN_PIPER_MODEL": str(model)})
    assert isinstance(choice.engine, EspeakEngine)
    assert "configuración" in choice.notice and ".onnx.json" in choice.notice


def test_piper_without_its_program_falls_back(tmp_path, fake_piper, monkeypatch):
    model, _ = fake_piper
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "nowhere" / "python"))
    choice = resolve_engine(env={"FFN_PIPER_MODEL": str(model)})
    assert isinstance(choice.engine, EspeakEngine)
    assert "`piper`" in choice.notice and "ffn-video[piper]" in choice.notice


def test_an_explicit_espeak_choice_ignores_a_piper_model(fake_piper):
    model, _ = fake_piper
    choice = resolve_engine(env={"FFN_PIPER_MODEL": str(model), "FFN_VOICE_ENGINE": "espeak"})
    assert isinstance(choice.engine, EspeakEngine) and choice.notice is None


def test_piper_speaks_through_its_program_and_the_timeline_measures_it(tmp_path, fake_piper):
    model, log = fake_piper
    choice = resolve_engine(env={"FFN_PIPER_MODEL": str(model), "FFN_VOICE_SPEED": "200", "FFN_VOICE": "3"})
    engine = choice.engine
    assert isinstance(engine, PiperEngine) and choice.notice is None
    path = tmp_path / "escena.toml"
    path.write_text(
        'title = "T"\n[[beat]]\nname = "a"\ntext = "Hola, {#x} mundo de {n:entero} pesos."\n', encoding="utf-8"
    )
    timeline = build_timeline("escena", engine=engine, script=load_script("escena", path), lookup={"n": 12}.__getitem__)
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [c["stdin"] for c in calls] == ["Hola,\n", "mundo de doce pesos.\n"]
    argv = calls[0]["argv"]
    assert argv[argv.index("--model") + 1] == str(model.resolve())
    assert argv[argv.index("--config") + 1] == str(model.with_name(model.name + ".json").resolve())
    assert float(argv[argv.index("--length-scale") + 1]) == pytest.approx(NATURAL_WPM / 200, abs=1e-3)
    assert argv[argv.index("--speaker") + 1] == "3"
    first, second = timeline.beats[0].segments
    info = soundfile.info(first.clip)
    assert (info.samplerate, info.channels) == (48_000, 1)
    # The fake writes 50 ms a character, scaled: the clip keeps that length through resampling.
    assert first.duration_s == pytest.approx(0.05 * len("Hola,") * NATURAL_WPM / 200, abs=0.002)
    assert timeline.beats[0].bookmarks["x"] == pytest.approx(first.duration_s, abs=1e-9)
    assert first.source == "piper"


def test_the_cache_key_follows_engine_voice_and_settings(fake_piper):
    model, _ = fake_piper
    piper = resolve_engine(env={"FFN_PIPER_MODEL": str(model)}).engine
    slower = resolve_engine(env={"FFN_PIPER_MODEL": str(model), "FFN_VOICE_SPEED": "120"}).engine
    keys = {
        clip_key(e, "hola")
        for e in (EspeakEngine(), EspeakEngine(voice="es"), EspeakEngine(speed_wpm=170), piper, slower)
    }
    assert len(keys) == 5
    assert clip_key(EspeakEngine(), "hola") == clip_key(EspeakEngine(), "hola")
    assert clip_key(EspeakEngine(), "hola") != clip_key(EspeakEngine(), "hola.")
