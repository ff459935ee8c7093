"""The relay scene: the fact model's last word read after every sublayer, checked another way.

The reading (ffn_core.relay) is recomputed here by hand on a freshly trained fact model:
the stream built from the blocks' own modules with explicit residual additions, the
final norm applied with its weight and bias written out, the head as a matrix product,
the attention weights as softmax(q k^T / sqrt(d_head)) with the causal mask. The large
model's relay is checked against its published configuration. The kit's runners, track
and bars are checked for what they draw.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from ffn_core.memory import FACTS
from ffn_core.registry import number
from ffn_core.relay import PROMPT, read_relay, relay_count


@pytest.fixture(scope="module")
def reading():
    return read_relay()


@pytest.fixture(scope="module")
def trained():
    from ffn_core.memory_model import encode, train

    model, vocab, _ = train(0)
    ids = encode(PROMPT, vocab).unsqueeze(0)
    return model, vocab, ids


def _lens_by_hand(model, stream_last: torch.Tensor) -> torch.Tensor:
    """Final LayerNorm written out, then the head as a matrix product; probabilities."""
    norm = model.final_norm
    centred = stream_last - stream_last.mean()
    normed = centred / torch.sqrt(centred.pow(2).mean() + norm.eps) * norm.weight + norm.bias
    logits = model.head.weight @ normed
    return torch.exp(logits - logits.max()) / torch.exp(logits - logits.max()).sum()


def _streams_by_hand(model, ids) -> list[torch.Tensor]:
    """The stream of every position after embedding, +attn1, +ffn1, +attn2, +ffn2."""
    with torch.no_grad():
        positions = torch.arange(ids.shape[-1])
        x = model.token_embedding.weight[ids[0]] + model.position_embedding.weight[positions]
        streams = [x.clone()]
        for block in model.blocks:
            attention = block.attention(block.norm1(x.unsqueeze(0)), causal=True)[0]
            x = x + attention
            streams.append(x.clone())
            hidden = torch.relu(block.norm2(x) @ block.ffn.up.weight.T + block.ffn.up.bias)
            x = x + hidden @ block.ffn.down.weight.T + block.ffn.down.bias
            streams.append(x.clone())
    return streams


def test_prompt_is_a_fact_and_the_answer_is_its_answer(reading):
    assert (reading.prompt, reading.answer) in FACTS
    assert reading.tokens == tuple(PROMPT.split())


def test_probabilities_after_each_sublayer_match_a_lens_applied_by_hand(reading, trained):
    model, vocab, ids = trained
    answer = vocab.index(reading.answer)
    streams = _streams_by_hand(model, ids)
    assert len(streams) == len(reading.steps) == 1 + 2 * model.config.n_layers
    with torch.no_grad():
        by_hand = [float(_lens_by_hand(model, s[-1])[answer]) for s in streams]
        tops = [vocab[int(_lens_by_hand(model, s[-1]).argmax())] for s in streams]
    assert np.allclose(by_hand, reading.answer_probabilities, atol=1e-5)
    assert tops == list(reading.top_words)


def test_final_probability_is_the_models_own_forward_output(reading, trained):
    model, vocab, ids = trained
    with torch.no_grad():
        own = torch.softmax(model(ids)[0, -1], dim=-1)[vocab.index(reading.answer)]
    assert reading.model_probability == pytest.approx(float(own), abs=1e-6)
    assert reading.steps[-1].answer_probability == pytest.approx(float(own), abs=1e-5)


def test_attention_rows_sum_to_one_and_match_softmax_by_hand(reading, trained):
    model, _, ids = trained
    streams = _streams_by_hand(model, ids)
    for layer, block in enumerate(model.blocks):
        stream_in = streams[2 * layer]  # the stream entering block `layer`
        with torch.no_grad():
            x = block.norm1(stream_in)
            q, k = block.attention.q(x), block.attention.k(x)
        n_heads = block.attention.n_heads
        d_head = q.shape[-1] // n_heads
        for head in range(n_heads):
            cols = slice(head * d_head, (head + 1) * d_head)
            scores = (k[:, cols] @ q[-1, cols]) / math.sqrt(d_head)  # the last word sees every word
            weights = torch.softmax(scores, dim=-1)
            row = reading.attention[layer][head]
            assert sum(row) == pytest.approx(1.0, abs=1e-6)
            assert np.allclose(row, weights.numpy(), atol=1e-5)


def test_first_attention_brings_the_subject_to_the_last_word(reading):
    subject = reading.tokens[1]
    assert reading.top_key(0, 0) == subject
    assert number("relay.block1.head1.subject_weight").value == reading.attention[0][0][1] > 0.9


def test_gains_add_up_to_the_whole_rise_of_the_answer(reading):
    p = reading.answer_probabilities
    assert sum(reading.gains) == pytest.approx(p[-1] - p[0])
    assert reading.top_words[0] != reading.answer and reading.top_words[-1] == reading.answer


def test_handoffs_are_twice_the_blocks_and_norms_one_more(reading):
    count = relay_count("llama2_7b")
    assert count.n_blocks == number("params.llama2_7b.n_layers").value == 32
    assert count.handoffs == 2 * count.n_blocks == number("relay.large.handoffs").value
    assert count.norms == 2 * count.n_blocks + 1 == number("relay.large.norms").value
    assert reading.n_layers == number("relay.n_layers").value
    assert len(reading.gains) == 2 * reading.n_layers


def test_registered_numbers_are_the_readings(reading):
    assert number("relay.answer_probabilities").value == reading.answer_probabilities
    assert number("relay.p_ffn1").value == reading.steps[2].answer_probability
    assert number("relay.attention").value == reading.attention
    assert number("relay.prompt_words").value == reading.tokens


# -- the kit --------------------------------------------------------------------------
def test_runner_stands_where_it_is_placed_and_its_stride_moves_its_legs():
    from scenes.kit import palette
    from scenes.kit.relay import Runner

    runner = Runner(palette.ATTENTION, height=2.0).place(1.5, 0.25, ground=-1.0)
    assert runner.get_bottom()[1] >= -1.0 - 1e-6
    assert runner.get_top()[1] == pytest.approx(-1.0 + 2.0 * 1.01, abs=0.05)
    assert runner.torso.get_start()[0] == pytest.approx(1.5)
    together = Runner(palette.FFN).place(0.0, 0.0)
    apart = Runner(palette.FFN).place(0.0, 0.25)
    assert apart.legs.width > together.legs.width + 0.2


def test_a_carried_baton_follows_the_runners_hand():
    from scenes.kit import palette
    from scenes.kit.relay import Baton, Runner

    runner = Runner(palette.ATTENTION)
    baton = Baton()
    runner.carry(baton).place(3.0, 0.4)
    assert np.allclose(baton.get_center(), runner.hand())


def test_track_keeps_every_stripe_when_a_new_one_is_laid():
    from scenes.kit import palette
    from scenes.kit.relay import Track

    track = Track(-5, 5, 0, stations=(-4, 0, 4), slots=3)
    first = track.stripe(palette.MUTED, -5)
    track.reach(0)
    second = track.stripe(palette.ATTENTION, 0)
    track.reach(4)
    assert first.get_left()[0] == pytest.approx(-5) and first.get_right()[0] == pytest.approx(4)
    assert second.get_left()[0] == pytest.approx(0) and second.get_right()[0] == pytest.approx(4)
    assert second.get_center()[1] > first.get_center()[1]  # laid over the first, not in its place
    track.stripe(palette.FFN, 4)
    with pytest.raises(ValueError, match="holds 3 stripes"):
        track.stripe(palette.FFN, 4)


def test_probability_bar_height_follows_its_probability():
    from scenes.kit import palette
    from scenes.kit.relay import ProbabilityBar

    low = ProbabilityBar(0.1, "10,0 %", "x", palette.MUTED, full_height=2.0)
    high = ProbabilityBar(0.9, "90,0 %", "x", palette.FFN, full_height=2.0)
    assert low.bar.height == pytest.approx(0.2)
    assert high.bar.height == pytest.approx(1.8)


def test_relay_stack_has_one_runner_per_handoff_and_one_gate_per_norm():
    from scenes.kit import palette
    from scenes.kit.relay import RelayStack

    stack = RelayStack(32)
    assert len(stack.runners) == 64 == relay_count().handoffs
    assert len(stack.gates) == 65 == relay_count().norms
    colors = [r.color_role for r in stack.runners]
    assert colors[0::2] == [palette.ATTENTION] * 32 and colors[1::2] == [palette.FFN] * 32


# -- what the narration says ------------------------------------------------------------------


def test_what_the_narration_says_of_the_race_is_the_readings():
    from voiceover.script import load_script

    reading = number("relay.top_words").value
    script = load_script("relay")
    text = " ".join(" ".join(b.text.split()) for b in script.beats)
    # «apuesta por "blanca", con un {relay.first_top_probability}»: the lens's first favourite.
    assert reading[0] == "blanca" and "apuesta por «blanca», con un {relay.first_top_probability:probabilidad}" in text
    # «prácticamente toda su atención»: the weight on the subject.
    assert "prácticamente toda su atención" in text
    assert number("relay.block1.head1.subject_weight").value > 0.999
    # Pre-norm: the norm scales the sublayer's copy, not the stream (as `block` says).
    assert "devuelve el flujo" not in text and "lee el corredor, no el flujo" in text
    assert "sin borrar" not in text and "nadie borra" not in text
    cited = {k for b in script.beats for k in b.sources}
    assert {"touvron2023", "meng2022"} <= cited


def test_the_screen_never_writes_a_weight_or_probability_as_a_certainty():
    from scenes.relay import Relay

    percent = Relay._percent
    assert percent(None, 1.0).startswith(">") and percent(None, 2.9e-8).startswith("<")
    assert percent(None, 0.9559853672981262) == "95,6\u202f%"
