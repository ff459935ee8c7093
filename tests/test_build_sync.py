"""The joined lecture keeps every scene's narration where the scene's own file has it.

Measured as a viewer's player would see it: the lecture and each scene file are decoded by
ffmpeg, each scene's audio is cross-correlated against the lecture's around the scene's
first frame (scene starts from the scenes' frame counts), on a plan of five short scenes,
so a drift that grows join by join (a lost AAC packet per join) cannot hide.
"""

from __future__ import annotations

import pytest
from fixtures.build_support import quiet_console, write_tiny_lecture

from lecture.media.sync_check import MAX_LENGTH_GAP_MS, MAX_OFFSET_MS, best_lag, measure

FIVE = [
    (f"s{i}", cls, script)
    for i, (cls, script) in enumerate([("TinyA", "tiny_a"), ("TinyB", "tiny_b")] * 2 + [("TinyA", "tiny_a")])
]


@pytest.fixture(scope="module")
def five_scene_lecture(tmp_path_factory):
    import os

    root = tmp_path_factory.mktemp("five")
    lecture = write_tiny_lecture(root, entries=FIVE)
    mp = pytest.MonkeyPatch()
    for k, v in lecture.env().items():
        mp.setenv(k, v)
    try:
        from lecture.build.pipeline import build

        report = build("preview", jobs=2, console=quiet_console())
        assert report.ok, report.failed
        yield lecture, measure(report.lecture, [(n, lecture.out() / "scenes" / f"{n}.mp4") for n, _, _ in FIVE])
    finally:
        mp.undo()
        assert "FFN_PLAN" not in os.environ or os.environ["FFN_PLAN"] != str(lecture.plan)


@pytest.mark.slow
def test_every_scene_narration_plays_within_12_ms_of_its_own_file(five_scene_lecture):
    _, report = five_scene_lecture
    assert len(report.offsets) == 5
    assert report.worst_offset_ms <= MAX_OFFSET_MS == 12.0, report.lines()


@pytest.mark.slow
def test_lecture_audio_lasts_as_long_as_its_video_within_25_ms(five_scene_lecture):
    _, report = five_scene_lecture
    assert report.length_gap_ms <= MAX_LENGTH_GAP_MS == 25.0, report.lines()


@pytest.mark.slow
def test_offsets_do_not_grow_from_join_to_join(five_scene_lecture):
    _, report = five_scene_lecture
    first, last = report.offsets[1].offset_ms, report.offsets[-1].offset_ms
    assert abs(last - first) <= 1.0, report.lines()


def test_the_measurement_sees_a_shift_of_a_few_milliseconds():
    # The detector itself: a known delay of 5 ms (240 samples) is found to the sample.
    import numpy as np

    rng = np.random.default_rng(3)
    reference = rng.standard_normal(48_000).astype(np.float32)
    signal = np.concatenate([np.zeros(24_000 + 240, np.float32), reference, np.zeros(24_000, np.float32)])
    assert best_lag(reference, signal) == 24_000 + 240
