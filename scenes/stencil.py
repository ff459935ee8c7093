"""The stencil: SwiGLU as spray paint through a stencil, with real numbers (4 -> 6 -> 4).

One branch (x W_3) proposes the paint, the other (Swish(x W_1)) cuts the stencil's holes,
one per hidden channel, as wide as its gate; the paper receives their product, and W_2
gathers the marks back to d_model. Then Swish against ReLU on the same six channels, and
the bill: LLaMA-2 7B's hidden width cut to two thirds so three matrices cost what two did.
All figures come from ffn_core.stencil and ffn_core.ffn.swiglu_width.
"""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Brace,
    Circle,
    Create,
    DashedLine,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from ffn_core.shapes import relu, swish_value
from scenes.kit import notation as n
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.activation_graph import ActivationGraph, on_axis_then_at
from scenes.kit.badges import model_badge
from scenes.kit.blocks import FlowArrow, StageBox
from scenes.kit.matrix import MatrixMob, VectorRow, value_color
from scenes.kit.narrated import NarratedScene
from scenes.kit.stamps import ink_color
from scenes.kit.stencil import (
    PaperSheet,
    SprayNozzle,
    StencilCard,
    columns,
    hole_openness,
    paint_color,
    paint_stream,
    spray_cone,
    unit_hole,
)
from scenes.kit.steps import Step, play_in_steps
from scenes.kit.widths import MatrixBlock

PITCH = 1.45  # distance between two channels' holes
CHANNELS_X = 1.3  # the channels' centre: the left of the frame keeps the row names
NAMES_X = -5.3  # the row names' centre
PAINT_Y, NOZZLE_Y = 2.8, 2.3
CARD_Y, HOLE_Y, GATE_Y = 0.4, 0.05, 0.82
PAPER_Y, PRODUCT_Y = -2.1, -2.95
# The bill: one d x 4d matrix spans BAR_LENGTH (its top at BLOCK_TOP); then the classic
# layer's two matrices, end to end, span ROW_LENGTH.
BAR_LEFT, BAR_LENGTH, ROW_LENGTH, BLOCK_TOP = -4.9, 10.0, 10.0, 2.35


def relu1(z: float) -> float:
    return float(relu(np.array(z)))


