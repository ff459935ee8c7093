"""Neurons drawn as bars with their real values, and the on/off state an activation gives them."""
from __future__ import annotations

from manim import DOWN, UP, Circle, Line, Rectangle, VGroup, RIGHT

from scenes.kit import palette, typography as ty


class OnIcon(VGroup):
    """'Encendida': a filled bright disc with rays. A shape, not an emoji the font may lack."""

    def __init__(self, radius: float = 0.14, **kwargs):
        super().__init__(**kwargs)
        disc = Circle(radius=radius, color=palette.ACTIVE, fill_opacity=1, stroke_width=0)
        rays = VGroup(*(Line(disc.get_center() + radius * 1.35 * d, disc.get_center() + radius * 1.9 * d,
                             color=palette.ACTIVE, stroke_width=2) for d in _compass(8)))
        self.add(disc, rays)


class OffIcon(VGroup):
    """'Apagada': a hollow dim disc crossed out."""

    def __init__(self, radius: float = 0.14, **kwargs):
        super().__init__(**kwargs)
        ring = Circle(radius=radius, color=palette.INACTIVE, stroke_width=3)
        c, d = ring.get_center(), 0.75 * radius
        slash = Line(c + (-d, -d, 0), c + (d, d, 0), color=palette.MUTED, stroke_width=3)
        self.add(ring, slash)


def _compass(n: int):
    import numpy as np

    return [np.array([np.cos(2 * np.pi * k / n), np.sin(2 * np.pi * k / n), 0.0]) for k in range(n)]


class NeuronBar(VGroup):
    """One neuron: a vertical bar whose height is its value (down for negative), with the value
    written next to it. `unit_height` is scene units per unit of value."""

    def __init__(self, value: float, unit_height: float = 1.0, width: float = 0.45, places: int = 2,
                 **kwargs):
        super().__init__(**kwargs)
        self.value = float(value)
        self.unit_height = unit_height
        height = max(abs(self.value) * unit_height, 0.02)
        color = palette.POSITIVE if self.value >= 0 else palette.NEGATIVE
        self.bar = Rectangle(width=width, height=height, stroke_width=0, fill_color=color, fill_opacity=0.9)
        self.bar.move_to((0, (height / 2) * (1 if self.value >= 0 else -1), 0))
        self.baseline = Line((-width * 0.7, 0, 0), (width * 0.7, 0, 0), color=palette.MUTED, stroke_width=2)
        self.label = ty.small(ty.fmt_decimal(self.value, places), color=palette.INK)
        self.label.next_to(self.bar, UP if self.value >= 0 else DOWN, buff=0.1)
        self.add(self.baseline, self.bar, self.label)

    def activated_value(self) -> float:
        """ReLU of the value: what the bar shows after the activation."""
        return max(self.value, 0.0)


class NeuronRow(VGroup):
    """Neurons side by side on a common baseline."""

    def __init__(self, values, unit_height: float = 1.0, spacing: float = 0.9, places: int = 2, **kwargs):
        super().__init__(**kwargs)
        self.neurons = [NeuronBar(v, unit_height=unit_height, places=places) for v in values]
        for i, neuron in enumerate(self.neurons):
            neuron.shift(RIGHT * (i - (len(self.neurons) - 1) / 2) * spacing)
        self.add(*self.neurons)

    def icons(self, activated, buff: float = 0.35) -> VGroup:
        """On/off icons under each neuron, from the real activated values (on when > 0)."""
        low = min(n.get_bottom()[1] for n in self.neurons)
        icons = VGroup()
        for neuron, value in zip(self.neurons, activated):
            icon = OnIcon() if value > 0 else OffIcon()
            icon.move_to((neuron.bar.get_center()[0], low - buff, 0))
            icons.add(icon)
        return icons
