"""The pure drawing functions scenes may use: the shape of a curve, a line clipped to a view,
a needle's angle. They hold no data (that is read through `ffn_core.registry`): given a
number, they say where a drawing goes.

They are defined here and imported by the computations (`ffn_core.ffn`, `.approx`,
`.stencil`, `.needles`, `.xor`), so a drawn ReLU is the code's ReLU, not a sketch of it, and
a scene that draws curves depends on this one file only (its cache key hashes the ffn_core
sources it imports). Scenes import from `ffn_core` only this module and `ffn_core.registry`
(tests/test_scene_contract.py checks it).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
Point = tuple[float, float]

XOR_VIEW = (-0.5, 1.5)  # the square the XOR scene draws, in data units, both axes
NEEDLE_ANGLE_SCALE = 1.0  # pre-activation that turns a needle a quarter turn (90 degrees)
NEEDLE_MAX_ANGLE_DEG = 90.0

_erf = np.vectorize(math.erf, otypes=[float])  # numpy has no erf; scipy costs 0.5 s to import


def relu(z: npt.ArrayLike) -> FloatArray:
    """max(0, z), elementwise."""
    return np.maximum(np.asarray(z, dtype=np.float64), 0.0)


def gelu(z: npt.ArrayLike, approximate: str = "none") -> FloatArray:
    """GELU: z * Phi(z) (exact, "none") or GPT-2's tanh approximation ("tanh")."""
    values = np.asarray(z, dtype=np.float64)
    if approximate == "tanh":
        scale: float = np.sqrt(2.0 / np.pi)
        return 0.5 * values * (1.0 + np.tanh(scale * (values + 0.044715 * values**3)))
    erf: FloatArray = _erf(values / np.sqrt(2.0))
    return 0.5 * values * (1.0 + erf)


def swish(z: npt.ArrayLike) -> FloatArray:
    """Swish / SiLU: z * sigmoid(z)."""
    values = np.asarray(z, dtype=np.float64)
    return values / (1.0 + np.exp(-values))


def swish_value(z: float) -> float:
    """Swish on one number (for plotting the code's own curve)."""
    return float(swish(np.array(z)))


def relu_features(x: FloatArray, folds: FloatArray) -> FloatArray:
    """Hidden layer outputs of a 1-D fit: column i is ReLU(x - folds[i])."""
    return np.maximum(x[:, None] - folds[None, :], 0.0)


def needle_angle_deg(pre_activation: float, scale: float = NEEDLE_ANGLE_SCALE) -> float:
    """A needle's angle in degrees for a neuron's pre-activation: 0 lies flat, +90 points
    straight at the magnet (fully aligned), -90 straight away from it.

    The map is ``90 * sign(z) * sqrt(min(|z| / scale, 1))``: odd, monotonic (non-decreasing)
    everywhere, a quarter turn at ``|z| >= scale``. The square root opens up small values:
    most of MiniLM's positive pre-activations lie between 0 and 0.5, which a linear map
    would leave almost flat (0.1 turns a needle 28 degrees here, 9 linearly); the order of
    the needles, which one is more aligned, is kept.
    """
    if scale <= 0:
        raise ValueError(f"the angle scale must be positive, got {scale!r}")
    share = min(abs(pre_activation) / scale, 1.0)
    return float(np.sign(pre_activation)) * NEEDLE_MAX_ANGLE_DEG * float(np.sqrt(share))


def clip_line(angle_rad: float, offset: float, view: tuple[float, float] = XOR_VIEW) -> tuple[Point, Point]:
    """End points of ``cos(a) x + sin(a) y = offset`` inside the square ``view`` x ``view``."""
    lo, hi = view
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    found: list[Point] = []
    if abs(s) > 1e-12:
        for x in (lo, hi):
            y = (offset - c * x) / s
            if lo - 1e-9 <= y <= hi + 1e-9:
                found.append((x, y))
    if abs(c) > 1e-12:
        for y in (lo, hi):
            x = (offset - s * y) / c
            if lo - 1e-9 <= x <= hi + 1e-9:
                found.append((x, y))
    unique: list[Point] = []
    for p in found:
        if all(abs(p[0] - q[0]) > 1e-9 or abs(p[1] - q[1]) > 1e-9 for q in unique):
            unique.append(p)
    if len(unique) < 2:  # the line misses the square: draw nothing (a degenerate segment)
        mid = ((lo + hi) / 2, (lo + hi) / 2)
        return mid, mid
    return unique[0], unique[-1]
