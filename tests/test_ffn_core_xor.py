"""XOR: the best straight line gets 3 of 4; a small trained ReLU network gets 4 of 4."""

import pytest

from ffn_core.xor import LABELS, POINTS, search_lines, solve, train_mlp


def test_no_straight_line_gets_more_than_three_of_four_xor_points():
    search = search_lines()
    assert search.best_accuracy == 0.75
    assert sum(search.best_line.correct) == 3


def test_lines_realise_14_of_the_16_labelings_as_covers_theorem_says():
    # Cover (1965): 4 points in general position in the plane admit 2*(C(3,0)+C(3,1)+C(3,2))
    # = 14 linear dichotomies; the two missing ones are XOR and its complement.
    assert search_lines().achievable_splits == 14


@pytest.mark.parametrize("labels", [(0, 0, 0, 1), (0, 1, 1, 1), (1, 1, 0, 0)])  # AND, OR, x < 0.5
def test_the_search_does_find_a_perfect_line_when_one_exists(labels):
    assert search_lines(labels=labels).best_accuracy == 1.0


def test_sweeping_line_never_separates_xor():
    sweep = solve().sweep
    assert len(sweep) >= 24
    assert max(frame.accuracy for frame in sweep) == 0.75
    assert min(frame.accuracy for frame in sweep) < 0.75  # the sweep shows bad positions too


def test_trained_relu_network_classifies_all_four_points():
    mlp = solve().mlp
    assert mlp.accuracy == 1.0
    for probability, label in zip(mlp.point_probabilities, LABELS):
        assert (probability > 0.5) == bool(label)


def test_decision_region_grid_agrees_with_the_points():
    mlp = solve().mlp
    for (x, y), label in zip(POINTS, LABELS):
        column = min(range(len(mlp.grid_x)), key=lambda c: abs(mlp.grid_x[c] - x))
        row = min(range(len(mlp.grid_y)), key=lambda r: abs(mlp.grid_y[r] - y))
        assert mlp.region[row][column] == label
    assert len(mlp.region) == len(mlp.grid_y) and len(mlp.region[0]) == len(mlp.grid_x)


def test_mlp_training_gives_the_same_numbers_on_every_run():
    first, second = train_mlp(steps=200, grid_size=5), train_mlp(steps=200, grid_size=5)
    assert first == second
