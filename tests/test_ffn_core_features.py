"""ffn_core.features, recomputed another way: a plain-numpy forward pass of the fact model
from its saved weights.

The fact model is trained once more (the same seeded training), its state dict saved with
torch.save and loaded back as float64 numpy arrays; every figure of the reading (the FFN's
input, each neuron's dot product, bias and activation, the shadows on the key's line, the
logit lens of a value, the choice of both neurons) is then recomputed here with numpy
alone, without the torch modules of ffn_core.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
import torch

from ffn_core.features import read_features
from ffn_core.memory import FACTS
from ffn_core.registry import number

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reading():
    return read_features()


@pytest.fixture(scope="module")
def weights(reading, tmp_path_factory):
    """The trained fact model's weights, saved to disk and loaded back as float64 arrays."""
    from ffn_core.memory_model import train

    model, vocab, _ = train(reading.seed)
    path = tmp_path_factory.mktemp("features") / "fact_model.pt"
    torch.save(model.state_dict(), path)
    state = torch.load(path, weights_only=True)
    arrays = {k: v.double().numpy() for k, v in state.items()}
    return arrays, vocab, model.config


def _layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _forward(arrays, config, ids):
    """numpy forward of ffn_core.modules.DecoderLM (pre-norm, causal, learned positions) on
    one prompt; every part written into the residual stream at the last position is kept."""
    W = arrays
    seq = len(ids)
    x = W["token_embedding.weight"][ids] + W["position_embedding.weight"][:seq]
    parts = [("embedding", x[-1].copy())]
    ffn_inputs, ffn_streams = [], []
    heads, d = config.n_heads, config.d_model
    hd = d // heads
    for layer in range(config.n_layers):
        p = f"blocks.{layer}."
        h = _layer_norm(x, W[p + "norm1.weight"], W[p + "norm1.bias"])
        q = h @ W[p + "attention.q.weight"].T + W[p + "attention.q.bias"]
        k = h @ W[p + "attention.k.weight"].T + W[p + "attention.k.bias"]
        v = h @ W[p + "attention.v.weight"].T + W[p + "attention.v.bias"]
        out = np.zeros_like(q)
        for head in range(heads):
            cols = slice(head * hd, (head + 1) * hd)
            scores = q[:, cols] @ k[:, cols].T / np.sqrt(hd)
            scores[np.triu_indices(seq, 1)] = -np.inf
            weights = np.exp(scores - scores.max(-1, keepdims=True))
            weights /= weights.sum(-1, keepdims=True)
            out[:, cols] = weights @ v[:, cols]
        attn = out @ W[p + "attention.o.weight"].T + W[p + "attention.o.bias"]
        x = x + attn
        parts.append((f"attention {layer}", attn[-1].copy()))
        h = _layer_norm(x, W[p + "norm2.weight"], W[p + "norm2.bias"])
        ffn_inputs.append(h[-1].copy())
        ffn_streams.append(x[-1].copy())
        pre = h @ W[p + "ffn.up.weight"].T + W[p + "ffn.up.bias"]
        act = np.maximum(pre, 0.0)
        ffn = act @ W[p + "ffn.down.weight"].T + W[p + "ffn.down.bias"]
        x = x + ffn
        # The FFN's write, neuron by neuron, and its output bias.
        parts += [(f"ffn {layer} neuron {i}", act[-1, i] * W[p + "ffn.down.weight"][:, i]) for i in range(act.shape[1])]
        parts.append((f"ffn {layer} bias", W[p + "ffn.down.bias"].copy()))
    final = x[-1]
    logits = _layer_norm(final, W["final_norm.weight"], W["final_norm.bias"]) @ W["head.weight"].T
    return {"inputs": ffn_inputs, "streams": ffn_streams, "final": final, "logits": logits, "parts": parts}


@pytest.fixture(scope="module")
def runs(weights):
    arrays, vocab, config = weights
    return [_forward(arrays, config, [vocab.index(w) for w in p.split()]) for p, _ in FACTS]


@pytest.fixture(scope="module")
def read_run(reading, runs):
    return runs[reading.fact_index]


def _sigma(final, eps=1e-5):
    return float(np.sqrt(final.var() + eps))


def _lens(arrays, final, value):
    """What one unit of a residual-stream direction adds to each word's logit, through the
    final LayerNorm (its divisor held at the sentence's value) and the head."""
    centred = value - value.mean()
    return arrays["head.weight"] @ (arrays["final_norm.weight"] * centred) / _sigma(final)


def test_the_read_fact_is_answered_correctly_by_the_numpy_model(reading, read_run, weights):
    _, vocab, _ = weights
    assert (reading.prompt, reading.answer) in FACTS
    assert vocab[int(np.argmax(read_run["logits"]))] == reading.answer == reading.predicted
    assert reading.answer_logit == pytest.approx(read_run["logits"][vocab.index(reading.answer)], abs=1e-4)
    assert reading.runner_up_logit == pytest.approx(np.sort(read_run["logits"])[-2], abs=1e-4)
    assert reading.word == reading.prompt.split()[-1]
    assert reading.layer == reading.n_layers - 1  # the last block: its write goes straight to the head


