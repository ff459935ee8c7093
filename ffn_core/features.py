"""Features as directions: one neuron of the fact model read as a question and an answer.

A neuron i of a ReLU FFN, in the lecture's x·W convention, has a **key** ``k_i`` (column i
of ``W₁``; row i of torch's ``up.weight``) and a **value** ``v_i`` (row i of ``W₂``; column i
of torch's ``down.weight``). It reads the FFN's input ``Norm(x)`` (pre-norm: the FFN sees the
normalised copy of the residual stream) with a dot product, ``Norm(x) · k_i``; its bias
``b₁ᵢ`` sets the threshold; its activation ``ReLU(Norm(x) · k_i + b₁ᵢ)`` says how much of
the direction ``v_i`` it adds to the stream.

The geometry, exactly: in the plane that holds ``Norm(x)`` and ``k_i`` (both lie in it, so
their lengths and their angle are the real ones), the dot product is ``‖k_i‖`` times the
*shadow* of ``Norm(x)`` on the key's line, ``Norm(x) · k_i / ‖k_i‖``; the neuron fires when
that shadow passes the *threshold* ``−b₁ᵢ / ‖k_i‖`` (a line across the key: every input
beyond it fires). Every fact's input has its own shadow on the same line.

The value is read with the **logit lens** (nostalgebraist 2020; Geva et al. 2022 read
values this way): what the final norm and the output head make of that direction. The
fact model's final norm is a LayerNorm, ``γ ⊙ (z − mean z) / σ + β`` with ``σ`` the standard
deviation of the whole final residual ``z`` at that position; holding ``σ`` at its value in
the sentence, a write ``a·v`` adds ``a · u_w · (γ ⊙ (v − mean v)) / σ`` to word w's logit
(``u_w``: row w of the head). Because the last block's FFN writes straight into the final
residual, this is exactly that neuron's share of the logits (its direct effect); summed
over every part of the stream, plus ``u_w · β``, it gives the model's logits.

We read the fact model of ``ffn_core.memory`` (same seeded training, unedited) on one fact,
at its last word, in the last block. Two neurons, both chosen by computation:

* ``pusher``: the neuron whose write raises the answer's logit most in this sentence;
* ``hardest``: the neuron whose key fires hardest (largest activation) on this input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ffn_core.cache import disk_cached

if TYPE_CHECKING:  # torch is imported only when a result is not in the cache
    import torch

Vector = tuple[float, ...]

PROMPT = "el limón es"  # one of ffn_core.memory.FACTS
N_WORDS = 4  # how many words of a value's lens reading are kept (the top ones)


@dataclass(frozen=True)
class WordLogit:
    """A word and the logit a neuron's write adds to it in the read sentence (direct effect)."""

    word: str
    logit: float


@dataclass(frozen=True)
class NeuronDirection:
    """One neuron of the read FFN: its key asking, its value writing, the lens reading it.

    ``dot = Norm(x) · key``; ``pre_activation = dot + bias``; ``activation = ReLU(pre)``.
    ``shadow = dot / key_norm`` (the length of Norm(x)'s projection on the key's line);
    ``threshold = −bias / key_norm`` (where on that line the neuron starts firing);
    ``angle_deg``: between Norm(x) and the key. ``plane_x = (shadow, height)``: Norm(x) in
    the plane of Norm(x) and the key (first axis along the key).

    ``fact_pre_activations[j]`` / ``fact_shadows[j]``: the same neuron on fact j's input (the
    last word of its prompt, same block), in ``FeaturesReading.subjects`` order.

    ``lens_per_unit[w]``: the logit one unit of activation of this value adds to vocabulary
    word w in the read sentence; ``lens_top``: the top words by that, with the logit the
    neuron's actual write adds (``activation × lens_per_unit``); ``answer_rank``: the
    answer's place in that ranking (0 = top); ``answer_logit``: what the write adds to it.

    ``write_plane``: the stream ``x`` (residual before the FFN) and the write ``activation·v``
    in the plane of the two: ``((‖x‖, 0), (along, across))``; ``stream_value_angle_deg``.
    """

    neuron: int  # 0-based index among the FFN's d_ff neurons
    key: Vector
    bias: float
    dot: float
    key_norm: float
    shadow: float
    threshold: float
    angle_deg: float
    plane_x: tuple[float, float]
    pre_activation: float
    activation: float
    value: Vector
    value_norm: float
    write_norm: float  # ‖activation · v‖
    fact_pre_activations: Vector
    fact_shadows: Vector
    lens_per_unit: Vector
    lens_top: tuple[WordLogit, ...]
    answer_rank: int
    answer_logit: float
    write_plane: tuple[tuple[float, float], tuple[float, float]]
    stream_value_angle_deg: float

    @property
    def fired_facts(self) -> tuple[int, ...]:
        """Indices of the facts whose input makes this neuron fire (pre-activation > 0)."""
        return tuple(j for j, p in enumerate(self.fact_pre_activations) if p > 0)

    @property
    def top_fact(self) -> int:
        """The fact that fires this neuron hardest."""
        return max(range(len(self.fact_pre_activations)), key=lambda j: self.fact_pre_activations[j])


