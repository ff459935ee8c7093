"""Superposition in a toy model: more features than dimensions, trained here with numpy.

The toy model of Elhage et al. (2022), "Toy Models of Superposition" (their first figure:
five features, two dimensions). An input ``x`` has ``n`` features; each is present with
probability ``p = 1 - S`` (``S`` is the *sparsity*) and, when present, takes a value drawn
uniformly from [0, 1]. The model squeezes ``x`` through ``m < n`` hidden dimensions and
reads it back:

    h  = x W                 (x: 1 x n row, W: n x m, h: 1 x m)
    x' = ReLU(h W^T + b)     (b: 1 x n)

Row ``i`` of ``W`` is feature ``i``'s direction in the hidden plane. We write ``W`` n x m,
the transpose of the paper's m x n, to keep the lecture's row-vector convention ``x W``;
the model is the same. The loss is the importance-weighted squared error, averaged over
the batch and summed over features: ``L = mean_x sum_i I_i (x_i - x'_i)^2``, with the
paper's decaying importance ``I_i = 0.9^i`` (feature 0 matters most).

Training is plain numpy (hand-written gradients, Adam), so no torch is imported, here or in
a render process reading the cached result. Everything is seeded with explicit
``numpy.random.Generator`` objects (no global state): the same code gives the same
weights on every run. Optimiser settings are ours, not the paper's: Adam, learning rate
``3e-3``, 5000 steps of 1024 fresh samples each. The model has local minima (a sparse run
may settle on four features instead of five), so each sparsity is trained from several
seeds; the study keeps every run and shows the one with the lowest held-out loss, and
says how many runs reached each picture.

A feature counts as *represented* when its direction's norm exceeds 0.5 (a trained
feature's norm is about 1; a dropped one's about 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ffn_core.cache import disk_cached

FloatArray = npt.NDArray[np.float64]

N_FEATURES = 5  # n: features of the input
N_HIDDEN = 2  # m: hidden dimensions (a plane, so the directions can be drawn)
IMPORTANCE_DECAY = 0.9  # I_i = 0.9^i, as in the paper
DENSE_SPARSITY = 0.0  # every feature present in every sample
SPARSE_SPARSITY = 0.9  # each feature present in 10 % of the samples
SEEDS = tuple(range(8))  # one run per seed and sparsity; the same seed, the same initial W
STEPS = 5000  # Adam steps
BATCH = 1024  # fresh samples per step
LEARNING_RATE = 3e-3  # Adam, constant
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
EVAL_SAMPLES = 100_000  # held-out samples for the loss that ranks the runs
EVAL_SEED = 2022  # the held-out set's generator (the same set for every run of a sparsity)
DATA_CHUNK = 50  # steps of samples drawn at once (speed only: the stream is the same)
REPRESENTED_NORM = 0.5  # a feature is represented when its direction's norm exceeds this
N_EXAMPLES = 8  # example inputs drawn per sparsity, to show what a sample looks like
EXAMPLE_SEED = 7


@dataclass(frozen=True)
class ToyConfig:
    """Everything that determines one training run. ``sparsity`` S is a probability (0-1):
    each feature is absent with probability S; ``learning_rate`` is Adam's step size."""

    n_features: int = N_FEATURES
    n_hidden: int = N_HIDDEN
    sparsity: float = SPARSE_SPARSITY
    importance_decay: float = IMPORTANCE_DECAY
    steps: int = STEPS
    batch: int = BATCH
    learning_rate: float = LEARNING_RATE
    seed: int = 0

    @property
    def feature_probability(self) -> float:
        """p = 1 - S: the probability that a feature is present in a sample (0-1)."""
        return 1.0 - self.sparsity

    @property
    def importance(self) -> tuple[float, ...]:
        """I_i = decay^i, one weight per feature (dimensionless)."""
        return tuple(self.importance_decay**i for i in range(self.n_features))


