"""A build killed at any moment, two builds at once, a scene that fails, leftovers of a crash."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from fixtures.build_support import TinyLecture, frames_of, fresh_copy, narration_offsets_ms, quiet_console

from lecture.build.lock import BuildLocked
from lecture.build.pipeline import build
from lecture.media.ffmpeg import probe
from voiceover.timeline import Timeline

pytestmark = pytest.mark.slow


def _wait_for(condition, proc, timeout_s: float) -> bool:
    """Poll `condition` while `proc` runs; True once it holds."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end and proc.poll() is None:
        if condition():
            return True
        time.sleep(0.005)
    return False


def _processes_started_by(pid: int) -> list[int]:
    """Live processes whose environment names `pid` as the build that started them."""
    marker = f"FFN_PARENT_PID={pid}\0".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _assert_valid_lecture(lecture: TinyLecture) -> None:
    """Every output decodes, each scene lasts its narration to the frame, and the lecture
    is the scenes end to end, audio included; no temporary file is left behind."""
    out = lecture.out()
    total = 0
    for name in ("tiny_a", "tiny_b"):
        timeline_file = next(lecture.work(name).glob("*.timeline.json"))
        timeline = Timeline.from_json(json.loads(timeline_file.read_text(encoding="utf-8")))
        frames = frames_of(out / "scenes" / f"{name}.mp4")
        assert abs(frames - timeline.total_s * 15) <= 1, (name, frames, timeline.total_s)
        total += frames
    assert frames_of(out / "lecture.mp4") == total
    audio = next(s for s in probe(out / "lecture.mp4")["streams"] if s["codec_type"] == "audio")
    assert float(audio["duration"]) == pytest.approx(total / 15, abs=0.05)
    # Each scene's narration starts on its first frame (the first waits for the AAC priming).
    assert all(abs(ms) <= 12 for ms in narration_offsets_ms(lecture)), narration_offsets_ms(lecture)
    assert (out / "lecture.es.srt").read_text(encoding="utf-8").startswith("1\n")
    assert not list(lecture.renders.rglob("*.part")) and not list(lecture.cache.rglob("*.part"))
    assert not list(lecture.cache.glob("build/preview/*/media/run-*"))


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _narration_ffmpeg_running() -> bool:
    """Some build started by this test runs ffmpeg on the narration (limiting or encoding it)."""
    for build_pid in _children(os.getpid()):
        for child in _children(build_pid):
            try:
                argv = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if argv and argv[0].endswith(b"ffmpeg") and any(b"/audio/" in a for a in argv):
                return True
    return False


def _forget_render(lecture: TinyLecture, scene: str) -> None:
    """Drop a scene's render records, so the next build renders it again."""
    for record in lecture.work(scene).glob("*.record.json"):
        record.unlink()


