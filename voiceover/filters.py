"""Two filters in numpy alone: BS.1770's K-weighting (loudness) and oversampling by a whole
factor (the 4x a true peak is read from, Kokoro's 24 kHz to the clips' 48 kHz).

scipy has both (`lfilter`, `resample_poly`), but importing `scipy.signal` costs more than a
second of CPU (it parses its docstrings as it loads): before an edit's render starts when
Kokoro says the new sentence, beside it when its narration is measured, on 2 cores where
every CPU-second counts. Both are computed here as scipy computes them (tested against it).
"""

from __future__ import annotations

from functools import cache

import numpy as np

K_WEIGHTING_RATE_HZ = 48_000
# ITU-R BS.1770-4, tables 1 and 2: the pre-filter (a high shelf, the head's effect) and the
# RLB high-pass, as biquads (b, a) at 48 kHz.
K_WEIGHTING_48K = (
    ((1.53512485958697, -2.69169618940638, 1.19839281085285), (1.0, -1.69065929318241, 0.73248077421585)),
    ((1.0, -2.0, 1.0), (1.0, -1.99004745483398, 0.99007225036621)),
)
# The K-weighting's impulse response is taken as this long: its slowest pole (radius 0.99504,
# nearly a double one) has decayed to about 1e-14 of its start by then, far below float32.
K_TAIL_SAMPLES = 1 << 13
K_FRAME_SAMPLES = 1 << 15  # overlap-save frames: each gives this less the tail of output
# resample_poly's filter: 10 input samples either side of each output (half length 10 x the
# factor), a windowed sinc (Kaiser, beta 5) at the input's Nyquist frequency.
OVERSAMPLING_HALF_TAPS = 10
OVERSAMPLING_KAISER_BETA = 5.0


def k_weighted(x: np.ndarray, rate_hz: int = K_WEIGHTING_RATE_HZ) -> np.ndarray:
    """`x` (one channel) through the K-weighting filter from rest, as `scipy.signal.lfilter`
    gives it, in float32 (about 1e-7 of full scale from it): overlap-save, each
    `K_FRAME_SAMPLES` frame's FFT times the two biquads' response, its first
    `K_TAIL_SAMPLES` outputs (wrapped around) dropped."""
    if rate_hz != K_WEIGHTING_RATE_HZ:
        raise ValueError(f"K-weighting is tabulated at {K_WEIGHTING_RATE_HZ} Hz, not {rate_hz} Hz")
    x = np.asarray(x, dtype=np.float32)
    hop = K_FRAME_SAMPLES - K_TAIL_SAMPLES
    frames = -(-x.size // hop)
    padded = np.zeros(K_TAIL_SAMPLES + frames * hop + K_FRAME_SAMPLES, dtype=np.float32)
    padded[K_TAIL_SAMPLES : K_TAIL_SAMPLES + x.size] = x
    windows = np.lib.stride_tricks.sliding_window_view(padded, K_FRAME_SAMPLES)[::hop][:frames]
    spectra = np.fft.rfft(windows, axis=1) * _k_response(K_FRAME_SAMPLES).astype(np.complex64)
    return np.fft.irfft(spectra, K_FRAME_SAMPLES, axis=1)[:, K_TAIL_SAMPLES:].reshape(-1)[: x.size]


@cache
def _k_response(n: int) -> np.ndarray:
    """The K-weighting filter's frequency response on an `n`-point DFT's grid."""
    z = np.exp(-2j * np.pi * np.arange(n // 2 + 1) / n)  # z^-1 at each bin
    response = np.ones(n // 2 + 1, dtype=np.complex128)
    for b, a in K_WEIGHTING_48K:
        response *= (b[0] + z * (b[1] + z * b[2])) / (a[0] + z * (a[1] + z * a[2]))
    return response


def oversampled(x: np.ndarray, factor: int) -> np.ndarray:
    """`x` (one channel) at `factor` times its rate, as `scipy.signal.resample_poly(x,
    factor, 1)` gives it: each of the `factor` phases is the input convolved with its share
    of the filter (the polyphase form of zero-stuffing then filtering)."""
    x = np.asarray(x)
    dtype = np.float32 if x.dtype == np.float32 else np.float64
    x = x.astype(dtype, copy=False)
    if factor == 1 or not x.size:
        return x.copy()
    h = _oversampling_filter(factor).astype(dtype)
    out = np.empty(x.size * factor, dtype=dtype)
    for phase in range(factor):
        out[phase::factor] = np.convolve(x, h[phase::factor])[OVERSAMPLING_HALF_TAPS : OVERSAMPLING_HALF_TAPS + x.size]
    return out


@cache
def _oversampling_filter(factor: int) -> np.ndarray:
    """scipy's `firwin(2 * 10 * factor + 1, 1 / factor, window=("kaiser", 5.0)) * factor`."""
    taps = 2 * OVERSAMPLING_HALF_TAPS * factor + 1
    m = np.arange(taps) - (taps - 1) / 2
    h = np.sinc(m / factor) / factor * np.kaiser(taps, OVERSAMPLING_KAISER_BETA)
    scaled: np.ndarray = h / h.sum() * factor
    return scaled