@dataclass(frozen=True)
class FeatureGeometry:
    """What the learned directions look like, computed from the weights alone.

    ``norms``: length of each feature's direction (row of W; weight units, about 1 when
    kept). ``polar_angles_deg``: each direction's angle in the hidden plane, degrees in
    [0, 360) from the first hidden axis (only meaningful for m = 2). ``represented``: the
    indices (0-based) of features whose norm exceeds ``threshold``. ``pair_angles_deg``:
    (i, j, angle in degrees, 0-180) for every pair of represented features.
    ``neighbour_gaps_deg``: going round the plane, the angle from each represented
    direction to the next (degrees; they add up to 360; m = 2 only). ``max_abs_cosine``:
    the largest |cos| between two represented directions (0 = all orthogonal).
    """

    norms: tuple[float, ...]
    polar_angles_deg: tuple[float, ...]
    threshold: float
    represented: tuple[int, ...]
    pair_angles_deg: tuple[tuple[int, int, float], ...]
    neighbour_gaps_deg: tuple[float, ...]
    max_abs_cosine: float

    @property
    def n_represented(self) -> int:
        return len(self.represented)

    @property
    def dropped(self) -> tuple[int, ...]:
        """Indices (0-based) of the features left out (norm at most the threshold)."""
        return tuple(i for i in range(len(self.norms)) if i not in self.represented)

    @property
    def min_pair_angle_deg(self) -> float:
        """The narrowest angle between two represented directions (degrees)."""
        return min(a for _, _, a in self.pair_angles_deg)


@dataclass(frozen=True)
class ToyRun:
    """One trained model: ``weights`` W (n rows of m; row i = feature i's direction),
    ``bias`` b (n), ``loss`` the importance-weighted squared error on the held-out set
    (summed over features, averaged over samples), ``geometry`` of its directions."""

    config: ToyConfig
    weights: tuple[tuple[float, ...], ...]
    bias: tuple[float, ...]
    loss: float
    geometry: FeatureGeometry


@dataclass(frozen=True)
class SparsityStudy:
    """Every seed's run at one sparsity, and which one the lecture shows.

    ``best`` is the index (into ``runs``) of the run with the lowest held-out loss."""

    sparsity: float
    runs: tuple[ToyRun, ...]
    best: int

    @property
    def shown(self) -> ToyRun:
        return self.runs[self.best]

    @property
    def feature_probability(self) -> float:
        return 1.0 - self.sparsity

    def runs_representing(self, count: int) -> int:
        """How many runs represent exactly ``count`` features."""
        return sum(run.geometry.n_represented == count for run in self.runs)


@dataclass(frozen=True)
class SuperpositionStudy:
    """The toy model trained at two sparsities: dense (S = 0) and sparse (S = 0.9)."""

    n_features: int
    n_hidden: int
    importance: tuple[float, ...]
    seeds: tuple[int, ...]
    dense: SparsityStudy
    sparse: SparsityStudy


# -- the model ------------------------------------------------------------------------------


def sample_features(rng: np.random.Generator, shape: tuple[int, ...], probability: float) -> FloatArray:
    """Sparse features: each entry present with ``probability``, then uniform in [0, 1]."""
    values = rng.random(shape)
    present = rng.random(shape) < probability
    sampled: FloatArray = np.where(present, values, 0.0)
    return sampled


def reconstruct(x: FloatArray, weights: FloatArray, bias: FloatArray) -> FloatArray:
    """x' = ReLU(x W W^T + b) for a batch of rows ``x`` (B x n)."""
    out: FloatArray = np.maximum(x @ weights @ weights.T + bias, 0.0)
    return out


def weighted_loss(x: FloatArray, weights: FloatArray, bias: FloatArray, importance: FloatArray) -> float:
    """mean over the batch of sum_i I_i (x_i - x'_i)^2."""
    error = reconstruct(x, weights, bias) - x
    return float((importance * error**2).sum(axis=-1).mean())


