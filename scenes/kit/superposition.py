"""Drawings for superposition: a toy model's feature directions as a star of arrows.

The toy model of Elhage et al. (2022) squeezes n features through m hidden dimensions and
back (ffn_core.superposition). With m = 2 each feature's direction (a row of W) is an arrow
in the plane: a `FeatureStar` draws them from the origin, each as long as its norm, with a
dashed ring at the norm a feature needs to count as represented. `ToyModelDiagram` is the
model as nodes (n in, m hidden, n out); `FeatureSamples` a few example inputs as a grid of
cells (lit = present, brighter = larger); `ToyModelTag` the plain label a model trained here
wears instead of a badge. `VectorColumn` and `VocabularyColumn` open the scene: a real
model's vector as a tall column of coordinates, and its vocabulary as a column of words.

Figures are passed in already formatted: the scene reads them through `self.number`.
"""

from __future__ import annotations

import math

import numpy as np
from manim import (
    DOWN,
    RIGHT,
    UP,
    Arc,
    Arrow,
    Circle,
    DashedLine,
    DashedVMobject,
    Dot,
    Line,
    Polygon,
    Rectangle,
    RoundedRectangle,
    VGroup,
    interpolate_color,
)

from ffn_core.registry import number
from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

FEATURE_COLOR = palette.FFN  # a feature's direction
DROPPED_COLOR = palette.INACTIVE  # a feature the model left out (norm about 0)
INACTIVE_COLOR = palette.INACTIVE  # a node not yet lit, or a feature absent from an example
LABEL_SIZE = 44  # MathTex font size of a feature's name (x₀ ... ) and the diagram's names


def feature_tex(i: int | str) -> str:
    """'x_{0}': feature i's name (0-based, like the code)."""
    return f"x_{{{i}}}"


