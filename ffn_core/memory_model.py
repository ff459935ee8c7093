"""The torch side of ``ffn_core.memory``: train the fact model, read it, edit one fact.

Use ``ffn_core.memory.solve()`` (cached) rather than these functions directly.
"""

from __future__ import annotations

import torch

from ffn_core.attention import AttentionTrace, to_trace
from ffn_core.memory import (
    ATTENTION_SENTENCE,
    EDIT_LAYER,
    EDIT_NEW_ANSWER,
    EDIT_PROMPT,
    FACTS,
    SUBJECT_POSITION,
    TRAIN_STEPS,
    EditResult,
    MemoryResult,
    NeuronReading,
    Recall,
    SubjectNeurons,
    tiny_config,
    vocabulary,
)
from ffn_core.modules import DecoderLM, count_parameters
from ffn_core.seeding import deterministic

Facts = tuple[tuple[str, str], ...]  # (prompt, answer) pairs, as ``ffn_core.memory.FACTS``


def encode(text: str, vocab: tuple[str, ...]) -> torch.Tensor:
    """Token ids of a space-separated text; ValueError naming any unknown word."""
    ids: list[int] = []
    for word in text.split():
        if word not in vocab:
            raise ValueError(f"word {word!r} of {text!r} is not in the facts' vocabulary")
        ids.append(vocab.index(word))
    return torch.tensor(ids)


def _prompt_batch(facts: Facts, vocab: tuple[str, ...]) -> torch.Tensor:
    return torch.stack([encode(prompt, vocab) for prompt, _ in facts])


def train(seed: int = 0, steps: int = TRAIN_STEPS, facts: Facts = FACTS) -> tuple[DecoderLM, tuple[str, ...], float]:
    """Train the tiny model to finish every prompt with its answer (Adam, full batch)."""
    vocab = vocabulary(facts)
    with deterministic(seed):
        model = DecoderLM(tiny_config(len(vocab)))
        prompts = _prompt_batch(facts, vocab)
        answers = torch.tensor([vocab.index(answer) for _, answer in facts])
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
        for _ in range(steps):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(prompts)[:, -1], answers)
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            final = torch.nn.functional.cross_entropy(model(prompts)[:, -1], answers).item()
    model.eval()
    return model, vocab, final


def recall(model: DecoderLM, vocab: tuple[str, ...], facts: Facts = FACTS) -> tuple[Recall, ...]:
    """The model's answer to each fact's prompt."""
    with torch.no_grad():
        probabilities = torch.softmax(model(_prompt_batch(facts, vocab))[:, -1], dim=-1)
    results = []
    for (prompt, expected), row in zip(facts, probabilities):
        best = int(row.argmax())
        results.append(
            Recall(
                prompt=prompt,
                expected=expected,
                predicted=vocab[best],
                probability=float(row[best]),
                correct=vocab[best] == expected,
            )
        )
    return tuple(results)


def _ffn_hidden(model: DecoderLM, prompts: torch.Tensor, layer: int, position: int) -> torch.Tensor:
    """FFN hidden activations (batch, d_ff) of ``layer`` at ``position``."""
    block = model.blocks[layer]
    block.record = True
    try:
        with torch.no_grad():
            model(prompts)
        _, trace = block.recorded_ffn()
        return trace["hidden"][:, position].clone()
    finally:
        block.record, block.last_ffn_trace, block.last_ffn_input = False, None, None


def read_subject_neurons(
    model: DecoderLM,
    vocab: tuple[str, ...],
    facts: Facts = FACTS,
    layer: int = EDIT_LAYER,
    position: int = SUBJECT_POSITION,
    top_k: int = 3,
    promoted_k: int = 3,
) -> tuple[SubjectNeurons, ...]:
    """Which neurons of ``layer``'s FFN fire at ``position`` for each fact's prompt, and
    which words their values push up (read through the final norm's scale and the head)."""
    hidden = _ffn_hidden(model, _prompt_batch(facts, vocab), layer, position)
    values = model.blocks[layer].ffn.down.weight.detach()  # (d_model, d_ff): column i = v_i
    # Without a final norm nothing rescales the residual: a scale of ones (d_model,).
    scale = model.final_norm.weight.detach() if model.final_norm is not None else torch.ones(values.shape[0])
    head = model.head.weight.detach() if model.head is not None else model.token_embedding.weight.detach()
    value_logits = head @ (values * scale[:, None])  # (vocab, d_ff)
    readings = []
    for (prompt, _), row in zip(facts, hidden):
        top = torch.topk(row, top_k)
        neurons = tuple(
            NeuronReading(
                neuron=int(i),
                activation=float(a),
                promotes=tuple(vocab[int(w)] for w in torch.topk(value_logits[:, int(i)], promoted_k).indices),
            )
            for a, i in zip(top.values, top.indices)
        )
        readings.append(
            SubjectNeurons(
                subject=prompt.split()[SUBJECT_POSITION],
                prompt=prompt,
                active_share=float((row > 0).float().mean()),
                top=neurons,
            )
        )
    return tuple(readings)


def attention_on(
    model: DecoderLM, vocab: tuple[str, ...], sentence: str = ATTENTION_SENTENCE
) -> tuple[AttentionTrace, ...]:
    """Each layer's attention (per head) on ``sentence``."""
    tokens = tuple(sentence.split())
    ids = encode(sentence, vocab).unsqueeze(0)
    for block in model.blocks:
        block.attention.record = True
    try:
        with torch.no_grad():
            model(ids)
        return tuple(to_trace(block.attention.recorded(), tokens, layer) for layer, block in enumerate(model.blocks))
    finally:
        for block in model.blocks:
            block.attention.record, block.attention.last_internals = False, None