@dataclass(frozen=True)
class FeaturesReading:
    """The last block's FFN at the last word of ``prompt``, two of its neurons as directions.

    ``x``: the FFN's input Norm(stream) (d_model numbers); ``stream``: the residual stream
    before the FFN. ``final_sigma``: the final LayerNorm's divisor at that position.
    ``answer_push_per_neuron[i]``: the logit neuron i's write adds to the answer (direct).
    ``answer_logit``: the model's own logit for the answer; ``runner_up_logit``: the next
    word's. ``subjects``/``fact_prompts``: the facts, in ``ffn_core.memory.FACTS`` order.
    """

    seed: int
    prompt: str
    answer: str
    predicted: str
    word: str  # the last word, where the model predicts the answer
    layer: int  # 0-based block index (the last block)
    n_layers: int
    position: int
    d_model: int
    d_ff: int
    vocab_size: int
    subjects: tuple[str, ...]
    fact_prompts: tuple[str, ...]
    fact_index: int  # which fact is read
    x: Vector
    x_norm: float
    stream: Vector
    stream_norm: float
    final_sigma: float
    answer_logit: float
    runner_up_logit: float
    answer_push_per_neuron: Vector
    pusher: NeuronDirection
    hardest: NeuronDirection


@disk_cached
def read_features(prompt: str = PROMPT, seed: int = 0, n_words: int = N_WORDS) -> FeaturesReading:
    """Train (or reuse) the fact model of ``ffn_core.memory`` and read two neurons as directions."""
    return _read_features(prompt, seed, n_words)