def test_ffn_input_and_stream_are_the_last_blocks_at_the_last_word(reading, read_run):
    assert np.allclose(reading.x, read_run["inputs"][reading.layer], atol=1e-5)
    assert np.allclose(reading.stream, read_run["streams"][reading.layer], atol=1e-5)
    assert reading.x_norm == pytest.approx(np.linalg.norm(read_run["inputs"][reading.layer]), rel=1e-5)
    assert reading.stream_norm == pytest.approx(np.linalg.norm(read_run["streams"][reading.layer]), rel=1e-5)
    assert reading.final_sigma == pytest.approx(_sigma(read_run["final"]), rel=1e-5)


def test_logits_are_the_sum_of_every_parts_direct_effect(reading, read_run, weights):
    """The lens of a part, summed over every part written into the stream, plus the head's
    reading of the final norm's bias, is the model's logits: each part's lens is its share."""
    arrays, _, _ = weights
    total = sum(_lens(arrays, read_run["final"], part) for _, part in read_run["parts"])
    total = total + arrays["head.weight"] @ arrays["final_norm.bias"]
    assert np.allclose(total, read_run["logits"], atol=1e-9)


@pytest.mark.parametrize("name", ["pusher", "hardest"])
def test_each_neurons_key_dot_product_bias_and_activation(reading, read_run, weights, name):
    arrays, _, _ = weights
    neuron = getattr(reading, name)
    p = f"blocks.{reading.layer}.ffn."
    key, bias = arrays[p + "up.weight"][neuron.neuron], arrays[p + "up.bias"][neuron.neuron]
    x = read_run["inputs"][reading.layer]
    assert np.allclose(neuron.key, key)  # column i of W1 (row i of torch's up.weight)
    assert neuron.bias == pytest.approx(bias)
    assert neuron.dot == pytest.approx(x @ key, abs=1e-5)
    assert neuron.pre_activation == pytest.approx(x @ key + bias, abs=1e-5)
    assert neuron.activation == pytest.approx(max(x @ key + bias, 0.0), abs=1e-5)
    assert neuron.activation > 0  # both neurons fire on the read input
    assert np.allclose(neuron.value, arrays[p + "down.weight"][:, neuron.neuron])  # row i of W2


@pytest.mark.parametrize("name", ["pusher", "hardest"])
def test_geometry_in_the_plane_of_the_input_and_the_key(reading, read_run, name):
    neuron = getattr(reading, name)
    key = np.asarray(neuron.key)
    x = read_run["inputs"][reading.layer]
    norm = np.linalg.norm(key)
    assert neuron.key_norm == pytest.approx(norm)
    assert neuron.shadow == pytest.approx(x @ key / norm, abs=1e-5)
    assert neuron.dot == pytest.approx(neuron.key_norm * neuron.shadow)  # ‖k‖ × shadow
    assert neuron.threshold == pytest.approx(-neuron.bias / norm)
    # The neuron fires exactly when the shadow passes the threshold, by ‖k‖ × the excess.
    assert neuron.pre_activation == pytest.approx(norm * (neuron.shadow - neuron.threshold), abs=1e-5)
    u, w = neuron.plane_x
    assert u == neuron.shadow and w >= 0
    assert np.hypot(u, w) == pytest.approx(np.linalg.norm(x), rel=1e-5)  # a true length in the plane
    cos = x @ key / (np.linalg.norm(x) * norm)
    assert neuron.angle_deg == pytest.approx(np.degrees(np.arccos(cos)), abs=1e-3)


@pytest.mark.parametrize("name", ["pusher", "hardest"])
def test_every_facts_shadow_and_pre_activation_on_the_same_key(reading, runs, name):
    neuron = getattr(reading, name)
    key = np.asarray(neuron.key)
    for j, run in enumerate(runs):
        x = run["inputs"][reading.layer]
        assert neuron.fact_shadows[j] == pytest.approx(x @ key / np.linalg.norm(key), abs=1e-5)
        assert neuron.fact_pre_activations[j] == pytest.approx(x @ key + neuron.bias, abs=1e-5)
    fired = [j for j, run in enumerate(runs) if run["inputs"][reading.layer] @ key + neuron.bias > 0]
    assert list(neuron.fired_facts) == fired
    assert all((s > neuron.threshold) == (j in fired) for j, s in enumerate(neuron.fact_shadows))
    assert reading.subjects == tuple(p.split()[1] for p, _ in FACTS)