class FeatureStar(VGroup):
    """A toy model's feature directions in its hidden plane (m = 2), arrows from the origin.

    `weights` are W's rows (n pairs): feature i's arrow ends at `unit * weights[i]` (scene
    units per weight unit). Features whose norm exceeds `threshold` are drawn as arrows
    labelled xᵢ; the others (a dropped feature's norm is about 0) as small dots at their
    tips, in the inactive hue. `axes` are the plane's two hidden dimensions, `ring` a dashed
    circle of norm 1 and `threshold_ring` one of norm `threshold`. `arrows[i]`, `labels[i]`
    and `dots[i]` are None where a feature is not drawn that way."""

    def __init__(
        self,
        weights,
        unit: float = 2.0,
        threshold: float = 0.5,
        labels: bool = True,
        show_threshold: bool = True,
        stroke_width: float = 7,
        **kwargs,
    ):
        super().__init__(**kwargs)
        w = np.asarray(weights, dtype=float)
        if w.ndim != 2 or w.shape[1] != 2:
            raise ValueError(f"a feature star draws directions in a plane: weights must be n x 2, got {w.shape}")
        self.weights, self.unit, self.threshold = w, unit, threshold
        self.norms = np.linalg.norm(w, axis=1)
        reach = unit * max(1.15, float(self.norms.max()) * 1.1)
        self.axes = VGroup(
            Line((-reach, 0, 0), (reach, 0, 0), color=palette.MUTED, stroke_width=2, stroke_opacity=0.6),
            Line((0, -reach, 0), (0, reach, 0), color=palette.MUTED, stroke_width=2, stroke_opacity=0.6),
        )
        self.ring = DashedVMobject(
            Circle(radius=unit, color=palette.MUTED, stroke_width=2, stroke_opacity=0.5), num_dashes=48
        )
        self.threshold_ring = DashedVMobject(
            Circle(radius=unit * threshold, color=palette.MUTED, stroke_width=2, stroke_opacity=0.8), num_dashes=28
        )
        self.origin = Dot((0, 0, 0), radius=0.06, color=palette.INK)
        self.arrows: list[Arrow | None] = []
        self.labels: list | None = [] if labels else None
        self.dots: list[Dot | None] = []
        for i, (row, norm) in enumerate(zip(w, self.norms)):
            tip = np.array([row[0], row[1], 0.0]) * unit
            if norm > threshold:
                arrow = Arrow(
                    (0, 0, 0),
                    tip,
                    buff=0,
                    color=FEATURE_COLOR,
                    stroke_width=stroke_width,
                    max_tip_length_to_length_ratio=0.14,
                    max_stroke_width_to_length_ratio=10,
                )
                self.arrows.append(arrow)
                self.dots.append(None)
                if self.labels is not None:
                    label = ty.math(feature_tex(i), font_size=LABEL_SIZE, color=FEATURE_COLOR)
                    label.move_to(tip + _unit(tip) * 0.42)
                    self.labels.append(label)
            else:
                self.arrows.append(None)
                self.dots.append(Dot(tip, radius=0.09, color=DROPPED_COLOR).set_z_index(1))
                if self.labels is not None:
                    self.labels.append(None)
        self.add(self.axes, self.ring)
        if show_threshold:
            self.add(self.threshold_ring)
        self.add(self.origin)
        self.add(*(a for a in self.arrows if a is not None), *(d for d in self.dots if d is not None))
        if self.labels is not None:
            self.add(*(lab for lab in self.labels if lab is not None))

    @property
    def drawn_arrows(self) -> VGroup:
        return VGroup(*(a for a in self.arrows if a is not None))

    @property
    def drawn_labels(self) -> VGroup:
        return VGroup(*(lab for lab in (self.labels or []) if lab is not None))

    @property
    def drawn_dots(self) -> VGroup:
        return VGroup(*(d for d in self.dots if d is not None))

    @property
    def represented(self) -> tuple[int, ...]:
        """Indices (0-based) of the features drawn as arrows."""
        return tuple(i for i, a in enumerate(self.arrows) if a is not None)

    def point(self, i: int, scale: float = 1.0) -> np.ndarray:
        """Scene point of feature i's tip (times `scale`), wherever the star has moved."""
        return self.origin.get_center() + np.array([*self.weights[i], 0.0]) * self.unit * scale

    def angle_arc(self, i: int, j: int, radius: float | None = None, color=palette.HIGHLIGHT) -> Arc:
        """The arc between features i and j, the short way round, near the origin."""
        a, b = (math.atan2(self.weights[k][1], self.weights[k][0]) for k in (i, j))
        sweep = (b - a + math.pi) % (2 * math.pi) - math.pi
        radius = radius if radius is not None else 0.45 * self.unit * self.scale_factor()
        return Arc(
            radius=radius, start_angle=a, angle=sweep, arc_center=self.origin.get_center(), color=color, stroke_width=5
        )

    def projection(self, i: int, j: int, color=palette.HIGHLIGHT) -> VGroup:
        """Where feature i lands on feature j's direction: a dashed drop from i's tip to the
        line of j, and the stretch of j's line it covers (length = Wᵢ·Wⱼ / |Wⱼ|, drawn)."""
        wi, wj = self.weights[i], self.weights[j]
        along = float(wi @ wj) / float(wj @ wj)
        foot = self.origin.get_center() + np.array([*(along * wj), 0.0]) * self.unit * self.scale_factor()
        tip = self.point(i, self.scale_factor())
        drop = DashedLine(tip, foot, color=color, stroke_width=4, dash_length=0.1)
        stretch = Line(self.origin.get_center(), foot, color=color, stroke_width=10)
        return VGroup(drop, stretch, Dot(foot, radius=0.07, color=color))

    def outline(self, color=palette.HIGHLIGHT) -> DashedVMobject:
        """The dashed polygon through the represented features' tips, in the order they go
        round the origin: with five features at about 72° apart, a near pentagon."""
        order = sorted(self.represented, key=lambda k: math.atan2(self.weights[k][1], self.weights[k][0]))
        tips = [self.point(k, self.scale_factor()) for k in order]
        return DashedVMobject(Polygon(*tips, color=color, stroke_width=4), num_dashes=12 * len(tips))

    def scale_factor(self) -> float:
        """How much the star has been scaled since it was built (1 if not)."""
        return float(self.ring.width / (2 * self.unit))


@sample_of(FeatureStar)
def _feature_star():
    threshold = number("superposition.threshold").value
    dense = FeatureStar(number("superposition.dense.weights").value, unit=1.3, threshold=threshold)
    sparse = FeatureStar(number("superposition.sparse.weights").value, unit=1.3, threshold=threshold)
    stars = VGroup(dense, sparse).arrange(RIGHT, buff=1.2)
    sparse_label = f"dispersión {ty.fmt_decimal(number('superposition.sparse.sparsity').value, 1)}"
    captions = VGroup(
        ty.label(f"dispersión {ty.fmt_decimal(number('superposition.dense.sparsity').value, 0)}").next_to(
            dense, DOWN, buff=0.2
        ),
        ty.label(sparse_label).next_to(sparse, DOWN, buff=0.2),
    )
    return VGroup(stars, captions, sparse.outline())


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else np.array([0.0, 1.0, 0.0])


