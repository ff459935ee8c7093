"""ReLU as detectors: the rule, then MiniLM's real neurons on its GELU (a smooth ReLU: negative
inputs land a little below zero), and how few of its layer's neurons fire for one word."""

from __future__ import annotations

from manim import (
    DOWN,
    DR,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    Indicate,
    LaggedStart,
    Rectangle,
    ReplacementTransform,
    Transform,
    VGroup,
)

from ffn_core.shapes import gelu, relu
from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.activation_graph import ActivationGraph, on_axis_then_at
from scenes.kit.badges import model_badge
from scenes.kit.narrated import NarratedScene
from scenes.kit.neurons import NeuronGrid, OffIcon, OnIcon
from scenes.kit.steps import play_in_steps


def relu1(x: float) -> float:
    """ffn_core's ReLU on one number: the graph plots the code's own function."""
    return float(relu(x))


def gelu1(x: float) -> float:
    """ffn_core's GELU (exact, as MiniLM's config says) on one number."""
    return float(gelu(x))


class Relu(NarratedScene):
    script = "relu"

    def construct(self):
        raw = self.number("pretrained.minilm.sample_pre_activations")
        width = self.number("pretrained.minilm.d_ff")

        formula = ty.math(r"\mathrm{ReLU}(x) = \max(0,\ x)").scale(1.5).to_edge(UP, buff=0.4)
        with self.beat("regla") as b:
            graph_rule = ActivationGraph(width=8.0, height=5.0).next_to(formula, DOWN, buff=0.5)
            graph = graph_rule
            # "Cada neurona calcula primero un número": MiniLM's ten preactivations on the axis.
            # Beads a little larger than the graph's points: alone on the axis, they carry the frame.
            raw_dots = VGroup(*(graph.point(x, 0.0, radius=0.13) for x in raw))
            # What the voice says first, where the rule will be written: one number per neuron.
            lead = ty.title("Cada neurona calcula un número").move_to(formula)
            axis_name = ty.body("preactivación", color=palette.MUTED)  # the term the beat defines
            axis_name.next_to(graph.axes.c2p(graph.x_range[0] + 0.6, 0.0), DOWN, buff=0.15)
            # The graph, the lead and the ten numbers on its axis are there from the first frame
            # (the previous scene ends full); the numbers, then the axis' name, light up as said.
            self.add(graph, lead, axis_name, raw_dots)
            play_in_steps(
                self,
                b.until("formula"),
                (LaggedStart(*(Indicate(d, color=palette.HIGHLIGHT) for d in raw_dots), lag_ratio=0.2), 0.6),
                (Indicate(axis_name, color=palette.HIGHLIGHT), None),
            )
            # The rule drawn as the formula is said, and the ten numbers sent through it; its two
            # halves as regions of the input: off on the left, through on the right.
            rule = graph.curve(relu1, palette.MUTED, stroke_width=6)
            _, raw_out = on_axis_then_at(graph, raw, [relu1(v) for v in raw], color_off=palette.NEGATIVE)
            off_zone, on_zone = _half_planes(graph)
            self.play(
                FadeTransform(lead, formula),
                Create(rule),
                Transform(raw_dots, raw_out),
                FadeIn(off_zone),
                FadeIn(on_zone),
                run_time=b.until("negativos"),
            )
            flat = graph.curve(relu1, palette.NEGATIVE, x_max=0.0, stroke_width=8)
            flat_label = graph.label_at("negativo → 0", -1.0, 0.0, UP, color=palette.NEGATIVE, buff=0.3)
            self.play(Create(flat), FadeIn(flat_label), run_time=b.until("positivos"))
            ramp = graph.curve(relu1, palette.ACTIVE, x_min=0.0, stroke_width=8)
            ramp_label = graph.label_at("positivo → pasa igual", 1.0, 1.0, RIGHT, color=palette.ACTIVE, buff=0.4)
            self.play(Create(ramp), FadeIn(ramp_label), run_time=b.speech_remaining())

        # (The ten neurons one by one on a row was cut: the needles' tray shows the same; here
        # they appear once, as points on MiniLM's own curve.)
        with self.beat("gelu") as b:
            heading = ty.title("MiniLM usa GELU: una ReLU suave").to_edge(UP, buff=0.4)
            caption = self._sample_caption().next_to(heading, DOWN, buff=0.25)
            badge = model_badge(self, "minilm")
            # The sample spans about -1.7..0.4: a graph cut to that window shows GELU's dip.
            graph = ActivationGraph(x_range=(-2.0, 1.0), y_range=(-0.4, 1.0), width=9.0, height=4.2)
            graph.next_to(caption, DOWN, buff=0.35).shift(LEFT * 1.2)
            badge.next_to(graph, RIGHT, buff=0.5)  # right of the curves; the citation takes the corner
            ideal = graph.curve(relu1, palette.MUTED, stroke_width=3)
            self.play(
                FadeOut(
                    VGroup(
                        graph_rule,
                        rule,
                        raw_dots,
                        off_zone,
                        on_zone,
                        flat,
                        ramp,
                        flat_label,
                        ramp_label,
                        formula,
                        axis_name,
                    )
                ),
                FadeIn(heading),
                FadeIn(caption),
                FadeIn(badge),
                Create(graph),
                Create(ideal),
                run_time=b.until("curva"),
            )
            smooth = graph.curve(gelu1, palette.FFN)
            legend = _legend(graph)
            self.play(Create(smooth), FadeIn(legend), run_time=b.until("puntos"))
            on_axis, on_gelu = on_axis_then_at(graph, raw, self.number("pretrained.minilm.sample_activations"))
            # The ten neurons at their raw values, then where GELU sends them: the negative ones
            # land a little below zero, not on it.
            play_in_steps(
                self, b.until("idealizacion"), (FadeIn(on_axis), 0.3), (ReplacementTransform(on_axis, on_gelu), None)
            )
            _, on_relu = on_axis_then_at(graph, raw, [relu1(v) for v in raw])
            self.play(
                Transform(on_gelu, on_relu),
                ideal.animate.set_stroke(palette.ACTIVE, width=5),
                run_time=b.speech_remaining(),
            )

        grid = NeuronGrid(self.dataset("pretrained.minilm.ffn").activation).move_to(DOWN * 0.2)
        with self.beat("escasez") as b:
            heading2 = ty.title(f"La capa entera: {ty.fmt_int(width)} neuronas").to_edge(UP, buff=0.5)
            self.play(
                FadeOut(VGroup(heading, caption, graph, ideal, smooth, legend, on_gelu)),
                FadeIn(heading2),
                FadeIn(grid),
                badge.animate.to_corner(DR, buff=0.3),  # out of the grid's way; no citation here
                run_time=b.until("rejilla"),
            )
            self.wait(b.until("encendidas"))
            share = self.number("pretrained.minilm.active_share")
            count = _count_line(self.number("pretrained.minilm.n_active"), width, "encendidas")
            count.add(ty.label(f"({ty.fmt_percent(share)})", color=palette.ACTIVE))
            count.arrange(RIGHT, buff=0.25).next_to(grid, DOWN, buff=0.45)
            self.play(grid.light_up(), FadeIn(count), run_time=b.speech_remaining())

        with self.beat("cierre") as b:
            # The layer stays: it moves left, and each of its neurons is the detector the voice describes.
            heading3 = ty.title("Cada neurona es un detector").to_edge(UP, buff=0.5)
            self.play(
                FadeOut(VGroup(count, badge)),
                ReplacementTransform(heading2, heading3),
                grid.animate.scale_to_fit_width(9.0).move_to((0, 0.85, 0)),
                run_time=b.until("pregunta"),
            )
            question = ty.body("¿Está mi patrón en lo que recibo?").move_to((0, -1.55, 0))
            answers = _answers().move_to((0, -2.65, 0))
            self.play(FadeIn(question), run_time=b.until("respuesta"))
            self.play(
                FadeIn(answers[0], shift=UP * 0.2),
                Indicate(grid.firing, color=palette.ACTIVE, scale_factor=1.0),
                run_time=0.5 * b.speech_remaining(),
            )
            self.play(
                FadeIn(answers[1], shift=UP * 0.2),
                Indicate(grid.all_cells, color=palette.MUTED, scale_factor=1.0),
                run_time=b.speech_remaining(),
            )

    def _sample_caption(self):
        blocks = self.number("params.minilm_l6.n_layers")
        block = self.number("pretrained.minilm.block_number")
        shown = self.number("pretrained.minilm.sample_size")
        width = self.number("pretrained.minilm.d_ff")
        model = notation.display_name(self.number("pretrained.minilm.model"))
        token = self.number("pretrained.minilm.token")
        sentence = self.number("pretrained.minilm.sentence")
        where = ty.small(f"{model} · bloque {block} de {blocks} · «{token}» en «{sentence}»")
        which = ty.small(f"las {shown} primeras de sus {ty.fmt_int(width)} neuronas")
        return VGroup(where, which).arrange(DOWN, buff=0.12)


