"""Scaled dot-product attention written out step by step, so every stage can be shown.

``attend`` is the arithmetic the models in ``ffn_core.modules`` run (no fused kernel), so
the weights a scene draws are the weights the model used. Grouped-query attention shares
each key/value head among ``n_heads / n_kv_heads`` query heads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # torch is imported lazily: a cached AttentionTrace needs no torch
    import torch

Matrix = tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class AttentionInternals:
    """Every stage of one attention call, as tensors of shape (batch, heads, query, key)."""

    scores: torch.Tensor  # raw Q . K
    scale: float  # 1 / sqrt(head_dim)
    scaled_scores: torch.Tensor  # scores * scale
    masked_scores: torch.Tensor  # -inf where a query would look at a later key
    weights: torch.Tensor  # softmax over keys of masked_scores; each row sums to 1


@dataclass(frozen=True)
class AttentionTrace:
    """Attention of one layer on one sentence, per head, ready to draw.

    ``scores[h][i][j]`` is the raw dot product of query i with key j in head h;
    ``masked_scores`` holds ``float('-inf')`` above the diagonal (causal mask);
    ``weights[h][i]`` sums to 1 (dimensionless).
    """

    tokens: tuple[str, ...]
    layer: int
    n_heads: int
    head_dim: int
    scale: float
    scores: tuple[Matrix, ...]
    scaled_scores: tuple[Matrix, ...]
    masked_scores: tuple[Matrix, ...]
    weights: tuple[Matrix, ...]


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(batch, seq, n_heads * head_dim) -> (batch, n_heads, seq, head_dim)."""
    batch, seq, width = x.shape
    return x.view(batch, seq, n_heads, width // n_heads).transpose(1, 2)


def attend(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, n_heads: int, n_kv_heads: int, causal: bool
) -> tuple[torch.Tensor, AttentionInternals]:
    """softmax(Q K^T / sqrt(head_dim) + mask) V per head; returns (output, internals).

    ``q`` is (batch, seq, n_heads * head_dim); ``k`` and ``v`` are
    (batch, seq, n_kv_heads * head_dim). Output is (batch, seq, n_heads * head_dim).
    """
    import torch

    if n_heads % n_kv_heads:
        raise ValueError(f"n_kv_heads={n_kv_heads} does not divide n_heads={n_heads}")
    qh = split_heads(q, n_heads)
    kh = split_heads(k, n_kv_heads)
    vh = split_heads(v, n_kv_heads)
    group = n_heads // n_kv_heads
    if group > 1:  # each key/value head serves `group` consecutive query heads
        kh = kh.repeat_interleave(group, dim=1)
        vh = vh.repeat_interleave(group, dim=1)
    head_dim = qh.shape[-1]
    scale = 1.0 / math.sqrt(head_dim)
    scores = qh @ kh.transpose(-2, -1)
    scaled = scores * scale
    masked = scaled
    if causal:
        seq = q.shape[1]
        future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
        masked = scaled.masked_fill(future, float("-inf"))
    weights = torch.softmax(masked, dim=-1)
    out = (weights @ vh).transpose(1, 2).reshape(q.shape[0], q.shape[1], n_heads * head_dim)
    return out, AttentionInternals(scores, scale, scaled, masked, weights)


def _matrices(tensor: torch.Tensor) -> tuple[Matrix, ...]:
    return tuple(tuple(tuple(float(x) for x in row) for row in head) for head in tensor.tolist())


def to_trace(internals: AttentionInternals, tokens: tuple[str, ...], layer: int) -> AttentionTrace:
    """Plain-float trace of the first batch element of ``internals``."""
    scores = internals.scores[0].detach()
    return AttentionTrace(
        tokens=tuple(tokens),
        layer=layer,
        n_heads=scores.shape[0],
        head_dim=round(1.0 / internals.scale**2),
        scale=internals.scale,
        scores=_matrices(scores),
        scaled_scores=_matrices(internals.scaled_scores[0].detach()),
        masked_scores=_matrices(internals.masked_scores[0].detach()),
        weights=_matrices(internals.weights[0].detach()),
    )
