"""A disk that fills during a build: one clear error naming the step and the folder, the
previous lecture and every finished artefact intact, and the build after space is freed
finishes without redoing finished work. The disk is a small tmpfs made for the test (root
only; the real disk is never filled)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
from fixtures.build_support import base_lecture, quiet_console, write_tiny_lecture

from lecture.build.pipeline import build

pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", f"ffn-test-{uuid.uuid4().hex[:6]}", str(mount)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fill(disk: Path, leave_bytes: int) -> Path:
    """A file that takes all the space but `leave_bytes`."""
    stat = os.statvfs(disk)
    free = stat.f_bavail * stat.f_frsize
    filler = disk / "filler.bin"
    with open(filler, "wb") as f:
        f.truncate(0)
        chunk = b"\1" * (1 << 20)
        remaining = max(free - leave_bytes, 0)
        while remaining > 0:
            n = min(len(chunk), remaining)
            f.write(chunk[:n])
            remaining -= n
    return filler


def test_a_full_disk_is_named_keeps_the_old_lecture_and_the_next_build_reuses_finished_work(small_disk, monkeypatch):
    base = base_lecture()
    lecture = write_tiny_lecture(small_disk / "lecture")
    shutil.copytree(base.cache, lecture.cache, ignore=shutil.ignore_patterns(".build.lock*"), dirs_exist_ok=True)
    shutil.copytree(base.renders, lecture.renders)
    lecture.apply(monkeypatch)
    old_lecture = _sha(lecture.out() / "lecture.mp4")
    script = lecture.script("tiny_b")
    script.write_text(
        script.read_text(encoding="utf-8").replace(
            "Segunda prueba, un cuadrado.", "Segunda prueba: un cuadrado que aparece, gira y se va."
        ),
        encoding="utf-8",
    )

    filler = _fill(small_disk, leave_bytes=64 * 1024)
    report = build("preview", jobs=1, console=quiet_console())
    assert not report.ok
    message = " ".join(report.failed.values())
    assert "disco lleno al escribir en" in message, report.failed
    assert str(small_disk) in message  # the folder is named
    assert _sha(lecture.out() / "lecture.mp4") == old_lecture  # the previous lecture is intact
    assert not list(small_disk.rglob("*.part"))  # no half-written file left behind

    filler.unlink()  # space is freed
    again = build("preview", jobs=1, console=quiet_console())
    assert again.ok, again.failed
    assert again.cached == ["tiny_a"] and again.rendered == ["tiny_b"]
    assert _sha(lecture.out() / "lecture.mp4") != old_lecture
    assert "gira y se va" in (lecture.out() / "lecture.es.srt").read_text(encoding="utf-8")
