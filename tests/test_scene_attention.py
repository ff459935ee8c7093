"""The scene «attention»: its numbers are the fact model's real attention, recomputed here
another way, and its heatmaps draw what they are given."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

from ffn_core.attention_walk import FOCUS_QUERY, solve, walk
from ffn_core.registry import number
from voiceover.script import load_script


@pytest.fixture(scope="module")
def trained():
    from ffn_core.memory_model import train

    model, vocab, _ = train(0)
    return model, vocab


@pytest.fixture(scope="module")
def attention():
    return solve()


def _by_hand(model, vocab, sentence, layer):
    """Q, K, V, scores and weights per head with plain float64 matrix algebra on the model's
    weights (no call to ffn_core.attention): LayerNorm, x W^T + b, a causal softmax."""
    from ffn_core.memory_model import encode

    ids = encode(sentence, vocab)
    with torch.no_grad():
        residual = model.residual(ids.unsqueeze(0), upto_layer=layer)[0].double()
        block = model.blocks[layer]
        norm = block.norm1
        mean = residual.mean(-1, keepdim=True)
        var = residual.var(-1, unbiased=False, keepdim=True)
        x = (residual - mean) / torch.sqrt(var + norm.eps) * norm.weight.double() + norm.bias.double()
        att = block.attention

        def project(linear):
            return x @ linear.weight.double().T + linear.bias.double()

        q, k, v = project(att.q), project(att.k), project(att.v)
    n_heads, d = att.n_heads, q.shape[1] // att.n_heads
    heads = []
    for h in range(n_heads):
        qh, kh, vh = (t[:, h * d : (h + 1) * d].numpy() for t in (q, k, v))
        scores = qh @ kh.T
        scaled = scores / math.sqrt(d)
        seq = len(ids)
        masked = np.where(np.tril(np.ones((seq, seq))) > 0, scaled, -np.inf)
        weights = np.exp(masked - masked.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        heads.append(
            {"q": qh, "k": kh, "v": vh, "scores": scores, "scaled": scaled, "weights": weights, "output": weights @ vh}
        )
    return x.numpy(), heads


def test_every_stage_matches_float64_algebra_on_the_models_own_weights(trained, attention):
    model, vocab = trained
    x, heads = _by_hand(model, vocab, attention.sentence, attention.layer)
    assert np.allclose(attention.input, x, atol=1e-4)
    for head, expected in zip(attention.heads, heads):
        for stage in ("q", "k", "v", "scores", "scaled", "weights", "output"):
            assert np.allclose(getattr(head, stage), expected[stage], atol=1e-3), (head.head, stage)


def test_cached_walk_equals_a_fresh_walk_of_a_freshly_trained_model(trained, attention):
    model, vocab = trained
    fresh = walk(model, vocab)
    assert fresh == attention


def test_weights_agree_with_the_memory_models_recorded_attention(attention):
    from ffn_core.memory import solve as memory

    recorded = memory().attention[attention.layer]
    assert recorded.tokens == attention.tokens
    assert np.allclose(recorded.weights, [h.weights for h in attention.heads], atol=1e-6)
    assert recorded.scale == attention.scale


def test_softmax_rows_sum_to_one_and_masked_keys_get_zero_weight(attention):
    for head in attention.heads:
        weights, visible = np.array(head.weights), np.array(head.visible)
        assert np.allclose(weights.sum(axis=1), 1.0, atol=1e-6)
        assert np.allclose(head.row_sums, 1.0, atol=1e-6)
        assert np.all(weights[visible == 0] == 0.0)
        assert np.all(weights[visible == 1] > 0.0)
        assert np.array_equal(visible, np.tril(np.ones_like(visible)))  # causal: key j <= query i


def test_scaled_scores_are_scores_times_one_over_root_head_dim(attention):
    assert attention.scale == pytest.approx(1 / math.sqrt(attention.head_dim))
    for head in attention.heads:
        assert np.allclose(np.array(head.scores) * attention.scale, head.scaled, atol=1e-6)
        assert np.allclose(np.array(head.q) @ np.array(head.k).T, head.scores, atol=1e-4)


def test_output_is_the_weight_matrix_times_the_values(attention):
    for head in attention.heads:
        assert np.allclose(np.array(head.weights) @ np.array(head.v), head.output, atol=1e-5)


def test_what_the_narration_says_about_the_row_of_es_is_true(attention):
    # "Al leer «es», esta cabeza mira solo a «limón»" (and «La primera es la que vimos»): head 1
    # puts (almost) all of «es» on «limón»,
    # so the output of «es» is limón's value row.
    es, limon = attention.index(FOCUS_QUERY), attention.index("limón")
    assert attention.top_key(0, FOCUS_QUERY) == "limón"
    assert attention.weight(0, FOCUS_QUERY, "limón") > 0.99
    assert np.allclose(attention.heads[0].output[es], attention.heads[0].v[limon], atol=1e-2)
    # "La segunda reparte: ... hacia «el»": head 2 looks mostly at «el», yet not only.
    assert attention.top_key(1, FOCUS_QUERY) == "el"
    assert 0.5 < attention.weight(1, FOCUS_QUERY, "el") < 0.9
    # The two heads' patterns differ.
    assert not np.allclose(attention.heads[0].weights, attention.heads[1].weights, atol=0.1)


def test_registered_numbers_are_the_walks_values(attention):
    assert number("attention.head1.weights").value == attention.heads[0].weights
    assert number("attention.head2.weights").value == attention.heads[1].weights
    assert number("attention.head1.score_es_limon").value == attention.score(0, "es", "limón")
    assert number("attention.head_dim").value == attention.head_dim == 16
    assert len(attention.tokens) == 4  # few enough for legible 4 x 4 tables
    # The shared model numbers the scene reads describe this same model.
    assert number("memory.attention.scale").value == attention.scale
    assert number("memory.n_heads").value == attention.n_heads == len(attention.heads)
    assert number("memory.d_model").value == attention.d_model == len(attention.input[0])


def test_a_word_outside_the_sentence_is_refused_by_name(attention):
    with pytest.raises(ValueError, match="perro"):
        attention.index("perro")


# -- the kit's heatmap -----------------------------------------------------------------------
def test_heatmap_writes_each_value_with_a_decimal_comma_and_masked_cells_as_minus_infinity():
    from scenes.kit.attention_map import MINUS_INFINITY, Heatmap

    heat = Heatmap([[1.5, -0.25], [0.126, 2.0]], places=2, visible=[[1, 0], [1, 1]])
    assert heat.texts[0][0].text == "1,50"
    assert heat.texts[0][1].text == MINUS_INFINITY.replace(" ", "")
    assert heat.texts[1][0].text == "0,13"


def test_heatmap_colours_follow_sign_and_weight():
    from scenes.kit import palette
    from scenes.kit.attention_map import Heatmap

    signed = Heatmap([[2.0, -2.0, 0.0]])
    assert signed.cells[0][0].get_fill_color().to_hex() == palette.POSITIVE.to_hex()
    assert signed.cells[0][1].get_fill_color().to_hex() == palette.NEGATIVE.to_hex()
    weights = Heatmap([[1.0, 0.5, 0.0]], kind="weight")
    lum = [np.mean(c.get_fill_color().to_rgb()) for c in weights.cells[0]]
    assert weights.cells[0][0].get_fill_color().to_hex() == palette.ATTENTION.to_hex()
    assert lum[0] > lum[1] > lum[2]  # more weight, brighter gold


def test_heatmap_retarget_swaps_numbers_in_place_and_keeps_cells():
    from scenes.kit.attention_map import Heatmap

    heat = Heatmap([[1.0, 2.0]], places=2)
    cells = [c for c in heat.cells[0]]
    anims = heat.retarget([[0.25, 0.75]], kind="weight")
    assert len(anims) == 2 * 3  # per cell: its colour, old number out, new number in
    assert [t.text for t in heat.texts[0]] == ["0,25", "0,75"]
    assert heat.cells[0] == cells and heat.kind == "weight"
    heat.drop_faded()
    assert len(heat.numbers) == 2
    with pytest.raises(ValueError, match="shape"):
        heat.retarget([[1.0]])


def test_weight_arcs_are_thicker_for_heavier_weights_and_never_point_to_the_future():
    from scenes.kit.attention_map import weight_arcs
    from scenes.kit.tokens import TokenRow

    row = TokenRow(("a", "b", "c"))
    arcs = weight_arcs(row.chips, [[1, 0, 0], [0.9, 0.1, 0], [0.3, 0.6, 0.1]])
    # (1,0) 0.9, (2,0) 0.3, (2,1) 0.6; (1,1)/(2,2) self weights and zeros draw nothing.
    widths = sorted(a.get_stroke_width() for a in arcs)
    assert len(arcs) == 3
    assert widths == sorted(widths) and widths[0] < widths[-1]
    for arc in arcs:  # every arc ends right of where it starts: from an earlier key to a later query
        assert arc.get_end()[0] > arc.get_start()[0]


def test_row_words_share_one_baseline_and_one_edge_beside_their_rows():
    from scenes.kit.attention_map import Heatmap, row_words

    heat = Heatmap([[0.0]] * 3, cell_height=0.8)
    left = row_words(("el", "es", "ácido"), [row[0] for row in heat.cells])
    # Right edges aligned next to the grid; "el" and "es" (no descender) sit at the same height
    # relative to their rows, and "ácido" keeps its baseline despite its accent.
    assert len({round(w.get_right()[0], 6) for w in left}) == 1
    assert left[0].get_right()[0] < heat.get_left()[0]
    offsets = [w.get_bottom()[1] - heat.cells[i][0].get_center()[1] for i, w in enumerate(left)]
    assert offsets[0] == pytest.approx(offsets[1], abs=0.01) == pytest.approx(offsets[2], abs=0.01)
    right = row_words(("el", "es", "ácido"), [row[-1] for row in heat.cells], direction=np.array((1, 0, 0)))
    assert len({round(w.get_left()[0], 6) for w in right}) == 1
    assert right[0].get_left()[0] > heat.get_right()[0]


# -- what the scene says about the model and the mechanism ------------------------------------


def test_the_fact_model_introduced_here_is_the_trained_model_its_voice_and_badge_describe(trained):
    # «un modelo pequeño que entrenamos aquí ... tiene 2 bloques y aprendió 16 hechos cortos»
    from ffn_core.memory import FACTS
    from ffn_core.memory_model import recall

    model, vocab = trained
    assert len(model.blocks) == number("memory.n_layers").value
    assert model.blocks[0].norm1.weight.shape[0] == number("memory.d_model").value
    assert len(FACTS) == number("memory.n_facts").value
    assert all(r.correct for r in recall(model, vocab))  # every fact learned, not just some
    fields = set(re.findall(r"\{([a-z0-9_.]+:[a-z]+)\}", load_script("attention").beat("frase").text))
    assert {"memory.n_layers:entero", "memory.n_facts:entero"} <= fields


def test_heads_outputs_go_through_one_more_matrix_before_joining_the_stream(trained):
    # «Las salidas de las cabezas se juntan, pasan por una última matriz y se suman al flujo.»
    model, _ = trained
    att = model.blocks[0].attention
    d = number("memory.d_model").value
    assert tuple(att.o.weight.shape) == (d, d)
    assert att.n_heads == number("memory.n_heads").value


def test_q_k_v_are_named_consulta_llave_valor_in_screen_and_voice():
    from scenes.kit import notation

    assert notation.ATTENTION_NAMES == (("Q", "consulta"), ("K", "llave"), ("V", "valor"))
    text = " ".join(" ".join(b.text for b in load_script("attention").beats).split())
    assert "La llave, ka" in text and "el valor, ve" in text
    assert not re.search(r"\b(uve|clave|claves)\b", text)
    assert "vaswani2017" in load_script("attention").beat("qkv").sources
