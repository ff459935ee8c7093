"""Numbers of the iceberg scene: the idealised block count (4 d^2 against 8 d^2) and the
whole-model breakdown of real checkpoints (every term, so the parts add up to the total).

The idealised block is not typed in: it is GPT-2 small's architecture with its biases
removed, counted by the same formulas (`ffn_core.params.attention_params`,
`ffn_core.params.ffn_params`) that count the real models, and divided by d^2 exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ffn_core.registry import Number

PREFIX = "iceberg"

MODELS = ("gpt2_small", "gpt3_175b", "llama2_7b")
IDEAL_FROM = "gpt2_small"  # d_ff = 4 d, two FFN matrices, four d x d attention matrices

# A figure quoted in the seed text (ffn-interactivo.txt: "| LLaMA-2 7B | ~28% | ~72% |"),
# registered only so the narration can name it and correct it; the scene shows the computed one.
QUOTED_LLAMA2_7B_FFN_SHARE = 0.72
QUOTED_SOURCE = (
    "ffn_core.groups.iceberg.QUOTED_LLAMA2_7B_FFN_SHARE (quoted, not computed: seed text "
    "ffn-interactivo.txt, table row 'LLaMA-2 7B | ~28% | ~72%')"
)


@dataclass(frozen=True)
class IdealBlock:
    """One bias-free block counted in units of d^2 (d = d_model).

    ``attention_coefficient`` d^2 for Q, K, V, O; ``ffn_coefficient`` d^2 for the FFN's
    ``ffn_matrices`` matrices of d x (``expansion`` d); ``ffn_share`` their exact ratio."""

    d_model: int
    attention_matrices: int
    ffn_matrices: int
    expansion: int
    attention_coefficient: int
    ffn_coefficient: int
    block_coefficient: int
    ffn_share: Fraction


@dataclass(frozen=True)
class WholeModel:
    """Every parameter of one checkpoint, by kind (number of parameters).

    ``norms`` counts every norm: two per block plus the final one. ``output_head`` is 0
    when tied to the token embedding. The six parts add up to ``total``."""

    model: str
    token_embedding: int
    position_embedding: int
    attention: int
    ffn: int
    norms: int
    output_head: int
    total: int

    @property
    def parts(self) -> tuple[int, ...]:
        return (self.token_embedding, self.position_embedding, self.attention, self.ffn, self.norms, self.output_head)

    @property
    def rest(self) -> int:
        """Everything that is neither attention nor FFN (embeddings, norms, head)."""
        return self.total - self.attention - self.ffn


def ideal_block(model: str = IDEAL_FROM) -> IdealBlock:
    """The block of ``model`` without biases, in whole multiples of d^2 (raises otherwise)."""
    from ffn_core.params import attention_params, ffn_params, get_config

    config = replace(get_config(model), attention_bias=False, ffn_bias=False)
    d = config.d_model
    if config.d_ff % d or config.n_kv_heads != config.n_heads:
        raise ValueError(
            f"model {model!r}: the idealised block needs d_ff a multiple of d_model "
            f"and no grouped-query attention (d_ff={config.d_ff}, d={d})"
        )
    attention, ffn = attention_params(config), ffn_params(config)
    if attention % (d * d) or ffn % (d * d):
        raise ValueError(f"model {model!r}: bias-free counts are not whole multiples of d^2")
    ffn_matrices = 3 if config.ffn_kind == "swiglu" else 2
    return IdealBlock(
        d_model=d,
        attention_matrices=attention // (d * d),
        ffn_matrices=ffn_matrices,
        expansion=config.d_ff // d,
        attention_coefficient=attention // (d * d),
        ffn_coefficient=ffn // (d * d),
        block_coefficient=(attention + ffn) // (d * d),
        ffn_share=Fraction(ffn, attention + ffn),
    )


def whole_model(model: str) -> WholeModel:
    """Every term of ``model``'s parameter count, from `ffn_core.params.param_counts`."""
    from ffn_core.params import param_counts

    c = param_counts(model)
    return WholeModel(
        model=model,
        token_embedding=c.token_embedding + c.token_type_embedding,
        position_embedding=c.position_embedding,
        attention=c.attention_total,
        ffn=c.ffn_total,
        norms=c.n_layers * c.norms_per_layer + c.final_norm + c.embedding_norm,
        output_head=c.output_head,
        total=c.total,
    )


def numbers() -> tuple[Number, ...]:
    from ffn_core.params import get_config
    from ffn_core.registry import FRACTION, PARAMETERS, Number

    ideal = ideal_block()
    call = f"ffn_core.groups.iceberg.ideal_block({IDEAL_FROM!r})"
    found = [
        Number(
            "iceberg.ideal.attention_matrices",
            ideal.attention_matrices,
            "matrices (d x d)",
            f"{call}.attention_matrices",
        ),
        Number("iceberg.ideal.ffn_matrices", ideal.ffn_matrices, "matrices", f"{call}.ffn_matrices"),
        Number("iceberg.ideal.expansion", ideal.expansion, "d_ff / d_model", f"{call}.expansion"),
        Number(
            "iceberg.ideal.attention_coefficient", ideal.attention_coefficient, "d^2", f"{call}.attention_coefficient"
        ),
        Number("iceberg.ideal.ffn_coefficient", ideal.ffn_coefficient, "d^2", f"{call}.ffn_coefficient"),
        Number("iceberg.ideal.block_coefficient", ideal.block_coefficient, "d^2", f"{call}.block_coefficient"),
        Number("iceberg.ideal.ffn_share", float(ideal.ffn_share), FRACTION, f"float({call}.ffn_share)"),
        Number("iceberg.ideal.share_numerator", ideal.ffn_share.numerator, "integer", f"{call}.ffn_share.numerator"),
        Number(
            "iceberg.ideal.share_denominator", ideal.ffn_share.denominator, "integer", f"{call}.ffn_share.denominator"
        ),
        Number(
            "iceberg.quoted.llama2_7b_ffn_share",
            QUOTED_LLAMA2_7B_FFN_SHARE,
            "quoted fraction",
            QUOTED_SOURCE,
            kind="quoted",
            citation="fuente_ffn_interactivo ffn-interactivo.txt:60",
        ),
    ]
    for model in MODELS:
        whole = whole_model(model)
        config = get_config(model)
        w = f"ffn_core.groups.iceberg.whole_model({model!r})"
        found += [
            Number(
                f"iceberg.{model}.ffn_matrices",
                3 if config.ffn_kind == "swiglu" else 2,
                "matrices",
                f"ffn_core.params.get_config({model!r}).ffn_kind ('swiglu': gate, up, down)",
            ),
            Number(f"iceberg.{model}.norms_total", whole.norms, PARAMETERS, f"{w}.norms"),
            Number(f"iceberg.{model}.rest", whole.rest, PARAMETERS, f"{w}.rest"),
            Number(
                f"iceberg.{model}.attention_share_of_total",
                whole.attention / whole.total,
                FRACTION,
                f"{w}.attention / {w}.total",
            ),
            Number(f"iceberg.{model}.rest_share_of_total", whole.rest / whole.total, FRACTION, f"{w}.rest / {w}.total"),
        ]
    return tuple(found)
