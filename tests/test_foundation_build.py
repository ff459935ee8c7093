"""The whole path on the lecture as it stands: narration -> silent scenes -> mux."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lecture.farm.cuts import on_audio_grid
from lecture.media.ffmpeg import moov_before_mdat, probe
from lecture.media.soundtrack import grid_frames
from lecture.plan import load_plan
from lecture.qualities import get_quality
from voiceover.timeline import load_timeline

pytestmark = pytest.mark.slow


def _scene_logs(root: Path) -> dict[str, dict]:
    logs = {}
    for scene in load_plan():
        found = sorted((root / "cache" / "build" / "preview" / scene.name).glob("*.log.json"))
        assert found, f"no render log for scene {scene.name}"
        logs[scene.name] = json.loads(found[-1].read_text(encoding="utf-8"))
    return logs


def test_build_writes_the_lecture_and_each_scene(preview_build):
    report, root = preview_build
    assert report.lecture == root / "renders" / "preview" / "lecture.mp4"
    assert report.lecture.stat().st_size > 10_000
    for scene in load_plan():
        assert (root / "renders" / "preview" / "scenes" / f"{scene.name}.mp4").exists()


def test_rendered_scene_lasts_as_long_as_its_narration(preview_build):
    report, root = preview_build
    for scene in load_plan():
        video = root / "renders" / "preview" / "scenes" / f"{scene.name}.mp4"
        v = next(s for s in probe(video)["streams"] if s["codec_type"] == "video")
        frames = int(v["nb_frames"])
        num, den = v["r_frame_rate"].split("/")
        fps = int(num) / int(den)  # as the file says, not as the build meant
        narrated = load_timeline(scene.script)
        # Its narration, its last frame held to whole AAC packets (under one grid step: 0.53 s at 15 fps).
        total = on_audio_grid(narrated, get_quality("preview")).total_s
        assert -0.5 / fps <= total - narrated.total_s < grid_frames(15) / 15
        assert abs(frames / fps - total) <= 1 / fps, (scene.name, frames / fps, total)


def test_bookmarks_fire_within_one_frame_of_the_narration(preview_build):
    _, root = preview_build
    for name, log in _scene_logs(root).items():
        fps = log["fps"]
        assert set(log["bookmarks_fired_s"]) == set(log["bookmarks_timeline_s"]), name
        for mark, t in log["bookmarks_timeline_s"].items():
            assert abs(log["bookmarks_fired_s"][mark] - t) <= 1 / fps, (name, mark)


def test_no_text_leaves_the_frame_or_overlaps(preview_build):
    _, root = preview_build
    for name, log in _scene_logs(root).items():
        assert log["layout_problems"] == [], name


def test_lecture_is_youtube_ready(preview_build):
    report, _ = preview_build
    info = probe(report.lecture)
    video = next(s for s in info["streams"] if s["codec_type"] == "video")
    audio = next(s for s in info["streams"] if s["codec_type"] == "audio")
    assert (video["codec_name"], video["profile"], video["pix_fmt"]) == ("h264", "High", "yuv420p")
    assert (audio["codec_name"], audio["profile"]) == ("aac", "LC")
    assert int(audio["sample_rate"]) == 48000 and audio["channels"] == 2
    assert moov_before_mdat(report.lecture)


def test_lecture_audio_is_present_and_not_silent(preview_build, tmp_path):
    import subprocess

    import soundfile

    report, _ = preview_build
    wav = tmp_path / "a.wav"
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(report.lecture), "-vn", "-ac", "1", str(wav)], check=True)
    data, rate = soundfile.read(str(wav))
    rms_dbfs = 20 * np.log10(np.sqrt(np.mean(data**2)) + 1e-12)
    assert len(data) / rate > 10
    assert rms_dbfs > -40, rms_dbfs


def test_narration_is_loudness_normalised(preview_build):
    report, _ = preview_build
    assert abs(report.loudness.integrated_lufs - (-16.0)) <= 1.0
    assert report.loudness.true_peak_dbtp <= -1.0


def test_lecture_lasts_the_sum_of_its_scenes(preview_build):
    report, _ = preview_build
    total = sum(on_audio_grid(load_timeline(s.script), get_quality("preview")).total_s for s in load_plan())
    duration = float(probe(report.lecture)["format"]["duration"])
    assert duration == pytest.approx(total, abs=2 / 15 * len(load_plan()))


def test_every_scene_narration_plays_in_the_lecture_where_its_own_file_has_it(preview_build):
    from lecture.media.sync_check import MAX_LENGTH_GAP_MS, MAX_OFFSET_MS, measure

    report, root = preview_build
    scenes = [(s.name, root / "renders" / "preview" / "scenes" / f"{s.name}.mp4") for s in load_plan()]
    sync = measure(report.lecture, scenes)
    assert sync.worst_offset_ms <= MAX_OFFSET_MS, sync.lines()
    assert sync.length_gap_ms <= MAX_LENGTH_GAP_MS, sync.lines()
