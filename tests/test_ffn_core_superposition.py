"""The toy model of superposition: its saved weights read again another way, and its training.

The geometry the lecture states (how many features are represented, their norms, the angles
between them) is recomputed here from the registered weights with plain `math` (hypot,
atan2, acos), not with ffn_core's own analysis. The training is checked by finite
differences of its gradients and by retraining the shown runs alone, which must give the
saved weights bit for bit.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ffn_core import superposition as sp
from ffn_core.registry import dataset, number

REPO = Path(__file__).resolve().parent.parent
THRESHOLD = 0.5  # norm above which a feature counts as represented (the lecture's rule)


def _n(key: str):
    return number(key).value


def _norm(row) -> float:
    return math.hypot(*row)


def _angle_deg(a, b) -> float:
    cos = (a[0] * b[0] + a[1] * b[1]) / (_norm(a) * _norm(b))
    return math.degrees(math.acos(max(-1.0, min(1.0, cos))))


def _gaps_deg(rows, kept) -> list[float]:
    around = sorted(math.degrees(math.atan2(rows[i][1], rows[i][0])) % 360 for i in kept)
    return [(around[(k + 1) % len(around)] - around[k]) % 360 for k in range(len(around))]


# -- the geometry, recomputed from the saved weights -------------------------------------------


@pytest.mark.parametrize("part", ["dense", "sparse"])
def test_norms_angles_and_represented_features_recomputed_from_the_saved_weights(part):
    rows = _n(f"superposition.{part}.weights")
    assert len(rows) == _n("superposition.n_features") and {len(r) for r in rows} == {_n("superposition.n_hidden")}
    norms = [_norm(r) for r in rows]
    kept = tuple(i for i, v in enumerate(norms) if v > THRESHOLD)
    assert _n(f"superposition.{part}.norms") == pytest.approx(norms, abs=1e-12)
    assert _n(f"superposition.{part}.represented") == kept
    assert _n(f"superposition.{part}.n_represented") == len(kept)
    pairs = [_angle_deg(rows[i], rows[j]) for i, j in itertools.combinations(kept, 2)]
    assert _n(f"superposition.{part}.min_pair_angle_deg") == pytest.approx(min(pairs), abs=1e-9)
    assert _n(f"superposition.{part}.neighbour_gaps_deg") == pytest.approx(_gaps_deg(rows, kept), abs=1e-9)
    assert sum(_n(f"superposition.{part}.neighbour_gaps_deg")) == pytest.approx(360.0)
    assert _n(f"superposition.{part}.kept_min_norm") == pytest.approx(min(norms[i] for i in kept))
    assert _n(f"superposition.{part}.min_pair_angle_whole") == round(min(pairs))


def test_dense_data_keep_the_m_most_important_features_orthogonal_and_drop_the_rest():
    m = _n("superposition.n_hidden")
    rows = _n("superposition.dense.weights")
    norms = [_norm(r) for r in rows]
    assert _n("superposition.dense.represented") == tuple(range(m))  # the most important ones (I_i decays)
    assert abs(_angle_deg(rows[0], rows[1]) - 90.0) < 2.0
    assert _n("superposition.dense.max_abs_cosine") < 0.05
    assert all(0.9 < norms[i] < 1.1 for i in range(m))
    assert max(norms[m:]) < 0.05 and _n("superposition.dense.dropped_max_norm") == pytest.approx(max(norms[m:]))
    assert _n("superposition.dense.runs_n_represented") == (m,) * _n("superposition.n_seeds")  # every seed agrees


def test_sparse_data_pack_more_features_than_dimensions_at_wide_angles():
    n, m = _n("superposition.n_features"), _n("superposition.n_hidden")
    rows = _n("superposition.sparse.weights")
    kept = _n("superposition.sparse.represented")
    assert len(kept) > m and len(kept) == n
    gaps = _gaps_deg(rows, kept)
    assert all(abs(g - 360 / n) < 6 for g in gaps), gaps  # a near pentagon
    assert min(_angle_deg(rows[i], rows[j]) for i, j in itertools.combinations(kept, 2)) > 60
    assert all(0.9 < _norm(r) < 1.3 for r in rows)
    assert max(_n("superposition.sparse.bias")) < 0  # a negative bias on every output


def test_the_shown_run_is_the_one_with_the_lowest_held_out_loss_and_the_counts_add_up():
    n = _n("superposition.n_features")
    for part in ("dense", "sparse"):
        losses, seeds = _n(f"superposition.{part}.runs_loss"), _n(f"superposition.{part}.runs_seed")
        best = _n(f"superposition.{part}.best_seed")
        assert losses[seeds.index(best)] == min(losses) == _n(f"superposition.{part}.loss")
        weights = _n(f"superposition.{part}.runs_weights")[seeds.index(best)]
        assert weights == _n(f"superposition.{part}.weights")
        counts = [sum(_norm(r) > THRESHOLD for r in w) for w in _n(f"superposition.{part}.runs_weights")]
        assert tuple(counts) == _n(f"superposition.{part}.runs_n_represented")
    # the narration: "en 4 de 8 entrenamientos caben los 5 ...; en el mejor, ..." (the others keep 4)
    with_n, with_fewer = (
        _n("superposition.sparse.runs_with_n_features"),
        _n("superposition.sparse.runs_with_n_minus_one"),
    )
    assert with_n + with_fewer == _n("superposition.n_seeds") and with_n >= 1
    assert _n("superposition.n_features_minus_one") == n - 1


def test_the_held_out_loss_recomputed_feature_by_feature():
    config = sp.ToyConfig(sparsity=_n("superposition.sparse.sparsity"))
    rng = np.random.default_rng((sp.EVAL_SEED, round(config.sparsity * 1_000_000)))
    x = sp.sample_features(rng, (sp.EVAL_SAMPLES, config.n_features), config.feature_probability)
    w = np.array(_n("superposition.sparse.weights"))
    b = np.array(_n("superposition.sparse.bias"))
    hidden = x @ w  # h = x W
    total = 0.0
    for i in range(config.n_features):
        out = np.maximum(hidden @ w[i] + b[i], 0.0)  # x'_i = ReLU(h . W_i + b_i)
        total += _n("superposition.importance")[i] * float(np.mean((x[:, i] - out) ** 2))
    assert _n("superposition.sparse.loss") == pytest.approx(total, rel=1e-9)


# -- the training --------------------------------------------------------------------------------


def test_gradients_equal_finite_differences_of_the_loss():
    rng = np.random.default_rng(0)
    x = sp.sample_features(rng, (64, 5), 0.4)
    w, b = rng.normal(size=(5, 2)), rng.normal(scale=0.2, size=5)
    importance = 0.9 ** np.arange(5)
    grad_w, grad_b = sp.loss_gradients(x, w, b, importance)
    eps = 1e-6
    for idx in np.ndindex(w.shape):
        step = np.zeros_like(w)
        step[idx] = eps
        numeric = (sp.weighted_loss(x, w + step, b, importance) - sp.weighted_loss(x, w - step, b, importance)) / (
            2 * eps
        )
        assert grad_w[idx] == pytest.approx(numeric, rel=1e-4, abs=1e-8)
    for k in range(5):
        step = np.zeros_like(b)
        step[k] = eps
        numeric = (sp.weighted_loss(x, w, b + step, importance) - sp.weighted_loss(x, w, b - step, importance)) / (
            2 * eps
        )
        assert grad_b[k] == pytest.approx(numeric, rel=1e-4, abs=1e-8)


def test_training_twice_gives_the_same_weights_and_a_run_does_not_depend_on_its_companions():
    configs = (sp.ToyConfig(sparsity=0.9, seed=3, steps=200), sp.ToyConfig(sparsity=0.0, seed=1, steps=200))
    first, second = sp.train_many(configs), sp.train_many(configs)
    alone = sp.train_many(configs[:1])
    for (w1, b1), (w2, b2) in zip(first, second):
        assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    assert np.array_equal(alone[0][0], first[0][0]) and np.array_equal(alone[0][1], first[0][1])


@pytest.mark.parametrize("part", ["dense", "sparse"])
def test_the_shown_run_retrained_alone_gives_the_saved_weights_bit_for_bit(part):
    config = sp.ToyConfig(sparsity=_n(f"superposition.{part}.sparsity"), seed=_n(f"superposition.{part}.best_seed"))
    ((weights, bias),) = sp.train_many((config,))
    assert tuple(tuple(map(float, r)) for r in weights) == _n(f"superposition.{part}.weights")
    assert tuple(map(float, bias)) == _n(f"superposition.{part}.bias")


def test_samples_are_sparse_as_asked_and_uniform_when_present():
    x = sp.sample_features(np.random.default_rng(1), (200_000, 5), 0.1)
    present = x[x > 0]
    assert (x > 0).mean() == pytest.approx(0.1, abs=0.003)
    assert present.min() >= 0 and present.max() < 1 and present.mean() == pytest.approx(0.5, abs=0.01)


# -- what the scene says about co-occurrence and interference --------------------------------


def test_two_or_more_present_at_once_equals_the_binomial_tail():
    p, n = _n("superposition.sparse.feature_probability"), _n("superposition.n_features")
    tail = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(2, n + 1))
    assert _n("superposition.sparse.two_or_more_share") == pytest.approx(tail)
    examples = _n("superposition.sparse.examples")
    assert all(0 <= v <= 1 for row in examples for v in row)
    assert _n("superposition.dense.two_or_more_share") == pytest.approx(1.0)
    assert all(all(v > 0 for v in row) for row in _n("superposition.dense.examples"))


def test_the_leak_into_the_nearest_neighbour_and_what_the_bias_and_relu_let_through():
    rows = _n("superposition.sparse.weights")
    i, j = _n("superposition.sparse.leak.feature"), _n("superposition.sparse.leak.neighbour")
    others = [k for k in _n("superposition.sparse.represented") if k != i]
    assert j == min(others, key=lambda k: _angle_deg(rows[i], rows[k]))
    overlap = rows[i][0] * rows[j][0] + rows[i][1] * rows[j][1]
    assert _n("superposition.sparse.leak.overlap") == pytest.approx(overlap)
    bias = _n("superposition.sparse.bias")[j]
    assert _n("superposition.sparse.leak.bias") == bias < 0 < overlap
    v = (np.arange(1_000_000) + 0.5) / 1_000_000  # v uniform on [0, 1], midpoint rule
    kept = np.maximum(overlap * v + bias, 0).mean() / (overlap * v).mean()
    assert _n("superposition.sparse.leak.kept_share") == pytest.approx(kept, rel=1e-6)
    assert _n("superposition.sparse.overlaps")[i][j] == pytest.approx(overlap)


def test_leak_kept_share_refuses_a_negative_overlap_and_keeps_all_without_a_bias():
    assert sp.leak_kept_share(0.4, 0.0) == 1.0
    assert sp.leak_kept_share(0.4, -0.5) == 0.0
    with pytest.raises(ValueError, match="positive overlap"):
        sp.leak_kept_share(-0.1, -0.2)


# -- the registry --------------------------------------------------------------------------------


def test_the_dataset_holds_the_study_the_numbers_describe():
    study = dataset("superposition.study").value
    assert study == sp.solve()
    assert study.sparse.shown.weights == _n("superposition.sparse.weights")
    assert study.dense.shown.geometry.represented == _n("superposition.dense.represented")


def test_reading_the_superposition_numbers_imports_no_torch():
    code = (
        "import sys\n"
        "from ffn_core.registry import number\n"
        "number('superposition.sparse.n_represented')\n"
        "print(sorted(m for m in sys.modules if m.startswith('torch')))\n"
    )
    env = {"PATH": "", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