class ToyModelDiagram(VGroup):
    """The toy model as nodes: n input features, m hidden dimensions, n outputs.

    `inputs`, `hidden` and `outputs` are columns of circles; `encode` the lines x → h (W),
    `decode` the lines h → x' (Wᵀ, then b and ReLU); `names` the column names below them
    (x, h, x'); `matrices` the names over the two sets of lines."""

    def __init__(self, n: int, m: int, height: float = 3.6, width: float = 7.0, node_radius: float = 0.2, **kwargs):
        super().__init__(**kwargs)
        if not 0 < m < n:
            raise ValueError(f"a toy model of superposition has fewer hidden dimensions than features (n={n}, m={m})")

        def column(count: int, x: float, color) -> VGroup:
            step = height / max(n - 1, 1)
            ys = [(k - (count - 1) / 2) * step for k in range(count)]
            return VGroup(
                *(
                    Circle(
                        radius=node_radius, color=color, stroke_width=4, fill_color=palette.BACKGROUND, fill_opacity=1
                    ).move_to((x, -y, 0))
                    for y in ys
                )
            )

        self.inputs = column(n, -width / 2, FEATURE_COLOR)
        self.hidden = column(m, 0.0, palette.INK)
        self.outputs = column(n, width / 2, FEATURE_COLOR)

        def edges(left: VGroup, right: VGroup) -> VGroup:
            return VGroup(
                *(
                    Line(a.get_right(), b.get_left(), color=palette.MUTED, stroke_width=2, stroke_opacity=0.7)
                    for a in left
                    for b in right
                )
            )

        self.encode = edges(self.inputs, self.hidden)
        self.decode = edges(self.hidden, self.outputs)
        below = -height / 2 - node_radius - 0.45
        self.names = VGroup(
            ty.math("x", font_size=LABEL_SIZE).move_to((-width / 2, below, 0)),
            ty.math("h", font_size=LABEL_SIZE).move_to((0, below, 0)),
            ty.math("x'", font_size=LABEL_SIZE).move_to((width / 2, below, 0)),
        )
        above = height / 2 + node_radius + 0.4
        self.matrices = VGroup(
            ty.math("W", font_size=LABEL_SIZE, color=palette.MUTED).move_to((-width / 4, above, 0)),
            ty.math(
                r"\mathrm{ReLU}(\,\cdot\,W" + notation.TRANSPOSE_TEX + r" + b)",
                font_size=LABEL_SIZE,
                color=palette.MUTED,
            ).move_to((width / 4, above, 0)),
        )
        for k, node in enumerate(self.inputs):
            node.set_fill(FEATURE_COLOR, opacity=0.25 + 0.5 * (1 - k / max(n - 1, 1)))
        self.add(self.encode, self.decode, self.inputs, self.hidden, self.outputs, self.names, self.matrices)

    def ghost(self, color=INACTIVE_COLOR) -> VGroup:
        """The diagram's nodes and lines, without its names, dimmed: the model's shape shown
        before its parts light up one by one on top of it. Nodes are discs in the inactive
        hue, lines faint. The copy has `inputs`, `hidden`, `outputs` and `lines` like the
        diagram."""
        ghost = VGroup()
        for part in ("inputs", "hidden", "outputs"):
            nodes = getattr(self, part).copy()
            for node in nodes:
                node.set_stroke(color, opacity=1.0).set_fill(color, opacity=1.0)
            setattr(ghost, part, nodes)
        ghost.lines = VGroup(self.encode.copy(), self.decode.copy()).set_stroke(palette.MUTED, opacity=0.5)
        ghost.add(ghost.lines, ghost.inputs, ghost.hidden, ghost.outputs)
        return ghost

    def silence_inputs(self, present) -> list:
        """Animations that darken the input nodes whose feature is absent (`present[i]` false):
        an example with features missing, as the sparsity beat says."""
        return [
            node.animate.set_stroke(INACTIVE_COLOR).set_fill(palette.BACKGROUND, opacity=1.0)
            for node, on in zip(self.inputs, present)
            if not on
        ]


@sample_of(ToyModelDiagram)
def _toy_model_diagram():
    return ToyModelDiagram(number("superposition.n_features").value, number("superposition.n_hidden").value)


