"""Two clean builds of one scene at one quality give identical decoded frames, so cached,
re-rendered and (later) chunked or distributed renders can be trusted to join."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.build_support import quiet_console, write_tiny_lecture

from lecture.build.pipeline import build
from lecture.media.ffmpeg import framemd5

pytestmark = pytest.mark.slow


def _clean_build(root: Path, monkeypatch) -> Path:
    lecture = write_tiny_lecture(root).apply(monkeypatch)
    report = build("preview", jobs=1, only=["tiny_a"], console=quiet_console())
    assert report.ok and report.rendered == ["tiny_a"], report.failed
    return next((lecture.work("tiny_a")).glob("*.mp4"))


def test_two_clean_renders_of_a_scene_decode_to_identical_frames(tmp_path, monkeypatch):
    first = framemd5(_clean_build(tmp_path / "one", monkeypatch))
    second = framemd5(_clean_build(tmp_path / "two", monkeypatch))
    assert len(first) > 30
    assert first == second
    assert len(set(first)) > 1  # the scene moves: equal lists are not two blank videos