def _count_line(on: int, total: int, word: str) -> VGroup:
    """'3 de 10 encendidas' with the on-icon in front."""
    text = ty.label(f"{ty.fmt_int(on)} de {ty.fmt_int(total)} {word}", color=palette.ACTIVE)
    return VGroup(OnIcon(), text).arrange(RIGHT, buff=0.3)


def _half_planes(graph: ActivationGraph) -> tuple[Rectangle, Rectangle]:
    """The graph's left half (negative inputs, silenced) and right half (positive, passed),
    above the x-axis."""
    # Above the axis only: the axis' name, under it, keeps the background behind it.
    (x0, y0, _), (x1, y1, _) = graph.axes.c2p(graph.x_range[0], 0.0), graph.axes.c2p(graph.x_range[1], 2.0)
    mid = graph.axes.c2p(0.0, 0.0)[0]
    zones = []
    for left, right, color in ((x0, mid, palette.NEGATIVE), (mid, x1, palette.ACTIVE)):
        zone = Rectangle(width=right - left, height=y1 - y0, stroke_width=0, fill_color=color, fill_opacity=0.14)
        zones.append(zone.move_to(((left + right) / 2, (y0 + y1) / 2, 0)).set_z_index(-1))
    return zones[0], zones[1]


def _legend(graph: ActivationGraph) -> VGroup:
    relu_key = ty.small("ReLU (ideal)", color=palette.MUTED)
    gelu_key = ty.small("GELU (MiniLM)", color=palette.FFN)
    legend = VGroup(gelu_key, relu_key).arrange(DOWN, aligned_edge=LEFT, buff=0.15)
    # Upper-left quadrant: empty, since both curves stay near zero for negative inputs.
    return legend.move_to(graph.axes.c2p(-1.0, 0.7))


def _answers() -> VGroup:
    """The detector's two answers side by side, under the layer they describe."""
    yes = VGroup(OnIcon(0.16), ty.label("sí: se enciende y aporta", color=palette.ACTIVE)).arrange(RIGHT, buff=0.3)
    no = VGroup(OffIcon(0.16), ty.label("no: se apaga (con GELU, casi)", color=palette.MUTED)).arrange(RIGHT, buff=0.3)
    return VGroup(yes, no).arrange(RIGHT, buff=0.9)
