"""Universal approximation, shown: a curve fitted by N ReLU neurons, each adding one fold.

The network is ``y(x) = c + sum_i a_i ReLU(x - t_i)``: neuron i folds the line at
``x = t_i``. The folds are spread evenly over the interval and the output layer
(``a_i``, ``c``) is solved by least squares, which is the best output layer for those
folds; the error then falls as neurons are added (roughly as 1/N^2 for a smooth curve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ffn_core.cache import disk_cached
from ffn_core.shapes import relu_features

NEURON_COUNTS = (1, 2, 4, 8, 16, 32, 64)
INTERVAL = (-2.0, 2.0)  # x range, data units

FloatArray = npt.NDArray[np.float64]


def target(x: FloatArray) -> FloatArray:
    """The curve to learn: sin(3x) + 0.3 x (two waves on a gentle slope)."""
    return np.sin(3.0 * x) + 0.3 * x


TARGET_FORMULA = "sin(3x) + 0.3x"


@dataclass(frozen=True)
class ReluFit:
    """The best fit of the target by ``n_neurons`` ReLU neurons with evenly spread folds.

    ``folds`` are the kink x-positions (t_i); ``output_weights`` the a_i; ``output_bias``
    c; ``curve`` the fitted y at ``ApproximationResult.x``. Errors are measured against
    the target on that grid: root-mean-square and maximum absolute (y units).
    """

    n_neurons: int
    folds: tuple[float, ...]
    output_weights: tuple[float, ...]
    output_bias: float
    curve: tuple[float, ...]
    rms_error: float
    max_error: float


@dataclass(frozen=True)
class ApproximationResult:
    """The target curve and its fit for each neuron count (``fits`` in NEURON_COUNTS order)."""

    formula: str
    x: tuple[float, ...]
    target: tuple[float, ...]
    fits: tuple[ReluFit, ...]

    def fit(self, n_neurons: int) -> ReluFit:
        """The fit with ``n_neurons`` neurons."""
        for candidate in self.fits:
            if candidate.n_neurons == n_neurons:
                return candidate
        raise ValueError(f"no fit with {n_neurons} neurons; available: {[f.n_neurons for f in self.fits]}")


def fold_positions(n_neurons: int, interval: tuple[float, float] = INTERVAL) -> FloatArray:
    """Fold x-positions: the centres of ``n_neurons`` equal slices of ``interval``.

    The first fold sits inside the interval, so the fit is flat left of it; one neuron
    gives a single hinge in the middle.
    """
    lo, hi = interval
    centres: FloatArray = lo + (np.arange(n_neurons) + 0.5) * (hi - lo) / n_neurons
    return centres


def fit_relu(n_neurons: int, n_samples: int = 401) -> ReluFit:
    """Least-squares output layer for ``n_neurons`` evenly spread folds."""
    if n_neurons < 1:
        raise ValueError(f"need at least one neuron, got {n_neurons}")
    x = np.linspace(*INTERVAL, n_samples)
    y = target(x)
    folds = fold_positions(n_neurons)
    design = np.hstack([relu_features(x, folds), np.ones((n_samples, 1))])
    solution, *_ = np.linalg.lstsq(design, y, rcond=None)
    fitted = design @ solution
    error = fitted - y
    return ReluFit(
        n_neurons=n_neurons,
        folds=tuple(map(float, folds)),
        output_weights=tuple(map(float, solution[:-1])),
        output_bias=float(solution[-1]),
        curve=tuple(map(float, fitted)),
        rms_error=float(math.sqrt(np.mean(error**2))),
        max_error=float(np.max(np.abs(error))),
    )


@disk_cached
def fit_all(neuron_counts: tuple[int, ...] = NEURON_COUNTS, n_samples: int = 401) -> ApproximationResult:
    """The target and its ReLU fits for every neuron count."""
    x = np.linspace(*INTERVAL, n_samples)
    return ApproximationResult(
        formula=TARGET_FORMULA,
        x=tuple(map(float, x)),
        target=tuple(map(float, target(x))),
        fits=tuple(fit_relu(n, n_samples) for n in neuron_counts),
    )
