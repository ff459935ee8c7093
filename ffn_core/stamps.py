"""Inked stamps: one FFN of the trained fact model read term by term, as keys and values.

``FFN(x) = sum_i f(x . k_i + b1_i) v_i + b2`` (docs/notation.md). Each hidden neuron i is a
stamp: its key ``k_i`` (column i of the lecture's ``W1``, row i of torch's ``up.weight``)
decides how hard it is pressed on the word, ``f(x . k_i + b1_i)`` (ReLU); its face is the
value ``v_i`` (row i of ``W2``, column i of torch's ``down.weight``), the mark it leaves.
The page, the FFN's output, is the sum of the marks (plus ``b2``, a mark every word gets).
The stamps are ranked by the size of their mark, ``|f(x . k_i + b1_i) v_i|``: the force
times the size of the face.

We read the fact model of ``ffn_core.memory`` (the same seeded training, unedited) on one
of its facts, at the last position, in the block whose FFN pushes the right answer hardest
(the "layer that matters", computed, not chosen by hand). The loudest unit's value is then
read through the final norm's scale and the output head (the logit lens that
``ffn_core.memory`` uses) as the words it pushes up.

Everything here is deterministic; the torch code runs only when the result is not cached.
"""

from __future__ import annotations

from dataclasses import dataclass

from ffn_core.cache import disk_cached

Vector = tuple[float, ...]

PROMPT = "el limón es"  # one of ffn_core.memory.FACTS
N_WORDS = 3  # how many words the loudest value's reading lists
N_PRESSED = 4  # the loudest stamps the lecture presses one at a time (the rest go at once)


@dataclass(frozen=True)
class StampTerm:
    """One active unit (stamp) of the read FFN.

    ``match = k_i . x + b_i`` (how well the word fits the key), ``coefficient = ReLU(match)``
    (how hard the stamp is pressed), ``value`` = v_i (the stamp's face, d_model numbers),
    ``term = coefficient * v_i`` (the mark it leaves), ``mark_size = |term|`` (Euclidean).
    """

    unit: int  # 0-based index among the FFN's d_ff hidden neurons («neurona 92» is index 92)
    match: float
    coefficient: float
    value: Vector
    term: Vector
    mark_size: float


@dataclass(frozen=True)
class WordPush:
    """A word the loudest unit pushes up: ``boost`` is the logit its mark (coefficient x
    value) adds to that word, exactly: centred, scaled by the final norm's gamma, divided by
    the stream's spread at that position, through the head."""

    word: str
    boost: float


@dataclass(frozen=True)
class StampsReading:
    """The FFN of block ``layer`` at the last word of ``prompt``, written out as stamps.

    ``terms``: every active unit, loudest mark first (``n_active`` of ``d_ff``).
    ``bias``: ``b2``. ``partial_sums[k]``: the page after the first k+1 marks (bias
    excluded; add ``bias`` to the last one for the output).
    ``output``: the sum of all marks plus the bias (float64, one term at a time);
    ``module_output``: the torch module's own forward (float32 matrix products);
    ``max_abs_difference``: the largest |output - module_output| over the d_model entries;
    ``agreeing_decimals``: how many decimals the two agree to (floor(-log10(difference))).
    ``answer_push_per_layer``: the logit each block's whole FFN output adds to the answer,
    minus the mean over the vocabulary (through the final norm's scale and the head).
    """

    seed: int
    prompt: str
    answer: str
    predicted: str
    probability: float
    layer: int
    position: int
    d_model: int
    d_ff: int
    x: Vector
    coefficients: Vector  # ReLU(k_i . x + b_i) for every unit i, in unit order (d_ff numbers)
    n_active: int
    terms: tuple[StampTerm, ...]
    bias: Vector
    partial_sums: tuple[Vector, ...]
    output: Vector
    module_output: Vector
    max_abs_difference: float
    agreeing_decimals: int
    answer_push_per_layer: tuple[float, ...]
    loudest_words: tuple[WordPush, ...]
    loudest_value_logits: tuple[float, ...]  # per vocabulary word, per unit of coefficient

    @property
    def loudest(self) -> StampTerm:
        return self.terms[0]


@disk_cached
def read_stamps(prompt: str = PROMPT, seed: int = 0, n_words: int = N_WORDS) -> StampsReading:
    """Train (or reuse) the fact model of ``ffn_core.memory`` and read one FFN as stamps."""
    return _read_stamps(prompt, seed, n_words)


