"""The narration mix: sample-exact placement, 48 kHz stereo, -16 LUFS integrated within
1 LU and true peak under -1 dBTP (checked by our meter and by ffmpeg's own EBU R128 one)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import soundfile

from voiceover.engines.espeak import EspeakEngine
from voiceover.mix import (
    MIX_RATE_HZ,
    concat_wavs,
    measure,
    normalize,
    scene_samples,
    write_scene_track,
)
from voiceover.script import load_script
from voiceover.timeline import BeatTiming, Segment, Timeline, build_timeline

# The delivery rule, pinned here rather than read from the module under test:
# -16 LUFS integrated, true peak at most -1 dBTP (YouTube / EBU R128 streaming practice).
TARGET_LUFS = -16.0
TRUE_PEAK_CEILING_DBTP = -1.0

SCRIPT = """title = "Prueba"

[[beat]]
name = "uno"
text = "La capa feed-forward {#capa} guarda casi dos tercios de los pesos de cada bloque."
pause_s = 0.7

[[beat]]
name = "dos"
text = "Y trabaja en silencio, {#silencio} palabra por palabra."
pause_s = 1.0
"""


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "no_recordings"))


def ebur128(wav: Path) -> tuple[float, float]:
    """(integrated LUFS, true peak dBTP) as ffmpeg's ebur128 filter measures them."""
    proc = subprocess.run(
        [
            "ffmpeg",
            "-nostdin",
            "-hide_banner",
            "-nostats",
            "-i",
            str(wav),
            "-af",
            "ebur128=peak=true",
            "-f",
            "null",
            "-",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    summary = proc.stderr[proc.stderr.rindex("Summary:") :]
    integrated = float(re.search(r"I:\s+(-?[\d.]+) LUFS", summary).group(1))
    peak = float(re.search(r"True peak:\s+Peak:\s+(-?[\d.]+|-inf) dBFS", summary).group(1))
    return integrated, peak


def test_the_lecture_track_is_48k_stereo_at_minus_16_lufs_with_true_peak_under_ceiling(tmp_path):
    path = tmp_path / "prueba.toml"
    path.write_text(SCRIPT, encoding="utf-8")
    timeline = build_timeline("prueba", engine=EspeakEngine(), script=load_script("prueba", path))
    scene = write_scene_track(timeline, tmp_path / "escena.wav")
    lecture = concat_wavs([scene, scene], tmp_path / "clase.wav")
    result = normalize(lecture, tmp_path / "clase.norm.wav")

    info = soundfile.info(str(tmp_path / "clase.norm.wav"))
    assert (info.samplerate, info.channels, info.subtype) == (48_000, 2, "PCM_16")
    assert info.frames == 2 * round(timeline.total_s * MIX_RATE_HZ)
    assert abs(result.integrated_lufs - TARGET_LUFS) <= 1.0
    assert result.true_peak_dbtp <= TRUE_PEAK_CEILING_DBTP
    assert measure(tmp_path / "clase.norm.wav") == result
    lufs, peak = ebur128(tmp_path / "clase.norm.wav")  # an independent meter agrees
    assert abs(lufs - TARGET_LUFS) <= 1.0
    assert peak <= TRUE_PEAK_CEILING_DBTP


def test_a_peaky_track_is_limited_under_the_true_peak_ceiling(tmp_path):
    # Bursts of full-scale noise: sample peaks at 0 dBFS and overs between samples.
    rng = np.random.default_rng(7)
    bursts = np.concatenate(
        [np.concatenate([np.clip(rng.normal(0, 0.5, 9_600), -1, 1), np.zeros(4_800)]) for _ in range(40)]
    ).astype(np.float32)
    raw = tmp_path / "picos.wav"
    soundfile.write(str(raw), np.stack([bursts, bursts], axis=1), MIX_RATE_HZ, subtype="PCM_16")
    result = normalize(raw, tmp_path / "picos.norm.wav")
    assert abs(result.integrated_lufs - TARGET_LUFS) <= 1.0
    assert result.true_peak_dbtp <= TRUE_PEAK_CEILING_DBTP
    assert ebur128(tmp_path / "picos.norm.wav")[1] <= TRUE_PEAK_CEILING_DBTP


def test_a_silent_narration_cannot_be_normalised(tmp_path):
    raw = tmp_path / "silencio.wav"
    soundfile.write(str(raw), np.zeros((48_000, 2), np.float32), MIX_RATE_HZ)
    with pytest.raises(ValueError, match="silent"):
        normalize(raw, tmp_path / "out.wav")


def test_clips_land_on_the_exact_sample_of_their_start(tmp_path):
    clips = []
    for k, n in enumerate((4_801, 7_203)):  # lengths that are no whole number of milliseconds
        path = tmp_path / f"c{k}.wav"
        soundfile.write(str(path), np.full(n, 0.25 * (k + 1), np.float32), MIX_RATE_HZ, subtype="PCM_16")
        clips.append((path, n))
    first = Segment("a", "a", 0.0, clips[0][1] / MIX_RATE_HZ, str(clips[0][0]))
    # The second clip starts 0.4 s after the first ends, a start that is no whole millisecond.
    start = (clips[0][1] + 19_201) / MIX_RATE_HZ
    second = Segment("b", "b", start, clips[1][1] / MIX_RATE_HZ, str(clips[1][0]))
    total = start + second.duration_s + 0.5
    timeline = Timeline("t", "T", (BeatTiming("x", 0.0, total - 0.5, 0.5, {}, (first, second)),), total, "t.toml")
    mono = scene_samples(timeline)
    assert len(mono) == round(total * MIX_RATE_HZ)
    on = np.nonzero(np.abs(mono - 0.5) < 1e-3)[0]
    assert on[0] == clips[0][1] + 19_201 and len(on) == clips[1][1]
    assert np.all(np.abs(mono[: clips[0][1]] - 0.25) < 1e-3)
    assert np.all(mono[clips[0][1] : on[0]] == 0) and np.all(mono[on[-1] + 1 :] == 0)
