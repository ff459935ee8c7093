"""The K-weighting and the 4x oversampling in numpy give what scipy gives, and measuring a
narration imports no scipy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import soundfile
from scipy.signal import lfilter, resample_poly

from lecture.media import soundtrack as st
from voiceover import filters


def _signals() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    t = np.arange(200_000) / filters.K_WEIGHTING_RATE_HZ
    speech_like = 0.4 * np.sin(2 * np.pi * 180 * t) * (np.sin(2 * np.pi * 3 * t) > 0)
    # Longer than a frame and shorter than one, an odd length, a click, and silence.
    return [
        rng.uniform(-1, 1, 100_003),
        speech_like,
        rng.uniform(-1, 1, 37),
        np.r_[np.zeros(40_000), 1.0, np.zeros(40_000)],
        np.zeros(5),
        np.zeros(0),
    ]


@pytest.mark.parametrize("x", _signals(), ids=["ruido", "voz", "corto", "clic", "silencio", "vacío"])
def test_k_weighting_matches_scipys_lfilter(x):
    reference = x
    for b, a in filters.K_WEIGHTING_48K:
        reference = lfilter(b, a, reference)
    ours = filters.k_weighted(x.astype(np.float32))
    assert ours.shape == x.shape
    assert np.max(np.abs(ours - reference), initial=0.0) < 2e-6  # float32 of a signal within ±1
    if x.size:
        assert np.mean(ours.astype(np.float64) ** 2) == pytest.approx(np.mean(reference**2), rel=1e-5, abs=1e-12)


def test_k_weighting_refuses_a_rate_it_has_no_table_for():
    with pytest.raises(ValueError, match="44100"):
        filters.k_weighted(np.zeros(10), 44_100)


@pytest.mark.parametrize("x", _signals(), ids=["ruido", "voz", "corto", "clic", "silencio", "vacío"])
@pytest.mark.parametrize("factor", [2, 4])
def test_oversampling_matches_scipys_resample_poly(x, factor):
    for signal in (x, x.astype(np.float32)):
        reference = resample_poly(signal, factor, 1)
        ours = filters.oversampled(signal, factor)
        assert ours.dtype == reference.dtype and ours.shape == reference.shape
        tolerance = 1e-6 if signal.dtype == np.float32 else 1e-12
        assert np.max(np.abs(ours - reference), initial=0.0) < tolerance


def test_block_energies_and_true_peak_are_measured_without_importing_scipy(tmp_path):
    wav = tmp_path / "narración.wav"
    tone = 0.5 * np.sin(2 * np.pi * 440 * np.arange(96_000) / st.RATE_HZ)
    soundfile.write(str(wav), np.stack([tone, tone], axis=1), st.RATE_HZ, subtype="PCM_16")
    code = (
        "import sys; from pathlib import Path; from lecture.media import soundtrack as st; "
        f"e = st.block_energies(Path({str(wav)!r})); p = st.true_peak_dbtp(Path({str(wav)!r})); "
        "print(len(e), round(p, 2), 'scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(len(st.block_energies(wav))), str(round(st.true_peak_dbtp(wav), 2)), "False"]
    assert int(out[0]) == 1 + (96_000 - 19_200) // 4_800
