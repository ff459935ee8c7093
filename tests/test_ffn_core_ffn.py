"""The FFN opened up: every intermediate, the key-value reading, SwiGLU's width and cost."""

import numpy as np
import pytest
import torch

from ffn_core.ffn import ffn_forward, gelu, key_value_reading, swiglu_width
from ffn_core.modules import FeedForward

D, D_FF = 6, 24


def _weights(seed=0):
    rng = np.random.default_rng(seed)
    return (
        rng.normal(size=D),
        rng.normal(size=(D, D_FF)),
        rng.normal(size=(D_FF, D)),
        rng.normal(size=D_FF),
        rng.normal(size=D),
        rng.normal(size=(D, D_FF)),
    )


def _torch_ffn(activation, w_in, w_out, b_in, b_out, w_gate=None):
    module = FeedForward(D, D_FF, activation, bias=True).double()
    with torch.no_grad():
        module.up.weight.copy_(torch.tensor(w_in.T))
        module.up.bias.copy_(torch.tensor(b_in if w_gate is None else np.zeros(D_FF)))
        module.down.weight.copy_(torch.tensor(w_out.T))
        module.down.bias.copy_(torch.tensor(b_out))
        if w_gate is not None:
            module.gate.weight.copy_(torch.tensor(w_gate.T))
            module.gate.bias.copy_(torch.tensor(b_in))
    return module


@pytest.mark.parametrize("kind", ["relu", "gelu"])
def test_relu_and_gelu_intermediates_match_torch(kind):
    x, w_in, w_out, b_in, b_out, _ = _weights()
    trace = ffn_forward(kind, x, w_in, w_out, b_in, b_out)
    expected = _torch_ffn(kind, w_in, w_out, b_in, b_out).trace(torch.tensor(x))
    for stage in ("pre_activation", "activation", "hidden", "output"):
        assert np.allclose(getattr(trace, stage), expected[stage].detach().numpy(), atol=1e-12), stage


def test_swiglu_intermediates_match_torch_and_hidden_is_gate_times_up():
    x, w_in, w_out, b_in, b_out, w_gate = _weights(1)
    trace = ffn_forward("swiglu", x, w_in, w_out, b_in, b_out, w_gate=w_gate)
    expected = _torch_ffn("swiglu", w_in, w_out, b_in, b_out, w_gate).trace(torch.tensor(x))
    for stage in ("pre_activation", "gate", "up", "hidden", "output"):
        assert np.allclose(getattr(trace, stage), expected[stage].detach().numpy(), atol=1e-12), stage
    assert np.allclose(trace.hidden, np.array(trace.gate) * np.array(trace.up))


def test_relu_switches_off_exactly_the_negative_pre_activations():
    x, w_in, w_out, *_ = _weights(2)
    trace = ffn_forward("relu", x, w_in, w_out)
    assert trace.active == tuple(p > 0 for p in trace.pre_activation)
    assert all(a == 0.0 for a, on in zip(trace.activation, trace.active) if not on)


def test_gelu_tanh_form_matches_torch():
    z = np.linspace(-5, 5, 101)
    expected = torch.nn.functional.gelu(torch.tensor(z), approximate="tanh").numpy()
    assert np.allclose(gelu(z, "tanh"), expected, atol=1e-12)


@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_key_value_sum_term_by_term_equals_the_matrix_form(activation):
    x, w_in, w_out, b_in, b_out, _ = _weights(3)
    reading = key_value_reading(x, w_in, w_out, b_in, b_out, activation)
    assert reading.max_abs_difference < 1e-12
    independent = np.array(b_out) + sum(c * w_out[i] for i, c in enumerate(reading.coefficient))
    assert np.allclose(reading.output, independent)
    assert np.allclose(reading.match, x @ w_in + b_in)


def test_mismatched_shapes_are_rejected():
    with pytest.raises(ValueError, match="shapes"):
        ffn_forward("relu", np.ones(3), np.ones((4, 8)), np.ones((8, 4)))


def test_llama2_7b_swiglu_width_is_two_thirds_of_4d_rounded_up_to_256():
    width = swiglu_width("llama2_7b")
    assert width.two_thirds_width == 10922  # int(2/3 * 16384)
    assert width.swiglu_width == 11008 == width.published_d_ff  # next multiple of 256
    # Three matrices of d x 11008 vs two of d x 4d: under 1 % more parameters.
    assert width.param_ratio == pytest.approx(3 * 11008 / (2 * 4 * 4096))
    assert 1.0 < width.param_ratio < 1.01