class Stencil(NarratedScene):
    script = "stencil"

    def construct(self):
        x = self.number("stencil.x")
        paint = self.number("stencil.paint")
        gate = self.number("stencil.gate")
        product = self.number("stencil.product")
        n_channels = self.number("stencil.d_ff")
        xs = columns(n_channels, PITCH) + CHANNELS_X

        gate_tex, paint_tex, out_tex = r"\mathrm{Swish}(x\,W_1)", r"x\,W_3", r"W_2"
        formula = n.swiglu_formula(substrings_to_isolate=[gate_tex, paint_tex, out_tex], color=palette.INK)
        formula.scale(1.25).move_to(UP * 1.75)
        swish_part, paint_part = formula.get_part_by_tex(gate_tex), formula.get_part_by_tex(paint_tex)
        w2_part = formula.get_part_by_tex(out_tex)
        with self.beat("formula") as b:
            # The gated layer as a picture first (the voice says "con compuerta"), its formula over it.
            diagram = _GatedDiagram()
            # The scene opens on the diagram already on screen, its arrows dimmed (no cut from the
            # previous scene's full frame to an empty one); the arrows then light up in reading order.
            for arrows in diagram.arrows:
                arrows.set_opacity(0.35)
            self.add(*diagram.parts)
            self.play(
                LaggedStart(*(arrows.animate.set_opacity(1) for arrows in diagram.arrows), lag_ratio=0.5),
                run_time=b.until("formula"),
            )
            self.play(Write(formula), run_time=b.until("ramas"))
            boxes = VGroup(
                SurroundingRectangle(swish_part, color=palette.ACTIVE, buff=0.1),
                SurroundingRectangle(paint_part, color=palette.POSITIVE, buff=0.1),
            )
            self.play(Create(boxes), Indicate(diagram.inputs, color=palette.INK), run_time=b.until("contenido"))
            content = _brace_note(paint_part, "contenido: la pintura", UP, palette.POSITIVE)
            self.play(FadeIn(content), diagram.paint.light_up(), run_time=b.until("compuerta"))
            gate_note = _brace_note(swish_part, "compuerta: la plantilla", DOWN, palette.ACTIVE)
            self.play(
                FadeIn(gate_note), diagram.paint.light_down(), diagram.gate.light_up(), run_time=b.speech_remaining()
            )

        with self.beat("ejemplo") as b:
            small_formula = formula.copy().scale(0.55).to_corner(UP + LEFT, buff=0.35)
            lanes = _channel_lanes(xs)
            self.play(
                FadeOut(VGroup(boxes, content, gate_note, diagram)),
                Transform(formula, small_formula),
                LaggedStart(*(FadeIn(lane) for lane in lanes), lag_ratio=0.1),
                run_time=b.until("entrada"),
            )
            x_row = VectorRow(x, places=2, font_size=ty.LABEL_SIZE)
            x_name = ty.label("x «perro»")
            x_group = VGroup(x_name, x_row).arrange(RIGHT, buff=0.3).to_corner(UP + RIGHT, buff=0.35)
            self.play(FadeIn(x_group, shift=DOWN * 0.2), run_time=b.until("pintura"))
            paint_values = _value_row(paint, xs, PAINT_Y)
            paint_name = _row_name(
                "pintura", ty.math(r"x W_3", color=palette.POSITIVE).scale(0.75), PAINT_Y - 0.25, palette.POSITIVE
            )
            self.play(
                FadeIn(paint_name),
                LaggedStart(*(FadeIn(v, shift=DOWN * 0.2) for v in paint_values), lag_ratio=0.3),
                run_time=b.until("plantilla"),
            )
            gate_values = _value_row(gate, xs, GATE_Y)
            gate_name = _row_name(
                "compuerta", ty.math(r"\mathrm{Swish}(x W_1)", color=palette.ACTIVE).scale(0.75), CARD_Y, palette.ACTIVE
            )
            self.play(
                FadeIn(gate_name),
                LaggedStart(*(FadeIn(v, shift=DOWN * 0.2) for v in gate_values), lag_ratio=0.3),
                run_time=b.speech_remaining(),
            )

        card = StencilCard(
            gate,
            xs - CHANNELS_X,
            width=n_channels * PITCH + 0.3,
            height=1.4,
            hole_height=0.55,
            max_hole_width=PITCH * 0.8,
            hole_offset=HOLE_Y - CARD_Y,
        )
        card.shift(RIGHT * CHANNELS_X + UP * CARD_Y - card.sheet.get_center())
        with self.beat("plantilla") as b:
            stencil = self._stencil_parts(card, xs, paint, product)
            shut = card.at_opening(0.0)
            dark_gates = VGroup(*(v.copy().set_color(palette.BACKGROUND) for v in gate_values))
            # Drawing order: paint behind the card (seen only through its holes), values printed on it.
            card.set_z_index(2)
            shut.set_z_index(2)
            gate_values.set_z_index(3)
            dark_gates.set_z_index(3)
            self.play(FadeIn(shut), Transform(gate_values, dark_gates), run_time=b.until("agujeros"))
            self.remove(shut)
            self.add(card, gate_values)
            self.play(card.open_holes(), run_time=b.until("rociar"))
            nozzles, cones, streams, paper, product_values, paper_name = stencil
            self.play(
                LaggedStart(*(FadeIn(z, shift=DOWN * 0.1) for z in nozzles), lag_ratio=0.15),
                FadeIn(paper),
                FadeIn(paper_name),
                run_time=0.4 * b.until("papel"),
            )
            self.play(LaggedStart(*(GrowFromEdge(c, UP) for c in cones), lag_ratio=0.15), run_time=b.until("papel"))
            self.play(
                LaggedStart(*(GrowFromEdge(s, UP) for s in streams), lag_ratio=0.15),
                paper.ink(),
                LaggedStart(*(FadeIn(v) for v in product_values), lag_ratio=0.15),
                run_time=b.until("cerrado"),
            )
            closed = int(np.argmin(np.abs(gate)))
            spotlight = SurroundingRectangle(
                VGroup(paint_values[closed], product_values[closed]), color=palette.HIGHLIGHT, buff=0.12
            ).set_z_index(4)
            self.play(Create(spotlight), run_time=b.until("amplifica"))
            # A gate above 1 amplifies: its hole is cut wider than a gate of 1 (dashed) would cut it,
            # and the mark on the paper is larger than the paint that left the nozzle.
            widest = int(np.argmax(gate))
            unit = self.number("stencil.unit_gate")
            full = unit_hole(card, widest, unit).set_z_index(4)
            amplified = ty.small(
                f"compuerta {n.activation(self.number('stencil.widest_gate'))} > {ty.fmt_int(unit)}: "
                f"{n.activation(self.number('stencil.widest_paint'))} → "
                f"{n.activation(self.number('stencil.widest_product'))}",
                color=palette.HIGHLIGHT,
            )
            amplified.move_to((0, PRODUCT_Y - 0.55, 0)).align_to(product_values[widest], LEFT).set_z_index(4)
            boost = SurroundingRectangle(
                VGroup(paint_values[widest], product_values[widest]), color=palette.HIGHLIGHT, buff=0.12
            ).set_z_index(4)
            self.play(Transform(spotlight, boost), Create(full), FadeIn(amplified), run_time=b.until("invierte"))
            leaking = int(np.argmin(gate))
            inverted = SurroundingRectangle(
                VGroup(paint_values[leaking], product_values[leaking]), color=palette.NEGATIVE, buff=0.12
            ).set_z_index(4)
            self.play(Transform(spotlight, inverted), FadeOut(full), run_time=b.speech_remaining())

        with self.beat("swish") as b:
            stage = VGroup(
                cones,
                streams,
                card,
                gate_values,
                paint_values,
                nozzles,
                paper,
                product_values,
                paper_name,
                paint_name,
                gate_name,
                spotlight,
                amplified,
                x_group,
                lanes,
            )  # drawn in this order
            graph = ActivationGraph(
                x_range=(-3.0, 2.5), y_range=(-0.6, 2.2), width=9.0, height=5.2, x_label=r"x W_1"
            ).move_to(DOWN * 0.45)
            heading = ty.body("Swish frente a ReLU").to_corner(UP + RIGHT, buff=0.4)
            relu_curve = graph.curve(relu1, palette.MUTED, stroke_width=6)
            # Each name beside its own curve: ReLU's on its flat zero (Swish runs below the axis
            # there), Swish's under its curve on the right (ReLU runs above it there).
            relu_key = graph.label_at("ReLU: corta en seco", -1.9, 0.0, UP, color=palette.MUTED)
            play_in_steps(
                self,
                b.until("relu"),
                (FadeOut(stage), 0.4),
                ((FadeIn(graph), FadeIn(heading), Create(relu_curve), FadeIn(relu_key)), None),
            )
            flat = graph.curve(relu1, palette.INK, x_max=0.0, stroke_width=8)
            self.play(Create(flat), run_time=b.until("suave"))
            swish_curve = graph.curve(swish_value, palette.FFN, stroke_width=6)
            swish_key = graph.label_at("Swish: suave", 1.0, swish_value(1.0), DOWN + RIGHT, color=palette.FFN, buff=0.2)
            self.play(Create(swish_curve), FadeIn(swish_key), run_time=b.until("negativo"))
            dip = graph.curve(swish_value, palette.NEGATIVE, x_max=0.0, stroke_width=10).set_stroke(opacity=0.45)
            lowest_at, lowest = self.number("stencil.swish_minimum_at"), self.number("stencil.swish_minimum")
            bottom = graph.point(lowest_at, lowest, color=palette.NEGATIVE)
            dip_note = ty.label(
                f"conserva el signo: negativo pequeño, nunca menos de {n.activation(lowest)}", color=palette.NEGATIVE
            )
            dip_note.next_to(graph.axes.c2p(-0.6, lowest), DOWN, buff=0.25)
            self.play(Create(dip), FadeIn(bottom), FadeIn(dip_note), run_time=b.until("puntos"))
            on_axis, on_swish = on_axis_then_at(graph, self.number("stencil.gate_pre"), gate)
            play_in_steps(self, b.speech_remaining(), (FadeIn(on_axis), 0.3), (Transform(on_axis, on_swish), None))

        with self.beat("contraer") as b:
            w_down = self.number("stencil.w_down")
            output = self.number("stencil.output")
            sheet = _contraction(product, w_down, output)
            marks, h_col, times, matrix, line, out_row, names = sheet  # "Falta la tercera matriz": W_2 first
            self.play(
                FadeOut(
                    VGroup(
                        graph,
                        heading,
                        relu_curve,
                        flat,
                        relu_key,
                        swish_curve,
                        swish_key,
                        dip,
                        bottom,
                        dip_note,
                        on_axis,
                    )
                ),
                FadeIn(matrix),
                FadeIn(names[1]),
                w2_part.animate.set_color(palette.HIGHLIGHT),
                run_time=b.until("recoger"),
            )
            self.play(
                FadeIn(marks),
                FadeIn(h_col),
                FadeIn(times),
                FadeIn(names[0]),
                FadeIn(names[2]),
                run_time=b.until("salida"),
            )
            self.play(Create(line), run_time=0.2 * b.until("comprobar"))
            self._fill_columns(b.until("comprobar"), matrix, out_row)
            check = ty.label("la misma salida que la capa SwiGLU entera  ✓", color=palette.ACTIVE)
            check.next_to(out_row, DOWN, buff=0.45).set_x(0)
            self.play(FadeIn(check, shift=LEFT * 0.2), run_time=b.speech_remaining())

        with self.beat("ancho") as b:
            d = self.number("params.llama2_7b.d_model")
            relu_width = self.number("swiglu.llama2_7b.relu_width")
            thirds = self.number("swiglu.llama2_7b.two_thirds_width")
            multiple = self.number("swiglu.llama2_7b.multiple_of")
            width = self.number("swiglu.llama2_7b.width")
            heading = ty.body("El precio de una matriz más").to_corner(UP + LEFT, buff=0.45)  # the badge: UR
            self.play(Indicate(matrix, color=palette.HIGHLIGHT, scale_factor=1.04), run_time=b.until("tres"))
            llama = model_badge(self, "llama2_7b").to_corner(UR, buff=0.3)
            # One matrix of the classic layer to scale: d rows by 4d channels, its area its cost.
            unit = BAR_LENGTH / relu_width
            classic = MatrixBlock(d, relu_width, unit, palette.MUTED)
            classic.align_to((BAR_LEFT, 0, 0), LEFT).align_to((0, BLOCK_TOP, 0), UP)
            rows_brace = Brace(classic, LEFT, color=palette.MUTED, buff=0.12)
            rows_name = ty.math("d", color=palette.INK).next_to(rows_brace, LEFT, buff=0.15)
            relu_note = VGroup(
                ty.label("ReLU:"),
                ty.math(r"4d =").scale(0.9),
                ty.label(f"{ty.fmt_int(relu_width)} canales"),
                ty.small(f"(d = {ty.fmt_int(d)})"),
            ).arrange(RIGHT, buff=0.2)
            relu_note.next_to(classic, UP, buff=0.25).align_to(classic, LEFT)
            # W_2 turns into the matrix it would be in a classic layer: the drawing goes on.
            self.play(
                FadeOut(VGroup(marks, h_col, times, names, line, out_row, check, self.column_box, formula)),
                ReplacementTransform(matrix, classic),
                FadeIn(heading, shift=DOWN * 0.2),
                FadeIn(llama),
                run_time=b.until("relu_ancho"),
            )
            self.play(
                FadeIn(relu_note),
                FadeIn(VGroup(rows_brace, rows_name)),
                Indicate(classic, color=palette.INK, scale_factor=1.02),
                run_time=b.until("dos_tercios"),
            )
            # SwiGLU keeps two thirds of the channels: the kept part lit, the cut third left grey.
            cut_x = BAR_LEFT + thirds * unit
            kept = MatrixBlock(d, thirds, unit, palette.FFN).align_to(classic, LEFT).align_to(classic, UP)
            cut = DashedLine(
                (cut_x, classic.get_top()[1] + 0.2, 0), (cut_x, classic.get_bottom()[1] - 0.2, 0), color=palette.INK
            ).set_z_index(1)
            # Two thirds of 4d is not an integer: the code keeps its floor.
            relu_tex = ty.fmt_int(relu_width).replace(ty.THIN_SPACE, r"\,")
            thirds_note = VGroup(
                ty.math(rf"\big\lfloor \tfrac{{2}}{{3}} \cdot {relu_tex} \big\rfloor", color=palette.FFN).scale(0.9),
                ty.label(f"= {ty.fmt_int(thirds)}", color=palette.FFN),
            ).arrange(RIGHT, buff=0.2)
            thirds_note.next_to(classic, DOWN, buff=0.45).align_to(cut, RIGHT)
            self.play(Create(cut), GrowFromEdge(kept, LEFT), FadeIn(thirds_note), run_time=b.until("redondeo"))
            final = MatrixBlock(d, width, unit, palette.FFN).align_to(classic, LEFT).align_to(classic, UP)
            ruler = _ruler(width, multiple, unit, classic.get_bottom()[1])
            round_note = (
                ty.label(
                    f"hacia arriba, a un múltiplo de {ty.fmt_int(multiple)}: {ty.fmt_int(width)}", color=palette.FFN
                )
                .next_to(thirds_note, DOWN, buff=0.3)
                .set_x(0)
            )
            self.play(Create(ruler), Transform(kept, final), FadeIn(round_note), run_time=b.speech_remaining())
            self.wait(b.remaining())

        with self.beat("balance") as b:
            relu_params = self.number("swiglu.llama2_7b.relu_params")
            swiglu_params = self.number("swiglu.llama2_7b.swiglu_params")
            increase = self.number("stencil.param_increase")
            # The rounding is told; the matrices stay on the stage until they split.
            self.play(FadeOut(VGroup(thirds_note, ruler, round_note)), run_time=b.until("antes"))
            # Every matrix to one scale, end to end in two rows: the classic layer's two d x 4d
            # matrices above, SwiGLU's three d x h below. Same height (d), so the rows' lengths
            # compare the parameter counts; a dashed line marks where the classic row ends.
            unit = ROW_LENGTH / (2 * relu_width)
            two = VGroup(*(MatrixBlock(d, relu_width, unit, palette.MUTED) for _ in range(2))).arrange(RIGHT, buff=0)
            two.align_to((BAR_LEFT, 0, 0), LEFT).align_to((0, BLOCK_TOP, 0), UP)
            two_name = ty.label("ReLU").next_to(two, LEFT, buff=0.3)
            two_count = _count(r"2 \cdot d \cdot 4d", relu_params, palette.INK).next_to(two, DOWN, buff=0.18)
            two_count.align_to(two, LEFT)
            first = MatrixBlock(d, width, unit, palette.FFN).align_to(two, LEFT)
            first.align_to((0, two_count.get_bottom()[1] - 0.22, 0), UP)
            self.play(
                ReplacementTransform(classic, two),
                ReplacementTransform(kept, first),
                FadeOut(VGroup(cut, relu_note, rows_brace, rows_name)),
                FadeIn(two_name),
                FadeIn(two_count),
                run_time=b.until("despues"),
            )
            three = VGroup(*(MatrixBlock(d, width, unit, palette.FFN) for _ in range(3))).arrange(RIGHT, buff=0)
            three.align_to(first, LEFT).align_to(first, UP)
            three_name = ty.label("SwiGLU", color=palette.FFN).next_to(three, LEFT, buff=0.3)
            three_count = _count(r"3 \cdot d \cdot h", swiglu_params, palette.FFN).next_to(three, DOWN, buff=0.18)
            three_count.align_to(three, LEFT)
            three_width = VGroup(
                ty.math("h =", color=palette.FFN).scale(0.85), ty.label(ty.fmt_int(width), color=palette.FFN)
            ).arrange(RIGHT, buff=0.15)
            three_width.next_to(three_count, RIGHT, buff=0.5)
            three_count.add(three_width)
            end = DashedLine(
                (two.get_right()[0], two.get_top()[1] + 0.15, 0),
                (two.get_right()[0], three.get_bottom()[1] - 0.15, 0),
                color=palette.HIGHLIGHT,
            ).set_z_index(1)
            self.play(
                ReplacementTransform(first, three),
                FadeIn(three_name),
                FadeIn(three_count),
                Create(end),
                run_time=b.until("igual"),
            )
            verdict = ty.body(f"solo un {ty.fmt_percent(increase)} más", color=palette.HIGHLIGHT)
            verdict.next_to(three_count, DOWN, buff=0.4).set_x(0)
            self.play(FadeIn(verdict, shift=UP * 0.2), run_time=b.speech_remaining())
            self.play(Create(SurroundingRectangle(verdict, color=palette.HIGHLIGHT, buff=0.15)), run_time=b.remaining())

    # -- pieces ------------------------------------------------------------------------
    def _stencil_parts(self, card, xs, paint, product):
        n_channels = len(xs)
        nozzles = VGroup(*(SprayNozzle(p, width=0.5).move_to((x, NOZZLE_Y, 0)) for p, x in zip(paint, xs)))
        biggest = max(abs(p) for p in paint)
        hole_bottom = card.rims[0].get_bottom()[1]
        cones = VGroup(
            *(spray_cone(z.tip, hole_bottom, PITCH * 0.9, p, abs(p) / biggest) for z, p in zip(nozzles, paint))
        )
        paper = PaperSheet(product, xs - CHANNELS_X, card.hole_widths, width=n_channels * PITCH + 0.3, height=0.9)
        paper.move_to((CHANNELS_X, PAPER_Y, 0)).blank()
        top = max(abs(p) for p in product)
        streams = VGroup(
            *(
                paint_stream(card.rims[i], paper.sheet.get_top()[1], product[i], hole_openness(product[i], top))
                for i in range(n_channels)
            )
        )
        product_values = _value_row(product, xs, PRODUCT_Y)
        paper_name = _row_name(
            "papel", ty.small(f"compuerta {n.ELEMENTWISE} pintura", color=palette.INK), PAPER_Y, palette.INK
        )
        return nozzles, cones, streams, paper, product_values, paper_name

    def _fill_columns(self, window, matrix: MatrixMob, out_row: VGroup) -> None:
        """Entry j of the output appears while column j of W_2 is lit, one column after another."""
        count = len(out_row)
        boxes = [SurroundingRectangle(matrix.column(j), color=palette.HIGHLIGHT, buff=0.08) for j in range(count)]
        steps: list[Step] = [((Create(boxes[0]), FadeIn(out_row[0])), 1 / count)]
        for j in range(1, count):
            steps.append(((Transform(boxes[0], boxes[j]), FadeIn(out_row[j])), None if j == count - 1 else 1 / count))
        play_in_steps(self, window, *steps)
        self.column_box = boxes[0]


