"""Numbers of the `block` scene: one LLaMA-2 7B decoder block, the shape on each of its arrows.

The shapes are not asserted, they are traced: :func:`trace_block_shapes` builds the block
of ``ffn_core.modules`` (pre-norm: RMSNorm, self-attention, residual add, RMSNorm, SwiGLU
FFN, residual add) with the model's published sizes on torch's meta device (no memory,
no arithmetic) and runs a ``[seq_len x d_model]`` input through it, recording the shape
that leaves every stage. ``seq_len`` is LLaMA-2's context window, the one number here that
``ffn_core.params`` does not hold (rotary positions keep it out of the parameter count).
"""

from __future__ import annotations

from dataclasses import dataclass

from ffn_core.cache import disk_cached
from ffn_core.registry import Number

PREFIX = "block"

MODEL = "llama2_7b"
# LLaMA-2's context window, in tokens. Touvron et al. 2023 give it as "4k" for every
# LLaMA-2 size; the released configuration spells it out as 4096.
LLAMA2_CONTEXT_LENGTH = 4096
LLAMA2_CONTEXT_SOURCE = (
    "Touvron et al. 2023, 'Llama 2: Open Foundation and Fine-Tuned Chat Models' (arXiv:2307.09288), "
    "Table 1: context length 4k for all Llama 2 models; the released config.json of "
    "meta-llama/Llama-2-7b-hf: max_position_embeddings = 4096"
)

Shape = tuple[int, int]


@dataclass(frozen=True)
class BlockShapes:
    """Shape (rows = positions, columns = numbers per position) leaving each stage of one
    pre-norm decoder block, for one sequence of ``seq_len`` tokens (batch dimension dropped)."""

    model: str
    seq_len: int
    input: Shape  # the residual stream entering the block
    norm1: Shape  # RMSNorm before attention (a copy of the stream, rescaled)
    attention: Shape  # what attention writes back
    add1: Shape  # stream + attention
    norm2: Shape  # RMSNorm before the FFN
    ffn_hidden: Shape  # inside the FFN: silu(gate x) * up x, the wide layer
    ffn: Shape  # what the FFN writes back
    add2: Shape  # stream + FFN: the block's output

    @property
    def arrows(self) -> tuple[Shape, ...]:
        """Every shape the residual stream and the sublayers carry (the wide layer excepted)."""
        return (self.input, self.norm1, self.attention, self.add1, self.norm2, self.ffn, self.add2)


# Cached on disk: tracing needs torch, whose import alone costs every render process (each
# chunk of a scene that counts the registry) about 2 CPU seconds.
@disk_cached
def trace_block_shapes(model: str = MODEL, seq_len: int = LLAMA2_CONTEXT_LENGTH) -> BlockShapes:
    """Run a ``[seq_len x d_model]`` input through ``model``'s block on the meta device and
    record each stage's output shape. Deterministic; allocates nothing."""
    import torch

    from ffn_core.modules import Block
    from ffn_core.params import get_config

    if seq_len <= 0:
        raise ValueError(f"seq_len must be a positive number of tokens, got {seq_len}")
    config = get_config(model)
    with torch.device("meta"):
        block = Block(config, pre_norm=True, eps=1e-5)
        x = torch.empty(1, seq_len, config.d_model)
    with torch.no_grad():
        normed1 = block.norm1(x)
        attended = block.attention(normed1, causal=True)
        added1 = x + attended
        normed2 = block.norm2(added1)
        trace = block.ffn.trace(normed2)
        added2 = added1 + trace["output"]
        whole = block(x, causal=True)  # the module's own forward must agree with the stages
    if whole.shape != added2.shape:
        raise RuntimeError(f"{model}: block forward gives {tuple(whole.shape)}, the stages {tuple(added2.shape)}")

    def rows_cols(t: torch.Tensor) -> Shape:
        return (int(t.shape[1]), int(t.shape[2]))

    return BlockShapes(
        model=model,
        seq_len=seq_len,
        input=rows_cols(x),
        norm1=rows_cols(normed1),
        attention=rows_cols(attended),
        add1=rows_cols(added1),
        norm2=rows_cols(normed2),
        ffn_hidden=rows_cols(trace["hidden"]),
        ffn=rows_cols(trace["output"]),
        add2=rows_cols(added2),
    )


def numbers() -> tuple[Number, ...]:
    shapes = trace_block_shapes()
    call = f"ffn_core.groups.block.trace_block_shapes({MODEL!r}, seq_len={LLAMA2_CONTEXT_LENGTH})"
    unit = "shape (positions, numbers per position)"
    key = f"block.{MODEL}"
    return (
        Number(
            f"{key}.context_length",
            LLAMA2_CONTEXT_LENGTH,
            "tokens",
            f"ffn_core.groups.block.LLAMA2_CONTEXT_LENGTH ({LLAMA2_CONTEXT_SOURCE})",
            kind="published",
            citation="touvron2023",
        ),
        *(
            Number(f"{key}.shape.{stage}", getattr(shapes, stage), unit, f"{call}.{stage}")
            for stage in ("input", "norm1", "attention", "add1", "norm2", "ffn_hidden", "ffn", "add2")
        ),
        Number(
            f"{key}.stream_numbers", shapes.input[0] * shapes.input[1], "numbers", f"{call}.input[0] * {call}.input[1]"
        ),
        Number(
            f"{key}.hidden_numbers",
            shapes.ffn_hidden[0] * shapes.ffn_hidden[1],
            "numbers",
            f"{call}.ffn_hidden[0] * {call}.ffn_hidden[1]",
        ),
    )
