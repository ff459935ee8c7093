"""A transformer drawn as its stack of blocks: one thin strip per layer, attention and FFN."""

from __future__ import annotations

from manim import DOWN, RIGHT, UP, Line, Rectangle, VGroup

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit.gallery_samples import sample_of


class LayerStack(VGroup):
    """`n_layers` strips stacked bottom to top inside `height` scene units; each strip is an
    attention part (left) and an FFN part (right), so the count drawn is the real count.

    `attention` and `ffn` group the parts of every layer, to animate them together."""

    def __init__(self, n_layers: int, height: float = 5.0, width: float = 1.6, gap_share: float = 0.25, **kwargs):
        super().__init__(**kwargs)
        if n_layers < 1:
            raise ValueError(f"a layer stack needs at least one layer, got {n_layers}")
        pitch = height / n_layers
        strip_h = pitch * (1 - gap_share)
        self.attention, self.ffn = VGroup(), VGroup()
        for i in range(n_layers):
            att = Rectangle(
                width=width / 2, height=strip_h, stroke_width=0, fill_color=palette.ATTENTION, fill_opacity=0.9
            )
            ffn = Rectangle(width=width / 2, height=strip_h, stroke_width=0, fill_color=palette.FFN, fill_opacity=0.9)
            ffn.next_to(att, RIGHT, buff=0)
            layer = VGroup(att, ffn).shift(DOWN * (i * pitch))
            self.attention.add(att)
            self.ffn.add(ffn)
            self.add(layer)
        self.n_layers = n_layers


class BlockScale(VGroup):
    """Faint rules behind layer stacks standing on one floor: a rule every `step` blocks, up to
    `top` blocks, `pitch` scene units per block and `width` wide, its floor at the group's
    bottom. With `step` the smaller model's count, the taller stack is read as so many of the
    smaller one."""

    def __init__(self, step: int, top: int, pitch: float, width: float, color=palette.MUTED, **kwargs):
        super().__init__(**kwargs)
        if step < 1 or top < step:
            raise ValueError(f"a block scale needs 1 <= step <= top, got step={step}, top={top}")
        self.floor = Line((-width / 2, 0, 0), (width / 2, 0, 0), color=color, stroke_width=2.5)
        self.rules = VGroup(
            *(
                Line((-width / 2, 0, 0), (width / 2, 0, 0), color=color, stroke_width=1.5, stroke_opacity=0.6).shift(
                    UP * (k * step * pitch)
                )
                for k in range(1, top // step + 1)
            )
        )
        self.add(self.floor, self.rules)


@sample_of(BlockScale)
def _block_scale():
    small, large = number("params.gpt2_small.n_layers").value, number("params.gpt3_175b.n_layers").value
    return VGroup(BlockScale(small, large, 4.0 / large, 4.0), LayerStack(small, height=small * 4.0 / large))


@sample_of(LayerStack)
def _layer_stack():
    return LayerStack(number("params.gpt2_small.n_layers").value)
