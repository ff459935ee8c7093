"""Expand and contract: a row vector times a wide matrix gets longer, times a tall one shorter;
then "perro" through a toy FFN (4 -> 8 -> ReLU -> 4, no biases), every vector a row."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowArrow,
    Indicate,
    LaggedStart,
    ReplacementTransform,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    Write,
)

from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.blocks import FlowArrow
from scenes.kit.cards import RowSlots
from scenes.kit.matrix import MatrixMob, VectorRow, count_label, dot_product_steps, shape_label
from scenes.kit.narrated import NarratedScene
from scenes.kit.neurons import state_icon
from scenes.kit.steps import Step, play_in_steps

# The "perro" walk: four row vectors one under the other, names left, sizes right.
STAGE_X = -0.3
STAGE_Y = (2.2, 0.75, -0.7, -2.55)
NAME_RIGHT = -4.95
SIZE_LEFT = 4.45
STAGE_TYPE = {"font_size": ty.SMALL_SIZE, "h_buff": 0.25}  # eight entries must fit across the frame
BIG = ty.BODY_SIZE  # the contraction's entries: the numbers are the subject here, so body size
EXAMPLE = ty.TITLE_SIZE  # the expansion's entries: the product alone fills the frame's middle
JOURNEY_Y = (1.8, 0.0, -1.8)  # the opening's three rows: the vector, expanded, contracted back


class ExpandContract(NarratedScene):
    script = "expand_contract"

    def construct(self):
        x = self.number("expand_contract.input")
        w_expand = self.number("expand_contract.expand_matrix")
        expanded = self.number("expand_contract.expanded")
        contracted = self.number("expand_contract.contracted")
        n_in = self.number("expand_contract.input_width")
        n_mid = self.number("expand_contract.expanded_width")

        heading = ty.title("Expandir y contraer").to_edge(UP, buff=0.5)
        # The worked product, large: the vector left of the matrix, the output right under it,
        # entry j under column j (the column that makes it).
        vec = VectorRow(x, places=0, font_size=EXAMPLE)
        matrix = MatrixMob(w_expand, places=1, font_size=EXAMPLE)
        times, equals = ty.math(r"\cdot").scale(1.2), ty.math("=").scale(1.2)
        VGroup(vec, times, matrix).arrange(RIGHT, buff=0.4).move_to((0, 1.3, 0))
        out = _row_with_pitch(expanded, _pitch(matrix), places=1, font_size=EXAMPLE, h_buff=0.35)
        out.next_to(matrix, DOWN, buff=0.35)
        out.shift(RIGHT * (matrix.entries[0][0].get_x() - out.entry(0).get_x()))
        equals.move_to((times.get_x(), out.get_y(), 0))
        matrix_shape = shape_label(matrix, n_in, n_mid, UP)
        vec_place = vec.get_center()

        with self.beat("vector") as b:
            journey, out_slots = self._journey(vec, out, contracted, n_in, n_mid)
            # The whole trip is there from the first frame (the previous scene ends full); its two
            # verbs, then the rows' sizes, light up as the voice says them.
            self.add(heading, journey)
            verbs, sizes = VGroup(journey[5], journey[9]), VGroup(journey[2], journey[3], journey[7])
            play_in_steps(
                self,
                b.until("vector"),
                (LaggedStart(*(Indicate(v, color=palette.HIGHLIGHT) for v in verbs), lag_ratio=0.6), 0.5),
                (LaggedStart(*(Indicate(s, color=palette.HIGHLIGHT) for s in sizes), lag_ratio=0.3), None),
            )
            vec_slots = journey[0]
            self.play(FadeIn(vec), FadeOut(vec_slots.boxes), run_time=b.speech_remaining())

        with self.beat("expandir") as b:
            # The vector and the wider row it becomes go to the product; the matrix comes between.
            play_in_steps(
                self,
                b.until("col_0"),
                (
                    (
                        FadeOut(VGroup(vec_slots.brackets, *journey[2:])),
                        vec.animate.move_to(vec_place),
                        out_slots.animate.move_to(out.brackets),
                    ),
                    0.35,
                ),
                (FadeIn(VGroup(times, matrix, equals, matrix_shape)), None),
            )
            products = self.number("expand_contract.expand_products")
            lines = self._fill_columns(
                b,
                vec,
                matrix,
                out,
                products,
                ("col_1", "col_2", "col_3", None),
                left_places=0,
                top=-1.1,  # right under the product: the sums and the product read as one drawing
                scale=1.0,
                wrap=False,
                slots=out_slots,
            )

        with self.beat("regla") as b:
            sizes = VGroup(count_label(vec, n_in), matrix_shape, count_label(out, n_mid))
            self.play(FadeOut(lines), FadeIn(sizes[0]), FadeIn(sizes[2]), run_time=b.until("columnas"))
            rule = ty.body("columnas de la matriz = tamaño de la salida", color=palette.HIGHLIGHT)
            rule.next_to(sizes[2], DOWN, buff=0.6)
            columns = VGroup(*(matrix.highlight_column(j) for j in range(n_mid)))
            self.play(
                Create(columns),
                matrix_shape[1].animate.set_color(palette.HIGHLIGHT),
                sizes[2][1].animate.set_color(palette.HIGHLIGHT),
                FadeIn(rule),
                run_time=b.speech_remaining(),
            )

        with self.beat("contraer") as b:
            w_contract = self.number("expand_contract.contract_matrix")
            tall = MatrixMob(w_contract, places=1, font_size=BIG)
            result = VectorRow(contracted, places=2, font_size=BIG)
            times2, equals2 = ty.math(r"\cdot"), ty.math("=")
            # The expanded vector becomes the next product's input: it moves, nothing else stays.
            wide = VectorRow(expanded, places=1, font_size=BIG)
            VGroup(wide, times2, tall, equals2, result).arrange(RIGHT, buff=0.4).move_to(UP * 1.2)
            tall_size = shape_label(tall, n_mid, n_in)
            # The tall matrix comes as the wide one goes: the product on screen changes, never empties.
            self.play(
                FadeOut(VGroup(vec, times, matrix, equals, sizes, columns, rule)),
                ReplacementTransform(out, wide),
                FadeIn(VGroup(times2, tall, equals2, result.brackets, tall_size)),
                run_time=b.until("matriz_alta"),
            )
            self.play(Indicate(tall_size, color=palette.HIGHLIGHT), run_time=b.until("sal_0"))
            products = self.number("expand_contract.contract_products")
            lines = self._fill_columns(
                b,
                wide,
                tall,
                result,
                products,
                ("sal_1", "de_vuelta"),
                left_places=1,
                top=-1.45,
                product_places=2,
                result_places=2,
                scale=0.8,
                wrap=True,
            )
            back = count_label(result, n_in, color=palette.HIGHLIGHT)
            self.play(FadeIn(back), run_time=b.speech_remaining())

        with self.beat("perro") as b:
            stages, sizes, icons = self._perro(
                b, VGroup(heading, wide, times2, tall, equals2, result, tall_size, lines, back)
            )

        with self.beat("cierre") as b:
            wide_box = SurroundingRectangle(VGroup(stages[1], stages[2], icons), color=palette.HIGHLIGHT, buff=0.15)
            wide_note = VGroup(
                ty.small("ida: espacio", color=palette.HIGHLIGHT), ty.small("de trabajo", color=palette.HIGHLIGHT)
            ).arrange(DOWN, aligned_edge=LEFT, buff=0.08)
            wide_note.next_to(wide_box, RIGHT, buff=0.25)
            self.play(FadeOut(sizes), run_time=b.until("ida"))
            self.play(Create(wide_box), FadeIn(wide_note), run_time=b.until("vuelta"))
            ends = VGroup(*(SurroundingRectangle(stages[i], color=palette.FFN, buff=0.15) for i in (0, 3)))
            end_notes = VGroup(
                *(ty.small("tamaño del modelo", color=palette.FFN).next_to(r, RIGHT, buff=0.3) for r in ends)
            )
            self.play(Create(ends), FadeIn(end_notes), run_time=b.speech_remaining())

    def _journey(self, vec, out, contracted, n_in: int, n_mid: int) -> tuple[VGroup, RowSlots]:
        """The scene's whole trip before any number: the vector's place, the wider row it is
        expanded to, the row it is contracted back to, one under the other, each with its size.
        Returns the parts in drawing order (vector's slots, the wider row's slots, then the
        rest) and the wider row's slots (they become the product's output row)."""
        back = VectorRow(contracted, places=2, font_size=EXAMPLE)
        rows = (vec, out.copy(), back)
        for row, y in zip(rows, JOURNEY_Y):
            row.move_to((0, y, 0))
        slots = [RowSlots(row) for row in rows]
        arrows = VGroup(
            *(FlowArrow(a.get_bottom() + DOWN * 0.1, b.get_top() + UP * 0.1) for a, b in zip(slots, slots[1:]))
        )
        verbs = VGroup(
            *(
                ty.body(word, color=palette.FFN).next_to(arrow, RIGHT, buff=0.3)
                for word, arrow in zip(("expandir", "contraer"), arrows)
            )
        )
        counts = VGroup(
            *(
                ty.label(f"{ty.fmt_int(n)} números").next_to(s, RIGHT, buff=0.4)
                for n, s in zip((n_in, n_mid, n_in), slots)
            )
        )
        out_slots = slots[1]
        parts = VGroup(
            slots[0],
            out_slots,
            counts[0],
            counts[1],
            arrows[0],
            verbs[0],
            slots[2],
            counts[2],
            arrows[1],
            verbs[1],
        )
        return parts, out_slots

    def _fill_columns(
        self,
        b,
        vec,
        matrix,
        out,
        products,
        next_marks,
        left_places: int,
        top: float,
        scale: float,
        wrap: bool,
        product_places: int = 1,
        result_places: int = 1,
        slots: RowSlots | None = None,
    ) -> VGroup:
        """One output entry per column: the column lights up, its dot product is written out
        term by term, and the result flies into the output vector. Column j runs from its
        bookmark to `next_marks[j]` (None: to the end of the beat's speech). `wrap` puts the
        sums on a second line, for dot products too long for one. With `slots` (the output's
        empty places), each result drops into its box, and the box goes."""
        lines = VGroup()
        row_box = SurroundingRectangle(vec.grid, color=palette.HIGHLIGHT, buff=0.08, corner_radius=0.05)
        col_box = None
        for j, mark in enumerate(next_marks):
            line = dot_product_steps(
                vec.values[0],
                matrix.values[:, j],
                products[j],
                out.values[0][j],
                left_places=left_places,
                right_places=1,
                product_places=product_places,
                result_places=result_places,
            ).scale(scale)
            if wrap:
                VGroup(*line[1:]).next_to(line[0], DOWN, buff=0.12).align_to(line[0], LEFT).shift(RIGHT * 0.6)
            line.move_to(UP * (top - (1.35 if wrap else 0.75) * scale * j))
            if lines:
                line.align_to(lines[0], LEFT)
            box = matrix.highlight_column(j)
            point = Create(VGroup(row_box, box)) if col_box is None else ReplacementTransform(col_box, box)
            col_box = box
            play_in_steps(
                self,
                b.until(mark) if mark else b.speech_remaining(),
                (point, 0.12),
                (Write(line[0]), 0.4),
                (Write(line[1:4]), 0.2),
                (Write(line[4]), 0.08),
                ((TransformFromCopy(line[4], out.entry(j)), *([FadeOut(slots.boxes[j])] if slots else [])), None),
            )
            lines.add(line)
        out.settle(self)
        if slots is not None:
            # (FadeOut of its boxes split it on the scene: its brackets are their own mobject now.)
            self.remove(slots, slots.brackets)  # they lie exactly under the output's own
        lines.add(row_box, col_box)
        return lines

    def _perro(self, b, previous: VGroup) -> tuple[VGroup, VGroup, VGroup]:
        """'perro' through 4 -> 8 -> ReLU -> 4, each stage's real vector appearing in turn, as a
        row vector (x W, as the scene taught), one stage under the other.
        Returns the stage vectors, their size labels and the on/off icons of the ReLU stage."""
        d_model = self.number("perro.d_model")
        d_ff = self.number("perro.d_ff")
        activated = self.number("perro.activated")
        expanded = VectorRow(self.number("perro.expanded"), places=2, **STAGE_TYPE)
        stages = VGroup(
            VectorRow(self.number("perro.input"), places=1, **STAGE_TYPE),
            expanded,
            # Entry under entry: the activated row keeps the expanded row's column pitch.
            _row_with_pitch(activated, _pitch(expanded), places=2, dim_zeros=True),
            VectorRow(self.number("perro.contracted"), places=2, **STAGE_TYPE),
        )
        for stage_vector, y in zip(stages, STAGE_Y):
            stage_vector.move_to((STAGE_X, y, 0))
        icons = VGroup(
            *(state_icon(v, radius=0.09).next_to(stages[2].entry(i), DOWN, buff=0.2) for i, v in enumerate(activated))
        )
        names = VGroup(
            *(
                ty.label(n).move_to((NAME_RIGHT, s.get_y(), 0), aligned_edge=RIGHT)
                for n, s in zip(("«perro»", "expandido", "activado", "contraído"), stages)
            )
        )
        sizes = VGroup(
            *(
                ty.small(f"{ty.fmt_int(n)} números").move_to((SIZE_LEFT, s.get_y(), 0), aligned_edge=LEFT)
                for n, s in zip((d_model, d_ff, d_ff, d_model), stages)
            )
        )
        # Arrows run down the middle; the last starts under the on/off icons of "activado".
        starts = (stages[0].get_bottom(), stages[1].get_bottom(), icons.get_bottom())
        arrows = VGroup(
            *(FlowArrow(start + DOWN * 0.05, s.get_top() + UP * 0.05) for start, s in zip(starts, stages[1:]))
        )
        ops = VGroup(
            _op(r"\times W_1", notation.shape(d_model, d_ff), arrows[0]),
            _op(r"\mathrm{ReLU}", "", arrows[1]),
            _op(r"\times W_2", notation.shape(d_ff, d_model), arrows[2]),
        )
        heading = ty.title("«perro» en una capa feed-forward").to_edge(UP, buff=0.4)
        # The trip's skeleton first (names, sizes, the rows' empty places, the operations between
        # them); then each stage's real numbers come into their row, computed from the last.
        slots = VGroup(*(RowSlots(stage) for stage in stages))
        rows = [FadeIn(VGroup(n, z, s)) for n, z, s in zip(names, sizes, slots)]
        links = [AnimationGroup(GrowArrow(a), FadeIn(op)) for a, op in zip(arrows, ops)]
        play_in_steps(
            self,
            b.until("entrada"),
            ((FadeOut(previous), FadeIn(heading)), 0.3),
            (LaggedStart(rows[0], links[0], rows[1], links[1], rows[2], links[2], rows[3], lag_ratio=0.3), None),
        )
        self.play(FadeIn(stages[0]), FadeOut(slots[0].boxes), run_time=b.until("expandido"))
        for i, mark in ((1, "activado"), (2, "contraido"), (3, None)):
            # The operation is pointed at, then the stage's vector computed from the last one.
            window = b.until(mark) if mark else b.speech_remaining()  # asked now: a window starts now
            # (A cross-fade, not a morph: digits morphing into other digits are unreadable mid-way.)
            steps: list[Step] = [
                (Indicate(ops[i - 1], color=palette.HIGHLIGHT), 0.3),
                ((FadeOut(slots[i].boxes), FadeTransform(stages[i - 1].copy(), stages[i])), 0.4),
            ]
            if i == 2:
                steps.append((FadeIn(icons), None))
            else:
                steps[-1] = (steps[-1][0], None)
            play_in_steps(self, window, *steps)
        self.remove(*(slot.brackets for slot in slots))  # each lies exactly under its row's own
        return stages, sizes, icons


def _pitch(row: MatrixMob) -> float:
    """Distance between neighbouring entries of a row vector (or columns of a matrix)."""
    return float(row.entries[0][1].get_x() - row.entries[0][0].get_x())


def _row_with_pitch(
    values, pitch: float, font_size: float = STAGE_TYPE["font_size"], h_buff: float = STAGE_TYPE["h_buff"], **kwargs
) -> VectorRow:
    """A row vector (in the stages' type unless told) whose entries sit `pitch` apart (its gap
    widened to match): under another row, or under a matrix's columns, entry under entry."""
    first = VectorRow(values, font_size=font_size, h_buff=h_buff, **kwargs)
    extra = pitch - _pitch(first)
    if abs(extra) < 1e-6:
        return first
    return VectorRow(values, font_size=font_size, h_buff=h_buff + extra, **kwargs)


def _op(tex: str, shape: str, arrow) -> VGroup:
    """What a (downward) arrow does: the operation right of it, then the matrix's shape."""
    op = ty.math(tex).scale(0.8).next_to(arrow, RIGHT, buff=0.25)
    group = VGroup(op)
    if shape:
        group.add(ty.small(f"({shape})").next_to(op, RIGHT, buff=0.2))
    return group