def _new_value(
    model: DecoderLM, ids: torch.Tensor, layer: int, key_output: torch.Tensor, target: int, steps: int = 200
) -> torch.Tensor:
    """The FFN output at the subject's position that makes the model answer ``target``.

    Found by gradient descent on a residual change ``delta`` added to the FFN's output at
    that position (the rest of the model frozen), with a small penalty on its size.
    """
    delta = torch.zeros_like(key_output, requires_grad=True)
    optimizer = torch.optim.Adam([delta], lr=0.05)
    block = model.blocks[layer]
    original_ffn = block._ffn

    def patched(x: torch.Tensor) -> torch.Tensor:
        out = original_ffn(x).clone()
        out[:, SUBJECT_POSITION] = out[:, SUBJECT_POSITION] + delta
        return out

    block._ffn = patched  # type: ignore[method-assign]  # for this search only; the del below restores it
    try:
        for _ in range(steps):
            optimizer.zero_grad()
            logits = model(ids)[:, -1]
            answer_loss = torch.nn.functional.cross_entropy(logits, torch.tensor([target]))
            loss = answer_loss + 1e-3 * delta.pow(2).sum()
            loss.backward()
            optimizer.step()
    finally:
        del block._ffn  # back to the class method
    return (key_output + delta).detach()


def rank_one_edit(
    model: DecoderLM,
    vocab: tuple[str, ...],
    prompt: str = EDIT_PROMPT,
    new_answer: str = EDIT_NEW_ANSWER,
    layer: int = EDIT_LAYER,
    facts: Facts = FACTS,
    ridge: float = 1e-2,
) -> EditResult:
    """Edit ``model`` in place so ``prompt`` is answered ``new_answer``; measure the others."""
    prompts = [p for p, _ in facts]
    if prompt not in prompts:
        raise ValueError(f"prompt {prompt!r} is not one of the facts: {prompts}")
    if new_answer not in vocab:
        raise ValueError(f"new answer {new_answer!r} is not in the vocabulary")
    target_index = prompts.index(prompt)
    others = tuple(f for i, f in enumerate(facts) if i != target_index)
    before_all = recall(model, vocab, facts)

    down = model.blocks[layer].ffn.down
    keys = _ffn_hidden(model, _prompt_batch(facts, vocab), layer, SUBJECT_POSITION)  # (n_facts, d_ff)
    key = keys[target_index]
    with torch.no_grad():
        current_value = down.weight @ key  # bias excluded: it does not depend on the key
    ids = encode(prompt, vocab).unsqueeze(0)
    with torch.enable_grad():
        for parameter in model.parameters():
            parameter.requires_grad_(False)
        try:
            new_value = _new_value(model, ids, layer, current_value, vocab.index(new_answer))
        finally:
            for parameter in model.parameters():
                parameter.requires_grad_(True)
    # C: second moment of the facts' keys, with a small ridge so it is invertible.
    covariance = keys.T @ keys / len(keys) + ridge * torch.eye(keys.shape[1])
    direction = torch.linalg.solve(covariance, key)
    update = torch.outer(new_value - current_value, direction) / (key @ direction)
    weight_norm = float(torch.linalg.matrix_norm(down.weight.detach()))
    with torch.no_grad():
        down.weight += update

    after_all = recall(model, vocab, facts)
    others_before = tuple(r for i, r in enumerate(before_all) if i != target_index)
    others_after = tuple(r for i, r in enumerate(after_all) if i != target_index)
    unchanged = sum(b.predicted == a.predicted for b, a in zip(others_before, others_after))
    before, after = before_all[target_index], after_all[target_index]
    return EditResult(
        prompt=prompt,
        old_answer=facts[target_index][1],
        new_answer=new_answer,
        layer=layer,
        before=before,
        after=after,
        target_changed=after.predicted == new_answer != before.predicted,
        others_before=others_before,
        others_after=others_after,
        others_unchanged_share=unchanged / len(others),
        update_rank=int(torch.linalg.matrix_rank(update)),
        update_norm=float(torch.linalg.matrix_norm(update)),
        weight_norm=weight_norm,
    )


def build_result(seed: int = 0) -> MemoryResult:
    """Train the fact model, read its FFN and attention, then edit one fact (uncached)."""
    model, vocab, final_loss = train(seed)
    answers = recall(model, vocab)
    neurons = read_subject_neurons(model, vocab)
    last_layer = model.config.n_layers - 1
    answer_neurons = read_subject_neurons(model, vocab, layer=last_layer, position=-1)
    answered = sum(
        any(n.promotes[0] == answer for n in reading.top) for reading, (_, answer) in zip(answer_neurons, FACTS)
    )
    attention = attention_on(model, vocab)
    with deterministic(seed):
        edit = rank_one_edit(model, vocab)
    return MemoryResult(
        facts=FACTS,
        vocab=vocab,
        config=model.config,
        n_parameters=count_parameters(model),
        train_steps=TRAIN_STEPS,
        final_loss=final_loss,
        recall=answers,
        recall_accuracy=sum(r.correct for r in answers) / len(answers),
        subject_neurons=neurons,
        answer_neurons=answer_neurons,
        answer_neuron_share=answered / len(FACTS),
        attention=attention,
        edit=edit,
    )
