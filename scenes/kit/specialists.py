"""Drawings for neurons that specialise: one neuron's activation for every word, grouped by
topic, and a badge naming the neuron and its selectivity score."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    DashedLine,
    Line,
    Rectangle,
    RoundedRectangle,
    VGroup,
)

from ffn_core.registry import number
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

# One hue per topic (the topic whose specialist is shown is drawn in its hue; the others dim).
TOPIC_COLORS = (palette.ATTENTION, palette.POSITIVE, palette.ACTIVE, palette.HIGHLIGHT)


def topic_color(topic: int):
    return TOPIC_COLORS[topic % len(TOPIC_COLORS)]


class WordColumns(VGroup):
    """The study's words in one column per topic, the topic's (Spanish) name on top."""

    def __init__(self, names, words, topic_of_word, column_width: float = 3.2, line_spacing: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.columns = VGroup()
        for t, name in enumerate(names):
            head = ty.body(name, color=topic_color(t))
            # One text, one word a line: the lines share a baseline pitch, whatever their letters.
            items = ty.label("\n".join(w for w, k in zip(words, topic_of_word) if k == t), line_spacing=line_spacing)
            head.move_to((0, 0, 0))  # every head at the same height, every list from the same line
            items.next_to((0, -0.45, 0), DOWN, buff=0)
            column = VGroup(head, items)
            self.columns.add(column)
        for i, column in enumerate(self.columns):
            column.shift((column_width * (i - (len(names) - 1) / 2) - column.get_center()[0], 0, 0))
        self.add(self.columns)


@sample_of(WordColumns)
def _word_columns():
    return WordColumns(
        number("closing.topic_names").value, number("closing.words").value, number("closing.topic_of_word").value
    )


class TopicBars(VGroup):
    """One neuron's activation for every word: a bar per word, grouped by topic.

    Bar heights are `unit_height` scene units per unit of activation, the same for every
    neuron drawn with the same `unit_height` (so two neurons compare by eye). Bars of the
    `focus` topic are drawn in the topic's hue, the others dimmed; a dashed line over each
    side marks the mean inside the topic and the mean over the other words. With
    `value_name` (e.g. «activación (GELU)»), a vertical axis at the left, from the lowest bar to
    the highest, carries that name (`axis`; an empty VGroup without it).
    """

    def __init__(
        self,
        activations,
        words,
        topic_of_word,
        names,
        focus: int,
        unit_height: float = 1.0,
        bar_width: float = 0.26,
        gap: float = 0.1,
        group_gap: float = 0.45,
        value_name: str | None = None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if not len(activations) == len(words) == len(topic_of_word):
            raise ValueError("TopicBars needs one activation and one topic per word")
        self.values = tuple(float(v) for v in activations)
        self.focus = focus
        self.unit_height = unit_height
        self.bars, self.words, self.names = VGroup(), VGroup(), VGroup()
        x, xs = 0.0, []
        for i, t in enumerate(topic_of_word):
            if i and t != topic_of_word[i - 1]:
                x += group_gap
            xs.append(x)
            x += bar_width + gap
        span = xs[-1] + bar_width
        xs = [v - span / 2 + bar_width / 2 for v in xs]
        self.xs = tuple(xs)
        for v, t, word, cx in zip(self.values, topic_of_word, words, xs):
            height = max(abs(v) * unit_height, 0.02)
            lit = t == focus
            color = topic_color(t) if lit else palette.MUTED
            bar = Rectangle(
                width=bar_width, height=height, stroke_width=0, fill_color=color, fill_opacity=0.95 if lit else 0.45
            )
            bar.move_to((cx, height / 2 if v >= 0 else -height / 2, 0))
            self.bars.add(bar)
            text = ty.small(word, color=palette.INK if lit else palette.MUTED).rotate(1.5708)
            text.move_to((cx, 0, 0))
            text.align_to((0, -max(0.0, -min(self.values)) * unit_height - 0.12, 0), UP)
            self.words.add(text)
        self.baseline = Line((-span / 2 - 0.15, 0, 0), (span / 2 + 0.15, 0, 0), color=palette.MUTED, stroke_width=2)
        bottom = min(w.get_bottom()[1] for w in self.words)
        for t, name in enumerate(names):
            members = [x for x, k in zip(xs, topic_of_word) if k == t]
            head = ty.label(name, color=topic_color(t) if t == focus else palette.MUTED)
            head.move_to(((members[0] + members[-1]) / 2, bottom - 0.3, 0))
            self.names.add(head)
        self.axis = VGroup()
        if value_name is not None:
            low = min(0.0, min(self.values)) * unit_height
            high = max(0.0, max(self.values)) * unit_height
            x = -span / 2 - 0.3
            line = Line((x, low, 0), (x, high, 0), color=palette.MUTED, stroke_width=2)
            name = ty.small(value_name, color=palette.MUTED).rotate(1.5708)
            # From the baseline up: the top left corner is often taken by a badge.
            name.next_to(line, LEFT, buff=0.12).align_to((0, max(low, 0.0) + 0.05, 0), DOWN)
            self.axis.add(line, name)
        self.add(self.baseline, self.bars, self.words, self.names, self.axis)
        self._topic_of_word = tuple(topic_of_word)

    def bar_height(self, i: int) -> float:
        """Signed height of word i's bar, in scene units (value times unit_height)."""
        return self.values[i] * self.unit_height

    def mean_lines(self, mean_inside: float, mean_outside: float) -> VGroup:
        """Dashed lines at the mean activation over the focus topic's bars and over the rest."""
        inside = [x for x, t in zip(self.xs, self._topic_of_word) if t == self.focus]
        y0 = self.baseline.get_center()[1]
        pad = self.bars[0].width / 2 + 0.05
        line_in = DashedLine(
            (min(inside) - pad, 0, 0), (max(inside) + pad, 0, 0), color=palette.INK, stroke_width=3, dash_length=0.08
        )
        line_in.shift((self.baseline.get_center()[0], y0 + mean_inside * self.unit_height, 0))
        lines = VGroup(line_in)
        runs: list[list[float]] = []
        run: list[float] = []
        for x, t in zip(self.xs, self._topic_of_word):
            if t == self.focus:
                if run:
                    runs.append(run)
                run = []
            else:
                run.append(x)
        if run:
            runs.append(run)
        for run in runs:
            line = DashedLine(
                (min(run) - pad, 0, 0), (max(run) + pad, 0, 0), color=palette.MUTED, stroke_width=3, dash_length=0.08
            )
            line.shift((self.baseline.get_center()[0], y0 + mean_outside * self.unit_height, 0))
            lines.add(line)
        return lines


