"""Numbers of XOR: no straight line separates its four points, a small ReLU network does
(``ffn_core.xor.solve``); the whole solution is the dataset ``xor.solution``."""

from __future__ import annotations

from ffn_core.registry import FRACTION, Dataset, Number

PREFIX = "xor"


def numbers() -> tuple[Number, ...]:
    from ffn_core.xor import VIEW, solve

    result = solve()
    call = "ffn_core.xor.solve()"
    sweep = tuple(frame.accuracy for frame in result.sweep)
    return (
        Number("xor.linear_best_accuracy", result.linear.best_accuracy, FRACTION, f"{call}.linear.best_accuracy"),
        Number(
            "xor.linear_best_correct_points",
            round(result.linear.best_accuracy * 4),
            "points of 4",
            f"{call}.linear.best_accuracy * 4",
        ),
        Number(
            "xor.linear_splits_achievable",
            result.linear.achievable_splits,
            "labelings of 16",
            f"{call}.linear.achievable_splits",
        ),
        Number("xor.linear_lines_tried", result.linear.n_lines_tried, "lines", f"{call}.linear.n_lines_tried"),
        Number("xor.sweep_best_accuracy", max(sweep), FRACTION, f"max(frame.accuracy for frame in {call}.sweep)"),
        Number("xor.n_points", len(result.points), "points", f"len({call}.points)"),
        Number("xor.view", VIEW, "data units (low, high) of the drawn square, both axes", "ffn_core.xor.VIEW"),
        Number(
            "xor.sweep_correct_points",
            tuple(sum(frame.correct) for frame in result.sweep),
            "points of 4",
            f"{call}.sweep[*].correct (count of True)",
        ),
        Number("xor.mlp_accuracy", result.mlp.accuracy, FRACTION, f"{call}.mlp.accuracy"),
        Number("xor.mlp_correct_points", round(result.mlp.accuracy * 4), "points of 4", f"{call}.mlp.accuracy * 4"),
        Number("xor.mlp_hidden", result.mlp.hidden, "neurons", f"{call}.mlp.hidden"),
        Number("xor.mlp_final_loss", result.mlp.final_loss, "binary cross-entropy (nats)", f"{call}.mlp.final_loss"),
        Number(
            "xor.mlp_point_probabilities",
            result.mlp.point_probabilities,
            "probability of class 1",
            f"{call}.mlp.point_probabilities",
        ),
    )


def datasets() -> tuple[Dataset, ...]:
    from ffn_core.xor import solve

    return (
        Dataset(
            "xor.solution",
            solve(),
            "the four XOR points, the sweeping line's positions and the trained ReLU network's folds and regions",
            "ffn_core.xor.solve()",
        ),
    )
