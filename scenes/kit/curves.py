"""Curves on axes: a target and its piecewise-linear fit, the fit's folds, and an error chart.

The fit of a ReLU network is a polyline: it is drawn from its sampled points with sharp
corners (never smoothed), so each fold shows as a real kink. Folds are marked with dots
in the "active neuron" colour: at a fold one more neuron switches on.
"""

from __future__ import annotations

import math

import numpy as np
from manim import LEFT, RIGHT, Axes, Dot, Line, Rectangle, VGroup, VMobject

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of


class CurveAxes(Axes):
    """Axes in the kit's muted ink, without tick labels (the picture, not the scale, matters)."""

    def __init__(self, x_range, y_range, width: float, height: float, **kwargs):
        super().__init__(
            x_range=x_range,
            y_range=y_range,
            x_length=width,
            y_length=height,
            axis_config={"color": palette.MUTED, "stroke_width": 2, "include_ticks": False},
            tips=False,
            **kwargs,
        )

    def polyline(self, xs, ys, color, stroke_width: float = 4) -> VMobject:
        """The sampled curve (xs[i], ys[i]) as straight segments between the samples."""
        points = [self.c2p(float(x), float(y)) for x, y in zip(xs, ys)]
        curve = VMobject(color=color, stroke_width=stroke_width)
        curve.set_points_as_corners(points)
        return curve

    def fold_dots(self, folds, heights, max_radius: float = 0.055) -> VGroup:
        """One dot per fold, at (fold x, fitted y there); dots shrink as folds crowd together
        so the curve under them stays visible."""
        radius = min(max_radius, 0.28 * self.x_length / max(len(folds), 1))
        return VGroup(
            *(Dot(self.c2p(float(x), float(y)), radius=radius, color=palette.ACTIVE) for x, y in zip(folds, heights))
        )


@sample_of(CurveAxes)
def _curve_axes():
    errors = number("approx.rms_error").value
    axes = CurveAxes((0, len(errors) - 1, 1), (0, max(errors), 0.1), width=5.0, height=3.0)
    xs = np.arange(len(errors))
    return VGroup(axes, axes.polyline(xs, errors, palette.FFN), axes.fold_dots(xs, errors, max_radius=0.08))


def split_dots(dots: VGroup, times: int) -> VGroup:
    """Each dot copied `times` times in place: the starting point of folds that multiply."""
    return VGroup(*(dots[i // times].copy() for i in range(len(dots) * times)))


def legend_line(text: str, color, length: float = 0.5) -> VGroup:
    """A short stroke in `color` followed by its meaning."""
    stroke = Line(LEFT * length / 2, RIGHT * length / 2, color=color, stroke_width=5)
    words = ty.small(text, color=palette.INK).next_to(stroke, RIGHT, buff=0.15)
    return VGroup(stroke, words)


def significant_places(x: float, significant: int) -> int:
    """Decimals that write `x` with `significant` significant digits: (0.6615, 2) -> 2 («0,66»),
    (0.0045, 2) -> 4 («0,0045»); 0 for a number with that many digits before the comma."""
    if x == 0:
        return significant - 1
    return max(0, significant - 1 - math.floor(math.log10(abs(x))))


class ErrorChart(VGroup):
    """Horizontal bars, one row per neuron count, each as long as that fit's error.

    `counts[i]` labels row i, `errors[i]` is its length in data units; `max_length` is the
    bar length (scene units) of the largest error. Rows start hidden: `row(i)` is what to
    reveal when fit i appears. Each value is written with `places` decimals or, given
    `significant`, with that many significant digits (0,66 … 0,0045: errors that span orders
    of magnitude, written so the large ones match the two decimals the voice says).
    """

    def __init__(
        self,
        counts,
        errors,
        max_length: float = 2.6,
        row_height: float = 0.42,
        places: int = 3,
        significant: int | None = None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.errors = np.asarray(errors, dtype=float)
        scale = max_length / float(np.max(self.errors))
        self.rows = []
        for i, (count, error) in enumerate(zip(counts, self.errors)):
            y = -i * row_height
            name = ty.small(str(count), color=palette.INK)
            name.move_to((0, y, 0), aligned_edge=RIGHT)
            bar = Rectangle(
                width=max(error * scale, 0.01),
                height=row_height * 0.6,
                stroke_width=0,
                fill_color=palette.FFN,
                fill_opacity=0.85,
            )
            bar.move_to((0.2, y, 0), aligned_edge=LEFT)
            decimals = places if significant is None else significant_places(float(error), significant)
            value = ty.small(ty.fmt_decimal(error, decimals), color=palette.INK).next_to(bar, RIGHT, buff=0.15)
            row = VGroup(name, bar, value)
            self.rows.append(row)
            self.add(row)

    def row(self, i: int) -> VGroup:
        return self.rows[i]

    def bar(self, i: int) -> Rectangle:
        return self.rows[i][1]


@sample_of(ErrorChart)
def _error_chart():
    return ErrorChart(number("approx.neuron_counts").value, number("approx.rms_error").value)


def fit_heights(fit) -> np.ndarray:
    """The fitted curve's height at each of its folds, computed from its own output layer."""
    from ffn_core.shapes import relu_features

    folds = np.asarray(fit.folds, dtype=float)
    return relu_features(folds, folds) @ np.asarray(fit.output_weights) + fit.output_bias
