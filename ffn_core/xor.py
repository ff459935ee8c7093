"""XOR: no straight line separates it; a small ReLU network does.

The linear result is found by exhaustive search, not asserted: for each of many line
directions, every threshold that changes the split of the four points is tried, which
enumerates every split a straight line can make. The network is trained here with torch
(seeded) and its decision regions are sampled on a grid, ready to draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ffn_core.cache import disk_cached
from ffn_core.shapes import XOR_VIEW, clip_line

Point = tuple[float, float]

POINTS: tuple[Point, ...] = ((0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0))
LABELS: tuple[int, ...] = (0, 1, 1, 0)  # XOR of the two coordinates
VIEW = XOR_VIEW  # square drawn by the scenes, in data units, both axes


@dataclass(frozen=True)
class LinePosition:
    """A straight line ``cos(a) x + sin(a) y = offset``; class 1 on the side where > offset.

    ``angle_rad`` is the direction of the normal; ``segment`` is the line clipped to the
    drawn square (two (x, y) points, data units); ``accuracy`` is the fraction of the four
    XOR points on their correct side; ``correct[i]`` tells point i.
    """

    angle_rad: float
    offset: float
    segment: tuple[Point, Point]
    accuracy: float
    correct: tuple[bool, ...]


@dataclass(frozen=True)
class LinearSearch:
    """Every split of the four points a straight line can make, and the best accuracy."""

    n_directions: int
    n_lines_tried: int
    achievable_splits: int  # distinct labelings of the 4 points a line produces (of 16)
    best_accuracy: float  # fraction of the 4 points (3/4 for XOR)
    best_line: LinePosition


@dataclass(frozen=True)
class MlpResult:
    """A 2 -> hidden -> 1 ReLU network trained on XOR, and its decision regions.

    ``grid_x``/``grid_y`` are the sample coordinates (data units) over the drawn square;
    ``probability[r][c]`` is P(class 1) at (grid_x[c], grid_y[r]); ``region[r][c]`` is 0/1.
    ``hidden_lines[i]`` is the fold of hidden neuron i: (w_x, w_y, b) with the neuron
    active where w_x x + w_y y + b > 0. ``hidden_points[p]`` is the hidden layer's
    activation for XOR point p (where the points become separable by one plane).
    """

    hidden: int
    seed: int
    steps: int
    final_loss: float
    loss_history: tuple[float, ...]  # every 25 steps
    point_probabilities: tuple[float, ...]
    accuracy: float
    grid_x: tuple[float, ...]
    grid_y: tuple[float, ...]
    probability: tuple[tuple[float, ...], ...]
    region: tuple[tuple[int, ...], ...]
    hidden_lines: tuple[tuple[float, float, float], ...]
    hidden_points: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class XorResult:
    """Everything the XOR scene draws: the best line, a sweeping line, the network."""

    points: tuple[Point, ...]
    labels: tuple[int, ...]
    linear: LinearSearch
    sweep: tuple[LinePosition, ...]
    mlp: MlpResult


def classify_with_line(angle_rad: float, offset: float, labels: tuple[int, ...] = LABELS) -> LinePosition:
    """Accuracy of the line on the four points labelled ``labels`` (XOR by default)."""
    normal = np.array([math.cos(angle_rad), math.sin(angle_rad)])
    predicted = (np.array(POINTS) @ normal > offset).astype(int)
    correct = tuple(bool(p == y) for p, y in zip(predicted, labels))
    return LinePosition(
        angle_rad=angle_rad,
        offset=offset,
        segment=clip_line(angle_rad, offset),
        accuracy=sum(correct) / len(correct),
        correct=correct,
    )


def _critical_offsets(projections: npt.NDArray[np.float64]) -> list[float]:
    """One threshold in each gap between distinct projections, plus one beyond each end."""
    values = np.unique(np.round(projections, 12))
    inner = [(a + b) / 2 for a, b in zip(values[:-1], values[1:])]
    return [float(values[0] - 1.0), *map(float, inner), float(values[-1] + 1.0)]


def search_lines(n_directions: int = 720, labels: tuple[int, ...] = LABELS) -> LinearSearch:
    """Best accuracy any straight line reaches on the four points (XOR labels by default),
    by exhaustive search.

    For each of ``n_directions`` normal directions (offset by half a step so no direction
    is exactly degenerate) every threshold that changes the split is tried.
    """
    best: LinePosition | None = None
    splits: set[tuple[int, ...]] = set()
    tried = 0
    for k in range(n_directions):
        angle = 2 * math.pi * (k + 0.5) / n_directions
        normal = np.array([math.cos(angle), math.sin(angle)])
        projections = np.array(POINTS) @ normal
        for offset in _critical_offsets(projections):
            tried += 1
            splits.add(tuple((projections > offset).astype(int)))
            line = classify_with_line(angle, offset, labels)
            if best is None or line.accuracy > best.accuracy:
                best = line
    assert best is not None
    return LinearSearch(
        n_directions=n_directions,
        n_lines_tried=tried,
        achievable_splits=len(splits),
        best_accuracy=best.accuracy,
        best_line=best,
    )


def sweep_lines(
    angles_deg: tuple[float, ...] = (10.0, 55.0, 100.0, 145.0), steps_per_angle: int = 12
) -> tuple[LinePosition, ...]:
    """A line sliding across the square at a few tilts: one frame per position.

    The tilts avoid multiples of 45 degrees, where the line would pass through two points
    at once. Each frame carries the accuracy it reaches; none reaches 4 of 4.
    """
    frames = []
    for degrees in angles_deg:
        angle = math.radians(degrees)
        normal = np.array([math.cos(angle), math.sin(angle)])
        projections = np.array(POINTS) @ normal
        start, stop = projections.min() - 0.25, projections.max() + 0.25
        for offset in np.linspace(start, stop, steps_per_angle):
            frames.append(classify_with_line(angle, float(offset)))
    return tuple(frames)


def train_mlp(hidden: int = 4, seed: int = 0, steps: int = 600, grid_size: int = 81) -> MlpResult:
    """Train a 2 -> hidden -> 1 ReLU network on XOR (Adam, full batch, seeded)."""
    import torch  # lazily: reading a cached result must not import torch
    from torch import nn

    from ffn_core.seeding import deterministic

    with deterministic(seed):
        x = torch.tensor(POINTS, dtype=torch.float32)
        y = torch.tensor(LABELS, dtype=torch.float32).unsqueeze(1)
        hidden_layer = nn.Linear(2, hidden)  # built first, as before: the seeded draws are unchanged
        net = nn.Sequential(hidden_layer, nn.ReLU(), nn.Linear(hidden, 1))
        optimizer = torch.optim.Adam(net.parameters(), lr=0.05)
        loss_fn = nn.BCEWithLogitsLoss()
        history = []
        for step in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(net(x), y)
            loss.backward()
            optimizer.step()
            if step % 25 == 0:
                history.append(loss.item())
        with torch.no_grad():
            final_loss = float(loss_fn(net(x), y))
            point_prob = torch.sigmoid(net(x)).squeeze(1)
            axis = torch.linspace(VIEW[0], VIEW[1], grid_size)
            gy, gx = torch.meshgrid(axis, axis, indexing="ij")
            grid = torch.stack([gx.reshape(-1), gy.reshape(-1)], dim=1)
            prob = torch.sigmoid(net(grid)).reshape(grid_size, grid_size)
            hidden_points = torch.relu(hidden_layer(x))
        weight, bias = hidden_layer.weight.detach(), hidden_layer.bias.detach()
    predicted = (point_prob > 0.5).int().tolist()
    accuracy = sum(int(p == t) for p, t in zip(predicted, LABELS)) / len(LABELS)
    return MlpResult(
        hidden=hidden,
        seed=seed,
        steps=steps,
        final_loss=final_loss,
        loss_history=tuple(history),
        point_probabilities=tuple(map(float, point_prob)),
        accuracy=accuracy,
        grid_x=tuple(map(float, axis)),
        grid_y=tuple(map(float, axis)),
        probability=tuple(tuple(map(float, row)) for row in prob),
        region=tuple(tuple(int(v > 0.5) for v in row) for row in prob),
        hidden_lines=tuple((float(w[0]), float(w[1]), float(b)) for w, b in zip(weight, bias)),
        hidden_points=tuple(tuple(map(float, h)) for h in hidden_points),
    )


@disk_cached
def solve() -> XorResult:
    """The whole XOR story: exhaustive line search, a sweeping line, a trained ReLU MLP."""
    return XorResult(points=POINTS, labels=LABELS, linear=search_lines(), sweep=sweep_lines(), mlp=train_mlp())
