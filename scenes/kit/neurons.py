"""Neurons drawn as bars with their real values, and the on/off state an activation gives them."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Circle,
    FadeTransform,
    Line,
    Rectangle,
    ReplacementTransform,
    Square,
    VGroup,
    VMobject,
)

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of


class OnIcon(VGroup):
    """'Encendida': a filled bright disc with rays. A shape, not an emoji the font may lack."""

    def __init__(self, radius: float = 0.14, **kwargs):
        super().__init__(**kwargs)
        disc = Circle(radius=radius, color=palette.ACTIVE, fill_opacity=1, stroke_width=0)
        rays = VGroup(
            *(
                Line(
                    disc.get_center() + radius * 1.35 * d,
                    disc.get_center() + radius * 1.9 * d,
                    color=palette.ACTIVE,
                    stroke_width=2,
                )
                for d in _compass(8)
            )
        )
        self.add(disc, rays)


@sample_of(OnIcon)
def _on_icon():
    return OnIcon()


class OffIcon(VGroup):
    """'Apagada': a hollow dim disc crossed out."""

    def __init__(self, radius: float = 0.14, **kwargs):
        super().__init__(**kwargs)
        # Ring as wide as OnIcon's rays reach, so both states take the same room.
        ring = Circle(radius=1.6 * radius, color=palette.MUTED, stroke_width=3, stroke_opacity=0.7)
        c, d = ring.get_center(), 1.1 * radius
        slash = Line(c + (-d, -d, 0), c + (d, d, 0), color=palette.MUTED, stroke_width=3)
        self.add(ring, slash)


@sample_of(OffIcon)
def _off_icon():
    return OffIcon()


def state_icon(value: float, radius: float = 0.14) -> VGroup:
    """OnIcon when the activated value is positive (the neuron passes signal), else OffIcon."""
    return OnIcon(radius) if value > 0 else OffIcon(radius)


def _compass(n: int):
    return [np.array([np.cos(2 * np.pi * k / n), np.sin(2 * np.pi * k / n), 0.0]) for k in range(n)]


class NeuronBar(VGroup):
    """One neuron: a vertical bar whose height is its value (down for negative), with the value
    written next to it. `unit_height` is scene units per unit of value.

    `silenced=True` draws a neuron an activation has switched off: its bar and value dimmed,
    so "apagada" reads at a glance even where the value is a small non-zero number (GELU)."""

    def __init__(
        self,
        value: float,
        unit_height: float = 1.0,
        width: float = 0.45,
        places: int = 2,
        silenced: bool = False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.value = float(value)
        self.unit_height = unit_height
        height = max(abs(self.value) * unit_height, 0.02)
        if silenced:
            color, ink = palette.INACTIVE, palette.MUTED
        else:
            color, ink = (palette.POSITIVE if self.value >= 0 else palette.NEGATIVE), palette.INK
        self.bar = Rectangle(width=width, height=height, stroke_width=0, fill_color=color, fill_opacity=0.9)
        self.bar.move_to((0, (height / 2) * (1 if self.value >= 0 else -1), 0))
        self.baseline = Line((-width * 0.7, 0, 0), (width * 0.7, 0, 0), color=palette.MUTED, stroke_width=2)
        self.label = ty.small(ty.fmt_decimal(self.value, places), color=ink)
        self.label.next_to(self.bar, UP if self.value >= 0 else DOWN, buff=0.1)
        self.add(self.baseline, self.bar, self.label)

    def activated_value(self) -> float:
        """ReLU of the value: what the bar shows after the activation."""
        return max(self.value, 0.0)


@sample_of(NeuronBar)
def _neuron_bar():
    return NeuronBar(number("perro.expanded").value[1])


class NeuronRow(VGroup):
    """Neurons side by side on a common baseline."""

    def __init__(
        self, values, unit_height: float = 1.0, spacing: float = 0.9, places: int = 2, silenced=None, **kwargs
    ):
        super().__init__(**kwargs)
        self.values = tuple(float(v) for v in values)
        self.unit_height, self.spacing, self.places = unit_height, spacing, places
        silenced = silenced if silenced is not None else [False] * len(self.values)
        self.neurons = [
            NeuronBar(v, unit_height=unit_height, places=places, silenced=s) for v, s in zip(self.values, silenced)
        ]
        for i, neuron in enumerate(self.neurons):
            neuron.shift(RIGHT * (i - (len(self.neurons) - 1) / 2) * spacing)
        self.add(*self.neurons)

    def baseline_point(self):
        """Centre of the shared baseline (where value 0 sits), in scene coordinates."""
        return VGroup(*(n.baseline for n in self.neurons)).get_center()

    def with_values(self, values, silenced=None) -> NeuronRow:
        """The same neurons showing new values (e.g. after an activation), drawn in place:
        same spacing and scale, baseline on this row's baseline, so a Transform shows each
        bar change height without moving sideways."""
        row = NeuronRow(
            values, unit_height=self.unit_height, spacing=self.spacing, places=self.places, silenced=silenced
        )
        return row.shift(self.baseline_point() - row.baseline_point())

    def activated(self, activation) -> NeuronRow:
        """This row after `activation` (a function of one value), negatives' neurons silenced:
        a neuron counts as on only if its activated value is positive."""
        after = [float(activation(v)) for v in self.values]
        return self.with_values(after, silenced=[a <= 0 for a in after])

    def transform_into(self, after: NeuronRow) -> AnimationGroup:
        """Animation turning this row into `after` (same neurons, new values; see `with_values`):
        each bar grows or shrinks to its new height, and a changed value fades into the new
        one, since digits morphing into other digits are unreadable mid-way. Afterwards the
        scene holds `after`'s parts: keep using `after`, not this row."""
        steps = []
        for old, new in zip(self.neurons, after.neurons):
            steps += [ReplacementTransform(old.bar, new.bar), ReplacementTransform(old.baseline, new.baseline)]
            same = old.label.text == new.label.text
            steps.append(ReplacementTransform(old.label, new.label) if same else FadeTransform(old.label, new.label))
        return AnimationGroup(*steps)

    def y_axis(self, text: str, buff: float = 0.35, title_on_top: bool = False) -> VGroup:
        """A y axis for the bars: a vertical line left of the first neuron, spanning every bar
        (and at least a little either side of the baseline), a tick at zero, and `text` (what
        the bars measure, e.g. «activación») written upright beside it. Added by the scene,
        separate from the row, so `with_values` / `transform_into` leave it in place. With
        `title_on_top` the text sits level above the line instead (where the left is crowded)."""
        bars = VGroup(*(n.bar for n in self.neurons))
        base_y = self.baseline_point()[1]
        top = max(bars.get_top()[1], base_y + 0.3)
        bottom = min(bars.get_bottom()[1], base_y - 0.3)
        x = self.neurons[0].baseline.get_left()[0] - buff
        line = Line((x, bottom, 0), (x, top, 0), color=palette.MUTED, stroke_width=2)
        tick = Line((x - 0.08, base_y, 0), (x + 0.08, base_y, 0), color=palette.MUTED, stroke_width=2)
        if title_on_top:
            label = ty.small(text, color=palette.MUTED).next_to(line, UP, buff=0.12)
        else:
            label = ty.small(text, color=palette.MUTED).rotate(np.pi / 2).next_to(line, LEFT, buff=0.45)
        return VGroup(line, tick, label)

    def icons(self, activated, buff: float = 0.35) -> VGroup:
        """On/off icons under each neuron, from the real activated values (on when > 0)."""
        low = min(n.get_bottom()[1] for n in self.neurons)
        icons = VGroup()
        for neuron, value in zip(self.neurons, activated):
            icon = state_icon(value)
            icon.move_to((neuron.bar.get_center()[0], low - buff, 0))
            icons.add(icon)
        return icons