class _GatedDiagram(VGroup):
    """SwiGLU's layer as boxes: x proposes paint (x W_3) and cuts the stencil (Swish(x W_1)),
    the two meet in a product, and W_2 gathers it back."""

    def __init__(self):
        super().__init__()
        y_paint, y_gate, y_mid = -0.95, -2.85, -1.9
        source = StageBox("x", palette.INK, width=1.1, height=0.9).move_to((-5.6, y_mid, 0))
        self.paint = StageBox("x W₃", palette.POSITIVE, width=2.8, height=0.9).move_to((-2.0, y_paint, 0))
        self.gate = StageBox("Swish(x W₁)", palette.ACTIVE, width=2.8, height=0.9).move_to((-2.0, y_gate, 0))
        times = VGroup(Circle(radius=0.38, color=palette.INK, stroke_width=3), ty.math(r"\odot"))
        times.move_to((1.1, y_mid, 0))
        out = StageBox("· W₂", palette.MUTED, width=1.6, height=0.9).move_to((3.3, y_mid, 0))
        result = ty.body("salida").move_to((5.6, y_mid, 0))
        self.inputs = VGroup(
            FlowArrow(source.get_right(), self.paint.get_left()), FlowArrow(source.get_right(), self.gate.get_left())
        )
        joins = VGroup(
            FlowArrow(self.paint.get_right(), times.get_center() + (-0.3, 0.25, 0)),
            FlowArrow(self.gate.get_right(), times.get_center() + (-0.3, -0.25, 0)),
            FlowArrow(times.get_right(), out.get_left()),
            FlowArrow(out.get_right(), result.get_left()),
        )
        self.parts = (source, self.inputs, VGroup(self.paint, self.gate), joins[:2], times, joins[2:], out, result)
        self.arrows = (self.inputs, joins[:2], joins[2:])  # in reading order
        self.add(*self.parts)