def test_pusher_is_the_neuron_whose_write_raises_the_answer_most(reading, read_run, weights):
    arrays, vocab, _ = weights
    p = f"blocks.{reading.layer}.ffn."
    x = read_run["inputs"][reading.layer]
    act = np.maximum(x @ arrays[p + "up.weight"].T + arrays[p + "up.bias"], 0.0)
    values = arrays[p + "down.weight"].T  # row i = v_i
    answer = vocab.index(reading.answer)
    push = np.array([act[i] * _lens(arrays, read_run["final"], values[i])[answer] for i in range(len(act))])
    assert np.allclose(reading.answer_push_per_neuron, push, atol=1e-5)
    assert reading.pusher.neuron == int(np.argmax(push))
    assert reading.hardest.neuron == int(np.argmax(act))
    # These are two different neurons: the one that fires hardest is not the one that pushes most.
    assert reading.pusher.neuron != reading.hardest.neuron
    assert reading.hardest.activation > reading.pusher.activation


@pytest.mark.parametrize("name", ["pusher", "hardest"])
def test_logit_lens_ranking_of_each_value(reading, read_run, weights, name):
    arrays, vocab, _ = weights
    neuron = getattr(reading, name)
    per_unit = _lens(arrays, read_run["final"], np.asarray(neuron.value))
    assert np.allclose(neuron.lens_per_unit, per_unit, atol=1e-6)
    order = list(np.argsort(-per_unit, kind="stable"))
    assert [w.word for w in neuron.lens_top] == [vocab[i] for i in order[: len(neuron.lens_top)]]
    assert [w.logit for w in neuron.lens_top] == pytest.approx(
        [neuron.activation * per_unit[i] for i in order[: len(neuron.lens_top)]], abs=1e-6
    )
    answer = vocab.index(reading.answer)
    assert neuron.answer_rank == order.index(answer)
    assert neuron.answer_logit == pytest.approx(neuron.activation * per_unit[answer], abs=1e-6)
    # The lens of the neuron's write is its own term of the logits' decomposition.
    (part,) = [v for k, v in read_run["parts"] if k == f"ffn {reading.layer} neuron {neuron.neuron}"]
    assert neuron.answer_logit == pytest.approx(_lens(arrays, read_run["final"], part)[answer], abs=1e-6)


def test_write_plane_holds_the_stream_and_the_write(reading, read_run):
    n = reading.pusher
    stream = read_run["streams"][reading.layer]
    write = n.activation * np.asarray(n.value)
    (su, sw), (along, across) = n.write_plane
    assert (su, sw) == (pytest.approx(np.linalg.norm(stream), rel=1e-5), 0.0)
    assert along == pytest.approx(write @ stream / np.linalg.norm(stream), abs=1e-5)
    assert np.hypot(along, across) == pytest.approx(np.linalg.norm(write), rel=1e-6)
    assert n.write_norm == pytest.approx(np.linalg.norm(write))
    cos = write @ stream / (np.linalg.norm(write) * np.linalg.norm(stream))
    assert n.stream_value_angle_deg == pytest.approx(np.degrees(np.arccos(cos)), abs=1e-3)


def test_what_the_narration_says_is_what_was_computed(reading):
    """The scene's words: the pusher's value reads the answer first; its key fires hardest for
    the lemon among the facts; the neuron that fires hardest fires harder still for the sea,
    and reads «salado» (the sea's answer) before the answer."""
    answers = dict(FACTS)
    p, h = reading.pusher, reading.hardest
    assert p.answer_rank == 0 and p.lens_top[0].word == reading.answer
    assert reading.subjects[p.top_fact] == reading.subjects[reading.fact_index] == "limón"
    assert h.top_fact != reading.fact_index
    sea = reading.subjects[h.top_fact]
    assert h.fact_pre_activations[h.top_fact] > h.activation
    assert h.lens_top[0].word == answers[reading.fact_prompts[h.top_fact]]
    assert h.answer_rank == 1 and h.lens_top[1].word == reading.answer
    script = tomllib.loads((REPO / "voiceover/script/es/features.toml").read_text(encoding="utf-8"))
    text = " ".join(beat["text"] for beat in script["beat"]).replace("\n", " ")
    assert f"«{reading.prompt}»" in text and f"«{reading.word}»" in text
    assert f"«{reading.answer}»" in text
    assert f"«{h.lens_top[0].word}»" in text and f"con el {sea}" in text
    assert "el que llega más lejos es el limón" in " ".join(text.split())


def test_registered_numbers_are_the_reading(reading):
    p, h = reading.pusher, reading.hardest
    assert number("features.pusher.neuron").value == p.neuron
    assert number("features.pusher.dot").value == p.dot
    assert number("features.pusher.bias").value == p.bias
    assert number("features.pusher.activation").value == p.activation
    assert number("features.pusher.n_fired").value == len(p.fired_facts)
    assert number("features.pusher.answer_logit").value == p.answer_logit
    assert number("features.pusher.answer_place").value == p.answer_rank + 1
    assert number("features.pusher.second_logit").value == p.lens_top[1].logit
    assert number("features.hardest.neuron").value == h.neuron
    assert number("features.hardest.top_fact_activation").value == h.fact_pre_activations[h.top_fact]
    assert (
        number("features.vocab_size").value
        == reading.vocab_size
        == len(set(w for p_, a in FACTS for w in [*p_.split(), a]))
    )
    assert number("features.d_model").value == len(reading.x)
