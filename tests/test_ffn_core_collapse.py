"""Two linear maps collapse into one matrix; a ReLU between them breaks the collapse."""

import numpy as np
import pytest

from ffn_core.collapse import D_HIDDEN, D_MODEL, solve
from ffn_core.registry import number


@pytest.fixture(scope="module")
def result():
    return solve()


def test_matrices_have_the_shapes_shown_and_legible_one_decimal_entries(result):
    w1, w2 = np.array(result.w1), np.array(result.w2)
    assert w1.shape == (D_MODEL, D_HIDDEN) and w2.shape == (D_HIDDEN, D_MODEL)
    for m in (w1, w2):
        assert np.allclose(m * 10, np.round(m * 10)) and np.all(np.abs(m) < 1) and np.all(m != 0)
    assert np.allclose(result.x, np.round(result.x))


def test_product_equals_numpys_matrix_product(result):
    expected = np.array(result.w1) @ np.array(result.w2)
    assert np.allclose(result.product, expected, atol=1e-12)
    # Tenths times tenths: the exact product has two decimals, and that is what is stored.
    assert np.array_equal(np.array(result.product), np.round(expected, 2))


def test_two_linear_maps_give_the_same_output_as_their_product(result):
    x, w1, w2 = np.array(result.x), np.array(result.w1), np.array(result.w2)
    assert np.allclose(result.hidden, x @ w1)
    assert np.allclose(result.linear_output, (x @ w1) @ w2)
    assert np.allclose(result.linear_output, x @ np.array(result.product))


def test_relu_between_the_maps_really_changes_the_output(result):
    x, w1, w2 = np.array(result.x), np.array(result.w1), np.array(result.w2)
    relu_out = np.maximum(x @ w1, 0) @ w2
    assert np.allclose(result.relu_output, relu_out)
    assert np.allclose(result.hidden_relu, np.maximum(x @ w1, 0))
    assert result.silenced == tuple(np.flatnonzero(x @ w1 < 0))
    assert 0 < len(result.silenced) < D_HIDDEN
    gap = np.max(np.abs(relu_out - x @ np.array(result.product)))
    assert gap > 0.1 and result.max_difference == pytest.approx(gap)


def test_a_seed_giving_an_unclear_example_is_refused_by_name():
    with pytest.raises(ValueError, match="seed 0"):
        solve(0)


def test_registry_keys_resolve_to_the_computed_values(result):
    assert number("collapse.w1").value == result.w1
    assert number("collapse.w2").value == result.w2
    assert number("collapse.product").value == result.product
    assert number("collapse.x").value == result.x
    assert number("collapse.hidden").value == result.hidden
    assert number("collapse.hidden_relu").value == result.hidden_relu
    assert number("collapse.linear_output").value == result.linear_output
    assert number("collapse.relu_output").value == result.relu_output
    assert number("collapse.n_silenced").value == len(result.silenced)
    assert number("collapse.max_difference").value == result.max_difference
    assert number("collapse.max_difference").source.startswith("ffn_core.collapse.solve()")
