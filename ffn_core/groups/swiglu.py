"""Numbers of SwiGLU's width: how LLaMA's FFN keeps the parameters of a ReLU FFN with three
matrices instead of two (``ffn_core.ffn.swiglu_width``), for LLaMA-2 7B and LLaMA-3 8B."""

from __future__ import annotations

from ffn_core.groups.params import config_citation
from ffn_core.registry import PARAMETERS, PUBLISHED, WIDTH, Number

PREFIX = "swiglu"


def numbers() -> tuple[Number, ...]:
    from ffn_core.ffn import swiglu_width
    from ffn_core.params import get_config

    found = []
    for model in ("llama2_7b", "llama3_8b"):
        width = swiglu_width(model)
        call = f"ffn_core.ffn.swiglu_width({model!r})"
        found += [
            Number(f"swiglu.{model}.relu_width", width.relu_width, WIDTH, f"{call}.relu_width"),
            Number(f"swiglu.{model}.two_thirds_width", width.two_thirds_width, WIDTH, f"{call}.two_thirds_width"),
            Number(
                f"swiglu.{model}.multiple_of",
                width.multiple_of,
                WIDTH,
                f"{call}.multiple_of",
                PUBLISHED,
                config_citation(model, get_config(model).published_source),
            ),
            Number(f"swiglu.{model}.width", width.swiglu_width, WIDTH, f"{call}.swiglu_width"),
            Number(f"swiglu.{model}.relu_params", width.relu_params, PARAMETERS, f"{call}.relu_params"),
            Number(f"swiglu.{model}.swiglu_params", width.swiglu_params, PARAMETERS, f"{call}.swiglu_params"),
            Number(f"swiglu.{model}.param_ratio", width.param_ratio, "ratio", f"{call}.param_ratio"),
        ]
    return tuple(found)