def _channel_lanes(xs) -> VGroup:
    """One lane per hidden channel, from the paint down to the paper: the stage the rows fill."""
    top, bottom = PAINT_Y + 0.3, PRODUCT_Y - 0.35
    return VGroup(
        *(
            RoundedRectangle(
                corner_radius=0.12,
                width=PITCH * 0.86,
                height=top - bottom,
                color=palette.MUTED,
                stroke_width=2.5,
                fill_color=palette.INK,
                fill_opacity=0.05,
            )
            .move_to((x, (top + bottom) / 2, 0))
            .set_z_index(-1)
            for x in xs
        )
    )


def _brace_note(part, text: str, direction, color) -> VGroup:
    brace = Brace(part, direction, color=color, buff=0.12)
    note = ty.label(text, color=color).next_to(brace, direction, buff=0.15)
    return VGroup(brace, note)


def _value_row(values, xs, y: float) -> VGroup:
    """One value per channel, written above its channel and coloured by sign."""
    top = max(abs(v) for v in values) or 1.0
    return VGroup(
        *(ty.label(ty.fmt_decimal(v), color=value_color(v, top)).move_to((x, y, 0)) for v, x in zip(values, xs))
    )


def _row_name(word: str, second, y: float, color) -> VGroup:
    """A row's name at the left of the frame: a word, and under it what the row holds."""
    name = VGroup(ty.label(word, color=color), second).arrange(DOWN, buff=0.12)
    return name.move_to((NAMES_X, y, 0))


