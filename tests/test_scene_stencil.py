"""The stencil scene: its SwiGLU example recomputed with torch, LLaMA-2 7B's width and cost
recomputed from the rule, and the stencil drawings following their values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from ffn_core.registry import number
from ffn_core.stencil import stencil_example


@pytest.fixture(scope="module")
def example():
    return stencil_example()


def _t(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def test_the_mark_on_the_paper_is_silu_of_the_gate_branch_times_the_paint(example):
    x, w1, w3 = _t(example.x), _t(example.w_gate), _t(example.w_up)
    gate = torch.nn.functional.silu(x @ w1)
    paint = x @ w3
    assert torch.allclose(gate, _t(number("stencil.gate").value), atol=1e-12)
    assert torch.allclose(paint, _t(number("stencil.paint").value), atol=1e-12)
    assert torch.allclose(gate * paint, _t(number("stencil.product").value), atol=1e-12)
    assert number("stencil.n_leaking").value == int((gate < 0).sum()) == 2


def test_w2_contracting_the_marks_gives_the_whole_swiglu_layer_of_torch(example):
    d, h = example.d_model, example.d_ff
    layer = torch.nn.ModuleDict(
        {
            "w1": torch.nn.Linear(d, h, bias=False),
            "w3": torch.nn.Linear(d, h, bias=False),
            "w2": torch.nn.Linear(h, d, bias=False),
        }
    ).double()
    with torch.no_grad():  # nn.Linear stores W transposed: y = x W^T
        layer["w1"].weight.copy_(_t(example.w_gate).T)
        layer["w3"].weight.copy_(_t(example.w_up).T)
        layer["w2"].weight.copy_(_t(example.w_down).T)
        x = _t(example.x)
        out = layer["w2"](torch.nn.functional.silu(layer["w1"](x)) * layer["w3"](x))
    assert torch.allclose(out, _t(number("stencil.output").value), atol=1e-12)
    assert number("stencil.output").value == number("stencil.full_forward_output").value


def test_the_weights_shown_are_the_weights_used_two_decimals_each(example):
    for matrix in (example.w_gate, example.w_up, example.w_down):
        values = np.asarray(matrix)
        assert np.allclose(values, np.round(values, 2), atol=1e-12)
    assert np.asarray(example.w_gate).shape == (4, 6) and np.asarray(example.w_down).shape == (6, 4)


def test_the_example_has_an_open_a_shut_and_a_leaking_hole(example):
    gate, paint = np.asarray(example.gate), np.asarray(example.paint)
    assert gate.max() > 1.0  # a hole wide open
    assert np.abs(gate).min() < 0.08  # a hole nearly shut
    assert gate.min() < -0.12  # a small negative gate: a little paint passes, its sign inverted
    assert (paint > 0).any() and (paint < 0).any()  # paint of both colours
    leak = example.leaking_channel
    assert np.sign(example.product[leak]) == -np.sign(paint[leak])
    assert example.relu_gate[leak] == 0.0  # where ReLU would have shut it completely


def test_the_example_is_deterministic():
    assert stencil_example() == stencil_example()


def test_two_thirds_of_llama2_7b_relu_width_rounded_up_to_256_is_11008():
    d = 4096  # LLaMA-2 7B's d_model (Touvron et al. 2023, table 1 / params.json)
    relu_width = 4 * d
    two_thirds = 2 * relu_width / 3
    assert two_thirds == pytest.approx(10922.67, abs=0.005)
    rounded = 256 * math.ceil(int(two_thirds) / 256)
    assert rounded == 11008
    assert number("swiglu.llama2_7b.relu_width").value == relu_width
    assert number("swiglu.llama2_7b.two_thirds_width").value == int(two_thirds)
    assert number("swiglu.llama2_7b.multiple_of").value == 256
    assert number("swiglu.llama2_7b.width").value == rounded == number("params.llama2_7b.d_ff").value
    assert number("stencil.rounding_added").value == rounded - int(two_thirds)


def test_three_narrow_matrices_cost_under_one_percent_more_than_two_wide_ones():
    d, h = 4096, 11008
    relu_params, swiglu_params = 2 * d * (4 * d), 3 * d * h
    assert number("swiglu.llama2_7b.relu_params").value == relu_params == 134_217_728
    assert number("swiglu.llama2_7b.swiglu_params").value == swiglu_params == 135_266_304
    assert number("stencil.param_increase").value == pytest.approx(swiglu_params / relu_params - 1)
    assert 0 < number("stencil.param_increase").value < 0.01


# -- the drawings ----------------------------------------------------------------------
def test_a_hole_is_as_wide_as_its_gate_and_a_shut_one_is_a_slit():
    from scenes.kit.stencil import MIN_SLIT, hole_width

    assert hole_width(2.0, 2.0, 1.2) == pytest.approx(1.2)
    assert hole_width(1.0, 2.0, 1.2) == pytest.approx(0.6)
    assert hole_width(-0.5, 2.0, 1.2) == pytest.approx(0.3)  # a negative gate opens a small hole too
    assert hole_width(0.0, 2.0, 1.2) == MIN_SLIT
    assert hole_width(5.0, 2.0, 1.2) == pytest.approx(1.2)  # capped at the widest


def test_the_stencil_card_is_cut_through_once_per_channel(example):
    from scenes.kit import palette
    from scenes.kit.stencil import StencilCard, columns

    xs = columns(example.d_ff, 1.45)
    card = StencilCard(example.gate, xs, width=9.0, max_hole_width=1.2)
    assert len(card.sheet.get_subpaths()) == 1 + example.d_ff  # the outline and one hole each
    widths = np.asarray(card.hole_widths)
    assert widths.argmax() == example.widest_channel and widths.argmin() == example.shut_channel
    assert [r.get_stroke_color() == palette.NEGATIVE for r in card.rims] == [g < 0 for g in example.gate]
    shut = card.at_opening(0.0)
    assert max(shut.hole_widths) < 0.05 and shut.sheet.get_center() == pytest.approx(card.sheet.get_center())


def test_each_mark_on_the_paper_is_inked_by_its_product(example):
    from manim import color_to_rgb

    from scenes.kit import palette
    from scenes.kit.stamps import PAPER
    from scenes.kit.stencil import PaperSheet, columns

    xs = columns(example.d_ff, 1.45)
    paper = PaperSheet(example.product, xs, [0.5] * example.d_ff, width=9.0)

    def distance(a, b):
        return float(np.linalg.norm(color_to_rgb(a) - color_to_rgb(b)))

    for p, color in zip(example.product, paper.mark_colors()):
        hue = palette.POSITIVE if p >= 0 else palette.NEGATIVE
        other = palette.NEGATIVE if p >= 0 else palette.POSITIVE
        assert distance(color, hue) < distance(color, other) or abs(p) < 0.05
    faint = paper.mark_colors()[example.shut_channel]
    assert distance(faint, PAPER) < 0.2  # the shut hole leaves the paper almost blank


# -- what the narration and the screen say of Swish and of the gate -----------------------------


def test_swish_keeps_its_inputs_sign_and_never_goes_below_its_registered_minimum(example):
    from ffn_core.shapes import swish_value
    from ffn_core.stencil import swish_minimum

    z = np.linspace(-12.0, 12.0, 48001)
    values = np.array([swish_value(float(v)) for v in z])
    assert np.all(np.sign(values[z != 0]) == np.sign(z[z != 0]))  # «conserva el signo»
    lowest = swish_minimum()
    assert values.min() == pytest.approx(lowest.value, abs=1e-6)
    assert z[int(values.argmin())] == pytest.approx(lowest.at, abs=1e-3)
    assert number("stencil.swish_minimum").value == lowest.value
    # Every negative gate of the example is Swish of a negative input, above the minimum.
    for pre, g in zip(example.gate_pre, example.gate):
        assert np.sign(g) == np.sign(pre) and g >= lowest.value


def test_a_gate_above_one_amplifies_its_paint_and_the_card_draws_it_wider_than_a_unit_gate(example):
    from scenes.kit.stencil import StencilCard, unit_hole

    widest = example.widest_channel
    gate, paint, product = example.gate[widest], example.paint[widest], example.product[widest]
    assert gate > 1 and abs(product) > abs(paint)
    assert number("stencil.widest_paint").value == paint and number("stencil.widest_product").value == product
    card = StencilCard(example.gate, np.arange(6) * 1.5, width=9.0, max_hole_width=1.2)
    assert unit_hole(card, widest).width < card.rims[widest].width  # the hole exceeds «compuerta = 1»


def test_the_script_says_swish_keeps_the_sign_and_cites_the_swiglu_papers():
    from voiceover.script import load_script

    script = load_script("stencil")
    text = " ".join(" ".join(b.text.split()) for b in script.beats)
    assert "signo cambiado" not in text and "Conserva el signo" in text
    assert "redondeados hacia abajo" in text  # 2/3 of 16 384 is 10 922,67: the code keeps the floor
    cited = {k for b in script.beats for k in b.sources}
    assert {"shazeer2020", "touvron2023", "ramachandran2017", "metallama2023"} <= cited
    thirds = number("swiglu.llama2_7b.two_thirds_width").value
    assert thirds == math.floor(2 * number("swiglu.llama2_7b.relu_width").value / 3)


def test_the_bill_draws_matrices_to_scale_so_their_areas_compare_as_the_parameter_counts():
    from scenes.kit.widths import MatrixBlock

    d = number("params.llama2_7b.d_model").value
    relu_width, width = number("swiglu.llama2_7b.relu_width").value, number("swiglu.llama2_7b.width").value
    unit = 10.0 / (2 * relu_width)
    classic = MatrixBlock(d, relu_width, unit)
    swiglu = MatrixBlock(d, width, unit)
    assert classic.height == pytest.approx(swiglu.height) == pytest.approx(d * unit)  # one row height: d
    two, three = 2 * classic.width * classic.height, 3 * swiglu.width * swiglu.height
    assert three / two == pytest.approx(1 + number("stencil.param_increase").value)
