"""XOR: a straight line sweeps the plane and never gets past 3 of 4; a tiny ReLU network
folds the plane into regions that separate the classes."""

from __future__ import annotations

from manim import DOWN, LEFT, UP, Create, FadeIn, FadeOut, Rectangle, VGroup

from ffn_core.shapes import clip_line
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.narrated import NarratedScene
from scenes.kit.plane import (
    AccuracyCounter,
    CircleMark,
    ClassPoints,
    CrossMark,
    DecisionRegions,
    HalfPlaneShade,
    MissRings,
    PlaneSquare,
    Sweep,
    SweepingLine,
    fold_line,
    fold_shade,
    legend_row,
    line_across,
)

PANEL_LEFT = 0.75  # left edge of the text panel right of the plane
CONTENT_TOP = -0.3  # top of the panel area below the three-row legend


class Xor(NarratedScene):
    script = "xor"

    def construct(self):
        xor = self.dataset("xor.solution")
        n_points = self.number("xor.n_points")
        plane = PlaneSquare(self.number("xor.view"), side=5.4).move_to(LEFT * 3.2 + DOWN * 0.35)
        points = ClassPoints(plane, xor.points, xor.labels)

        with self.beat("puntos") as b:
            heading = ty.title("XOR").to_edge(UP, buff=0.45).set_x(plane.get_x())
            axes = plane.axes()  # 0 and 1 on both axes: the legend can be checked point by point
            # The scene opens on the plane (no cut from the last scene's picture to black); its
            # grid and axes are drawn as the voice names the square.
            self.add(plane.frame, heading)
            self.play(Create(plane.grid), FadeIn(axes), run_time=b.until("circulos"))
            legend = VGroup(
                legend_row(CircleMark(), ty.math(r"x_1 = x_2:\ \mathrm{XOR} = 0")),
                legend_row(CrossMark(), ty.math(r"x_1 \neq x_2:\ \mathrm{XOR} = 1")),
            )
            legend.arrange(DOWN, aligned_edge=LEFT, buff=0.35)
            _to_panel(legend, top=plane.get_top()[1])
            self.play(FadeIn(points.of_class(0), scale=0.5), FadeIn(legend[0]), run_time=b.until("cruces"))
            self.play(FadeIn(points.of_class(1), scale=0.5), FadeIn(legend[1]), run_time=b.speech_remaining())

        counts = self.number("xor.sweep_correct_points")
        counter = AccuracyCounter("Aciertos", n_points)
        best = AccuracyCounter("Mejor", n_points, color=palette.HIGHLIGHT)
        _to_panel(VGroup(counter, best).arrange(DOWN, aligned_edge=LEFT, buff=0.3))
        sweep = SweepingLine(plane, points, xor.sweep, counts, counter, best, clip=clip_line)
        with self.beat("tarea") as b:
            task = VGroup(ty.label("¿Una sola recta que deje"), ty.label("cada clase de un lado?"))
            _to_panel(task.arrange(DOWN, aligned_edge=LEFT, buff=0.15))
            self.play(FadeIn(task), run_time=b.until("recta"))
            side = legend_row(
                Rectangle(width=0.45, height=0.45, stroke_width=0, fill_color=palette.POSITIVE, fill_opacity=0.35),
                "lado «cruz» de la recta",
            )
            side.next_to(legend, DOWN, aligned_edge=LEFT, buff=0.35)
            self.play(Create(sweep.line), FadeIn(sweep.shade), FadeIn(side), run_time=b.speech_remaining())

        with self.beat("barrido") as b:
            self.play(FadeOut(task), FadeIn(counter), FadeIn(best), FadeIn(sweep.rings), run_time=b.until("barrer"))
            self.add(sweep)
            self.play(Sweep(sweep), run_time=b.until("tope"))
            ceiling = ty.label(
                f"nunca más de {self.number('xor.linear_best_correct_points')} de {n_points}", color=palette.HIGHLIGHT
            ).next_to(best, DOWN, aligned_edge=LEFT, buff=0.45)
            self.play(FadeIn(ceiling), run_time=b.speech_remaining())

        with self.beat("busqueda") as b:
            self.play(FadeOut(VGroup(sweep, ceiling)), run_time=b.until("todas"))
            tried = ty.label(f"{ty.fmt_int(self.number('xor.linear_lines_tried'))} rectas probadas")
            splits = ty.label(f"{self.number('xor.linear_splits_achievable')} repartos posibles,")
            none = ty.label("ninguno es el XOR")
            facts = VGroup(tried, splits, none).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
            _to_panel(facts)
            self.play(FadeIn(tried), run_time=b.until("divisiones"))
            self.play(FadeIn(splits), FadeIn(none), run_time=b.until("mejor"))
            example = self._best_sweep_line(plane, points, xor.sweep, counts)
            verdict = ty.label(
                f"mejor recta: {self.number('xor.linear_best_correct_points')} de {n_points}", color=palette.HIGHLIGHT
            ).next_to(facts, DOWN, aligned_edge=LEFT, buff=0.5)
            self.play(FadeIn(example), FadeIn(verdict), run_time=b.speech_remaining())
            stage = VGroup(facts, example, verdict)

        mlp = xor.mlp
        with self.beat("pliegues") as b:
            title = ty.label(f"{self.number('xor.mlp_hidden')} neuronas ReLU", color=palette.FFN)
            note = ty.label("cada una dobla el plano")
            caption = _to_panel(VGroup(title, note).arrange(DOWN, aligned_edge=LEFT, buff=0.2))
            self.play(FadeOut(stage), FadeOut(side), FadeIn(caption), run_time=b.until("pliegue"))
            folds = VGroup(*(fold_line(plane, w, clip_line) for w in mlp.hidden_lines)).set_z_index(2)
            for k, (fold, weights) in enumerate(zip(folds, mlp.hidden_lines)):
                shade = fold_shade(plane, weights)
                last = k == len(folds) - 1
                run = b.speech_remaining() if last else b.speech_remaining() / (len(folds) - k)
                self.play(Create(fold), FadeIn(shade, rate_func=_there_and_back), run_time=run)
                self.remove(shade)

        with self.beat("regiones") as b:
            regions = DecisionRegions(plane, mlp.grid_x, mlp.grid_y, mlp.region)
            net_counter = _to_panel(AccuracyCounter("Aciertos", n_points, color=palette.ACTIVE))
            self.play(folds.animate.set_stroke(opacity=0.35), run_time=b.until("regiones"))
            self.play(FadeIn(regions), FadeOut(caption), run_time=b.until("acierto"))
            net_counter.show(self.number("xor.mlp_correct_points"))
            self.play(FadeIn(net_counter), run_time=b.speech_remaining())

        with self.beat("cierre") as b:
            moral = VGroup(
                ty.label("Una recta no alcanza."), ty.label("Una capa ReLU dobla el plano.", color=palette.FFN)
            )
            moral.arrange(DOWN, aligned_edge=LEFT, buff=0.25).next_to(net_counter, DOWN, aligned_edge=LEFT, buff=0.7)
            self.play(FadeIn(moral[0]), run_time=b.until("doblar"))
            self.play(FadeIn(moral[1]), run_time=b.speech_remaining())
            self.wait(b.remaining())

    @staticmethod
    def _best_sweep_line(plane: PlaneSquare, points: ClassPoints, sweep, counts) -> VGroup:
        """The first sweep position reaching the best count: its line, side and its miss."""
        k = counts.index(max(counts))
        position = sweep[k]
        return VGroup(
            HalfPlaneShade(plane, position.angle_rad, position.offset),
            line_across(plane, position.segment),
            MissRings(points).show(position.correct),
        )


def _to_panel(mob, top: float = CONTENT_TOP):
    """Place `mob` in the text panel: left edge at PANEL_LEFT, top at `top`."""
    return mob.align_to((PANEL_LEFT, 0, 0), LEFT).align_to((0, top, 0), UP)


def _there_and_back(t: float) -> float:
    """Up then down: a neuron's 'on' side shown while its fold is drawn, then gone."""
    return 1 - abs(2 * t - 1)