def _contraction(product, w_down, output):
    """The marks h (a column, with their ink), times the rows of W_2, summed into the output."""
    matrix = MatrixMob(w_down, places=2, font_size=ty.LABEL_SIZE, h_buff=0.45).move_to((1.2, 0.55, 0))
    h_col = VGroup(
        *(
            ty.label(ty.fmt_decimal(p), color=paint_color(p)).move_to((-3.2, matrix.entries[i][0].get_y(), 0))
            for i, p in enumerate(product)
        )
    )
    top = max(abs(p) for p in product)
    marks = VGroup(
        *(
            Rectangle(
                width=0.5,
                height=0.3,
                stroke_color=palette.MUTED,
                stroke_width=1,
                fill_color=ink_color(p, top),
                fill_opacity=1,
            ).move_to((-4.3, v.get_y(), 0))
            for p, v in zip(product, h_col)
        )
    )
    times = VGroup(*(ty.math(r"\times", color=palette.MUTED).scale(0.8).move_to((-2.1, v.get_y(), 0)) for v in h_col))
    line = Line(
        (matrix.get_left()[0], matrix.get_bottom()[1] - 0.2, 0),
        (matrix.get_right()[0], matrix.get_bottom()[1] - 0.2, 0),
        color=palette.INK,
    )
    out_y = line.get_y() - 0.45
    out_row = VGroup(
        *(
            ty.label(ty.fmt_decimal(o), color=palette.HIGHLIGHT).move_to((matrix.entries[0][j].get_x(), out_y, 0))
            for j, o in enumerate(output)
        )
    )
    names = VGroup(
        ty.label("marcas del papel").next_to(VGroup(marks, h_col), UP, buff=0.3),
        ty.math("W_2", color=palette.HIGHLIGHT).next_to(matrix, UP, buff=0.25),
        ty.label("salida", color=palette.HIGHLIGHT).move_to((-3.75, out_y, 0)),
    )
    return VGroup(marks, h_col, times, matrix, line, out_row, names)


def _ruler(width: int, multiple: int, unit: float, y: float) -> VGroup:
    """A tick every `multiple` channels under the bar: the rounded width ends on a tick."""
    ticks = VGroup()
    for k in range(width // multiple + 1):
        x = BAR_LEFT + k * multiple * unit
        ticks.add(Line((x, y, 0), (x, y - 0.15, 0), color=palette.INK, stroke_width=1.5))
    return ticks


def _count(tex: str, params: int, color) -> VGroup:
    return VGroup(
        ty.math(tex + " =", color=color).scale(0.85),
        ty.label(f"{ty.fmt_int(params)} parámetros por bloque", color=color),
    ).arrange(RIGHT, buff=0.2)
