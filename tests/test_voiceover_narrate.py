"""`ffn-video narrate`: synthesises what is missing, prints each scene's duration and beat
count, and turns every bad input into exit status 2 with a message that names it."""

from __future__ import annotations

import pytest

from voiceover.narrate import narrate_main
from voiceover.timeline import load_timeline

UNO = 'title = "Uno"\n[[beat]]\nname = "a"\ntext = "Hola {#x} a todos."\npause_s = 0.3\n'
DOS = 'title = "Dos"\n[[beat]]\nname = "a"\ntext = "Primero."\n[[beat]]\nname = "b"\ntext = "Después."\npause_s = 0.2\n'


@pytest.fixture
def plan(tmp_path, monkeypatch):
    for key in ("FFN_VOICE", "FFN_VOICE_SPEED", "FFN_PIPER_MODEL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("FFN_VOICE_ENGINE", "espeak")  # the draft voice, whatever the default
    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "grabaciones"))
    (tmp_path / "uno.toml").write_text(UNO, encoding="utf-8")
    (tmp_path / "dos.toml").write_text(DOS, encoding="utf-8")
    path = tmp_path / "plan.toml"
    path.write_text(
        "".join(
            f'[[scene]]\nname = "{name}"\nmodule = "scenes/iceberg.py"\nclass = "X"\nscript = "{script}"\n'
            f'script_path = "{tmp_path / script}.toml"\n\n'
            for name, script in (("primera", "uno"), ("segunda", "dos"))
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("FFN_PLAN", str(path))
    return path


def rows(out: str) -> dict[str, list[str]]:
    return {line.split("\t")[0]: line.split("\t") for line in out.strip().splitlines()}


def test_narrate_prints_each_scene_duration_and_beat_count(plan, capsys):
    assert narrate_main([]) == 0
    table = rows(capsys.readouterr().out)
    for scene, script, beats in (("primera", "uno", 1), ("segunda", "dos", 2)):
        timeline = load_timeline(script)
        assert table[scene][1] == f"{timeline.total_s:.2f} s"
        assert table[scene][2] == f"{beats} beats"
    assert "sintetizados 2, de caché 0" in table["primera"][3]
    assert table["total"][2] == "2 escenas"


def test_a_second_run_synthesises_nothing(plan, capsys):
    narrate_main(["segunda"])
    capsys.readouterr()
    assert narrate_main(["segunda"]) == 0
    out = capsys.readouterr().out
    assert "sintetizados 0, de caché 2, grabados 0" in out and "primera" not in out


def test_options_choose_the_voice(plan, capsys):
    assert narrate_main(["primera", "--speed", "190", "--voice", "es"]) == 0
    captured = capsys.readouterr()
    assert "voice=es, speed_wpm=190" in captured.err
    assert "sintetizados 2" in captured.out  # another voice: new clips


def test_piper_without_a_model_falls_back_with_a_message(plan, capsys):
    assert narrate_main(["primera", "--engine", "piper"]) == 0
    assert "Piper no disponible" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["tercera"], "no scene named 'tercera' (the plan has: primera, segunda)"),
        (["--engine", "festival"], "invalid choice: 'festival'"),
        (["--speed", "5"], "outside 80-450"),
        (["--voice", "xx-nada", "primera"], "espeak-ng has no voice 'xx-nada'"),
        (["--recordings", "/no/existe"], "/no/existe: the recordings folder does not exist"),
    ],
)
def test_bad_input_exits_2_with_a_message_naming_it(plan, capsys, argv, message):
    assert narrate_main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_broken_script_exits_2_naming_file_and_line(plan, tmp_path, capsys):
    (tmp_path / "dos.toml").write_text(DOS.replace('"Después."', '"Después {#Mal}."'), encoding="utf-8")
    assert narrate_main(["segunda"]) == 2
    assert f"{tmp_path / 'dos.toml'}:7: beat 'b': malformed bookmark" in capsys.readouterr().err


def test_a_missing_plan_exits_2(plan, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FFN_PLAN", str(tmp_path / "nada.toml"))
    assert narrate_main([]) == 2
    assert "nada.toml: the lecture plan does not exist" in capsys.readouterr().err


def test_report_prints_every_bookmark_with_its_time_in_the_take_and_its_confidence(plan, tmp_path, capsys):
    import soundfile

    from voiceover.engines.espeak import EspeakEngine
    from voiceover.script import load_script
    from voiceover.timing import NarrationStats, default_lookup, measure_timeline
    from voiceover.track import scene_samples

    assert narrate_main(["--report", "primera"]) == 0
    out = capsys.readouterr().out
    assert "sin toma grabada" in out and any(
        r.startswith("  a\tx\t") and r.endswith("\t-\t-") for r in out.splitlines()
    )
    # The lecturer reads "uno" in one take (a faster voice stands in), and the report follows it.
    script = load_script("uno", tmp_path / "uno.toml")
    stand_in = measure_timeline("uno", EspeakEngine(speed_wpm=200), default_lookup, script, stats=NarrationStats())
    (tmp_path / "grabaciones").mkdir()
    soundfile.write(str(tmp_path / "grabaciones" / "uno.wav"), scene_samples(stand_in), 48_000)
    assert narrate_main(["--report", "primera"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("  a\tx\t"))
    _, _, scene_s, take_s, confidence = row.split("\t")
    assert f"toma {tmp_path / 'grabaciones' / 'uno.wav'}" in out
    assert float(take_s.split()[0]) == pytest.approx(stand_in.bookmark_times()["x"], abs=0.08)
    assert 0.0 <= float(confidence.split()[0]) <= 1.0
    assert rows(out)["primera"][3].startswith("(sintetizados")
