"""A scene's narration track: every clip lands on the exact sample of its start."""

from __future__ import annotations

import numpy as np
import soundfile

from voiceover.audio_format import RATE_HZ
from voiceover.timeline import BeatTiming, Segment, Timeline
from voiceover.track import scene_samples


def test_clips_land_on_the_exact_sample_of_their_start(tmp_path):
    clips = []
    for k, n in enumerate((4_801, 7_203)):  # lengths that are no whole number of milliseconds
        path = tmp_path / f"c{k}.wav"
        soundfile.write(str(path), np.full(n, 0.25 * (k + 1), np.float32), RATE_HZ, subtype="PCM_16")
        clips.append((path, n))
    first = Segment("a", "a", 0.0, clips[0][1] / RATE_HZ, str(clips[0][0]))
    # The second clip starts 0.4 s after the first ends, a start that is no whole millisecond.
    start = (clips[0][1] + 19_201) / RATE_HZ
    second = Segment("b", "b", start, clips[1][1] / RATE_HZ, str(clips[1][0]))
    total = start + second.duration_s + 0.5
    timeline = Timeline("t", "T", (BeatTiming("x", 0.0, total - 0.5, 0.5, {}, (first, second)),), total, "t.toml")
    mono = scene_samples(timeline)
    assert len(mono) == round(total * RATE_HZ)
    on = np.nonzero(np.abs(mono - 0.5) < 1e-3)[0]
    assert on[0] == clips[0][1] + 19_201 and len(on) == clips[1][1]
    assert np.all(np.abs(mono[: clips[0][1]] - 0.25) < 1e-3)
    assert np.all(mono[clips[0][1] : on[0]] == 0) and np.all(mono[on[-1] + 1 :] == 0)
