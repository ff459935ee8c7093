"""Facts in a tiny transformer's memory: recall, read, attend, and edit one fact."""

import numpy as np
import pytest
import torch

from ffn_core.attention import attend
from ffn_core.memory import EDIT_NEW_ANSWER, EDIT_PROMPT, FACTS, solve


@pytest.fixture(scope="module")
def memory():
    return solve()


def test_trained_model_recalls_every_fact(memory):
    assert memory.recall_accuracy == 1.0
    assert [r.predicted for r in memory.recall] == [answer for _, answer in FACTS]


def test_rank_one_edit_changes_the_chosen_fact(memory):
    edit = memory.edit
    assert (edit.prompt, edit.new_answer) == (EDIT_PROMPT, EDIT_NEW_ANSWER)
    assert edit.before.predicted == edit.old_answer == "ácido"
    assert edit.after.predicted == "dulce"
    assert edit.target_changed


def test_rank_one_edit_leaves_the_other_facts_alone(memory):
    edit = memory.edit
    assert len(edit.others_after) == len(FACTS) - 1
    unchanged = [b.predicted == a.predicted for b, a in zip(edit.others_before, edit.others_after)]
    assert edit.others_unchanged_share == sum(unchanged) / len(unchanged)
    assert edit.others_unchanged_share >= 0.9


def test_the_edit_is_a_rank_one_change_small_next_to_the_matrix(memory):
    assert memory.edit.update_rank == 1
    assert memory.edit.update_norm < memory.edit.weight_norm


def test_neuron_readings_list_the_strongest_neurons_first(memory):
    for reading in (*memory.subject_neurons, *memory.answer_neurons):
        activations = [n.activation for n in reading.top]
        assert activations == sorted(activations, reverse=True) and activations[0] > 0
        assert 0 < reading.active_share < 1


def test_attention_weights_are_the_causal_softmax_of_scaled_scores(memory):
    for trace in memory.attention:
        assert trace.scale == pytest.approx(1 / np.sqrt(trace.head_dim))
        for h in range(trace.n_heads):
            scores = np.array(trace.scores[h])
            masked = np.where(np.triu(np.ones_like(scores), 1) > 0, -np.inf, scores * trace.scale)
            weights = np.exp(masked - masked.max(axis=1, keepdims=True))
            weights /= weights.sum(axis=1, keepdims=True)
            assert np.allclose(trace.weights[h], weights, atol=1e-6)
            assert np.allclose(np.sum(trace.weights[h], axis=1), 1.0, atol=1e-6)
            assert np.all(np.array(trace.weights[h])[np.triu_indices(len(scores), 1)] == 0)


@pytest.mark.parametrize("n_heads, n_kv_heads", [(4, 4), (4, 2), (4, 1)])
def test_step_by_step_attention_matches_torch_fused_kernel(n_heads, n_kv_heads):
    generator = torch.Generator().manual_seed(0)
    head_dim, seq = 8, 5
    q = torch.randn(1, seq, n_heads * head_dim, generator=generator)
    k = torch.randn(1, seq, n_kv_heads * head_dim, generator=generator)
    v = torch.randn(1, seq, n_kv_heads * head_dim, generator=generator)
    out, _ = attend(q, k, v, n_heads, n_kv_heads, causal=True)
    split = lambda t, h: t.view(1, seq, h, head_dim).transpose(1, 2)  # noqa: E731
    group = n_heads // n_kv_heads
    expected = torch.nn.functional.scaled_dot_product_attention(
        split(q, n_heads),
        split(k, n_kv_heads).repeat_interleave(group, 1),
        split(v, n_kv_heads).repeat_interleave(group, 1),
        is_causal=True,
    )
    assert torch.allclose(out, expected.transpose(1, 2).reshape(1, seq, -1), atol=1e-5)


def test_training_gives_the_same_model_on_every_run():
    from ffn_core.memory_model import train

    (first, _, loss1), (second, _, loss2) = train(steps=30), train(steps=30)
    assert loss1 == loss2
    assert all(torch.equal(a, b) for a, b in zip(first.parameters(), second.parameters()))


def test_unknown_word_is_rejected_with_its_name():
    from ffn_core.memory import vocabulary
    from ffn_core.memory_model import encode

    with pytest.raises(ValueError, match="'manzana'"):
        encode("la manzana es", vocabulary())
