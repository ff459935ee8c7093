"""`ffn-video scenes`, `ffn-video watch` (one cycle), and the command line's arguments."""

from __future__ import annotations

import json
import threading

import pytest
from fixtures.build_support import fresh_copy, quiet_console

from lecture.build.watch import changed, snapshot, watch, watched_files
from lecture.cli import main


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    return fresh_copy(tmp_path / "lecture").apply(monkeypatch)


@pytest.mark.slow
def test_scenes_lists_narration_beats_and_render_state_per_quality(tiny, capsys):
    assert main(["scenes", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == ["tiny_a", "tiny_b"]
    first = rows[0]
    assert first["title"] == "Escena de prueba A" and first["beats"] == 1
    assert 1.5 < first["narration_s"] < 6
    assert first["rendered"] == {"preview": "fresh", "1080p": "none", "4k": "none"}
    script = tiny.script("tiny_a")
    script.write_text(script.read_text(encoding="utf-8").replace("Un círculo.", "Un círculo grande."), encoding="utf-8")
    assert main(["scenes"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:3] == ["escena", "duración", "beats"]
    assert "desfasada" in table[1] and "al día" in table[2]


@pytest.mark.slow
def test_watch_rebuilds_after_a_narration_edit(tiny):
    files = watched_files(tiny.plan)
    assert tiny.script("tiny_a").resolve() in files and tiny.scenes_py.resolve() in files
    script = tiny.script("tiny_a")

    def edit():
        script.write_text(
            script.read_text(encoding="utf-8").replace("Un círculo.", "Un círculo azul."), encoding="utf-8"
        )

    before = (tiny.out() / "lecture.mp4").stat().st_mtime_ns
    timer = threading.Timer(0.8, edit)
    timer.start()
    try:
        report = watch(
            "preview",
            interval_s=0.1,
            settle_s=0.1,
            max_cycles=1,
            initial_build=False,
            console=quiet_console(),
            plan_file=tiny.plan,
        )
    finally:
        timer.cancel()
    assert report is not None and report.ok, report and report.failed
    assert report.rendered == ["tiny_a"] and report.cached == ["tiny_b"]
    assert (tiny.out() / "lecture.mp4").stat().st_mtime_ns != before
    assert "azul" in (tiny.out() / "lecture.es.srt").read_text(encoding="utf-8")


@pytest.mark.slow
def test_an_edit_saved_while_watch_is_building_is_built_next(tiny):
    from lecture.build.pipeline import build

    script = tiny.script("tiny_a")
    calls = []

    def build_then_edit(*args, **kwargs):
        report = build(*args, **kwargs)
        if not calls:  # the lecturer saves while the first build is finishing
            script.write_text(
                script.read_text(encoding="utf-8").replace("Un círculo.", "Un círculo verde."), encoding="utf-8"
            )
        calls.append(report)
        return report

    import _thread

    # Were the edit missed, watch would wait forever: stop it as Ctrl+C would, and fail.
    give_up = threading.Timer(60, _thread.interrupt_main)
    give_up.start()
    try:
        report = watch(
            "preview",
            interval_s=0.05,
            settle_s=0.05,
            max_cycles=1,
            initial_build=True,
            console=quiet_console(),
            plan_file=tiny.plan,
            build_fn=build_then_edit,
        )
    finally:
        give_up.cancel()
    assert len(calls) == 2, "the edit made during the first build must trigger a second one"
    assert report is not None and report.ok and report.rendered == ["tiny_a"]
    assert "verde" in (tiny.out() / "lecture.es.srt").read_text(encoding="utf-8")


def test_snapshots_see_edits_new_files_and_deletions(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    first = snapshot([a, b])
    assert changed(first, snapshot([a, b])) == []
    b.write_text("y = 2\n")
    a.write_text("x = 10\n")
    second = snapshot([a, b])
    assert changed(first, second) == [a, b]
    a.unlink()
    assert changed(second, snapshot([a, b])) == [a]


@pytest.mark.slow
def test_bad_arguments_are_refused(tiny, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["build", "--quality", "8k"])
    assert stop.value.code == 2
    assert main(["build", "--only", "nada"]) == 2
    assert "nada" in capsys.readouterr().err
    assert main(["build", "--jobs", "0"]) == 2


@pytest.mark.slow
def test_narrate_is_wired_to_the_narration_command(tiny, capsys):
    assert main(["narrate", "tiny_b"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tiny_b\t") and "1 beats" in out
