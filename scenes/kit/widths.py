"""Layer widths drawn as bars: a token vector, the wider hidden layer, and back; and weight
matrices drawn to scale, so that their areas compare their parameter counts."""

from __future__ import annotations

from manim import DOWN, RIGHT, Polygon, Rectangle, VGroup

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of


class WidthBars(VGroup):
    """Bars whose heights are in the ratio of `widths` (e.g. d_model, d_ff, d_model), joined by
    trapezoids: the FFN expanding into a wider space and contracting back. `unit_height` is
    scene units per dimension; `captions[i]` (optional) is written under bar i."""

    def __init__(
        self,
        widths,
        unit_height: float,
        bar_width: float = 0.45,
        gap: float = 1.1,
        captions=None,
        color=palette.FFN,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.bars = VGroup(
            *(
                Rectangle(width=bar_width, height=w * unit_height, color=color, fill_opacity=0.8, stroke_width=2)
                for w in widths
            )
        ).arrange(RIGHT, buff=gap)
        self.links = VGroup(
            *(
                Polygon(
                    a.get_corner([1, 1, 0]),
                    b.get_corner([-1, 1, 0]),
                    b.get_corner([-1, -1, 0]),
                    a.get_corner([1, -1, 0]),
                    stroke_width=0,
                    fill_color=color,
                    fill_opacity=0.2,
                )
                for a, b in zip(self.bars, self.bars[1:])
            )
        )
        self.add(self.links, self.bars)
        self.captions = VGroup()
        if captions:
            low = min(b.get_bottom()[1] for b in self.bars)
            for bar, text in zip(self.bars, captions):
                caption = ty.small(text, color=palette.INK)
                caption.move_to((bar.get_center()[0], low, 0)).shift(DOWN * 0.3)
                self.captions.add(caption)
            self.add(self.captions)


class MatrixBlock(Rectangle):
    """A weight matrix drawn to scale: `rows` x `cols` entries at `unit` scene units per row
    and per column, so its area is its parameter count and blocks drawn at one `unit` compare
    by area (a d x 4d matrix beside a d x h one)."""

    def __init__(self, rows: int, cols: int, unit: float, color=palette.FFN, **kwargs):
        kwargs.setdefault("stroke_color", palette.INK)
        kwargs.setdefault("stroke_width", 1.5)
        kwargs.setdefault("fill_opacity", 0.85)
        super().__init__(width=cols * unit, height=rows * unit, fill_color=color, **kwargs)
        self.rows, self.cols = rows, cols


@sample_of(MatrixBlock)
def _matrix_block():
    d_model, d_ff = number("params.llama2_7b.d_model").value, number("params.llama2_7b.d_ff").value
    return MatrixBlock(d_model, d_ff, unit=6.0 / d_ff)


@sample_of(WidthBars)
def _width_bars():
    d_model, d_ff = number("params.gpt2_small.d_model").value, number("params.gpt2_small.d_ff").value
    captions = [ty.fmt_int(d) for d in (d_model, d_ff, d_model)]
    return WidthBars((d_model, d_ff, d_model), unit_height=3.0 / d_ff, captions=captions)