def loss_gradients(
    x: FloatArray, weights: FloatArray, bias: FloatArray, importance: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """(dL/dW, dL/db) of :func:`weighted_loss` for instances stacked on the first axis.

    ``x`` is (..., B, n), ``weights`` (..., n, m), ``bias`` (..., n). With
    z = x W W^T + b and g = dL/dz = 2 I (ReLU(z) - x) [z > 0] / B:
    dL/db = sum_batch g, and dL/dW = (x^T g + g^T x) W.
    """
    z = x @ weights @ np.swapaxes(weights, -1, -2) + bias[..., None, :]
    g = (2.0 / x.shape[-2]) * importance * (np.maximum(z, 0.0) - x) * (z > 0)
    xtg = np.swapaxes(x, -1, -2) @ g
    grad_w: FloatArray = (xtg + np.swapaxes(xtg, -1, -2)) @ weights
    grad_b: FloatArray = g.sum(axis=-2)
    return grad_w, grad_b


def initial_weights(config: ToyConfig) -> FloatArray:
    """Xavier-normal W (n x m), from the run's seed alone (the same at every sparsity)."""
    rng = np.random.default_rng((config.seed, 0))
    std = math.sqrt(2.0 / (config.n_features + config.n_hidden))
    weights: FloatArray = rng.normal(0.0, std, size=(config.n_features, config.n_hidden))
    return weights


def _data_stream(config: ToyConfig) -> np.random.Generator:
    # A generator per run, from its seed and its sparsity: runs trained together draw
    # exactly the samples they would draw alone.
    return np.random.default_rng((config.seed, 1, round(config.sparsity * 1_000_000)))


def train_many(configs: tuple[ToyConfig, ...]) -> tuple[tuple[FloatArray, FloatArray], ...]:
    """Train several runs side by side (one stacked array, Adam per run); (W, b) of each.

    Every run has its own initial weights and its own sample stream, so the result of a
    run does not depend on which others it was trained with. Shapes (n, m, steps, batch,
    learning rate) must agree."""
    first = configs[0]
    for c in configs:
        if (c.n_features, c.n_hidden, c.steps, c.batch, c.learning_rate, c.importance_decay) != (
            first.n_features,
            first.n_hidden,
            first.steps,
            first.batch,
            first.learning_rate,
            first.importance_decay,
        ):
            raise ValueError(f"train_many: runs differ in more than seed and sparsity: {c} vs {first}")
    n, count = first.n_features, len(configs)
    importance = np.array(first.importance)
    weights = np.stack([initial_weights(c) for c in configs])
    bias = np.zeros((count, n))
    streams = [_data_stream(c) for c in configs]
    moments = [np.zeros_like(weights), np.zeros_like(weights), np.zeros_like(bias), np.zeros_like(bias)]
    beta1, beta2 = ADAM_BETAS
    step = 0
    while step < first.steps:
        chunk = min(DATA_CHUNK, first.steps - step)
        data = np.stack(
            [sample_features(s, (chunk, first.batch, n), c.feature_probability) for s, c in zip(streams, configs)],
            axis=1,
        )  # (chunk, runs, batch, n)
        for x in data:
            step += 1
            grad_w, grad_b = loss_gradients(x, weights, bias, importance)
            for param, grad, m1, m2 in ((weights, grad_w, *moments[:2]), (bias, grad_b, *moments[2:])):
                m1 *= beta1
                m1 += (1 - beta1) * grad
                m2 *= beta2
                m2 += (1 - beta2) * grad * grad
                corrected = (m1 / (1 - beta1**step)) / (np.sqrt(m2 / (1 - beta2**step)) + ADAM_EPS)
                param -= first.learning_rate * corrected
    return tuple((weights[k].copy(), bias[k].copy()) for k in range(count))


def examples(sparsity: float, count: int = N_EXAMPLES, n_features: int = N_FEATURES) -> tuple[tuple[float, ...], ...]:
    """``count`` example inputs x at ``sparsity`` (rows of n values in [0, 1]; 0 = absent),
    drawn from a fixed generator: what the model sees, shown as a grid."""
    rng = np.random.default_rng((EXAMPLE_SEED, round(sparsity * 1_000_000)))
    x = sample_features(rng, (count, n_features), 1.0 - sparsity)
    return tuple(tuple(map(float, row)) for row in x)


def overlaps(weights: FloatArray | tuple[tuple[float, ...], ...]) -> FloatArray:
    """W W^T (n x n): entry (i, j) is how much feature i, alone at value 1, reaches output j
    before the bias and the ReLU (the diagonal is each norm squared)."""
    w = np.asarray(weights, dtype=np.float64)
    gram: FloatArray = w @ w.T
    return gram


def two_or_more_share(feature_probability: float, n_features: int = N_FEATURES) -> float:
    """Probability (0-1) that a sample has two or more features present at once:
    1 - (1 - p)^n - n p (1 - p)^(n - 1) (each feature present independently with p)."""
    p, n = feature_probability, n_features
    return 1.0 - (1.0 - p) ** n - n * p * (1.0 - p) ** (n - 1)


def nearest_neighbour(geometry: FeatureGeometry, i: int) -> int:
    """The represented feature whose direction is closest in angle to feature i's."""
    pairs = [(a, j if k == i else k) for k, j, a in geometry.pair_angles_deg if i in (k, j)]
    if not pairs:
        raise ValueError(f"feature {i} has no represented neighbour")
    return min(pairs)[1]


def leak_kept_share(overlap: float, bias: float) -> float:
    """Of the push ``overlap * v`` that a feature alone at value v ~ U[0, 1] gives another
    feature's output, the share (0-1) left after that output's bias and ReLU, on average:
    E[ReLU(overlap v + bias)] / E[overlap v] = (overlap + bias)^2 / overlap^2 when
    0 < -bias < overlap (0 when the bias cuts it all, 1 without a bias); overlap > 0."""
    if overlap <= 0:
        raise ValueError(f"a leak needs a positive overlap (got {overlap})")
    if bias >= 0:
        return (overlap / 2 + bias) / (overlap / 2)
    if overlap + bias <= 0:
        return 0.0
    return (overlap + bias) ** 2 / overlap**2


def held_out_loss(config: ToyConfig, weights: FloatArray, bias: FloatArray) -> float:
    """The weighted loss on ``EVAL_SAMPLES`` samples of the run's sparsity (a fixed set)."""
    rng = np.random.default_rng((EVAL_SEED, round(config.sparsity * 1_000_000)))
    x = sample_features(rng, (EVAL_SAMPLES, config.n_features), config.feature_probability)
    return weighted_loss(x, weights, bias, np.array(config.importance))


# -- reading the directions -----------------------------------------------------------------


def feature_geometry(
    weights: FloatArray | tuple[tuple[float, ...], ...], threshold: float = REPRESENTED_NORM
) -> FeatureGeometry:
    """Norms, angles and the represented features of W's rows (n x m)."""
    w = np.asarray(weights, dtype=np.float64)
    norms = np.linalg.norm(w, axis=1)
    represented = tuple(int(i) for i in np.flatnonzero(norms > threshold))
    polar = (np.degrees(np.arctan2(w[:, 1], w[:, 0])) % 360.0) if w.shape[1] == 2 else np.full(len(w), np.nan)
    pairs = []
    max_cos = 0.0
    for a, i in enumerate(represented):
        for j in represented[a + 1 :]:
            cos = float(w[i] @ w[j] / (norms[i] * norms[j]))
            cos = min(max(cos, -1.0), 1.0)
            pairs.append((i, j, math.degrees(math.acos(cos))))
            max_cos = max(max_cos, abs(cos))
    gaps: tuple[float, ...] = ()
    if w.shape[1] == 2 and len(represented) >= 2:
        around = sorted(float(polar[i]) for i in represented)
        gaps = tuple((around[(k + 1) % len(around)] - around[k]) % 360.0 for k in range(len(around)))
    return FeatureGeometry(
        norms=tuple(map(float, norms)),
        polar_angles_deg=tuple(map(float, polar)),
        threshold=threshold,
        represented=represented,
        pair_angles_deg=tuple(pairs),
        neighbour_gaps_deg=gaps,
        max_abs_cosine=max_cos,
    )


def _as_run(config: ToyConfig, weights: FloatArray, bias: FloatArray) -> ToyRun:
    return ToyRun(
        config=config,
        weights=tuple(tuple(map(float, row)) for row in weights),
        bias=tuple(map(float, bias)),
        loss=held_out_loss(config, weights, bias),
        geometry=feature_geometry(weights),
    )


@disk_cached
def _study(
    n_features: int, n_hidden: int, sparsities: tuple[float, float], seeds: tuple[int, ...]
) -> SuperpositionStudy:
    configs = tuple(
        ToyConfig(n_features=n_features, n_hidden=n_hidden, sparsity=s, seed=seed) for s in sparsities for seed in seeds
    )
    trained = train_many(configs)
    runs = [_as_run(c, w, b) for c, (w, b) in zip(configs, trained)]
    studies = []
    for k, s in enumerate(sparsities):
        these = tuple(runs[k * len(seeds) : (k + 1) * len(seeds)])
        best = min(range(len(these)), key=lambda r: these[r].loss)
        studies.append(SparsityStudy(sparsity=s, runs=these, best=best))
    return SuperpositionStudy(
        n_features=n_features,
        n_hidden=n_hidden,
        importance=configs[0].importance,
        seeds=seeds,
        dense=studies[0],
        sparse=studies[1],
    )


def solve() -> SuperpositionStudy:
    """The study the superposition scene shows (trained once, then read from the disk cache)."""
    return _study(N_FEATURES, N_HIDDEN, (DENSE_SPARSITY, SPARSE_SPARSITY), SEEDS)