@sample_of(TopicBars)
def _topic_bars():
    return TopicBars(
        number("closing.fruits.activations").value,
        number("closing.words").value,
        number("closing.topic_of_word").value,
        number("closing.topic_names").value,
        focus=0,
    )


class NeuronBadge(VGroup):
    """A name tag for one neuron: its number, where it lives, and its selectivity score."""

    def __init__(self, heading: str, lines, color, width: float = 4.6, **kwargs):
        super().__init__(**kwargs)
        self.heading = ty.body(heading, color=color)
        self.lines = VGroup(*(ty.label(text) for text in lines))
        content = VGroup(self.heading, self.lines).arrange(DOWN, aligned_edge=LEFT, buff=0.22)
        self.lines.arrange(DOWN, aligned_edge=LEFT, buff=0.14).next_to(self.heading, DOWN, aligned_edge=LEFT, buff=0.22)
        if content.width > width - 0.5:
            content.scale_to_fit_width(width - 0.5)
        self.frame = RoundedRectangle(
            corner_radius=0.15,
            width=width,
            height=content.height + 0.5,
            color=color,
            stroke_width=3,
            fill_color=palette.BACKGROUND,
            fill_opacity=0.9,
        )
        content.move_to(self.frame).align_to(self.frame.get_left() + RIGHT * 0.25, LEFT)
        self.add(self.frame, content)


@sample_of(NeuronBadge)
def _neuron_badge():
    names = number("closing.topic_names").value
    return NeuronBadge(
        f"Neurona {number('closing.fruits.neuron').value}",
        [f"especialista en {names[0].lower()}", f"bloque {number('closing.block_number').value}"],
        topic_color(0),
        width=4.3,
    )
