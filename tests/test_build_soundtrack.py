"""The lecture's narration: gated loudness from per-scene blocks, 48 kHz stereo at -16 LUFS
integrated within 1 LU and true peak under -1 dBTP (checked by the build's meter and by
ffmpeg's own EBU R128 one), and one track joined as PCM, each scene fitted to its video's
samples, encoded once."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
import soundfile

from lecture.media import soundtrack as st
from lecture.media.loudness import Loudness, measure
from lecture.media.sync_check import best_lag
from voiceover.engines.espeak import EspeakEngine
from voiceover.script import load_script
from voiceover.timing import build_timeline
from voiceover.track import write_scene_track

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


def _tone(path: Path, seconds: float, amplitude: float, rate: int = st.RATE_HZ) -> Path:
    t = np.arange(int(seconds * rate)) / rate
    mono = amplitude * np.sin(2 * np.pi * 440 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 0.7 * t))
    soundfile.write(str(path), np.stack([mono, mono], 1), rate, subtype="PCM_16")
    return path


def normalised(wav: Path, out: Path) -> Loudness:
    """`wav` at the target as the build sets it (`lecture.build.mix`): the gain its blocks
    ask for, then the true-peak limiter; what the build's meter reads on the result."""
    st.limit(wav, out, gain_db=TARGET_LUFS - st.integrated_lufs([st.block_energies(wav)]))
    return Loudness(st.integrated_lufs([st.block_energies(out)]), st.true_peak_dbtp(out))


def test_the_lecture_track_is_48k_stereo_at_minus_16_lufs_with_true_peak_under_ceiling(tmp_path, monkeypatch):
    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "no_recordings"))
    path = tmp_path / "prueba.toml"
    path.write_text(SCRIPT, encoding="utf-8")
    timeline = build_timeline("prueba", engine=EspeakEngine(), script=load_script("prueba", path))
    scene = write_scene_track(timeline, tmp_path / "escena.wav")
    samples = round(timeline.total_s * st.RATE_HZ)
    lecture = st.join_pcm([(scene, samples), (scene, samples)], tmp_path / "clase.wav")
    result = normalised(lecture, tmp_path / "clase.norm.wav")

    info = soundfile.info(str(tmp_path / "clase.norm.wav"))
    assert (info.samplerate, info.channels, info.subtype) == (48_000, 2, "PCM_16")
    assert info.frames == 2 * samples
    assert abs(result.integrated_lufs - TARGET_LUFS) <= 1.0
    assert result.true_peak_dbtp <= TRUE_PEAK_CEILING_DBTP
    independent = measure(tmp_path / "clase.norm.wav")  # an independent meter agrees
    assert abs(independent.integrated_lufs - TARGET_LUFS) <= 1.0
    assert independent.true_peak_dbtp <= TRUE_PEAK_CEILING_DBTP


def test_a_peaky_track_is_limited_under_the_true_peak_ceiling(tmp_path):
    # Bursts of full-scale noise: sample peaks at 0 dBFS and overs between samples.
    rng = np.random.default_rng(7)
    bursts = np.concatenate(
        [np.concatenate([np.clip(rng.normal(0, 0.5, 9_600), -1, 1), np.zeros(4_800)]) for _ in range(40)]
    ).astype(np.float32)
    raw = tmp_path / "picos.wav"
    soundfile.write(str(raw), np.stack([bursts, bursts], axis=1), st.RATE_HZ, subtype="PCM_16")
    result = normalised(raw, tmp_path / "picos.norm.wav")
    assert abs(result.integrated_lufs - TARGET_LUFS) <= 1.0
    assert result.true_peak_dbtp <= TRUE_PEAK_CEILING_DBTP
    assert measure(tmp_path / "picos.norm.wav").true_peak_dbtp <= TRUE_PEAK_CEILING_DBTP


def test_a_silent_narration_cannot_be_normalised(tmp_path):
    raw = tmp_path / "silencio.wav"
    soundfile.write(str(raw), np.zeros((48_000, 2), np.float32), st.RATE_HZ)
    with pytest.raises(ValueError, match="en silencio"):
        normalised(raw, tmp_path / "out.wav")


def test_loudness_from_scene_blocks_matches_the_whole_lecture(tmp_path):
    parts = [_tone(tmp_path / f"{i}.wav", s, a) for i, (s, a) in enumerate([(6.0, 0.3), (4.0, 0.05), (8.0, 0.2)])]
    whole = np.concatenate([soundfile.read(str(p), always_2d=True)[0] for p in parts])
    reference = pyloudnorm.Meter(st.RATE_HZ).integrated_loudness(whole)
    ours = st.integrated_lufs([st.block_energies(p) for p in parts])
    assert ours == pytest.approx(reference, abs=0.1)


def test_limiting_keeps_the_true_peak_under_the_ceiling(tmp_path):
    loud = _tone(tmp_path / "loud.wav", 3.0, 0.9)
    st.limit(loud, tmp_path / "out.wav", gain_db=6.0)
    assert st.true_peak_dbtp(tmp_path / "out.wav") <= st.CEILING_DBTP


def test_joined_pcm_gives_each_scene_exactly_its_video_samples(tmp_path):
    # Narration longer than its video is cut, shorter is padded with silence: each scene's
    # narration then starts exactly on its first frame, whatever the scenes before it.
    long = _tone(tmp_path / "long.wav", 2.0, 0.3)
    short = _tone(tmp_path / "short.wav", 0.5, 0.3)
    lengths = [st.RATE_HZ, 2 * st.RATE_HZ, 3200 * 7]
    out = st.join_pcm([(long, lengths[0]), (short, lengths[1]), (long, lengths[2])], tmp_path / "all.wav")
    data, rate = soundfile.read(str(out), dtype="int16", always_2d=True)
    assert rate == st.RATE_HZ and data.shape == (sum(lengths), 2)
    source = soundfile.read(str(long), dtype="int16", always_2d=True)[0]
    starts = np.cumsum([0] + lengths)
    assert np.array_equal(data[: lengths[0]], source[: lengths[0]])
    assert np.array_equal(
        data[starts[1] : starts[1] + st.RATE_HZ // 2], soundfile.read(str(short), dtype="int16", always_2d=True)[0]
    )
    assert not data[starts[1] + st.RATE_HZ // 2 : starts[2]].any()  # the padding is silence
    assert np.array_equal(data[starts[2] :], source[: lengths[2]])


def test_the_encoded_lecture_track_lasts_its_pcm_to_the_sample(tmp_path):
    wav = _tone(tmp_path / "s.wav", 2.0, 0.2)
    m4a = st.encode_lecture(wav, tmp_path / "s.m4a")
    decoded = np.frombuffer(
        subprocess.run(
            ["ffmpeg", "-v", "error", "-i", str(m4a), "-f", "f32le", "-ac", "1", "-"], capture_output=True, check=True
        ).stdout,
        dtype=np.float32,
    )
    # The priming is dropped by the edit list: the first decoded sample is the first of the
    # PCM; only the last packet's padding (under one packet) may follow the end.
    assert 2 * st.RATE_HZ <= len(decoded) < 2 * st.RATE_HZ + 1024
    source = soundfile.read(str(wav), dtype="float32", always_2d=True)[0][:, 0]
    padded = np.concatenate([np.zeros(2048, np.float32), decoded])
    assert best_lag(source[:48_000], padded) == 2048