class VectorColumn(VGroup):
    """A vector as a tall column of coordinates: `top` cells, a vertical ellipsis, `bottom`
    cells, in a bracket; it stands for a vector of many more coordinates than drawn (the
    count is said beside it, not drawn). `cells` are the squares, `dots` the ellipsis."""

    def __init__(
        self, top: int = 7, bottom: int = 2, cell: float = 0.32, gap: float = 0.08, color=FEATURE_COLOR, **kwargs
    ):
        super().__init__(**kwargs)
        if top < 1 or bottom < 0:
            raise ValueError(f"a vector column draws at least one cell above its ellipsis (got top={top})")

        def square(k: int, total: int) -> Rectangle:
            return Rectangle(
                width=cell,
                height=cell,
                stroke_color=color,
                stroke_width=2,
                fill_color=color,
                fill_opacity=0.2 + 0.55 * ((k * 7) % total) / max(total - 1, 1),
            )

        upper = VGroup(*(square(k, top + bottom) for k in range(top))).arrange(DOWN, buff=gap)
        self.dots = ty.math(r"\vdots", font_size=40, color=color)
        lower = VGroup(*(square(top + k, top + bottom) for k in range(bottom))).arrange(DOWN, buff=gap)
        column = VGroup(upper, self.dots, *([lower] if bottom else [])).arrange(DOWN, buff=gap * 1.5)
        self.cells = VGroup(*upper, *lower)
        self.bracket = _brackets(column, color=palette.MUTED)
        self.add(self.bracket, self.cells, self.dots)


class VocabularyColumn(VGroup):
    """A vocabulary as a column of some of its words with an ellipsis under them, in a thin
    frame: the many things a model has to tell apart. `words` are the word labels."""

    def __init__(self, words, color=palette.INK, **kwargs):
        super().__init__(**kwargs)
        if not words:
            raise ValueError("a vocabulary column needs at least one word")
        self.words = VGroup(*(ty.label(w, color=color) for w in words)).arrange(DOWN, buff=0.12)
        self.dots = ty.math(r"\vdots", font_size=40, color=color).next_to(self.words, DOWN, buff=0.15)
        body = VGroup(self.words, self.dots)
        self.frame = RoundedRectangle(
            corner_radius=0.15,
            width=body.width + 0.5,
            height=body.height + 0.4,
            color=palette.MUTED,
            stroke_width=2,
        ).move_to(body)
        self.add(self.frame, self.words, self.dots)


def _brackets(mob, color=palette.MUTED, reach: float = 0.12, buff: float = 0.1) -> VGroup:
    """A matrix's square brackets round `mob`."""
    top, bottom = mob.get_top()[1] + buff, mob.get_bottom()[1] - buff
    left, right = mob.get_left()[0] - buff, mob.get_right()[0] + buff

    def side(x: float, sign: float) -> VGroup:
        return VGroup(
            Line((x, bottom, 0), (x, top, 0), color=color, stroke_width=3),
            Line((x, top, 0), (x + sign * reach, top, 0), color=color, stroke_width=3),
            Line((x, bottom, 0), (x + sign * reach, bottom, 0), color=color, stroke_width=3),
        )

    return VGroup(side(left, 1.0), side(right, -1.0))


@sample_of(VectorColumn)
def _vector_column():
    return VectorColumn()


@sample_of(VocabularyColumn)
def _vocabulary_column():
    return VocabularyColumn(number("closing.words").value[::5])


