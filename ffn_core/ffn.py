"""The FFN opened up: forward passes exposing every intermediate, and the key-value reading.

Conventions follow the lecture's formulas: ``x`` is a row vector of width d; ``w_in`` is
d x d_ff (``x @ w_in``); ``w_out`` is d_ff x d. Reading the FFN as a memory, the key of
neuron i is column i of ``w_in`` and its value is row i of ``w_out``, so
``FFN(x) = sum_i f(k_i . x + b_i) v_i + b_out``.

All arithmetic is float64 numpy: these are the small worked examples a scene writes out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ffn_core.params import ModelConfig, get_config, swiglu_hidden_width
from ffn_core.shapes import gelu, relu, swish

__all__ = ["gelu", "relu", "swish"]  # defined with the drawings' shapes, used here too

Vector = tuple[float, ...]
FloatArray = npt.NDArray[np.float64]


def _vec(a: npt.ArrayLike) -> Vector:
    return tuple(float(v) for v in np.asarray(a).ravel())


@dataclass(frozen=True)
class FfnTrace:
    """Every intermediate of one FFN forward pass on one token (plain floats).

    ReLU/GELU: ``pre_activation = x W_in + b_in`` (= ``up``), ``activation = f(pre)``
    (= ``hidden``), ``gate`` is empty. SwiGLU: ``pre_activation = x W_gate``,
    ``activation = gate = Swish(pre)``, ``up = x W_up``, ``hidden = gate * up``.
    ``output = hidden W_out + b_out``. ``active`` marks hidden units that are not zero
    (ReLU) or positive (GELU, SwiGLU gate).
    """

    kind: str
    x: Vector
    pre_activation: Vector
    activation: Vector
    gate: Vector
    up: Vector
    hidden: Vector
    output: Vector
    active: tuple[bool, ...]


def _bias(b: npt.ArrayLike | None, width: int) -> FloatArray:
    return np.zeros(width) if b is None else np.asarray(b, dtype=np.float64)


def ffn_forward(
    kind: str,
    x: npt.ArrayLike,
    w_in: npt.ArrayLike,
    w_out: npt.ArrayLike,
    b_in: npt.ArrayLike | None = None,
    b_out: npt.ArrayLike | None = None,
    w_gate: npt.ArrayLike | None = None,
    gelu_approximate: str = "none",
) -> FfnTrace:
    """One FFN forward pass of ``kind`` ("relu", "gelu", "swiglu") exposing each stage.

    For SwiGLU, ``w_gate`` (d x d_ff) is the gate branch and ``w_in`` the up branch.
    """
    x = np.asarray(x, dtype=np.float64)
    w_in, w_out = np.asarray(w_in, dtype=np.float64), np.asarray(w_out, dtype=np.float64)
    if x.shape[-1] != w_in.shape[0] or w_in.shape[1] != w_out.shape[0]:
        raise ValueError(f"shapes do not chain: x {x.shape}, w_in {w_in.shape}, w_out {w_out.shape}")
    d_ff, d_out = w_out.shape
    if kind == "swiglu":
        if w_gate is None:
            raise ValueError("a SwiGLU FFN needs w_gate (d x d_ff)")
        pre = x @ np.asarray(w_gate, dtype=np.float64) + _bias(b_in, d_ff)
        gate = swish(pre)
        up = x @ w_in
        hidden = gate * up
        active = gate > 0
        act = gate
    elif kind in ("relu", "gelu"):
        pre = x @ w_in + _bias(b_in, d_ff)
        act = relu(pre) if kind == "relu" else gelu(pre, gelu_approximate)
        gate, up, hidden = np.zeros(0), pre, act
        active = act > 0
    else:
        raise ValueError(f"unknown FFN kind {kind!r}; expected 'relu', 'gelu' or 'swiglu'")
    output = hidden @ w_out + _bias(b_out, d_out)
    return FfnTrace(
        kind=kind,
        x=_vec(x),
        pre_activation=_vec(pre),
        activation=_vec(act),
        gate=_vec(gate),
        up=_vec(up),
        hidden=_vec(hidden),
        output=_vec(output),
        active=tuple(bool(a) for a in active),
    )


@dataclass(frozen=True)
class KeyValueReading:
    """``FFN(x) = sum_i f(k_i . x + b_i) v_i + b_out`` written out term by term.

    ``match[i] = k_i . x + b_i`` (how well the input fits key i), ``coefficient[i] =
    f(match[i])``, ``terms[i] = coefficient[i] * v_i`` (a d-vector), ``output`` = the sum of
    the terms plus ``b_out``; ``matrix_output`` is the same FFN computed as matrices.
    """

    match: Vector
    coefficient: Vector
    terms: tuple[Vector, ...]
    output: Vector
    matrix_output: Vector
    max_abs_difference: float


def key_value_reading(
    x: npt.ArrayLike,
    w_in: npt.ArrayLike,
    w_out: npt.ArrayLike,
    b_in: npt.ArrayLike | None = None,
    b_out: npt.ArrayLike | None = None,
    activation: str = "relu",
) -> KeyValueReading:
    """The key-value reading of a ReLU or GELU FFN, one neuron at a time."""
    x = np.asarray(x, dtype=np.float64)
    w_in, w_out = np.asarray(w_in, dtype=np.float64), np.asarray(w_out, dtype=np.float64)
    d_ff, d_out = w_out.shape
    b_in, b_out = _bias(b_in, d_ff), _bias(b_out, d_out)
    f = relu if activation == "relu" else gelu
    total = b_out.copy()
    match, coefficient, terms = [], [], []
    for i in range(d_ff):  # deliberately a loop: one stamp (key, value) at a time
        key, value = w_in[:, i], w_out[i, :]
        m = float(key @ x + b_in[i])
        c = float(f(np.array(m)))
        term = c * value
        total = total + term
        match.append(m)
        coefficient.append(c)
        terms.append(_vec(term))
    matrix = ffn_forward(activation, x, w_in, w_out, b_in, b_out).output
    difference = float(np.max(np.abs(total - np.asarray(matrix)))) if d_out else 0.0
    return KeyValueReading(
        match=tuple(match),
        coefficient=tuple(coefficient),
        terms=tuple(terms),
        output=_vec(total),
        matrix_output=matrix,
        max_abs_difference=difference,
    )


@dataclass(frozen=True)
class SwigluWidth:
    """SwiGLU's hidden width derived as LLaMA derives it, and what it costs (parameters).

    ``relu_params = 2 d (4d)`` (a 4d ReLU FFN without biases); ``swiglu_params = 3 d
    d_ff``; ``param_ratio = swiglu / relu`` (dimensionless, ~1: no extra cost).
    """

    model: str
    d_model: int
    relu_width: int  # 4 d
    two_thirds_width: int  # int(2/3 * 4d), before rounding
    multiple_of: int
    ffn_dim_multiplier: float | None
    swiglu_width: int  # after LLaMA's multiplier and rounding up
    published_d_ff: int
    relu_params: int
    swiglu_params: int
    param_ratio: float


# How Meta's reference code sets the width for each model (params.json).
_LLAMA_WIDTH_RULES: dict[str, tuple[int, float | None]] = {
    "llama2_7b": (256, None),
    "llama2_13b": (256, None),
    "llama2_70b": (4096, 1.3),
    "llama3_8b": (1024, 1.3),
}


def swiglu_width(model: str = "llama2_7b") -> SwigluWidth:
    """LLaMA's SwiGLU width for ``model`` and its parameter cost against a 4d ReLU FFN."""
    if model not in _LLAMA_WIDTH_RULES:
        raise ValueError(f"no SwiGLU width rule for {model!r}; known: {', '.join(_LLAMA_WIDTH_RULES)}")
    config: ModelConfig = get_config(model)
    multiple_of, multiplier = _LLAMA_WIDTH_RULES[model]
    d = config.d_model
    width = swiglu_hidden_width(d, multiple_of, multiplier)
    relu_params = 2 * d * 4 * d
    swiglu_params = 3 * d * width  # gate, up and down matrices, no biases
    return SwigluWidth(
        model=model,
        d_model=d,
        relu_width=4 * d,
        two_thirds_width=int(2 * (4 * d) / 3),
        multiple_of=multiple_of,
        ffn_dim_multiplier=multiplier,
        swiglu_width=width,
        published_d_ff=config.d_ff,
        relu_params=relu_params,
        swiglu_params=swiglu_params,
        param_ratio=swiglu_params / relu_params,
    )
