"""The seed's worked examples, computed: 2 -> 4 -> 2, and "perro" through 4 -> 8 -> ReLU -> 4.

The 2 -> 4 -> 2 example uses the seed's own matrices and is computed in exact decimal
arithmetic (``fractions.Fraction``), so every product shown on screen is exact.

The "perro" walk-through uses a tiny seeded network whose weights are rounded to two
decimals *before* the forward pass: the matrices a scene displays are exactly the ones
that produced the vectors it displays. The seed's own numbers for this walk-through are
illustrative; ours are computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from ffn_core.ffn import FfnTrace, ffn_forward

Vector = tuple[float, ...]
Matrix = tuple[Vector, ...]

# Seed ffn-interactivo.txt ("expandir" y "contraer"), as decimal strings so they are exact.
SEED_INPUT = ("3", "5")
SEED_EXPAND = (("0.5", "0.2", "0.1", "0.3"), ("0.1", "0.4", "0.5", "0.2"))
SEED_CONTRACT = (("0.2", "0.3"), ("0.4", "0.1"), ("0.1", "0.5"), ("0.3", "0.2"))


@dataclass(frozen=True)
class MatVecStep:
    """``output[j] = sum_i input[i] * matrix[i][j]`` with every product kept for display.

    ``products[j][i] = input[i] * matrix[i][j]``; all values are exact decimals.
    """

    input: Vector
    matrix: Matrix
    products: tuple[Vector, ...]
    output: Vector


@dataclass(frozen=True)
class ExpandContract:
    """The seed's 2 -> 4 -> 2 example: expand (2x4 matrix), then contract (4x2 matrix)."""

    expand: MatVecStep
    contract: MatVecStep

    @property
    def expanded(self) -> Vector:
        return self.expand.output

    @property
    def contracted(self) -> Vector:
        return self.contract.output


ExactVector = tuple[Fraction, ...]


def _exact_step(vector: ExactVector, matrix: tuple[ExactVector, ...]) -> tuple[MatVecStep, ExactVector]:
    rows, cols = len(matrix), len(matrix[0])
    if len(vector) != rows:
        raise ValueError(f"vector of width {len(vector)} does not match a {rows}x{cols} matrix")
    products = tuple(tuple(vector[i] * matrix[i][j] for i in range(rows)) for j in range(cols))
    output = tuple(sum(column, Fraction(0)) for column in products)
    step = MatVecStep(
        input=tuple(float(v) for v in vector),
        matrix=tuple(tuple(float(m) for m in row) for row in matrix),
        products=tuple(tuple(float(p) for p in column) for column in products),
        output=tuple(float(o) for o in output),
    )
    return step, output


DecimalLike = str | int | float  # a number as written: "0.1", 3, 0.5
DecimalMatrix = Sequence[Sequence[DecimalLike]]


def expand_contract(
    vector: Sequence[DecimalLike] = SEED_INPUT,
    expand: DecimalMatrix = SEED_EXPAND,
    contract: DecimalMatrix = SEED_CONTRACT,
) -> ExpandContract:
    """Expand then contract, in exact decimal arithmetic (inputs as decimal strings or numbers)."""

    def exact(v: DecimalLike) -> Fraction:
        return Fraction(str(v))  # str() keeps 0.1 as the decimal 0.1

    x = tuple(exact(v) for v in vector)
    w1 = tuple(tuple(exact(v) for v in row) for row in expand)
    w2 = tuple(tuple(exact(v) for v in row) for row in contract)
    first, expanded = _exact_step(x, w1)
    second, _ = _exact_step(expanded, w2)
    return ExpandContract(expand=first, contract=second)


# The seed's "perro" vector (dim 4); only the input is taken from the seed.
PERRO_EMBEDDING = (0.5, 1.1, 0.7, 0.8)


@dataclass(frozen=True)
class WordWalkthrough:
    """One word through a 4 -> 8 -> ReLU -> 4 FFN with real (seeded, displayed) weights.

    ``w_in`` is 4x8, ``w_out`` 8x4 (two-decimal entries, as shown); no biases, so each
    stage is a plain product. ``trace`` holds every stage (pre-activation = "expandido",
    activation = "activado", output = "contraído"); ``n_active`` neurons survive ReLU.
    """

    word: str
    seed: int
    w_in: Matrix
    w_out: Matrix
    trace: FfnTrace
    n_active: int

    @property
    def expanded(self) -> Vector:
        return self.trace.pre_activation

    @property
    def activated(self) -> Vector:
        return self.trace.activation

    @property
    def contracted(self) -> Vector:
        return self.trace.output


def word_walkthrough(
    word: str = "perro", embedding: Vector = PERRO_EMBEDDING, d_ff: int = 8, seed: int = 6
) -> WordWalkthrough:
    """``word``'s embedding through a ReLU FFN with seeded weights rounded to 2 decimals.

    Weights are drawn N(0, 1/fan_in) (the usual initialisation scale) from
    ``numpy.random.default_rng(seed)``. The default seed is one where half of the eight
    neurons fire (4 of 8), so the ReLU stage has something to switch on and off.
    """
    rng = np.random.default_rng(seed)
    d = len(embedding)
    w_in = np.round(rng.normal(0.0, 1.0 / np.sqrt(d), size=(d, d_ff)), 2)
    w_out = np.round(rng.normal(0.0, 1.0 / np.sqrt(d_ff), size=(d_ff, d)), 2)
    trace = ffn_forward("relu", embedding, w_in, w_out)

    def as_matrix(m: npt.NDArray[np.float64]) -> Matrix:
        return tuple(tuple(float(v) for v in row) for row in m)

    return WordWalkthrough(
        word=word, seed=seed, w_in=as_matrix(w_in), w_out=as_matrix(w_out), trace=trace, n_active=sum(trace.active)
    )
