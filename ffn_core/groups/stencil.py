"""Numbers of the stencil scene: a small SwiGLU FFN (4 -> 6 -> 4) worked out channel by
channel, and what SwiGLU's third matrix costs LLaMA-2 7B.

The LLaMA widths and parameter counts themselves are the `swiglu.llama2_7b.*` numbers.
"""

from __future__ import annotations

from ffn_core.registry import FRACTION, WIDTH, Number

UNIT_GATE = 1.0  # the gate that passes its paint unchanged; the stencil draws gates against it

PREFIX = "stencil"


def numbers() -> tuple[Number, ...]:
    from ffn_core.stencil import stencil_example, swiglu_cost, swish_minimum

    ex = stencil_example()
    cost = swiglu_cost("llama2_7b")
    call = "ffn_core.stencil.stencil_example()"
    lowest = swish_minimum()
    return (
        Number("stencil.d_model", ex.d_model, WIDTH, f"{call}.d_model"),
        Number("stencil.d_ff", ex.d_ff, WIDTH, f"{call}.d_ff"),
        Number("stencil.x", ex.x, "vector", f"{call}.x"),
        Number("stencil.gate_pre", ex.gate_pre, "vector (x W_1)", f"{call}.gate_pre"),
        Number("stencil.gate", ex.gate, "vector (Swish(x W_1))", f"{call}.gate"),
        Number("stencil.relu_gate", ex.relu_gate, "vector (ReLU(x W_1))", f"{call}.relu_gate"),
        Number("stencil.paint", ex.paint, "vector (x W_3)", f"{call}.paint"),
        Number("stencil.product", ex.product, "vector (Swish(x W_1) * x W_3)", f"{call}.product"),
        Number("stencil.output", ex.output, "vector (product W_2)", f"{call}.output"),
        Number("stencil.w_down", ex.w_down, "matrix (W_2, d_ff x d_model)", f"{call}.w_down"),
        Number(
            "stencil.full_forward_output", ex.trace.output, "vector", "ffn_core.ffn.ffn_forward('swiglu', ...).output"
        ),
        Number("stencil.widest_gate", ex.gate[ex.widest_channel], "Swish activation", f"{call}.gate[widest_channel]"),
        Number(
            "stencil.leaking_gate", ex.gate[ex.leaking_channel], "Swish activation", f"{call}.gate[leaking_channel]"
        ),
        Number("stencil.n_leaking", sum(g < 0 for g in ex.gate), "channels", f"sum(g < 0 for g in {call}.gate)"),
        Number("stencil.widest_paint", ex.paint[ex.widest_channel], "x W_3 entry", f"{call}.paint[widest_channel]"),
        Number(
            "stencil.widest_product", ex.product[ex.widest_channel], "gate * paint", f"{call}.product[widest_channel]"
        ),
        Number(
            "stencil.unit_gate",
            UNIT_GATE,
            "gate",
            "ffn_core.groups.stencil.UNIT_GATE (a gate of 1 lets the paint through unchanged)",
        ),
        Number("stencil.swish_minimum", lowest.value, "Swish value", "ffn_core.stencil.swish_minimum().value"),
        Number("stencil.swish_minimum_at", lowest.at, "Swish input", "ffn_core.stencil.swish_minimum().at"),
        Number(
            "stencil.param_increase",
            cost.param_increase,
            FRACTION,
            "ffn_core.stencil.swiglu_cost('llama2_7b').param_increase",
        ),
        Number(
            "stencil.rounding_added",
            cost.rounding_added,
            WIDTH,
            "ffn_core.stencil.swiglu_cost('llama2_7b').rounding_added",
        ),
    )