@sample_of(NeuronRow)
def _neuron_row():
    return NeuronRow(number("perro.expanded").value)


class NeuronGrid(VGroup):
    """Every neuron of a wide layer as one small square, bright when it fires (activation > 0)
    and dim when it does not: the sparsity of a real layer seen at once.

    `columns` squares per row, filled row by row in neuron order; `cell` is the square's
    side and `gap` the space between squares (scene units). The squares are drawn as two
    many-path shapes (all neurons, then the firing ones on top) rather than one mobject
    per neuron: thousands of mobjects would make every frame slow to render."""

    def __init__(self, activations, columns: int = 64, cell: float = 0.13, gap: float = 0.03, **kwargs):
        super().__init__(**kwargs)
        self.activations = tuple(float(a) for a in activations)
        pitch = cell + gap
        rows = -(-len(self.activations) // columns)
        centres = [
            np.array(((c - (columns - 1) / 2) * pitch, ((rows - 1) / 2 - r) * pitch, 0.0))
            for r, c in (divmod(i, columns) for i in range(len(self.activations)))
        ]
        self.all_cells = _squares(centres, cell)
        self.firing = _squares([p for p, a in zip(centres, self.activations) if a > 0], cell)
        self.n_firing = sum(a > 0 for a in self.activations)
        self.add(self.all_cells, self.firing)

    def light_up(self):
        """Animation that brightens the firing neurons (the others stay dim)."""
        return self.firing.animate.set_fill(palette.ACTIVE, opacity=1)


@sample_of(NeuronGrid)
def _neuron_grid():
    grid = NeuronGrid(number("stamps.activations").value, columns=16)
    grid.firing.set_fill(palette.ACTIVE, opacity=1)  # as after `light_up()`
    return grid


def _squares(centres, side: float) -> VMobject:
    """One shape made of a square around each centre (dim, like a silent neuron)."""
    shape = VMobject(stroke_width=0, fill_color=palette.INACTIVE, fill_opacity=1)
    template = Square(side_length=side).points
    for centre in centres:
        shape.append_points(template + centre)
    return shape
