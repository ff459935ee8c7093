"""MFCC + DTW alignment (`voiceover.alignment`) on signals whose true warp is known."""

from __future__ import annotations

import numpy as np
import pytest

from voiceover import alignment as al

RATE = al.FEATURE_RATE_HZ


def babble(seconds: float, seed: int, pauses: list[tuple[float, float]]) -> np.ndarray:
    """Speech-like noise: bursts of filtered noise with changing colour, silent in `pauses`."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    out = np.zeros(n, dtype=np.float32)
    at = 0
    while at < n:
        length = int(rng.uniform(0.06, 0.2) * RATE)
        kernel = rng.standard_normal(int(rng.integers(2, 24))).astype(np.float32)
        burst = np.convolve(rng.standard_normal(length).astype(np.float32), kernel, "same")
        out[at : at + length] = burst[: n - at] / (np.abs(burst).max() + 1e-9) * 0.3
        at += length
    for a, b in pauses:
        out[int(a * RATE) : int(b * RATE)] = 0.0
    return out


def test_features_fed_in_blocks_equal_features_of_the_whole_signal():
    signal = babble(3.0, 1, [])
    whole = al.features(signal)
    blocks = al.features(np.array_split(signal, [1234, 5000, 5001, 30000]))
    assert whole.frames == blocks.frames == int(np.ceil(len(signal) / al.HOP))
    np.testing.assert_allclose(whole.mfcc, blocks.mfcc, atol=1e-4)
    np.testing.assert_allclose(whole.fine_db, blocks.fine_db, atol=1e-4)


def test_a_slower_take_with_a_longer_pause_maps_every_onset_within_two_frames():
    # The take: the reference with its pause at 3-3.5 s lengthened to 2 s, and 0.4 s of lead-in.
    ref = babble(8.0, 2, [(0.0, 0.3), (3.0, 3.5), (7.7, 8.0)])
    take = np.concatenate(
        [np.zeros(int(0.4 * RATE), np.float32), ref[: 3 * RATE], np.zeros(int(1.5 * RATE), np.float32), ref[3 * RATE :]]
    )
    take = take + np.random.default_rng(5).standard_normal(len(take)).astype(np.float32) * 0.003
    warp = al.align(al.features(ref), al.features(take))
    assert warp.word_start(0.3) == pytest.approx(0.7, abs=0.02)  # after the lead-in: an onset
    assert warp.word_start(3.5) == pytest.approx(3.5 + 0.4 + 1.5, abs=0.02)  # after the pause
    assert warp.to_take(5.0) == pytest.approx(5.0 + 1.9, abs=0.03)  # inside speech: the path alone
    assert warp.confidence(5.0) > 0.8
    assert not al.off_script(warp, [(0.3, 3.0), (3.5, 7.7)])


def test_a_take_with_added_speech_is_off_script_at_that_sentence():
    ref = babble(9.0, 3, [(0.0, 0.3), (3.0, 3.5), (6.0, 6.5), (8.7, 9.0)])
    added = babble(3.0, 9, [])
    take = np.concatenate([ref[: int(3.2 * RATE)], added, ref[int(3.2 * RATE) :]])
    warp = al.align(al.features(ref), al.features(take))
    found = al.off_script(warp, [(0.3, 3.0), (3.5, 6.0), (6.5, 8.7)])
    assert found and found[0].kind == "sobra" and found[0].sentence in (0, 1)
    assert 2.5 < found[0].take_end_s and found[0].take_start_s < 6.5
