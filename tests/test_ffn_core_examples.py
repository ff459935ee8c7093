"""The seed's worked examples, computed."""

import numpy as np

from ffn_core.examples import PERRO_EMBEDDING, expand_contract, word_walkthrough


def test_expand_reproduces_the_seeds_hand_computation_exactly():
    example = expand_contract()
    # Seed ffn-interactivo.txt: out[0] = 3 x 0.5 + 5 x 0.1 = 1.5 + 0.5 = 2.0, ...
    assert example.expanded == (2.0, 2.6, 2.8, 1.9)
    assert example.expand.products[0] == (1.5, 0.5)
    assert example.expand.products[3] == (0.9, 1.0)


def test_contract_reproduces_the_seeds_hand_computation_exactly():
    example = expand_contract()
    # 2.0x0.2 + 2.6x0.4 + 2.8x0.1 + 1.9x0.3 = 2.29 ; 0.60 + 0.26 + 1.40 + 0.38 = 2.64
    assert example.contracted == (2.29, 2.64)
    assert example.contract.products[0] == (0.4, 1.04, 0.28, 0.57)
    assert example.contract.products[1] == (0.6, 0.26, 1.4, 0.38)


def test_exact_arithmetic_avoids_binary_rounding():
    # In binary floats 2.0*0.3 + 2.6*0.1 + 2.8*0.5 + 1.9*0.2 is 2.6399999999999997, not 2.64.
    assert 2.0 * 0.3 + 2.6 * 0.1 + 2.8 * 0.5 + 1.9 * 0.2 != 2.64
    assert expand_contract().contracted[1] == 2.64


def test_perro_stages_follow_from_the_displayed_two_decimal_weights():
    walk = word_walkthrough()
    w_in, w_out = np.array(walk.w_in), np.array(walk.w_out)
    assert w_in.shape == (4, 8) and w_out.shape == (8, 4)
    assert np.allclose(w_in, np.round(w_in, 2)) and np.allclose(w_out, np.round(w_out, 2))
    expanded = np.array(PERRO_EMBEDDING) @ w_in
    activated = np.maximum(expanded, 0)
    assert np.allclose(walk.expanded, expanded)
    assert np.allclose(walk.activated, activated)
    assert np.allclose(walk.contracted, activated @ w_out)
    assert walk.n_active == int((expanded > 0).sum())


def test_perro_walkthrough_has_neurons_both_on_and_off():
    walk = word_walkthrough()
    assert 0 < walk.n_active < 8