def _read_features(prompt: str, seed: int, n_words: int) -> FeaturesReading:
    import numpy as np
    import torch

    from ffn_core.memory import FACTS, SUBJECT_POSITION
    from ffn_core.memory_model import encode, train

    prompts = [p for p, _ in FACTS]
    if prompt not in prompts:
        raise ValueError(f"prompt {prompt!r} is not one of the fact model's prompts: {prompts}")
    lengths = {len(p.split()) for p in prompts}
    if len(lengths) != 1:
        raise ValueError(f"the facts' prompts must all have one length to be read in one batch, got {lengths}")
    model, vocab, _ = train(seed)  # the same seeded training as ffn_core.memory.solve(), unedited
    if model.final_norm is None or model.head is None or not isinstance(model.final_norm, torch.nn.LayerNorm):
        raise ValueError("the fact model must end in a LayerNorm and its own head; see ffn_core.memory.tiny_config")
    fact_index = prompts.index(prompt)
    answer = FACTS[fact_index][1]
    layer = model.config.n_layers - 1
    block = model.blocks[layer]
    batch = torch.stack([encode(p, vocab) for p in prompts])

    block.record = True
    try:
        with torch.no_grad():
            residual = model.residual(batch)
            logits = model.logits_from_residual(residual)[:, -1].double()
        final = residual[:, -1].double()  # (facts, d_model): the last residual
        ffn_input, trace = block.recorded_ffn()
        inputs = ffn_input[:, -1].double()  # (facts, d_model): Norm(stream) at the last word
        written = trace["output"][:, -1].double()
    finally:
        block.record, block.last_ffn_trace, block.last_ffn_input = False, None, None

    keys = block.ffn.up.weight.detach().double()  # (d_ff, d_model): row i = k_i
    biases = block.ffn.up.bias.detach().double()
    values = block.ffn.down.weight.detach().double().T  # (d_ff, d_model): row i = v_i
    gamma = model.final_norm.weight.detach().double()
    head = model.head.weight.detach().double()  # (vocab, d_model): row w = u_w
    eps = model.final_norm.eps

    z = final[fact_index]
    sigma = float(torch.sqrt(z.var(unbiased=False) + eps))
    x = inputs[fact_index]
    stream = z - written[fact_index]  # the residual before the last FFN wrote into it
    pre_all = inputs @ keys.T + biases  # (facts, d_ff)
    pre = pre_all[fact_index]
    activation = torch.relu(pre)
    centred = values - values.mean(dim=1, keepdim=True)
    lens = (centred * gamma) @ head.T / sigma  # (d_ff, vocab): per unit of activation
    answer_id = vocab.index(answer)
    push = activation * lens[:, answer_id]

    def neuron_direction(i: int) -> NeuronDirection:
        key, value = keys[i], values[i]
        key_norm = float(key.norm())
        dot = float(x @ key)
        shadow = dot / key_norm
        height = float(torch.sqrt(torch.clamp(x.norm() ** 2 - shadow**2, min=0.0)))
        a = float(activation[i])
        per_unit = lens[i]
        order = [int(w) for w in torch.argsort(per_unit, descending=True, stable=True)]
        value_norm = float(value.norm())
        cos_sv = float(stream @ value) / (float(stream.norm()) * value_norm)
        angle_sv = float(np.degrees(np.arccos(np.clip(cos_sv, -1.0, 1.0))))
        along = a * value_norm * cos_sv
        across = a * value_norm * float(np.sqrt(max(1.0 - cos_sv**2, 0.0)))
        return NeuronDirection(
            neuron=i,
            key=_vec(key),
            bias=float(biases[i]),
            dot=dot,
            key_norm=key_norm,
            shadow=shadow,
            threshold=-float(biases[i]) / key_norm,
            angle_deg=float(np.degrees(np.arccos(np.clip(shadow / float(x.norm()), -1.0, 1.0)))),
            plane_x=(shadow, height),
            pre_activation=float(pre[i]),
            activation=a,
            value=_vec(value),
            value_norm=value_norm,
            write_norm=a * value_norm,
            fact_pre_activations=_vec(pre_all[:, i]),
            fact_shadows=_vec(inputs @ key / key_norm),
            lens_per_unit=_vec(per_unit),
            lens_top=tuple(WordLogit(vocab[w], a * float(per_unit[w])) for w in order[:n_words]),
            answer_rank=order.index(answer_id),
            answer_logit=a * float(per_unit[answer_id]),
            write_plane=((float(stream.norm()), 0.0), (along, across)),
            stream_value_angle_deg=angle_sv,
        )

    ranked_logits = torch.sort(logits[fact_index], descending=True).values
    return FeaturesReading(
        seed=seed,
        prompt=prompt,
        answer=answer,
        predicted=vocab[int(logits[fact_index].argmax())],
        word=prompt.split()[-1],
        layer=layer,
        n_layers=model.config.n_layers,
        position=batch.shape[-1] - 1,
        d_model=model.config.d_model,
        d_ff=model.config.d_ff,
        vocab_size=len(vocab),
        subjects=tuple(p.split()[SUBJECT_POSITION] for p in prompts),
        fact_prompts=tuple(prompts),
        fact_index=fact_index,
        x=_vec(x),
        x_norm=float(x.norm()),
        stream=_vec(stream),
        stream_norm=float(stream.norm()),
        final_sigma=sigma,
        answer_logit=float(logits[fact_index, answer_id]),
        runner_up_logit=float(ranked_logits[1]),
        answer_push_per_neuron=_vec(push),
        pusher=neuron_direction(int(torch.argmax(push))),
        hardest=neuron_direction(int(torch.argmax(activation))),
    )


def _vec(t: torch.Tensor) -> Vector:
    return tuple(float(v) for v in t.tolist())
