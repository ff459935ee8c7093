"""Muchas neuronas, cualquier curva: each ReLU neuron adds one fold, and folds fit any curve."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    Indicate,
    LaggedStart,
    Transform,
    VGroup,
    Write,
)

from scenes.kit import notation as nt
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.curves import CurveAxes, ErrorChart, fit_heights, legend_line, split_dots
from scenes.kit.narrated import NarratedScene

# Each doubling step: the neuron count shown, the bookmark where it starts, the one it must finish before.
DOUBLINGS = {
    "duplicar": ((2, "n2", "n4"), (4, "n4", "n8"), (8, "n8", None)),
    "muchas": ((16, "n16", "n32"), (32, "n32", "n64"), (64, "n64", None)),
}
STEP_SHARE = 0.7  # share of the time to the next bookmark that a doubling animates
PLOT_SCALE = 0.75  # the last fit, kept on screen while the conclusion is spoken
PLOT_AT = (0, 1.95, 0)


class Approx(NarratedScene):
    script = "approx"

    def construct(self):
        self.result = self.dataset("approx.fits")
        counts = self.number("approx.neuron_counts")
        errors = [self.number(f"approx.n{n}.rms_error") for n in counts]
        x = np.asarray(self.result.x)
        y_top = 1.3 * float(np.max(np.abs(self.result.target)))
        interval = self.number("approx.interval")
        self.axes = CurveAxes(interval, (-y_top, y_top), width=7.6, height=4.6).move_to((-2.9, -0.35, 0))
        self.chart = ErrorChart(counts, errors, significant=2).move_to((4.45, -0.85, 0))
        self.counts = list(counts)

        with self.beat("objetivo") as b:
            heading = ty.title("Muchas neuronas, cualquier curva").to_edge(UP, buff=0.45)
            names = VGroup(
                ty.math("x", color=palette.MUTED).next_to(self.axes.x_axis, RIGHT, buff=0.15),
                ty.math("y", color=palette.MUTED).next_to(self.axes.y_axis, UP, buff=0.1),
            )
            target = self.axes.polyline(x, self.result.target, palette.INK, stroke_width=3)
            # The scene opens on its title, its axes and a faint trace of the curve, never on an
            # empty frame; the curve is drawn in full when the voice points at it.
            trace = target.copy().set_stroke(opacity=0.45)
            self.legend = VGroup(legend_line("curva objetivo", palette.INK)).move_to((-2.9, -3.35, 0))
            self.add(heading, self.axes, trace, self.legend)
            self.play(FadeIn(names), run_time=b.until("curva"))
            self.heading, self.names = heading, names
            self.target = target
            self.play(Create(target), run_time=0.6 * b.speech_remaining())
            self.remove(trace)  # under the curve now

        with self.beat("una_neurona") as b:
            first = self.result.fit(counts[0])
            # One neuron = a straight line bent once: the line left of the fold, then the bend.
            self.curve = self.axes.polyline(x, np.full_like(x, first.output_bias), palette.FFN, stroke_width=5)
            self.dots = self.axes.fold_dots(first.folds, fit_heights(first))
            self.play(Create(self.curve), run_time=0.4 * b.until("pliegue"))
            self.play(
                Transform(self.curve, self.axes.polyline(x, first.curve, palette.FFN, stroke_width=5)),
                FadeIn(self.dots, scale=2),
                run_time=STEP_SHARE * b.until("pliegue"),
            )
            self.wait(b.until("pliegue"))
            legend = (
                VGroup(
                    legend_line("curva objetivo", palette.INK),
                    legend_line("la red", palette.FFN),
                    _fold_legend(self.dots[0]),
                )
                .arrange(RIGHT, buff=0.7)
                .move_to(self.legend)
            )
            self.play(FadeTransform(self.legend, legend), run_time=STEP_SHARE * b.until("error"))
            self.legend = legend
            self.wait(b.until("error"))
            self.counter = self._counter(counts[0])
            self._heads = self._chart_heads()
            self.play(
                FadeIn(self.counter),
                FadeIn(self._heads),
                FadeIn(self.chart.row(0), shift=RIGHT * 0.2),
                run_time=0.5 * b.speech_remaining(),
            )

        for beat in ("duplicar", "muchas"):
            with self.beat(beat) as b:
                for n, start, end in DOUBLINGS[beat]:
                    self.wait(b.until(start))
                    self._double_to(n, STEP_SHARE * (b.until(end) if end else b.speech_remaining()))

        self.conclusion()

    def conclusion(self) -> None:
        """The last fit stays on screen, moved to the top, while the voice states what it shows
        (one fold per neuron) and the theorem that generalises it; the model fact replaces the
        theorem when the voice moves on to it."""
        with self.beat("cierre") as b:
            plot = VGroup(self.axes, self.names, self.target, self.curve, self.dots)
            aside = VGroup(self.heading, self.legend, self.counter, *self.chart.rows, self._heads)
            self.play(
                FadeOut(aside),
                plot.animate.scale(PLOT_SCALE).move_to(PLOT_AT),
                run_time=0.25 * b.until("teorema"),
            )
            line1 = ty.title("Cada neurona, un pliegue más.")
            line2 = ty.body("Con suficientes pliegues, cualquier curva continua.", color=palette.FFN)
            lines = VGroup(line1, line2).arrange(DOWN, buff=0.2)
            lines.next_to(plot, DOWN, buff=0.12)  # the caption of the plot above it
            # The folds light up one after another, left to right, as the voice says «un pliegue más».
            self.play(
                Write(lines),
                LaggedStart(
                    *(Indicate(d, color=palette.HIGHLIGHT, scale_factor=2.5) for d in self.dots), lag_ratio=0.05
                ),
                run_time=0.6 * b.until("teorema"),
            )
            self.wait(b.until("teorema"))
            theorem = VGroup(
                ty.body("Aproximación universal: una capa oculta ancha basta", color=palette.INK),
                ty.small("para una función continua en una región acotada; dice que la red existe, no cómo hallarla"),
            ).arrange(DOWN, buff=0.12)
            theorem.next_to(lines, DOWN, buff=0.3)
            self.play(FadeIn(theorem, shift=UP * 0.2), run_time=0.5 * b.speech_remaining())

        with self.beat("gpt2") as b:
            width = self.number("params.gpt2_small.d_ff")
            name = nt.display_name(self.number("params.gpt2_small.display_name"))
            fact = ty.body(
                f"{name}: {ty.fmt_int(width)} neuronas (GELU) en la capa feed-forward de cada bloque",
                color=palette.INK,
            )
            if fact.width > 12.8:
                fact.scale_to_fit_width(12.8)
            badge = model_badge(self, "gpt2_small", layout="row")
            VGroup(fact, badge).arrange(DOWN, buff=0.25).next_to(lines, DOWN, buff=0.3)
            self.play(FadeOut(theorem, shift=UP * 0.2), run_time=0.15 * b.speech_remaining())
            self.play(FadeIn(fact, shift=UP * 0.2), FadeIn(badge), run_time=0.4 * b.speech_remaining())

    def _double_to(self, n: int, run_time: float) -> None:
        """Fit with n neurons replaces the current one: every fold splits and slides to its new place."""
        fit = self.result.fit(n)
        curve = self.axes.polyline(self.result.x, fit.curve, palette.FFN, stroke_width=5)
        dots = self.axes.fold_dots(fit.folds, fit_heights(fit))
        split = split_dots(self.dots, len(dots) // len(self.dots))
        self.remove(self.dots)
        self.add(split)
        counter = self._counter(n)
        self.play(
            Transform(self.curve, curve),
            Transform(split, dots),
            FadeTransform(self.counter, counter),
            FadeIn(self.chart.row(self.counts.index(n)), shift=RIGHT * 0.2),
            run_time=run_time,
        )
        self.dots, self.counter = split, counter

    def _counter(self, n: int) -> VGroup:
        neurons = self.number(f"approx.n{n}.neurons")
        folds = self.number(f"approx.n{n}.folds")
        top = ty.body(f"{neurons} {'neurona' if neurons == 1 else 'neuronas'}", color=palette.FFN)
        bottom = ty.label(f"{folds} {'pliegue' if folds == 1 else 'pliegues'}", color=palette.ACTIVE)
        group = VGroup(top, bottom).arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        return group.move_to(self.chart, aligned_edge=LEFT).to_edge(UP, buff=1.45)

    def _chart_heads(self) -> VGroup:
        first = self.chart.row(0)
        count_head = ty.small("neuronas").next_to(first[0], UP, buff=0.3).align_to(first[0], RIGHT)
        error_head = VGroup(ty.small("raíz del error"), ty.small("cuadrático medio"))
        error_head.arrange(DOWN, aligned_edge=LEFT, buff=0.08)
        error_head.next_to(first[1], UP, buff=0.3).align_to(first[1], LEFT)
        return VGroup(count_head, error_head)


def _fold_legend(dot) -> VGroup:
    marker = dot.copy().scale(1.3)
    words = ty.small("pliegue (fijo)", color=palette.INK).next_to(marker, RIGHT, buff=0.15)
    return VGroup(marker, words)