def _read_stamps(prompt: str, seed: int, n_words: int) -> StampsReading:
    import numpy as np
    import torch

    from ffn_core.ffn import key_value_reading
    from ffn_core.memory import FACTS
    from ffn_core.memory_model import encode, train

    answers = dict(FACTS)
    if prompt not in answers:
        raise ValueError(f"prompt {prompt!r} is not one of the fact model's prompts: {list(answers)}")
    model, vocab, _ = train(seed)  # the same seeded training as ffn_core.memory.solve(), unedited
    answer = answers[prompt]
    ids = encode(prompt, vocab).unsqueeze(0)
    if model.final_norm is None or model.head is None:
        raise ValueError("the fact model lost its final norm or its output head; see ffn_core.memory.tiny_config")
    gamma = model.final_norm.weight.detach().double()
    head = model.head.weight.detach().double()  # (vocab, d_model)

    def lens(vectors: torch.Tensor) -> torch.Tensor:
        """Logits a residual-stream direction adds, through the final norm's scale and the head."""
        return (vectors.double() * gamma) @ head.T

    final_inputs: list[torch.Tensor] = []
    hook = model.final_norm.register_forward_pre_hook(lambda _m, args: final_inputs.append(args[0].detach()))
    for block in model.blocks:
        block.record = True
    try:
        with torch.no_grad():
            logits = model(ids)[0, -1]
        traces = [
            (ffn_input[0, -1].clone(), trace["output"][0, -1].clone())
            for ffn_input, trace in (block.recorded_ffn() for block in model.blocks)
        ]
    finally:
        hook.remove()
        for block in model.blocks:
            block.record, block.last_ffn_trace, block.last_ffn_input = False, None, None
    # The final LayerNorm centres the stream and divides it by its spread at this position:
    # a mark's exact share of the logits is its centred direction, scaled by gamma, through
    # the head, over that spread (the same reading as ffn_core.features).
    final = final_inputs[0][0, -1].double()
    eps = float(getattr(model.final_norm, "eps", None) or 0.0)  # RMSNorm and LayerNorm both carry it
    sigma = float(torch.sqrt(final.var(unbiased=False) + eps))

    def exact_lens(vector: torch.Tensor) -> torch.Tensor:
        """The logits a write along ``vector`` adds at this position (linear in it)."""
        centred = vector.double() - vector.double().mean()
        return (centred * gamma) @ head.T / sigma

    probabilities = torch.softmax(logits, dim=-1)
    predicted = vocab[int(probabilities.argmax())]

    answer_id = vocab.index(answer)
    pushes = []
    for _, ffn_out in traces:
        word_logits = lens(ffn_out)
        pushes.append(float(word_logits[answer_id] - word_logits.mean()))
    layer = int(np.argmax(pushes))
    x, module_output = traces[layer]
    ffn = model.blocks[layer].ffn
    w_in = ffn.up.weight.detach().double().numpy().T  # (d_model, d_ff): column i = key k_i
    w_out = ffn.down.weight.detach().double().numpy().T  # (d_ff, d_model): row i = value v_i
    b_in = ffn.up.bias.detach().double().numpy()
    b_out = ffn.down.bias.detach().double().numpy()
    x64 = x.double().numpy()
    reading = key_value_reading(x64, w_in, w_out, b_in, b_out, activation="relu")

    active = [i for i, c in enumerate(reading.coefficient) if c > 0]
    sizes = {i: float(np.linalg.norm(reading.terms[i])) for i in active}
    order = sorted(active, key=lambda i: (-sizes[i], i))
    terms = tuple(
        StampTerm(
            unit=i,
            match=reading.match[i],
            coefficient=reading.coefficient[i],
            value=tuple(float(v) for v in w_out[i]),
            term=reading.terms[i],
            mark_size=sizes[i],
        )
        for i in order
    )

    total = np.asarray(reading.output)
    page = np.zeros_like(total)
    partial_sums = []
    for term in terms:
        page = page + np.asarray(term.term)
        partial_sums.append(tuple(float(v) for v in page))

    module_out = module_output.double().numpy()
    difference = float(np.max(np.abs(total - module_out)))
    agreeing = int(np.floor(-np.log10(difference))) if difference > 0 else 15

    loudest = terms[0]
    value_logits = exact_lens(torch.tensor(loudest.value))  # per unit of coefficient
    top = torch.topk(value_logits, n_words)
    words = tuple(
        WordPush(word=vocab[int(i)], boost=float(loudest.coefficient * value_logits[int(i)])) for i in top.indices
    )

    return StampsReading(
        seed=seed,
        prompt=prompt,
        answer=answer,
        predicted=predicted,
        probability=float(probabilities.max()),
        layer=layer,
        position=ids.shape[-1] - 1,
        d_model=len(x64),
        d_ff=len(b_in),
        x=tuple(float(v) for v in x64),
        coefficients=reading.coefficient,
        n_active=len(active),
        terms=terms,
        bias=tuple(float(v) for v in b_out),
        partial_sums=tuple(partial_sums),
        output=tuple(float(v) for v in total),
        module_output=tuple(float(v) for v in module_out),
        max_abs_difference=difference,
        agreeing_decimals=agreeing,
        answer_push_per_layer=tuple(pushes),
        loudest_words=words,
        loudest_value_logits=tuple(float(v) for v in value_logits),
    )
