"""Numbers of the collapse scene: two linear layers without an activation are one matrix,
and a ReLU between them breaks that (``ffn_core.collapse.solve``)."""

from __future__ import annotations

from ffn_core.registry import Number

PREFIX = "collapse"


def numbers() -> tuple[Number, ...]:
    from ffn_core.collapse import solve

    result = solve()
    call = "ffn_core.collapse.solve()"
    return (
        Number("collapse.w1", result.w1, "matrix (3x4)", f"{call}.w1"),
        Number("collapse.w2", result.w2, "matrix (4x3)", f"{call}.w2"),
        Number("collapse.product", result.product, "matrix (3x3)", f"{call}.product"),
        Number("collapse.x", result.x, "vector", f"{call}.x"),
        Number("collapse.hidden", result.hidden, "vector", f"{call}.hidden"),
        Number("collapse.hidden_relu", result.hidden_relu, "vector", f"{call}.hidden_relu"),
        Number("collapse.linear_output", result.linear_output, "vector", f"{call}.linear_output"),
        Number("collapse.relu_output", result.relu_output, "vector", f"{call}.relu_output"),
        Number("collapse.n_silenced", len(result.silenced), "neurons", f"len({call}.silenced)"),
        Number("collapse.max_difference", result.max_difference, "absolute difference", f"{call}.max_difference"),
    )
