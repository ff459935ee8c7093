"""Boxes and arrows for block diagrams: a labelled stage and the flow of data between stages."""

from __future__ import annotations

from manim import LEFT, RIGHT, Arrow, RoundedRectangle, VGroup

from scenes.kit import palette, typography
from scenes.kit.gallery_samples import sample_of


class StageBox(VGroup):
    """A rounded box with a centred label, coloured by what the stage is (attention, FFN...)."""

    def __init__(self, text: str, color, width: float = 3.6, height: float = 1.3, **kwargs):
        super().__init__(**kwargs)
        self.box = RoundedRectangle(
            corner_radius=0.2, width=width, height=height, color=color, fill_opacity=0.18, stroke_width=3
        )
        self.label = typography.body(text)
        if self.label.width > width - 0.4:
            self.label.scale_to_fit_width(width - 0.4)
        self.label.move_to(self.box)
        self.add(self.box, self.label)

    def light_up(self, opacity: float = 0.45):
        """Animation that lights the box up (used when the narration names the stage); at
        0.45 its label, in INK, still reads at 4.5:1 on every palette colour's fill."""
        return self.box.animate.set_fill(opacity=opacity)

    def light_down(self):
        return self.box.animate.set_fill(opacity=0.08)


@sample_of(StageBox)
def _stage_box():
    return StageBox("Atención", palette.ATTENTION)


class FlowArrow(Arrow):
    """Data flowing from one stage to the next."""

    def __init__(self, start, end, **kwargs):
        kwargs.setdefault("color", palette.MUTED)
        kwargs.setdefault("buff", 0.15)
        kwargs.setdefault("stroke_width", 5)
        super().__init__(start, end, **kwargs)


@sample_of(FlowArrow)
def _flow_arrow():
    return FlowArrow(LEFT * 1.5, RIGHT * 1.5)


def stage_row(*boxes: StageBox, gap: float = 1.2) -> VGroup:
    """Boxes left to right with arrows between them, centred."""
    row = VGroup(*boxes).arrange(RIGHT, buff=gap)
    arrows = [FlowArrow(a.get_right(), b.get_left()) for a, b in zip(boxes, boxes[1:])]
    return VGroup(row, *arrows)