def test_a_build_killed_at_any_moment_is_followed_by_a_correct_one(tmp_path):
    lecture = fresh_copy(tmp_path / "lecture")
    _forget_render(lecture, "tiny_b")
    build_root = lecture.cache / "build" / "preview"
    shutil.rmtree(build_root / "audio")  # so that every step has work to be killed in
    shutil.rmtree(lecture.renders)
    moments = {
        # manim has written frames of some animation
        "render": lambda: any(build_root.glob("*/media/run-*/videos/**/partial_movie_files/**/*.mp4")),
        # a narration track is being written, normalised or encoded: a file of it half
        # written, or the ffmpeg limiting or encoding it (a tiny scene's takes milliseconds)
        "audio": lambda: any((build_root / "audio").rglob("*.part")) or _narration_ffmpeg_running(),
        # a scene or the lecture is being muxed
        "mux": lambda: any(lecture.out().rglob("*.part")),
    }
    killed = []
    for moment, reached in moments.items():
        if moment == "audio":  # the narration, made beside the render, may have been finished before its kill
            shutil.rmtree(build_root / "audio", ignore_errors=True)
        proc = lecture.cli("build", "--jobs", "2")
        if _wait_for(reached, proc, timeout_s=90):
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            killed.append(moment)
            deadline = time.monotonic() + 10
            while _processes_started_by(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _processes_started_by(proc.pid) == [], f"renders outlived the build killed during {moment}"
        else:
            proc.communicate(timeout=120)
    # Renders and normalisation take long enough to be caught every time; a mux may be missed.
    assert killed[:2] == ["render", "audio"], killed
    proc = lecture.cli("build")
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    _assert_valid_lecture(lecture)


def test_a_second_build_stops_with_a_clear_message_and_the_first_completes(tmp_path, monkeypatch):
    lecture = fresh_copy(tmp_path / "lecture")
    _forget_render(lecture, "tiny_b")  # the first build has a scene to render: it holds the lock a while
    info = lecture.cache / "build" / ".build.lock.json"
    first = lecture.cli("build", "--jobs", "1")

    def first_holds_lock() -> bool:
        try:
            return json.loads(info.read_text(encoding="utf-8"))["pid"] == first.pid
        except (OSError, ValueError, KeyError):
            return False

    assert _wait_for(first_holds_lock, first, timeout_s=60)
    # Paused while it holds the lock, so the first cannot finish before the second starts,
    # however fast the machine renders (CI once saw the second build find the lock free).
    os.kill(first.pid, signal.SIGSTOP)
    try:
        second = lecture.cli("build")
        _, err = second.communicate(timeout=60)
        assert second.returncode != 0
        assert "otra compilación" in err and f"pid {first.pid}" in err
        lecture.apply(monkeypatch)
        with pytest.raises(BuildLocked, match="en curso"):
            build("preview", console=quiet_console())
    finally:
        os.kill(first.pid, signal.SIGCONT)
    _, err = first.communicate(timeout=180)
    assert first.returncode == 0, err
    _assert_valid_lecture(lecture)


def test_a_failing_scene_is_named_with_its_error_and_the_others_still_finish(tmp_path):
    lecture = fresh_copy(tmp_path / "lecture", broken=True)
    for old in ("lecture.mp4", "lecture.mp4.sig", "scenes/tiny_a.mp4", "scenes/tiny_a.mp4.sig"):
        (lecture.out() / old).unlink()
    proc = lecture.cli("build", "--jobs", "2")
    _, err = proc.communicate(timeout=180)
    assert proc.returncode != 0
    assert "broken" in err and "ZeroDivisionError: fallo provocado por la escena de prueba" in err
    assert "tiny_scenes.py:" in err  # where in the scene it failed
    assert frames_of(lecture.out() / "scenes" / "tiny_a.mp4") > 0
    assert not (lecture.out() / "lecture.mp4").exists()


def test_leftovers_of_a_crash_are_never_reused(tmp_path, monkeypatch):
    lecture = fresh_copy(tmp_path / "lecture").apply(monkeypatch)
    out = lecture.out()
    # A render renamed into place whose record was never written, cut short.
    work = lecture.work("tiny_b")
    record = next(work.glob("*.record.json"))
    video = work / json.loads(record.read_text(encoding="utf-8"))["video"]
    _forget_render(lecture, "tiny_b")
    video.write_bytes(video.read_bytes()[:500])
    # A lecture whose stamp was removed before its remake began, and half-written files.
    (out / "lecture.mp4.sig").unlink()
    (out / "lecture.mp4").write_bytes(b"not a video")
    (out / ".lecture.x1y2.mp4.part").write_bytes(b"half")
    stale_media = lecture.work("tiny_a") / "media" / "run-1-dead" / "videos"
    stale_media.mkdir(parents=True)
    (stale_media / "partial.mp4").write_bytes(b"half")
    report = build("preview", console=quiet_console())
    assert report.ok, report.failed
    assert report.rendered == ["tiny_b"] and report.cached == ["tiny_a"]
    _assert_valid_lecture(lecture)


def test_missing_programs_are_named_before_any_work_with_the_command_that_installs_them(tmp_path, monkeypatch):
    import shutil as sh

    from lecture.cli import main

    lecture = fresh_copy(tmp_path / "lecture", with_build=False).apply(monkeypatch)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("latex", "dvisvgm", "espeak-ng"):  # everything but ffmpeg and ffprobe
        (bin_dir / program).symlink_to(sh.which(program))
    monkeypatch.setenv("PATH", str(bin_dir))
    with pytest.raises(RuntimeError) as err:
        build("preview", jobs=1, console=quiet_console())
    message = str(err.value)
    assert "ffmpeg" in message and "ffprobe" in message and "espeak-ng" not in message
    assert "sudo apt-get install -y ffmpeg" in message and "./setup.sh" in message
    assert not lecture.cache.joinpath("build").exists()  # nothing was started
    assert main(["build"]) == 2
