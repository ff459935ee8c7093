"""The lecture's narration: gated loudness from per-scene blocks, and AAC segments joined
without drift, re-encoding only the scene that changed."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
import soundfile

from lecture import soundtrack as st


def _tone(path: Path, seconds: float, amplitude: float, rate: int = st.RATE_HZ) -> Path:
    t = np.arange(int(seconds * rate)) / rate
    mono = amplitude * np.sin(2 * np.pi * 440 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 0.7 * t))
    soundfile.write(str(path), np.stack([mono, mono], 1), rate, subtype="PCM_16")
    return path


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


class FakeEncoder:
    """Stands in for ffmpeg: records what is encoded, writes an empty segment file."""

    def __init__(self):
        self.encoded: list[str] = []

    def __call__(self, wav, folder, sig, lead, packets):
        assert packets * st.AAC_PACKET >= st.AAC_PACKET + lead
        path = Path(folder) / f"{sig}.L{lead}.k{packets}.m4a"
        path.write_bytes(b"")
        self.encoded.append(sig)
        return st.Segment(path, lead, packets)


def _place(folder, lengths, sigs):
    return st.place_segments([(f"s{i}", Path("unused.wav"), sig, n) for i, (n, sig) in
                              enumerate(zip(lengths, sigs))], folder)


def test_segments_land_on_their_frames_and_an_edit_reencodes_one_scene(tmp_path, monkeypatch):
    fake = FakeEncoder()
    monkeypatch.setattr(st, "encode_segment", fake)
    rng = random.Random(7)
    lengths = [rng.randrange(40, 400) * 3200 for _ in range(20)]  # whole frames at 15 fps
    sigs = [f"{i:02x}a" for i in range(20)]
    bound = st.REUSE_TOLERANCE_SAMPLES + 256  # a new segment cannot start before the previous ends
    first = _place(tmp_path, lengths, sigs)
    assert len(fake.encoded) == 20
    assert 0 <= first[0].error_samples <= st.AAC_PACKET  # the first scene waits for the priming
    assert all(abs(p.error_samples) <= bound for p in first[1:])
    extra = 0
    for round_ in range(30):  # many edits, each changing one scene's length
        fake.encoded.clear()
        i = rng.randrange(20)
        lengths[i] = max(lengths[i] + rng.choice([-1, 1]) * rng.randrange(1, 30) * 3200, 40 * 3200)
        sigs[i] = f"{i:02x}e{round_:02x}"
        placed = _place(tmp_path, lengths, sigs)
        assert fake.encoded[0] == sigs[i]
        extra += len(fake.encoded) - 1
        assert all(abs(p.error_samples) <= bound for p in placed[1:]), round_
        total_audio = sum(p.segment.samples for p in placed)
        assert abs(total_audio - sum(lengths)) <= st.AAC_PACKET + bound
    assert extra <= 3, extra  # errors do not pile up: other scenes are almost never re-encoded


def test_a_real_segment_has_exactly_the_packets_asked_for(tmp_path):
    wav = _tone(tmp_path / "s.wav", 2.0, 0.2)
    segment = st.encode_segment(wav, tmp_path, "abc", lead=300, packets=90)
    assert st._packets(segment.path) == 90
    joined = st.join_segments([segment.path, segment.path], tmp_path / "both.m4a")
    assert st._packets(joined) == 180
