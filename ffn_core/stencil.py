"""A small SwiGLU FFN worked out channel by channel: the paint, the stencil and the mark.

``SwiGLU(x) = (Swish(x W_1) * x W_3) W_2`` (the seed's names: ``W_1`` is the gate branch,
``W_3`` the content branch, ``W_2`` the contraction). Read as a stencil: ``x W_3`` is the
paint offered to each hidden channel, ``Swish(x W_1)`` is how open that channel's hole in
the stencil is, their elementwise product is the mark left on the paper, and ``W_2``
gathers the marks back into a d_model vector.

The example is tiny (4 -> 6 -> 4) and seeded; weights are rounded to two decimals
*before* the forward pass, so the matrices a scene could display are exactly the ones
that produced the vectors it displays. The forward pass itself is ``ffn_core.ffn``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ffn_core.examples import PERRO_EMBEDDING
from ffn_core.ffn import FfnTrace, ffn_forward, relu, swiglu_width

Vector = tuple[float, ...]
Matrix = tuple[Vector, ...]

# The seed below is the first (from 0) whose six channels tell the whole story at once:
# one hole wide open (gate > 1: it amplifies its paint), one nearly shut (|gate| < 0.08), one
# slightly negative (Swish keeps its input's sign: a small negative gate, which lets a little
# paint through with the paint's sign inverted), and paint of both signs in every case.
STENCIL_SEED = 13
STENCIL_D_FF = 6


@dataclass(frozen=True)
class StencilExample:
    """Every intermediate of one SwiGLU forward pass on one token (plain floats).

    ``w_gate`` (W_1, d x d_ff), ``w_up`` (W_3, d x d_ff), ``w_down`` (W_2, d_ff x d) are
    the rounded weights; ``gate_pre = x W_1``; ``gate = Swish(gate_pre)`` (the stencil);
    ``paint = x W_3``; ``product = gate * paint`` (the marks on the paper);
    ``output = product W_2``. ``relu_gate = ReLU(gate_pre)`` is what a ReLU would have let
    through, for contrast. ``trace`` is ``ffn_core.ffn.ffn_forward("swiglu", ...)``.
    """

    seed: int
    x: Vector
    w_gate: Matrix
    w_up: Matrix
    w_down: Matrix
    gate_pre: Vector
    gate: Vector
    relu_gate: Vector
    paint: Vector
    product: Vector
    output: Vector
    trace: FfnTrace

    @property
    def d_model(self) -> int:
        return len(self.x)

    @property
    def d_ff(self) -> int:
        return len(self.gate)

    @property
    def widest_channel(self) -> int:
        """Index of the most open hole (largest gate)."""
        return int(np.argmax(self.gate))

    @property
    def shut_channel(self) -> int:
        """Index of the hole closest to shut (smallest |gate|)."""
        return int(np.argmin(np.abs(self.gate)))

    @property
    def leaking_channel(self) -> int:
        """Index of the most negative gate: a little paint passes, its sign inverted."""
        return int(np.argmin(self.gate))


def _as_matrix(m: npt.NDArray[np.float64]) -> Matrix:
    return tuple(tuple(float(v) for v in row) for row in m)


def _vec(a: npt.ArrayLike) -> Vector:
    return tuple(float(v) for v in np.asarray(a).ravel())


def stencil_example(
    embedding: Vector = PERRO_EMBEDDING, d_ff: int = STENCIL_D_FF, seed: int = STENCIL_SEED
) -> StencilExample:
    """``embedding`` through a seeded d -> d_ff -> d SwiGLU FFN, every stage kept.

    Weights are drawn N(0, 1/fan_in) from ``numpy.random.default_rng(seed)`` in the order
    W_1, W_3, W_2 and rounded to two decimals; no biases (as in LLaMA)."""
    rng = np.random.default_rng(seed)
    d = len(embedding)
    w_gate = np.round(rng.normal(0.0, 1.0 / np.sqrt(d), size=(d, d_ff)), 2)
    w_up = np.round(rng.normal(0.0, 1.0 / np.sqrt(d), size=(d, d_ff)), 2)
    w_down = np.round(rng.normal(0.0, 1.0 / np.sqrt(d_ff), size=(d_ff, d)), 2)
    trace = ffn_forward("swiglu", embedding, w_up, w_down, w_gate=w_gate)
    return StencilExample(
        seed=seed,
        x=trace.x,
        w_gate=_as_matrix(w_gate),
        w_up=_as_matrix(w_up),
        w_down=_as_matrix(w_down),
        gate_pre=trace.pre_activation,
        gate=trace.gate,
        relu_gate=_vec(relu(np.asarray(trace.pre_activation))),
        paint=trace.up,
        product=trace.hidden,
        output=trace.output,
        trace=trace,
    )


@dataclass(frozen=True)
class SwigluCost:
    """What the third matrix costs in LLaMA-2 7B, as the stencil scene tells it.

    ``param_increase = swiglu_params / relu_params - 1`` (a fraction: how much more the
    SwiGLU FFN weighs than a 4d ReLU FFN without biases); ``rounding_added`` is how many
    channels rounding up to ``multiple_of`` adds to two thirds of 4d."""

    param_increase: float
    rounding_added: int


def swiglu_cost(model: str = "llama2_7b") -> SwigluCost:
    width = swiglu_width(model)
    return SwigluCost(
        param_increase=width.param_ratio - 1.0, rounding_added=width.swiglu_width - width.two_thirds_width
    )


@dataclass(frozen=True)
class SwishMinimum:
    """Where Swish, ``z * sigmoid(z)``, is lowest: ``at`` (about -1.28) and ``value`` (about
    -0.28). Swish keeps its input's sign; for negative inputs it never goes below ``value``."""

    at: float
    value: float


def swish_minimum(tolerance: float = 1e-12) -> SwishMinimum:
    """The minimum of Swish, by bisection on its derivative ``s(z) (1 + z (1 - s(z)))``
    (``s`` the sigmoid), which changes sign once, between -2 and -1."""

    def slope(z: float) -> float:
        sig = 1.0 / (1.0 + np.exp(-z))
        return float(sig * (1.0 + z * (1.0 - sig)))

    lo, hi = -2.0, -1.0
    if not slope(lo) < 0 < slope(hi):
        raise RuntimeError("Swish's slope should change sign between -2 and -1")
    while hi - lo > tolerance:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if slope(mid) < 0 else (lo, mid)
    at = (lo + hi) / 2
    return SwishMinimum(at=at, value=float(at / (1.0 + np.exp(-at))))
