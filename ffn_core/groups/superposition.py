"""Numbers of the superposition scene: the toy model of Elhage et al. (2022), trained here.

Two sparsities, ``dense`` (S = 0) and ``sparse`` (S = 0.9), each trained from every seed of
``ffn_core.superposition.SEEDS``; the numbers of a sparsity describe the run with the lowest
held-out loss (``shown``), plus how many of the runs reached each picture. Feature indices
are 0-based, like the code. The whole study is the dataset ``superposition.study``.

The training is numpy only and cached on disk (``ffn_core.cache``): a render process reads
it without importing torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ffn_core.registry import FRACTION, WIDTH, Dataset, Number

if TYPE_CHECKING:  # the solver is imported lazily, when a key of this group is asked for
    from ffn_core.superposition import SuperpositionStudy

PREFIX = "superposition"

DEGREES = "degrees"
LEAK_FEATURE = 0  # the feature whose leak into its nearest neighbour the scene shows
NORM = "norm of a feature's direction (weight units)"


def numbers() -> tuple[Number, ...]:
    from ffn_core import superposition as sp

    study = sp.solve()
    call = "ffn_core.superposition.solve()"
    n, m = study.n_features, study.n_hidden
    found = [
        Number("superposition.n_features", n, "features", f"{call}.n_features"),
        Number("superposition.n_hidden", m, WIDTH, f"{call}.n_hidden"),
        Number("superposition.n_features_minus_one", n - 1, "features", f"{call}.n_features - 1"),
        Number(
            "superposition.importance_decay",
            sp.IMPORTANCE_DECAY,
            "I_i = decay^i",
            "ffn_core.superposition.IMPORTANCE_DECAY",
        ),
        Number("superposition.importance", study.importance, "importance per feature", f"{call}.importance"),
        Number("superposition.threshold", sp.REPRESENTED_NORM, NORM, "ffn_core.superposition.REPRESENTED_NORM"),
        Number("superposition.n_seeds", len(study.seeds), "training runs per sparsity", f"len({call}.seeds)"),
        Number("superposition.steps", sp.STEPS, "Adam steps", "ffn_core.superposition.STEPS"),
        Number("superposition.batch", sp.BATCH, "samples per step", "ffn_core.superposition.BATCH"),
        Number(
            "superposition.learning_rate", sp.LEARNING_RATE, "Adam step size", "ffn_core.superposition.LEARNING_RATE"
        ),
    ]
    for name, part in (("dense", study.dense), ("sparse", study.sparse)):
        at = f"{call}.{name}"
        shown = f"{at}.shown"
        run, g = part.shown, part.shown.geometry
        kept = [g.norms[i] for i in g.represented]
        dropped = [g.norms[i] for i in g.dropped]
        key = f"superposition.{name}"
        found += [
            Number(f"{key}.sparsity", part.sparsity, FRACTION, f"{at}.sparsity"),
            Number(f"{key}.feature_probability", part.feature_probability, FRACTION, f"{at}.feature_probability"),
            Number(f"{key}.best_seed", run.config.seed, "seed", f"{shown}.config.seed"),
            Number(f"{key}.weights", run.weights, "matrix (n x m; row i = feature i's direction)", f"{shown}.weights"),
            Number(f"{key}.bias", run.bias, "bias per feature", f"{shown}.bias"),
            Number(f"{key}.bias_max", max(run.bias), "bias", f"max({shown}.bias)"),
            Number(
                f"{key}.overlaps",
                tuple(tuple(map(float, row)) for row in sp.overlaps(run.weights)),
                "W W^T (n x n): output j reached by feature i alone at 1, before bias and ReLU",
                f"ffn_core.superposition.overlaps({shown}.weights)",
            ),
            Number(
                f"{key}.examples",
                sp.examples(part.sparsity, n_features=n),
                "example inputs (rows of n values in [0, 1]; 0 = absent)",
                f"ffn_core.superposition.examples({part.sparsity!r})",
            ),
            Number(
                f"{key}.runs_weights",
                tuple(r.weights for r in part.runs),
                "matrices, one per seed",
                f"{at}.runs[*].weights",
            ),
            Number(
                f"{key}.runs_loss",
                tuple(r.loss for r in part.runs),
                "held-out loss, one per seed",
                f"{at}.runs[*].loss",
            ),
            Number(f"{key}.runs_seed", tuple(r.config.seed for r in part.runs), "seed", f"{at}.runs[*].config.seed"),
            Number(f"{key}.loss", run.loss, "importance-weighted squared error (held out)", f"{shown}.loss"),
            Number(f"{key}.norms", g.norms, NORM, f"{shown}.geometry.norms"),
            Number(f"{key}.polar_angles_deg", g.polar_angles_deg, DEGREES, f"{shown}.geometry.polar_angles_deg"),
            Number(f"{key}.represented", g.represented, "feature index (0-based)", f"{shown}.geometry.represented"),
            Number(f"{key}.n_represented", g.n_represented, "features", f"{shown}.geometry.n_represented"),
            Number(f"{key}.n_dropped", len(g.dropped), "features", f"len({shown}.geometry.dropped)"),
            Number(
                f"{key}.dropped_max_norm",
                max(dropped, default=0.0),
                NORM + "; 0 when none is dropped",
                f"max(norms of {shown}.geometry.dropped)",
            ),
            Number(f"{key}.kept_min_norm", min(kept), NORM, f"min(norms of {shown}.geometry.represented)"),
            Number(f"{key}.kept_max_norm", max(kept), NORM, f"max(norms of {shown}.geometry.represented)"),
            Number(f"{key}.min_pair_angle_deg", g.min_pair_angle_deg, DEGREES, f"{shown}.geometry.min_pair_angle_deg"),
            Number(
                f"{key}.max_abs_cosine", g.max_abs_cosine, "|cos| (0 = orthogonal)", f"{shown}.geometry.max_abs_cosine"
            ),
            Number(f"{key}.neighbour_gaps_deg", g.neighbour_gaps_deg, DEGREES, f"{shown}.geometry.neighbour_gaps_deg"),
            Number(
                f"{key}.min_pair_angle_whole",
                round(g.min_pair_angle_deg),
                "degrees (rounded)",
                f"round({shown}.geometry.min_pair_angle_deg)",
            ),
            Number(
                f"{key}.min_gap_whole",
                round(min(g.neighbour_gaps_deg)),
                "degrees (rounded)",
                f"round(min({shown}.geometry.neighbour_gaps_deg))",
            ),
            Number(
                f"{key}.max_gap_whole",
                round(max(g.neighbour_gaps_deg)),
                "degrees (rounded)",
                f"round(max({shown}.geometry.neighbour_gaps_deg))",
            ),
            Number(
                f"{key}.two_or_more_share",
                sp.two_or_more_share(part.feature_probability, n),
                FRACTION,
                f"ffn_core.superposition.two_or_more_share({at}.feature_probability, {n})",
            ),
            Number(
                f"{key}.min_gap_deg", min(g.neighbour_gaps_deg), DEGREES, f"min({shown}.geometry.neighbour_gaps_deg)"
            ),
            Number(
                f"{key}.max_gap_deg", max(g.neighbour_gaps_deg), DEGREES, f"max({shown}.geometry.neighbour_gaps_deg)"
            ),
            Number(
                f"{key}.runs_n_represented",
                tuple(r.geometry.n_represented for r in part.runs),
                "features, one per seed",
                f"{at}.runs[*].geometry.n_represented",
            ),
            Number(f"{key}.runs_with_n_features", part.runs_representing(n), "runs", f"{at}.runs_representing({n})"),
            Number(
                f"{key}.runs_with_n_minus_one",
                part.runs_representing(n - 1),
                "runs",
                f"{at}.runs_representing({n - 1})",
            ),
            Number(f"{key}.runs_with_m_features", part.runs_representing(m), "runs", f"{at}.runs_representing({m})"),
        ]
    found += _leak(study, call)
    return tuple(found)


def _leak(study: SuperpositionStudy, call: str) -> list[Number]:
    """Sparse case: feature 0 alone pushes its nearest neighbour's output; how much is left
    after the neighbour's bias and the ReLU."""
    from ffn_core import superposition as sp

    run = study.sparse.shown
    i = LEAK_FEATURE
    j = sp.nearest_neighbour(run.geometry, i)
    overlap = float(sp.overlaps(run.weights)[i][j])
    bias = run.bias[j]
    shown = f"{call}.sparse.shown"
    key = "superposition.sparse.leak"
    return [
        Number(f"{key}.feature", i, "feature index (0-based)", "ffn_core.groups.superposition.LEAK_FEATURE"),
        Number(
            f"{key}.neighbour",
            j,
            "feature index (0-based)",
            f"ffn_core.superposition.nearest_neighbour({shown}.geometry, {i})",
        ),
        Number(
            f"{key}.overlap",
            overlap,
            "W_i . W_j (output units per unit of feature i)",
            f"ffn_core.superposition.overlaps({shown}.weights)[{i}][{j}]",
        ),
        Number(f"{key}.bias", bias, "bias of the neighbour's output", f"{shown}.bias[{j}]"),
        Number(
            f"{key}.kept_share",
            sp.leak_kept_share(overlap, bias),
            FRACTION,
            f"ffn_core.superposition.leak_kept_share(overlap, {shown}.bias[{j}])",
        ),
    ]


def datasets() -> tuple[Dataset, ...]:
    from ffn_core.superposition import solve

    return (
        Dataset(
            "superposition.study",
            solve(),
            "the toy model trained at two sparsities from every seed: weights, biases, held-out losses, geometry",
            "ffn_core.superposition.solve()",
        ),
    )
