"""A small graph of an activation function, with real neurons placed on it as dots."""

from __future__ import annotations

from manim import DOWN, LEFT, UP, Axes, Dot, VGroup

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of


class ActivationGraph(VGroup):
    """Axes without tick numbers (the shape is the message) and activation curves on them.

    `x_range` and `y_range` are (min, max) in the function's own units; `width` and
    `height` are scene units. Curves are plotted from the functions passed in (e.g.
    `ffn_core.ffn.relu`), so the drawing is the code's function, not a sketch of it."""

    def __init__(
        self,
        x_range=(-2.0, 2.0),
        y_range=(-0.5, 2.0),
        width: float = 4.8,
        height: float = 3.0,
        x_label: str = "x",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.axes = Axes(
            x_range=(*x_range, 1.0),
            y_range=(*y_range, 1.0),
            x_length=width,
            y_length=height,
            tips=False,
            axis_config={"color": palette.MUTED, "stroke_width": 2, "include_ticks": False},
        )
        self.x_label = ty.math(x_label, color=palette.MUTED).scale(0.8)
        self.x_label.next_to(self.axes.x_axis.get_right(), DOWN + LEFT * 0.2, buff=0.12)
        self.add(self.axes, self.x_label)
        self.x_range = x_range

    def curve(self, function, color, x_min: float | None = None, x_max: float | None = None, stroke_width: float = 5):
        """The graph of `function` (one float in, one float out) over [x_min, x_max]."""
        lo = self.x_range[0] if x_min is None else x_min
        hi = self.x_range[1] if x_max is None else x_max
        return self.axes.plot(
            lambda x: float(function(x)), x_range=(lo, hi, (hi - lo) / 200), color=color, stroke_width=stroke_width
        )

    def point(self, x: float, y: float, color=palette.INK, radius: float = 0.09) -> Dot:
        """A dot at the function-space point (x, y)."""
        return Dot(self.axes.c2p(x, y), radius=radius, color=color)

    def label_at(self, text: str, x: float, y: float, direction=UP, color=palette.INK, buff: float = 0.15):
        """A small text label next to the function-space point (x, y)."""
        return ty.small(text, color=color).next_to(self.axes.c2p(x, y), direction, buff=buff)


@sample_of(ActivationGraph)
def _activation_graph():
    from ffn_core.shapes import relu

    graph = ActivationGraph()
    pre, post = (
        number("pretrained.minilm.sample_pre_activations").value,
        number("pretrained.minilm.sample_activations").value,
    )
    dots = VGroup(*(graph.point(x, y, color=palette.ACTIVE if y > 0 else palette.NEGATIVE) for x, y in zip(pre, post)))
    return VGroup(graph, graph.curve(relu, palette.FFN), dots)


def on_axis_then_at(graph: ActivationGraph, inputs, outputs, color_on=palette.ACTIVE, color_off=palette.NEGATIVE):
    """Dots for real neurons: first on the x-axis at their raw `inputs`, then at (input,
    output), bright where the output is positive. Returns (before, after) VGroups,
    index-aligned, for a Transform; the outputs are the model's own, not recomputed here."""
    before = VGroup(*(graph.point(x, 0.0, color=palette.INK) for x in inputs))
    after = VGroup(*(graph.point(x, y, color=color_on if y > 0 else color_off) for x, y in zip(inputs, outputs)))
    return before, after
