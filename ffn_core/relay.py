"""The relay: a block's two moves, gather (attention) then recall (FFN), on one real prompt.

Each pre-norm block adds two things to the residual stream: ``x <- x + Attn(norm1(x))``,
then ``x <- x + FFN(norm2(x))``. We follow the last position of ``PROMPT`` through the
trained fact model of ``ffn_core.memory`` (the same seeded training, unedited) and read
the stream after every sublayer with a logit lens: the model's own final norm and output
head applied to the stream as it is at that point (embedding, +attention 1, +FFN 1,
+attention 2, +FFN 2). Read after the last sublayer, the lens is the model's own output.
We also keep each attention layer's weights of the last position (per head, over the
prompt's words), the row that decides what the attention brings to the word that must
answer.

``relay_count`` counts the same moves in a large model, from its torch modules built on
the meta device: one attention and one FFN per block (each a handoff of the baton), and
the norms between them.

Everything here is deterministic; the torch code runs only when a result is not cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from ffn_core.cache import disk_cached

if TYPE_CHECKING:  # torch loads lazily: a cached result needs none
    import torch

    from ffn_core.modules import DecoderLM

PROMPT = "el limón es"  # one of ffn_core.memory.FACTS, the one the stamps and attention scenes read
LARGE_MODEL = "llama2_7b"

Row = tuple[float, ...]


@dataclass(frozen=True)
class RelayStep:
    """The last position's stream after one step, read through the final norm and the head.

    ``name`` is "embedding", "attention" or "ffn"; ``layer`` is the 0-based block (-1 for
    the embedding). ``answer_probability`` is the probability of the fact's answer (0..1);
    ``top_word`` the word the lens ranks first and ``top_probability`` its probability.
    ``answer_logit_margin`` is the answer's logit minus the best other word's logit.
    """

    name: str
    layer: int
    answer_probability: float
    top_word: str
    top_probability: float
    answer_logit_margin: float


@dataclass(frozen=True)
class RelayReading:
    """The fact model run on ``prompt``, step by step at its last position.

    ``attention[layer][head]`` is the last position's softmax weights over ``tokens``
    (each row sums to 1). ``steps`` has ``1 + 2 * n_layers`` entries (the embedding, then
    attention and FFN of each block, in the order they run). ``model_probability`` is the
    answer's probability from the model's own forward pass (it equals the last step's).
    """

    seed: int
    prompt: str
    tokens: tuple[str, ...]
    answer: str
    n_layers: int
    n_heads: int
    attention: tuple[tuple[Row, ...], ...]
    steps: tuple[RelayStep, ...]
    model_probability: float

    @property
    def answer_probabilities(self) -> Row:
        return tuple(s.answer_probability for s in self.steps)

    @property
    def top_words(self) -> tuple[str, ...]:
        return tuple(s.top_word for s in self.steps)

    @property
    def gains(self) -> Row:
        """How much each sublayer raised the answer's probability (``2 * n_layers`` entries)."""
        p = self.answer_probabilities
        return tuple(after - before for before, after in pairwise(p))

    def attention_row(self, layer: int, head: int) -> Row:
        return self.attention[layer][head]

    def top_key(self, layer: int, head: int) -> str:
        """The word the last position attends to most in ``head`` of block ``layer`` (0-based)."""
        row = self.attention[layer][head]
        return self.tokens[max(range(len(row)), key=row.__getitem__)]


@dataclass(frozen=True)
class RelayCount:
    """The relay of a large model, counted on its modules (meta device, no weights).

    ``handoffs``: sublayers that add to the stream (attentions + FFNs); ``norms``: the
    normalisations between them (two per block, plus the final one when the model has it).
    """

    model: str
    display_name: str
    n_blocks: int
    n_attention: int
    n_ffn: int
    handoffs: int
    norms: int


@disk_cached
def read_relay(prompt: str = PROMPT, seed: int = 0) -> RelayReading:
    """Train (or reuse) the fact model of ``ffn_core.memory`` and follow ``prompt``'s last
    position through it, sublayer by sublayer."""
    return _read_relay(prompt, seed)


def run_relay(model: DecoderLM, vocab: tuple[str, ...], prompt: str, answer: str, seed: int = 0) -> RelayReading:
    """Follow ``prompt``'s last position through ``model`` (no caching)."""
    import torch

    from ffn_core.memory_model import encode

    ids = encode(prompt, vocab).unsqueeze(0)
    answer_id = vocab.index(answer)

    def step(name: str, layer: int, stream: torch.Tensor) -> RelayStep:
        logits = model.logits_from_residual(stream)[0, -1]
        probabilities = torch.softmax(logits, dim=-1)
        best = int(probabilities.argmax())
        others = torch.cat([logits[:answer_id], logits[answer_id + 1 :]])
        return RelayStep(
            name=name,
            layer=layer,
            answer_probability=float(probabilities[answer_id]),
            top_word=vocab[best],
            top_probability=float(probabilities[best]),
            answer_logit_margin=float(logits[answer_id] - others.max()),
        )

    for block in model.blocks:
        block.attention.record = True
    try:
        with torch.no_grad():
            stream = model.residual(ids, upto_layer=0)  # token + position embeddings
            steps = [step("embedding", -1, stream)]
            attention = []
            for layer, block in enumerate(model.blocks):
                stream = stream + block.attention(block.norm1(stream), causal=True)
                weights = block.attention.recorded().weights[0, :, -1]  # (heads, keys)
                attention.append(tuple(tuple(float(w) for w in head) for head in weights))
                steps.append(step("attention", layer, stream))
                stream = stream + block.ffn(block.norm2(stream))
                steps.append(step("ffn", layer, stream))
            own = torch.softmax(model(ids)[0, -1], dim=-1)
    finally:
        for block in model.blocks:
            block.attention.record, block.attention.last_internals = False, None
    return RelayReading(
        seed=seed,
        prompt=prompt,
        tokens=tuple(prompt.split()),
        answer=answer,
        n_layers=len(model.blocks),
        n_heads=model.blocks[0].attention.n_heads,
        attention=tuple(attention),
        steps=tuple(steps),
        model_probability=float(own[answer_id]),
    )


def _read_relay(prompt: str, seed: int) -> RelayReading:
    from ffn_core.memory import FACTS
    from ffn_core.memory_model import train

    answers = dict(FACTS)
    if prompt not in answers:
        raise ValueError(f"prompt {prompt!r} is not one of the fact model's prompts: {list(answers)}")
    model, vocab, _ = train(seed)  # the same seeded training as ffn_core.memory.solve(), unedited
    return run_relay(model, vocab, prompt, answers[prompt], seed)


# Cached on disk like the readings: counting builds the model in torch, whose import alone
# costs every render process that reads these numbers about 2 CPU seconds.
@disk_cached
def relay_count(model: str = LARGE_MODEL) -> RelayCount:
    """Count the handoffs and norms of ``model`` on its torch modules (meta device)."""
    from torch import nn

    from ffn_core.modules import FeedForward, SelfAttention, build_model
    from ffn_core.params import get_config

    config = get_config(model)
    built = build_model(config)
    modules = list(built.modules())
    n_attention = sum(isinstance(m, SelfAttention) for m in modules)
    n_ffn = sum(isinstance(m, FeedForward) for m in modules)
    norms = sum(isinstance(m, (nn.LayerNorm, nn.RMSNorm)) for m in modules)
    return RelayCount(
        model=model,
        display_name=config.display_name,
        n_blocks=len(built.blocks),
        n_attention=n_attention,
        n_ffn=n_ffn,
        handoffs=n_attention + n_ffn,
        norms=norms,
    )
