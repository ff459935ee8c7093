"""A build with nothing to do is answered from the last build's stamp (issue 24): at once,
writing nothing, and never when anything the build reads or wrote has changed since."""

from __future__ import annotations

import os

import pytest
from fixtures.build_support import TinyLecture, fresh_copy, quiet_console

from lecture.build import unchanged
from lecture.build.report import BuildReport

pytestmark = pytest.mark.slow


def _cli_build(lecture: TinyLecture) -> tuple[str, str]:
    proc = lecture.cli("build")
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    return out, err


def _files(lecture: TinyLecture) -> dict[str, tuple[int, int]]:
    """Every file the build may write, by its size and modification time (the lock's own aside)."""
    found = {}
    for root in (lecture.cache, lecture.renders):
        for path in root.rglob("*"):
            if path.is_file() and not path.name.startswith(".build.lock"):
                st = path.stat()
                found[str(path)] = (st.st_size, st.st_mtime_ns)
    return found


@pytest.fixture
def stamped(tmp_path, monkeypatch) -> TinyLecture:
    """A tiny lecture built once by the command line, so its last build is stamped."""
    lecture = fresh_copy(tmp_path / "lecture").apply(monkeypatch)
    _, err = _cli_build(lecture)
    assert "nada ha cambiado" not in err  # a copy's files are new to it: the first build runs in full
    return lecture


def test_nothing_changed_prints_the_last_summary_at_once_and_writes_nothing(stamped):
    before = _files(stamped)
    out, err = _cli_build(stamped)
    assert "nada ha cambiado desde la compilación que acabó a las" in err
    assert "de caché: 2" in err and "fallidas: 0" in err and "LUFS" in err and "voz:" in err
    assert "aviso: capítulos:" in err  # what the lecture's chapters lack, said again
    assert out.strip() == str(stamped.out() / "lecture.mp4")
    assert _files(stamped) == before


@pytest.mark.parametrize(
    "change",
    ["script saved", "scene source saved", "output deleted", "clip touched", "setting changed", "other scenes asked"],
)
def test_any_change_since_the_last_build_runs_it_in_full(stamped, monkeypatch, change):
    request = unchanged.Request("preview")
    assert unchanged.unchanged_summary(request) is not None
    if change == "script saved":  # the same words, saved again
        script = stamped.script("tiny_a")
        script.write_text(script.read_text(encoding="utf-8"), encoding="utf-8")
    elif change == "scene source saved":
        os.utime(stamped.scenes_py)
    elif change == "output deleted":
        (stamped.out() / "scenes" / "tiny_b.mp4").unlink()
    elif change == "clip touched":
        os.utime(next((stamped.cache / "voiceover").rglob("*.wav")))
    elif change == "setting changed":
        monkeypatch.setenv("FFN_VOICE_SPEED", "160")
    else:
        request = unchanged.Request("preview", ("tiny_a",))
    assert unchanged.unchanged_summary(request) is None


def test_a_script_saved_while_the_build_runs_is_seen_by_the_next_build(stamped, monkeypatch):
    from lecture.build import pipeline

    script = stamped.script("tiny_b")
    run = pipeline._build_locked

    def saved_meanwhile(*args, **kwargs):
        report = run(*args, **kwargs)
        script.write_text(script.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        return report

    monkeypatch.setattr(pipeline, "_build_locked", saved_meanwhile)
    os.utime(stamped.scenes_py)  # something to do, so the build runs
    assert pipeline.build("preview", console=quiet_console()).ok
    assert unchanged.stamp_path("preview").exists()
    assert unchanged.unchanged_summary(unchanged.Request("preview")) is None


def test_a_failed_build_leaves_no_stamp(stamped, monkeypatch):
    from lecture.build import pipeline

    monkeypatch.setattr(pipeline, "_build_locked", lambda *a, **k: BuildReport("preview", failed={"tiny_a": "roto"}))
    assert not pipeline.build("preview", console=quiet_console()).ok
    assert not unchanged.stamp_path("preview").exists()
    assert unchanged.unchanged_summary(unchanged.Request("preview")) is None


def test_the_summary_kept_is_the_one_printed(stamped):
    summary = unchanged.unchanged_summary(unchanged.Request("preview"))
    assert summary is not None
    report = BuildReport.unchanged(summary, 0.1)
    assert report.ok and report.order == ["tiny_a", "tiny_b"] and report.cached == report.order
    assert report.rendered == [] and report.redone == []
    assert report.lecture == stamped.out() / "lecture.mp4" and report.lecture.exists()
    assert report.loudness is not None and -17.0 < report.loudness.integrated_lufs < -15.0
