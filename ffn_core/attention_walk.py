"""Attention in brief: one sentence through one attention layer of the fact model, stage by stage.

The fact model of ``ffn_core.memory`` (trained here, seeded) reads ``ATTENTION_SENTENCE``
("el limón es ácido"). For each head of block ``WALK_LAYER`` we keep every stage a
lecture shows: the queries, keys and values (Q, K, V: one row per token, ``head_dim``
columns), the raw scores Q K^T, the scores times ``1/sqrt(head_dim)``, the causal mask
(which keys each query may see), the softmax weights (each row sums to 1), and the output
``weights @ V`` (each row a weighted mix of the value rows of the tokens it may see).

The stages are computed with ``ffn_core.attention.attend``, the same arithmetic the
model runs, from the block's own normalised input; ``solve()`` checks that they match
what the block recorded during an ordinary forward pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ffn_core.cache import disk_cached
from ffn_core.memory import ATTENTION_SENTENCE

if TYPE_CHECKING:  # torch loads lazily: a cached result needs none
    import torch

    from ffn_core.modules import DecoderLM

Matrix = tuple[tuple[float, ...], ...]

WALK_LAYER = 0  # the first block: its two heads look at clearly different places
FOCUS_QUERY = "es"  # the word whose row the lecture follows (it must produce the answer)


@dataclass(frozen=True)
class HeadWalk:
    """One head's stages. Rows are queries (tokens in order), columns keys or dimensions.

    ``visible[i][j]`` is 1 where query i may look at key j (j <= i) and 0 where the causal
    mask hides it (those scaled scores become -inf before the softmax, so their weight is 0).
    ``row_sums[i]`` is the sum of ``weights[i]`` (1 up to float rounding).
    """

    head: int  # 0-based
    q: Matrix  # (tokens, head_dim)
    k: Matrix  # (tokens, head_dim)
    v: Matrix  # (tokens, head_dim)
    scores: Matrix  # (tokens, tokens): q_i . k_j
    scaled: Matrix  # scores * scale
    visible: Matrix  # 1.0 / 0.0 causal mask
    weights: Matrix  # softmax over visible keys, row by row
    row_sums: tuple[float, ...]
    output: Matrix  # (tokens, head_dim): weights @ v


@dataclass(frozen=True)
class AttentionWalk:
    """Every stage of one attention layer of the fact model on one sentence, per head."""

    sentence: str
    tokens: tuple[str, ...]
    layer: int  # 0-based block index
    d_model: int
    n_heads: int
    head_dim: int
    scale: float  # 1 / sqrt(head_dim)
    input: Matrix  # (tokens, d_model): the block's normalised input, what Q, K and V are made from
    heads: tuple[HeadWalk, ...]

    def index(self, word: str) -> int:
        """Position of ``word`` in the sentence; ValueError naming the sentence if absent."""
        if word not in self.tokens:
            raise ValueError(f"{word!r} is not a token of {self.sentence!r}")
        return self.tokens.index(word)

    def weight(self, head: int, query: str, key: str) -> float:
        """How much of ``query``'s attention head ``head`` (0-based) gives to ``key`` (0..1)."""
        return self.heads[head].weights[self.index(query)][self.index(key)]

    def score(self, head: int, query: str, key: str) -> float:
        """The raw score q . k of ``query`` against ``key`` in head ``head`` (0-based)."""
        return self.heads[head].scores[self.index(query)][self.index(key)]

    def top_key(self, head: int, query: str) -> str:
        """The word ``query`` attends to most in head ``head`` (0-based)."""
        row = self.heads[head].weights[self.index(query)]
        return self.tokens[max(range(len(row)), key=row.__getitem__)]


def _matrix(tensor: torch.Tensor) -> Matrix:
    return tuple(tuple(float(x) for x in row) for row in tensor.tolist())


def walk(
    model: DecoderLM, vocab: tuple[str, ...], sentence: str = ATTENTION_SENTENCE, layer: int = WALK_LAYER
) -> AttentionWalk:
    """The stages of ``model``'s attention in block ``layer`` on ``sentence`` (no caching).

    Raises ValueError when the stages recomputed here differ from what the block itself
    computed in a forward pass (they are the same arithmetic, so they must agree).
    """
    import torch

    from ffn_core.attention import attend, split_heads
    from ffn_core.memory_model import encode

    if not 0 <= layer < len(model.blocks):
        raise ValueError(f"layer {layer} does not exist: the model has {len(model.blocks)} blocks")
    ids = encode(sentence, vocab).unsqueeze(0)
    block = model.blocks[layer]
    attention = block.attention
    with torch.no_grad():
        x = block.norm1(model.residual(ids, upto_layer=layer))
        q, k, v = attention.q(x), attention.k(x), attention.v(x)
        _, internals = attend(q, k, v, attention.n_heads, attention.n_kv_heads, causal=True)
        qh, kh, vh = (
            split_heads(t, n) for t, n in ((q, attention.n_heads), (k, attention.n_kv_heads), (v, attention.n_kv_heads))
        )
        group = attention.n_heads // attention.n_kv_heads
        kh, vh = kh.repeat_interleave(group, dim=1), vh.repeat_interleave(group, dim=1)
        head_out = internals.weights @ vh  # (1, heads, tokens, head_dim)

        # The block's own forward pass must have computed the same weights.
        attention.record = True
        try:
            model(ids)
            recorded = attention.recorded().weights
        finally:
            attention.record, attention.last_internals = False, None
        if not torch.allclose(recorded, internals.weights, atol=1e-6):
            raise ValueError(f"attention walk of block {layer} disagrees with the model's own forward pass")

    seq = ids.shape[1]
    visible = (~torch.ones(seq, seq, dtype=torch.bool).triu(1)).float()
    heads = tuple(
        HeadWalk(
            head=h,
            q=_matrix(qh[0, h]),
            k=_matrix(kh[0, h]),
            v=_matrix(vh[0, h]),
            scores=_matrix(internals.scores[0, h]),
            scaled=_matrix(internals.scaled_scores[0, h]),
            visible=_matrix(visible),
            weights=_matrix(internals.weights[0, h]),
            row_sums=tuple(float(s) for s in internals.weights[0, h].sum(dim=-1)),
            output=_matrix(head_out[0, h]),
        )
        for h in range(attention.n_heads)
    )
    return AttentionWalk(
        sentence=sentence,
        tokens=tuple(sentence.split()),
        layer=layer,
        d_model=model.config.d_model,
        n_heads=attention.n_heads,
        head_dim=qh.shape[-1],
        scale=internals.scale,
        input=_matrix(x[0]),
        heads=heads,
    )


@disk_cached
def solve(seed: int = 0, sentence: str = ATTENTION_SENTENCE, layer: int = WALK_LAYER) -> AttentionWalk:
    """Train the fact model (seeded, as ``ffn_core.memory.solve`` does) and walk its attention."""
    from ffn_core.memory_model import train

    model, vocab, _ = train(seed)
    return walk(model, vocab, sentence, layer)
