"""Two linear layers collapse into one matrix; a ReLU between them breaks the collapse.

Small seeded matrices with one-decimal entries (legible on screen) and an integer input:
``x W1 W2`` equals ``x (W1 W2)`` for every ``x``, so two stacked linear maps are one map.
With a ReLU in between, ``ReLU(x W1) W2`` differs from ``x (W1 W2)`` for the input shown,
because one hidden entry of ``x W1`` is negative and the ReLU silences it.

All arithmetic is exact (``fractions.Fraction``), so every entry shown is the exact value
of the product, never a rounded float.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

Vector = tuple[float, ...]
Matrix = tuple[Vector, ...]

D_MODEL = 3  # width of a token vector (rows of W1, columns of W2)
D_HIDDEN = 4  # width of the hidden layer (columns of W1, rows of W2)
# Seed where W1, W2 and W1 W2 have no zero entry and x W1 has one negative entry among
# positive ones: the ReLU then changes exactly one neuron, the clearest case to show.
DEFAULT_SEED = 14


@dataclass(frozen=True)
class CollapseResult:
    """The collapse of two linear maps, and its failure with a ReLU between them.

    ``w1`` is D_MODEL x D_HIDDEN and ``w2`` D_HIDDEN x D_MODEL (entries in tenths);
    ``product = w1 @ w2``. ``x`` is the input row vector (integers). ``hidden = x @ w1``
    (pre-activation), ``hidden_relu = max(hidden, 0)``. ``linear_output = x @ product``
    (equal to ``hidden @ w2``); ``relu_output = hidden_relu @ w2``. ``silenced`` lists the
    hidden indices the ReLU set to zero; ``max_difference`` is the largest absolute gap
    between the two outputs. Values are exact decimals stored as floats.
    """

    seed: int
    w1: Matrix
    w2: Matrix
    product: Matrix
    x: Vector
    hidden: Vector
    hidden_relu: Vector
    linear_output: Vector
    relu_output: Vector
    silenced: tuple[int, ...]
    max_difference: float


ExactMatrix = list[list[Fraction]]


def _matmul(a: ExactMatrix, b: ExactMatrix) -> ExactMatrix:
    if len(a[0]) != len(b):
        raise ValueError(f"cannot multiply a {len(a)}x{len(a[0])} matrix by a {len(b)}x{len(b[0])} one")
    return [
        [sum((a[i][k] * b[k][j] for k in range(len(b))), Fraction(0)) for j in range(len(b[0]))] for i in range(len(a))
    ]


def _as_floats(m: ExactMatrix) -> Matrix:
    return tuple(tuple(float(v) for v in row) for row in m)


def draw_numbers(seed: int) -> tuple[ExactMatrix, ExactMatrix, ExactMatrix]:
    """Seeded W1, W2 (tenths in -0.9..0.9) and an input x (integers in -3..3), exact."""
    rng = np.random.default_rng(seed)
    w1 = rng.integers(-9, 10, size=(D_MODEL, D_HIDDEN))
    w2 = rng.integers(-9, 10, size=(D_HIDDEN, D_MODEL))
    x = rng.integers(1, 4, size=D_MODEL) * rng.choice([-1, 1], size=D_MODEL)

    def tenths(m: npt.NDArray[np.int64]) -> ExactMatrix:
        return [[Fraction(int(v), 10) for v in row] for row in m]

    return tenths(w1), tenths(w2), [[Fraction(int(v)) for v in x]]


def solve(seed: int = DEFAULT_SEED) -> CollapseResult:
    """Compute the collapse for ``seed``; raise ValueError if the seed gives an unclear example
    (a zero entry in W1, W2 or W1 W2, or a hidden layer the ReLU leaves untouched)."""
    w1, w2, x = draw_numbers(seed)
    product = _matmul(w1, w2)
    hidden = _matmul(x, w1)
    hidden_relu = [[max(v, Fraction(0)) for v in hidden[0]]]
    linear_output = _matmul(x, product)
    relu_output = _matmul(hidden_relu, w2)
    if linear_output != _matmul(hidden, w2):  # associativity, checked in exact arithmetic
        raise AssertionError(f"seed {seed}: x (W1 W2) differs from (x W1) W2")
    zero_entry = any(v == 0 for m in (w1, w2, product) for row in m for v in row)
    silenced = tuple(i for i, v in enumerate(hidden[0]) if v < 0)
    if zero_entry or not silenced or len(silenced) == D_HIDDEN:
        raise ValueError(
            f"ffn_core.collapse: seed {seed} gives an unclear example (zero entry: {zero_entry}, "
            f"silenced neurons: {len(silenced)} of {D_HIDDEN}); pick another seed"
        )
    gap = max(abs(a - b) for a, b in zip(linear_output[0], relu_output[0]))
    return CollapseResult(
        seed=seed,
        w1=_as_floats(w1),
        w2=_as_floats(w2),
        product=_as_floats(product),
        x=_as_floats(x)[0],
        hidden=_as_floats(hidden)[0],
        hidden_relu=_as_floats(hidden_relu)[0],
        linear_output=_as_floats(linear_output)[0],
        relu_output=_as_floats(relu_output)[0],
        silenced=silenced,
        max_difference=float(gap),
    )