class FeatureSamples(VGroup):
    """Example inputs as a grid: one row per sample, one cell per feature; a present feature's
    cell is lit, brighter for a larger value in [0, 1], an absent one stays dark.
    `cells[r][c]` is sample r's feature c; `heads` name the columns x₀ … xₙ₋₁."""

    def __init__(self, samples, cell: float = 0.42, gap: float = 0.08, heads: bool = True, **kwargs):
        super().__init__(**kwargs)
        rows = [tuple(map(float, r)) for r in samples]
        if not rows or len({len(r) for r in rows}) != 1:
            raise ValueError("feature samples: give at least one sample, all of the same length")
        n = len(rows[0])
        self.cells: list[list[Rectangle]] = []
        self.lit = tuple(tuple(v > 0 for v in row) for row in rows)
        for r, row in enumerate(rows):
            line = []
            for c, value in enumerate(row):
                if not 0.0 <= value <= 1.0:
                    raise ValueError(f"feature samples: value {value} of sample {r} is outside [0, 1]")
                fill = interpolate_color(palette.BACKGROUND, FEATURE_COLOR, 0.25 + 0.75 * value) if value > 0 else None
                square = Rectangle(
                    width=cell,
                    height=cell,
                    stroke_color=palette.INACTIVE if fill is None else FEATURE_COLOR,
                    stroke_width=2,
                    fill_color=fill if fill is not None else palette.BACKGROUND,
                    fill_opacity=1.0,
                ).move_to((c * (cell + gap), -r * (cell + gap), 0))
                line.append(square)
            self.cells.append(line)
        self.grid = VGroup(*(VGroup(*line) for line in self.cells))
        self.add(self.grid)
        self.heads = VGroup()
        if heads:
            for c in range(n):
                head = ty.math(feature_tex(c), font_size=32, color=palette.MUTED)
                head.next_to(self.cells[0][c], UP, buff=0.15)
                self.heads.add(head)
            self.add(self.heads)

    @property
    def present(self) -> int:
        """How many cells are lit (features present)."""
        return sum(sum(row) for row in self.lit)


@sample_of(FeatureSamples)
def _feature_samples():
    dense = FeatureSamples(number("superposition.dense.examples").value)
    sparse = FeatureSamples(number("superposition.sparse.examples").value)
    return VGroup(dense, sparse).arrange(RIGHT, buff=1.0)


class NeuronsToFeatures(VGroup):
    """Dictionary learning as a picture: a few neurons on the left, many more features on the
    right, every neuron linked to every feature, and the method's name over the links. The
    counts are illustrative (a few and many), not any paper's figures."""

    def __init__(
        self,
        n_neurons: int = 3,
        n_features: int = 9,
        method: str = "autoencoder disperso",
        height: float = 2.8,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if not 0 < n_neurons < n_features:
            raise ValueError(f"the picture has fewer neurons than features (got {n_neurons} and {n_features})")

        def column(count: int, x: float, radius: float, color) -> VGroup:
            step = height / max(count - 1, 1)
            return VGroup(
                *(
                    Circle(radius=radius, color=color, stroke_width=4, fill_color=color, fill_opacity=0.35).move_to(
                        (x, height / 2 - k * step, 0)
                    )
                    for k in range(count)
                )
            )

        self.neurons = column(n_neurons, -3.0, 0.3, FEATURE_COLOR)
        self.features = column(n_features, 3.0, 0.13, palette.ACTIVE)
        self.links = VGroup(
            *(
                Line(a.get_right(), b.get_left(), color=palette.MUTED, stroke_width=1.5, stroke_opacity=0.5)
                for a in self.neurons
                for b in self.features
            )
        )
        self.method = ty.label(method, color=palette.INK).move_to((0, height / 2 + 0.45, 0))
        below = -height / 2 - 0.5
        self.names = VGroup(
            ty.label("neuronas", color=FEATURE_COLOR).move_to((-3.0, below, 0)),
            ty.label("rasgos", color=palette.ACTIVE).move_to((3.0, below, 0)),
        )
        self.add(self.links, self.neurons, self.features, self.method, self.names)


@sample_of(NeuronsToFeatures)
def _neurons_to_features():
    return NeuronsToFeatures()


class ToyModelTag(VGroup):
    """The plain label a model trained here wears (it is not one of the lecture's badged
    models): «modelo de juguete, entrenado aquí: n = 5, m = 2», figures passed in."""

    def __init__(self, n_text: str, m_text: str, **kwargs):
        super().__init__(**kwargs)
        self.text = ty.small(f"modelo de juguete, entrenado aquí: n = {n_text}, m = {m_text}", color=palette.INK)
        self.frame = RoundedRectangle(
            corner_radius=0.12,
            width=self.text.width + 0.4,
            height=self.text.height + 0.3,
            color=palette.MUTED,
            stroke_width=2,
            fill_color=palette.BACKGROUND,
            fill_opacity=0.9,
        ).move_to(self.text)
        self.add(self.frame, self.text)


@sample_of(ToyModelTag)
def _toy_model_tag():
    return ToyModelTag(
        ty.fmt_int(number("superposition.n_features").value), ty.fmt_int(number("superposition.n_hidden").value)
    )


__all__ = [
    "NeuronsToFeatures",
    "FeatureSamples",
    "FeatureStar",
    "ToyModelDiagram",
    "ToyModelTag",
    "VectorColumn",
    "VocabularyColumn",
    "feature_tex",
]
