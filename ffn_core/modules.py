"""Torch modules of the architectures in ``ffn_core.params``, built from a ModelConfig.

Two uses: built on the meta device (no memory) to count parameters independently of the
closed formulas; and built for real, small, to train the memory model here or to hold the
pretrained MiniLM weights. The FFN and attention expose every intermediate.

Rotary position encodings (LLaMA, Mistral) have no parameters; they are not implemented,
so a model with ``max_positions == 0`` can be counted but refuses to run on more than one
position rather than silently ignoring word order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import overload

import torch
from torch import nn

from ffn_core.attention import AttentionInternals, attend
from ffn_core.params import ModelConfig


class FeedForward(nn.Module):
    """Position-wise FFN. ReLU/GELU: down(f(up x)); SwiGLU: down(silu(gate x) * up x).

    ``activation`` is "relu", "gelu" (exact, erf), "gelu_tanh" (GPT-2's approximation)
    or "swiglu".
    """

    def __init__(self, d_model: int, d_ff: int, activation: str, bias: bool) -> None:
        super().__init__()
        if activation not in ("relu", "gelu", "gelu_tanh", "swiglu"):
            raise ValueError(f"unknown FFN activation {activation!r}")
        self.activation = activation
        if activation == "swiglu":
            self.gate = nn.Linear(d_model, d_ff, bias=bias)
        self.up = nn.Linear(d_model, d_ff, bias=bias)
        self.down = nn.Linear(d_ff, d_model, bias=bias)

    def trace(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        """Every stage: pre_activation, activation, gate, up, hidden, output.

        For ReLU/GELU ``up`` is the pre-activation and ``hidden`` the activation (no gate);
        for SwiGLU ``pre_activation`` is the gate branch before Swish, ``activation`` is
        Swish of it and ``hidden`` = activation * up.
        """
        if self.activation == "swiglu":
            pre = self.gate(x)
            act = nn.functional.silu(pre)
            up = self.up(x)
            hidden = act * up
            return {
                "pre_activation": pre,
                "activation": act,
                "gate": act,
                "up": up,
                "hidden": hidden,
                "output": self.down(hidden),
            }
        pre = self.up(x)
        if self.activation == "relu":
            act = torch.relu(pre)
        else:
            act = nn.functional.gelu(pre, approximate="tanh" if self.activation == "gelu_tanh" else "none")
        return {"pre_activation": pre, "activation": act, "up": pre, "hidden": act, "output": self.down(act)}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.trace(x)["output"]


class SelfAttention(nn.Module):
    """Multi-head (grouped-query when n_kv_heads < n_heads) self-attention.

    Set ``record = True`` to keep the last call's :class:`AttentionInternals` in
    ``last_internals``.
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        d, kv, bias = config.d_model, config.kv_dim, config.attention_bias
        self.n_heads, self.n_kv_heads = config.n_heads, config.n_kv_heads
        self.q = nn.Linear(d, d, bias=bias)
        self.k = nn.Linear(d, kv, bias=bias)
        self.v = nn.Linear(d, kv, bias=bias)
        self.o = nn.Linear(d, d, bias=bias)
        self.record = False
        self.last_internals: AttentionInternals | None = None

    def recorded(self) -> AttentionInternals:
        """The internals of the last call made with ``record`` on."""
        if self.last_internals is None:
            raise RuntimeError("this attention recorded nothing: set record = True before the forward pass")
        return self.last_internals

    def forward(self, x: torch.Tensor, causal: bool) -> torch.Tensor:
        out, internals = attend(self.q(x), self.k(x), self.v(x), self.n_heads, self.n_kv_heads, causal)
        if self.record:
            self.last_internals = internals
        projected: torch.Tensor = self.o(out)
        return projected


def _norm(config: ModelConfig, eps: float) -> nn.LayerNorm | nn.RMSNorm:
    if config.norm_kind == "layernorm":
        return nn.LayerNorm(config.d_model, eps=eps)
    return nn.RMSNorm(config.d_model, eps=eps)


def ffn_activation(config: ModelConfig) -> str:
    """The FFN activation a config's model runs (GPT-2 and GPT-3 use GELU's tanh form)."""
    if config.ffn_kind == "gelu" and config.name.startswith("gpt"):
        return "gelu_tanh"
    return config.ffn_kind


class Block(nn.Module):
    """One transformer block: attention then FFN, each with a residual connection.

    Pre-norm (GPT-2, LLaMA): x += attn(norm1(x)); x += ffn(norm2(x)).
    Post-norm (BERT/MiniLM): x = norm1(x + attn(x)); x = norm2(x + ffn(x)).
    Set ``record = True`` to keep the FFN's last trace in ``last_ffn_trace``.
    """

    def __init__(self, config: ModelConfig, pre_norm: bool, eps: float) -> None:
        super().__init__()
        self.pre_norm = pre_norm
        self.norm1 = _norm(config, eps)
        self.attention = SelfAttention(config)
        self.norm2 = _norm(config, eps)
        self.ffn = FeedForward(config.d_model, config.d_ff, ffn_activation(config), config.ffn_bias)
        self.record = False
        self.last_ffn_trace: dict[str, torch.Tensor] | None = None
        self.last_ffn_input: torch.Tensor | None = None

    def recorded_ffn(self) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """The FFN's input and trace from the last forward pass made with ``record`` on."""
        if self.last_ffn_input is None or self.last_ffn_trace is None:
            raise RuntimeError("this block recorded no FFN trace: set record = True before the forward pass")
        return self.last_ffn_input, self.last_ffn_trace

    def _ffn(self, x: torch.Tensor) -> torch.Tensor:
        trace = self.ffn.trace(x)
        if self.record:
            self.last_ffn_trace, self.last_ffn_input = trace, x
        return trace["output"]

    def forward(self, x: torch.Tensor, causal: bool) -> torch.Tensor:
        if self.pre_norm:
            x = x + self.attention(self.norm1(x), causal)
            return x + self._ffn(self.norm2(x))
        x = self.norm1(x + self.attention(x, causal))
        normed: torch.Tensor = self.norm2(x + self._ffn(x))
        return normed


class BlockList(nn.ModuleList):
    """An ``nn.ModuleList`` that holds only :class:`Block` s, typed as such.

    The same container at run time (same state-dict keys); indexing and iterating give
    ``Block`` rather than ``Module``, so ``model.blocks[i].ffn.down`` is checked.
    """

    def __init__(self, blocks: Iterable[Block]) -> None:
        super().__init__(blocks)

    @overload
    def __getitem__(self, idx: slice) -> BlockList: ...

    @overload
    def __getitem__(self, idx: int) -> Block: ...

    def __getitem__(self, idx: int | slice) -> Block | BlockList:
        item = super().__getitem__(idx)
        if not isinstance(item, Block | BlockList):
            raise TypeError(f"a BlockList holds Blocks, not {type(item).__name__}")
        return item

    def __iter__(self) -> Iterator[Block]:
        for item in super().__iter__():
            if not isinstance(item, Block):
                raise TypeError(f"a BlockList holds Blocks, not {type(item).__name__}")
            yield item


class DecoderLM(nn.Module):
    """GPT/LLaMA-style causal language model: embeddings, pre-norm blocks, norm, head."""

    def __init__(self, config: ModelConfig, eps: float = 1e-5) -> None:
        super().__init__()
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        self.position_embedding = nn.Embedding(config.max_positions, config.d_model) if config.max_positions else None
        self.blocks = BlockList(Block(config, pre_norm=True, eps=eps) for _ in range(config.n_layers))
        self.final_norm = _norm(config, eps) if config.final_norm else None
        # A tied head reuses the token embedding matrix: no parameters of its own.
        self.head = None if config.tied_embeddings else nn.Linear(config.d_model, config.vocab_size, bias=False)

    def residual(self, token_ids: torch.Tensor, upto_layer: int | None = None) -> torch.Tensor:
        """Residual stream (batch, seq, d_model) after ``upto_layer`` blocks (all when None)."""
        seq = token_ids.shape[-1]
        x: torch.Tensor = self.token_embedding(token_ids)
        if self.position_embedding is not None:
            x = x + self.position_embedding(torch.arange(seq, device=token_ids.device))
        elif seq > 1:
            raise NotImplementedError(
                f"model {self.config.name!r} uses rotary positions, which these modules do not "
                "implement; they serve parameter counting only"
            )
        for block in self.blocks[:upto_layer]:
            x = block(x, causal=True)
        return x

    def logits_from_residual(self, x: torch.Tensor) -> torch.Tensor:
        """Final norm then the output head (tied or not): logits over the vocabulary."""
        if self.final_norm is not None:
            x = self.final_norm(x)
        weight = self.token_embedding.weight if self.head is None else self.head.weight
        return x @ weight.T

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        return self.logits_from_residual(self.residual(token_ids))


class EncoderModel(nn.Module):
    """BERT-style encoder (MiniLM): word + position + token-type embeddings, a LayerNorm,
    post-norm blocks with bidirectional attention; no output head, no pooler (the
    sentence-transformers model mean-pools the last hidden states instead)."""

    def __init__(self, config: ModelConfig, eps: float = 1e-12) -> None:
        super().__init__()
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        self.position_embedding = nn.Embedding(config.max_positions, config.d_model)
        self.token_type_embedding = nn.Embedding(config.type_vocab_size, config.d_model)
        self.embedding_norm = _norm(config, eps)
        self.blocks = BlockList(Block(config, pre_norm=False, eps=eps) for _ in range(config.n_layers))

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        """Last hidden states (batch, seq, d_model) of one unpadded sequence per row."""
        seq = token_ids.shape[-1]
        positions = torch.arange(seq, device=token_ids.device)
        x: torch.Tensor = (
            self.token_embedding(token_ids)
            + self.position_embedding(positions)
            + self.token_type_embedding(torch.zeros_like(token_ids))
        )
        x = self.embedding_norm(x)
        for block in self.blocks:
            x = block(x, causal=False)
        return x


def build_model(config: ModelConfig, device: str | torch.device = "meta") -> EncoderModel | DecoderLM:
    """The torch model of ``config``; on the meta device by default (shapes only, no memory)."""
    with torch.device(device):
        if config.type_vocab_size or not config.has_output_head:
            return EncoderModel(config)
        return DecoderLM(config)


def count_parameters(module: nn.Module) -> int:
    """Number of parameters; a tied (shared) matrix counts once."""
    return sum(p.numel() for p in module.parameters())


def module_counts(config: ModelConfig) -> dict[str, int]:
    """Per-component parameter counts read off a meta-device model (by ``numel``).

    Keys match the fields of ``ffn_core.params.ParamCounts``.
    """
    model = build_model(config)
    block = model.blocks[0]
    embedding_norm = getattr(model, "embedding_norm", None)
    final_norm = getattr(model, "final_norm", None)
    head = getattr(model, "head", None)
    position = model.position_embedding
    token_type = getattr(model, "token_type_embedding", None)
    return {
        "token_embedding": count_parameters(model.token_embedding),
        "position_embedding": count_parameters(position) if position is not None else 0,
        "token_type_embedding": count_parameters(token_type) if token_type is not None else 0,
        "embedding_norm": count_parameters(embedding_norm) if embedding_norm is not None else 0,
        "attention_per_layer": count_parameters(block.attention),
        "ffn_per_layer": count_parameters(block.ffn),
        "norms_per_layer": count_parameters(block.norm1) + count_parameters(block.norm2),
        "final_norm": count_parameters(final_norm) if final_norm is not None else 0,
        "output_head": count_parameters(head) if head is not None else 0,
        "n_layers": len(model.blocks),
        "total": count_parameters(model),
    }
