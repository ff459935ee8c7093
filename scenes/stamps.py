"""Stamps: each FFN unit is a key tied to a value; the output is the sum of the pressed marks.

Real numbers from the trained fact model (ffn_core.stamps): "el limón es", the block whose
FFN pushes the answer hardest, the last word. The loudest stamps are pressed one by one,
the rest at once, the bias last; the page equals the module's own matrix products; the
loudest value read through the output head names the answer.
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Brace,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromEdge,
    LaggedStart,
    Rectangle,
    Square,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from scenes.kit import notation as n
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.blocks import FlowArrow, StageBox
from scenes.kit.narrated import NarratedScene
from scenes.kit.neurons import NeuronGrid
from scenes.kit.stamps import Page, Stamp, SumOfMarks
from scenes.kit.steps import Step, play_in_steps
from scenes.kit.tokens import TokenChip, TokenRow

CELL, GAP = 0.42, 0.05  # one print size for every page and stamp of the scene
PAGE_AT = LEFT * 1.6 + DOWN * 1.75  # where the page lies while stamps are pressed
RACK_AT = LEFT * 1.6 + UP * 2.45  # the row of waiting stamps, straight above the page
LINES_AT = RIGHT * 1.55 + DOWN * 0.25  # top left of the sum written beside the page
ROW_SCALE = 0.38  # stamps waiting in their row
MINI_SCALE = 0.12  # the many weaker stamps
GRID_CELL, GRID_GAP = 0.26, 0.07  # one neuron's square in the grid of the block's neurons
GRID_AT = RIGHT * 2.4 + DOWN * 0.2  # the grid of the block's neurons, right of the model
MODEL_AT = LEFT * 3.9 + DOWN * 0.15  # the model's two blocks, stacked upright
FORMULA_AT = UP * 1.3  # the formula, large, with its picture under it
PICTURE_AT = DOWN * 1.45  # the sum of prints the formula's terms point at


class Stamps(NarratedScene):
    script = "stamps"

    def construct(self):
        # Words (prompt, answer, pushed words) from the dataset; figures come from the registry's numbers.
        reading = self.dataset("stamps.reading")
        d = self.number("stamps.d_model")
        page_scale = max(abs(v) for v in self.number("stamps.output"))
        formula = (
            n.ffn_sum_formula(substrings_to_isolate=[r"\sum_i", n.key_tex(), n.value_tex(), "b_2"])
            .scale(1.3)
            .move_to(FORMULA_AT)
        )
        # The scene opens on the formula and its picture, the prints still blank paper; they ink in
        # as the first words play (not an empty frame after the previous scene's full one).
        picture, arrows = self._formula_picture(formula, page_scale)
        prints = (picture.output_page, *picture.mark_prints, picture.bias_print)
        inks = [piece.values for piece in prints]
        for piece in prints:
            piece.printed([0.0] * d)
        self.add(formula, arrows, picture)

        with self.beat("formula") as b:
            self.play(
                LaggedStart(*(piece.print_sum(ink) for piece, ink in zip(prints, inks)), lag_ratio=0.3),
                run_time=b.until("suma"),
            )
            sigma = SurroundingRectangle(formula.get_part_by_tex(r"\sum_i"), color=palette.HIGHLIGHT, buff=0.1)
            bias = SurroundingRectangle(formula.get_part_by_tex("b_2"), color=palette.MUTED, buff=0.1)
            terms = SurroundingRectangle(picture.mark_prints, color=palette.HIGHLIGHT, buff=0.1)
            bias_print = SurroundingRectangle(picture.bias_print, color=palette.MUTED, buff=0.1)
            self.play(Create(sigma), Create(bias), Create(terms), Create(bias_print), run_time=b.until("llave"))
            key_note = _brace_note(
                formula.get_part_by_tex(n.key_tex()),
                f"{n.KEY_GLOSS}\ncolumna i de {n.matrix(1)}: el patrón que busca",
                UP,
                clear_of=formula,
            )
            self.play(FadeIn(key_note), run_time=b.until("valor"))
            value_note = _brace_note(
                formula.get_part_by_tex(n.value_tex()),
                f"{n.VALUE_GLOSS}\nfila i de {n.matrix(2)}: lo que escribe",
                DOWN,
                clear_of=formula,
            )
            _between(value_note[1], arrows[1], arrows[2])
            self.play(FadeIn(value_note), run_time=b.speech_remaining())

        with self.beat("sello") as b:
            stamp = Stamp(self.number("stamps.loudest_value"), cell=CELL, gap=GAP).scale(0.8)
            stamp.move_to(LEFT * 3.6 + DOWN * 0.6)
            page = Page(d, page_scale, cell=CELL, gap=GAP).move_to(RIGHT * 3.4 + DOWN * 1.2)
            self.play(
                FadeOut(VGroup(sigma, bias, terms, bias_print, key_note, value_note, arrows, picture)),
                formula.animate.scale(0.6).to_edge(UP, buff=0.4),
                FadeIn(stamp),
                FadeIn(page),
                run_time=b.until("mango"),
            )
            handle_note = ty.label(f"{n.KEY}: decide la fuerza").next_to(stamp.handle, UP, buff=0.3)
            self.play(FadeIn(handle_note), stamp.handle.animate.set_fill(palette.INK), run_time=b.until("cara"))
            face_note = ty.label(f"cara entintada: el {n.VALUE}").next_to(stamp.rubber, DOWN, buff=0.35)
            self.play(FadeIn(face_note), stamp.handle.animate.set_fill(palette.MUTED), run_time=b.until("marca"))
            mark = [self.number("stamps.coefficient_1") * v for v in stamp.value]
            self._press(b.speech_remaining(), stamp, page, mark, home=stamp.copy())

        with self.beat("limon") as b:
            about = model_badge(self, "fact_model", layout="row").to_edge(UP, buff=0.4)
            # The model drawn upright: the words enter at the bottom, go up through the blocks,
            # and the answer leaves at the top.
            blocks = self._blocks().move_to(MODEL_AT)
            climb = FlowArrow(blocks[0].get_top(), blocks[1].get_bottom(), color=palette.MUTED)
            self._swap(
                b.until("frase"),
                VGroup(formula, stamp, page, handle_note, face_note),
                FadeIn(about),
                FadeIn(blocks),
                GrowArrow(climb),
            )
            tokens = TokenRow(reading.prompt.split(), gap=0.2).next_to(blocks, DOWN, buff=0.75)
            answer = TokenChip(reading.answer, color=palette.HIGHLIGHT).next_to(blocks, UP, buff=0.75)
            feed = FlowArrow(tokens.get_top(), blocks[0].get_bottom(), color=palette.MUTED)
            out = FlowArrow(blocks[1].get_top(), answer.get_bottom(), color=palette.MUTED)
            sentence = VGroup(tokens, feed, out, answer, climb)
            self.play(
                LaggedStart(FadeIn(tokens), GrowArrow(feed), GrowArrow(out), FadeIn(answer), lag_ratio=0.4),
                run_time=b.until("bloque"),
            )
            chosen = blocks[self.number("stamps.block_number") - 1]
            others = VGroup(*(box for box in blocks if box is not chosen))
            grid = NeuronGrid(self.number("stamps.activations"), columns=16, cell=GRID_CELL, gap=GRID_GAP)
            grid.move_to(GRID_AT)
            reads = FlowArrow(
                chosen.get_right(), grid.get_left() + UP * (chosen.get_y() - grid.get_y()), color=palette.FFN
            )
            play_in_steps(
                self,
                b.until("activas"),
                ((chosen.light_up(), others.animate.set_opacity(0.3)), 0.4),
                ((GrowArrow(reads), FadeIn(grid)), None),
            )
            count = ty.label(
                f"{self.number('stamps.n_active')} de {self.number('stamps.d_ff')} {n.NEURONS}\ncon ReLU > 0",
                color=palette.ACTIVE,
            ).next_to(grid, DOWN, buff=0.35)
            first_note = ty.label(n.neuron(self.number("stamps.first_index")), color=palette.HIGHLIGHT)
            first_note.next_to(grid, UP, buff=0.25).align_to(grid, LEFT)
            # Neuron 0 is the grid's first square (top left; the grid fills row by row).
            first = Square(side_length=GRID_CELL).move_to(grid.get_corner(UP + LEFT) + (RIGHT + DOWN) * GRID_CELL / 2)
            first_box = SurroundingRectangle(first, color=palette.HIGHLIGHT, buff=0.05)
            self.play(grid.light_up(), FadeIn(count), run_time=b.until("indices"))
            self.play(Create(first_box), FadeIn(first_note), run_time=b.speech_remaining())

        with self.beat("presionar") as b:
            page = Page(d, page_scale, cell=CELL, gap=GAP).move_to(PAGE_AT)
            page_title = ty.label("la página").next_to(page, LEFT, buff=0.35)
            where = ty.small(f"«{reading.prompt}» · bloque {self.number('stamps.block_number')} · última palabra")
            where.next_to(page, DOWN, buff=0.15)
            stamps, slots, names = self._stamp_row()
            sums = self.number("stamps.partial_sums")
            lines = VGroup()
            self._swap(
                b.until("sello_1"),
                VGroup(about, sentence, blocks, reads, grid, count, first_box, first_note),
                FadeIn(page),
                FadeIn(page_title),
                FadeIn(where),
                LaggedStart(*(FadeIn(s) for s in stamps), lag_ratio=0.2),
                FadeIn(names),
            )
            coefficients = self.number("stamps.pressed_coefficients")
            units = self.number("stamps.pressed_units")
            mark_sizes = self.number("stamps.pressed_mark_sizes")
            strengths = VGroup()
            steps = zip(("sello_2", "sello_3", "sello_4", None), coefficients, units, mark_sizes)
            for k, (nxt, c, unit, size) in enumerate(steps):
                line = ty.math(("" if k == 0 else "+ ") + rf"{_tex(c)} \cdot {n.value_tex(unit)}").scale(0.85)
                lines.add(line)
                _stack(lines)
                # What the row is ranked by (the mark's size) under what the key decides (the force).
                strength = VGroup(
                    ty.small(f"fuerza {n.activation(c)}", color=palette.ACTIVE),
                    ty.small(f"marca {n.activation(size)}", color=palette.HIGHLIGHT),
                ).arrange(DOWN, buff=0.08, aligned_edge=LEFT)
                strength.next_to(slots[k], DOWN, buff=0.15)
                strengths.add(strength)
                window = b.until(nxt) if nxt else b.speech_remaining()
                self._press(
                    window, stamps[k], page, sums[k], home=slots[k], extra=(FadeIn(strength), Write(line)), dim=True
                )

        with self.beat("resto") as b:
            rest = self._mini_stamps()
            rest_line = ty.math(rf"+ \dots \text{{({self.number('stamps.n_rest')} marcas más)}}").scale(0.85)
            lines.add(rest_line)
            _stack(lines)
            rest_line.set_opacity(0)
            self.play(
                FadeOut(VGroup(*stamps, names, strengths)),
                LaggedStart(*(FadeIn(s) for s in rest), lag_ratio=0.03),
                run_time=b.until("resto"),
            )
            self._press_many(b.until("sesgo"), rest, page, sums, rest_line)
            bias = Stamp(self.number("stamps.bias"), cell=CELL, gap=GAP, mount_color=palette.MUTED).scale(ROW_SCALE)
            bias.move_to(RACK_AT)
            bias_note = ty.label("sesgo b₂: siempre se presiona", color=palette.MUTED).next_to(bias, RIGHT, buff=0.4)
            bias_line = ty.math(r"+ b_2").scale(0.85)
            lines.add(bias_line)
            _stack(lines)
            play_in_steps(
                self,
                b.until("comparar"),
                ((FadeIn(bias), FadeIn(bias_note)), 0.3),
                (Transform(bias, bias.placed_over(page, lift=0.5)), 0.2),
                (Transform(bias, bias.placed_over(page)), 0.1),
                ((page.print_sum(self.number("stamps.output")), Write(bias_line)), 0.2),
                (FadeOut(bias, shift=UP), None),
            )
            pages_y = DOWN * 1.3
            matrix_page = Page(d, page_scale, cell=CELL, gap=GAP).move_to(RIGHT * 3.6 + pages_y)
            matrix_page.printed(self.number("stamps.module_output"))
            sum_title = ty.label("suma de marcas").next_to(matrix_page, UP, buff=0.25).set_x(-3.6)
            matrix_title = ty.label("producto de matrices").next_to(matrix_page, UP, buff=0.25)
            product = n.ffn_formula("ReLU")
            product.scale(0.75).next_to(matrix_title, UP, buff=0.3).set_x(0)
            self.play(
                FadeOut(VGroup(lines, bias_note, page_title, where)),
                page.animate.move_to(LEFT * 3.6 + pages_y),
                FadeIn(sum_title),
                FadeIn(matrix_page),
                FadeIn(matrix_title),
                FadeIn(product),
                run_time=b.until("iguales"),
            )
            equal = ty.math("=").scale(1.6).move_to(pages_y)
            difference = ty.math(r"\text{diferencia máxima: }" + _tex_power(self.number("stamps.max_abs_difference")))
            difference.next_to(VGroup(page, matrix_page), DOWN, buff=0.35)
            self.play(Write(equal), FadeIn(difference), run_time=b.speech_remaining())

        with self.beat("lectura") as b:
            loud = Stamp(self.number("stamps.loudest_value"), cell=CELL, gap=GAP).scale(0.9)
            loud.move_to(LEFT * 4.6 + DOWN * 0.4)
            loud_note = VGroup(
                ty.label(n.neuron(self.number("stamps.loudest_unit"))),
                ty.small("la marca más grande", color=palette.HIGHLIGHT),
            ).arrange(DOWN, buff=0.1)
            loud_note.next_to(loud, UP, buff=0.3)
            self._swap(
                b.until("cabeza"),
                VGroup(page, matrix_page, sum_title, matrix_title, product, equal, difference),
                FadeIn(loud),
                FadeIn(loud_note),
            )
            head = FlowArrow(loud.get_right() + RIGHT * 0.1, loud.get_right() + RIGHT * 2.3)
            head_note = ty.label("cabeza de salida").next_to(head, UP, buff=0.2)
            travelling = loud.face.copy()
            play_in_steps(
                self,
                b.until("palabras"),
                ((GrowArrow(head), FadeIn(head_note)), 0.4),
                (travelling.animate.move_to(head.get_end()).scale(0.3).set_opacity(0), None),
            )
            bars = self._word_bars(reading).next_to(head, RIGHT, buff=0.4)
            bars_title = ty.small("cuánto sube el logit de cada palabra", color=palette.MUTED)
            bars_title.next_to(bars, UP, buff=0.35).align_to(bars, LEFT)
            self.play(
                FadeIn(bars_title),
                FadeIn(bars[0][0]),
                GrowFromEdge(bars[0][1], LEFT),
                FadeIn(bars[0][2]),
                run_time=b.until("otras"),
            )
            self.play(
                *(anim for row in bars[1:] for anim in (FadeIn(row[0]), GrowFromEdge(row[1], LEFT), FadeIn(row[2]))),
                run_time=b.speech_remaining(),
            )

        with self.beat("cierre") as b:
            formula.scale(1 / 0.6).move_to(FORMULA_AT)
            picture, arrows = self._formula_picture(formula, page_scale)
            self._swap(
                b.until("llaves"),
                VGroup(loud, loud_note, head, head_note, bars, bars_title, travelling),
                FadeIn(formula),
                FadeIn(picture),
                *(GrowArrow(a) for a in arrows),
            )
            key_note = _brace_note(
                formula.get_part_by_tex(n.key_tex()), f"{n.KEYS}: reconocen la pregunta", UP, clear_of=formula
            )
            self.play(FadeIn(key_note), run_time=b.until("valores"))
            value_note = _brace_note(
                formula.get_part_by_tex(n.value_tex()), f"{n.VALUES}: escriben la respuesta", DOWN, clear_of=formula
            )
            _between(value_note[1], arrows[1], arrows[2])
            self.play(FadeIn(value_note), run_time=b.until("suma_final"))
            sigma = SurroundingRectangle(formula.get_part_by_tex(r"\sum_i"), color=palette.HIGHLIGHT, buff=0.1)
            around = SurroundingRectangle(picture.mark_prints, color=palette.HIGHLIGHT, buff=0.1)
            self.play(Create(sigma), Create(around), run_time=b.speech_remaining())

    # -- pieces -----------------------------------------------------------------------
    def _swap(self, window, old, *new) -> None:
        """Clear the stage, then bring the next picture in, inside `window`."""
        play_in_steps(self, window, (FadeOut(old), 0.35), (new, None))

    def _press(self, window, stamp: Stamp, page: Page, page_values, home: Stamp, extra=(), dim: bool = False):
        """One press inside `window`: over the page, down, the page inks to `page_values`
        (the sum so far), and back to `home` (dimmed when `dim`: a used stamp)."""
        back = home.copy().set_opacity(0.35) if dim else home
        # Transforms to fixed targets: an `.animate` target would be read only when played.
        play_in_steps(
            self,
            window,
            (Transform(stamp, stamp.placed_over(page, lift=0.35)), 0.3),
            (Transform(stamp, stamp.placed_over(page)), 0.12),
            ((page.print_sum(page_values), *extra), 0.25),
            (Transform(stamp, back), None),
        )

    def _press_many(self, window, rest: VGroup, page: Page, sums, line) -> None:
        """The weaker stamps in four waves; after each wave the page shows the sum so far."""
        first = self.number("stamps.n_pressed")
        waves = 4
        size = -(-len(rest) // waves)
        steps: list[Step] = []
        for w in range(waves):
            group = rest[w * size : (w + 1) * size]
            if not len(group):
                continue
            last = first + w * size + len(group) - 1  # index into the partial sums
            landing = [s.animate.move_to(page.grid.get_center()).scale(2.5).set_opacity(0) for s in group]
            steps.append(((LaggedStart(*landing, lag_ratio=0.15), page.print_sum(sums[last])), 0.22))
        steps[-1] = ((*steps[-1][0], line.animate.set_opacity(1)), None)
        play_in_steps(self, window, *steps)

    def _stamp_row(self) -> tuple[VGroup, list, VGroup]:
        """The stamps with the largest marks in a row above the page, each with its neuron's
        number above it; their home copies (slots) and the names. The faces share one ink
        scale, so a fainter face is a smaller value."""
        values = self.number("stamps.pressed_values")
        units = self.number("stamps.pressed_units")
        face_scale = max(abs(x) for v in values for x in v)
        stamps = VGroup(*(Stamp(v, scale=face_scale, cell=CELL, gap=GAP).scale(ROW_SCALE) for v in values))
        stamps.arrange(RIGHT, buff=1.2).move_to(RACK_AT)
        slots = [s.copy() for s in stamps]
        names = VGroup(*(ty.label(n.neuron(u)).next_to(s, UP, buff=0.15) for u, s in zip(units, stamps)))
        return stamps, slots, names

    def _mini_stamps(self) -> VGroup:
        values = self.number("stamps.rest_values")
        minis = VGroup(*(Stamp(v, cell=CELL, gap=GAP).scale(MINI_SCALE) for v in values))
        minis.arrange_in_grid(cols=8, buff=(0.3, 0.22)).move_to(RACK_AT)
        return minis

    def _blocks(self) -> VGroup:
        n = self.number("stamps.n_blocks")
        boxes = VGroup(*(StageBox(f"bloque {i + 1}: FFN", palette.FFN, width=3.4, height=1.2) for i in range(n)))
        for box in boxes:
            box.light_down()
        return boxes.arrange(UP, buff=0.7)  # block 1 at the bottom: the words climb through them

    def _word_bars(self, reading) -> VGroup:
        """One row per pushed word: the word, a bar as long as its boost, the boost."""
        boosts = self.number("stamps.loudest_boosts")
        longest = max(boosts)
        rows = VGroup()
        for push, boost in zip(reading.loudest_words, boosts):
            color = palette.HIGHLIGHT if push.word == reading.answer else palette.POSITIVE
            word = ty.body(f"«{push.word}»", color=color)
            bar = Rectangle(
                width=3.0 * boost / longest, height=0.45, stroke_width=0, fill_color=color, fill_opacity=0.9
            )
            value = ty.label(f"+{n.activation(boost)}", color=color)
            rows.add(VGroup(word, bar, value))
        word_width = max(row[0].width for row in rows)
        for i, row in enumerate(rows):
            row[0].move_to(DOWN * 1.2 * i, aligned_edge=LEFT)
            row[1].move_to(RIGHT * (word_width + 0.3) + DOWN * 1.2 * i, aligned_edge=LEFT)
            row[2].next_to(row[1], RIGHT, buff=0.2)
        return rows

    def _formula_picture(self, formula, page_scale: float) -> tuple[SumOfMarks, VGroup]:
        """The formula drawn with real prints under it (the page = two loudest marks + ... + the
        bias's print), each piece pointed at by the term of the formula it draws."""
        marks = [
            [c * v for v in value]
            for c, value in zip(self.number("stamps.pressed_coefficients"), self.number("stamps.pressed_values"))
        ][:2]
        picture = SumOfMarks(
            self.number("stamps.output"), marks, self.number("stamps.bias"), page_scale, cell=CELL, gap=GAP
        )
        picture.move_to(PICTURE_AT)
        sigma, bias = formula.get_part_by_tex(r"\sum_i"), formula.get_part_by_tex("b_2")
        # "FFN(x)" is the formula's left part, up to the sum: its middle, at the baseline's depth.
        lhs_x = formula.get_left()[0] + 0.42 * (sigma.get_left()[0] - formula.get_left()[0])
        starts = (
            (lhs_x, bias.get_bottom()[1] - 0.12),
            (sigma.get_x(), sigma.get_bottom()[1] - 0.12),
            (bias.get_x(), bias.get_bottom()[1] - 0.12),
        )
        pieces = (picture.output_page, picture.mark_prints[0], picture.bias_print)
        arrows = VGroup(
            *(
                FlowArrow((x, y, 0), piece.get_top() + UP * 0.08, color=palette.MUTED, buff=0)
                for (x, y), piece in zip(starts, pieces)
            )
        )
        return picture, arrows


def _tex(x: float, places: int = 2) -> str:
    """A decimal for LaTeX with the Spanish comma kept tight."""
    return ty.fmt_decimal(x, places).replace("\u2212", "-").replace(",", "{,}")


def _tex_power(x: float) -> str:
    """x as 'm × 10^e' with one decimal in the mantissa (Spanish comma)."""
    exponent = 0
    mantissa = abs(x)
    while mantissa and mantissa < 1:
        mantissa *= 10
        exponent -= 1
    return rf"{_tex(mantissa, 1)} \times 10^{{{exponent}}}"


def _brace_note(part, text: str, direction, clear_of=None) -> VGroup:
    """A brace on `part` and its note beyond it; with `clear_of` (the whole formula), the note
    is pushed past the formula's edge too (a sum's limits reach below its terms)."""
    brace = Brace(part, direction, color=palette.HIGHLIGHT, buff=0.12)
    note = ty.label(text, color=palette.HIGHLIGHT).next_to(brace, direction, buff=0.15)
    if clear_of is not None:
        if direction[1] < 0:
            note.shift(DOWN * max(0.0, note.get_top()[1] - clear_of.get_bottom()[1] + 0.1))
        else:
            note.shift(UP * max(0.0, clear_of.get_top()[1] - note.get_bottom()[1] + 0.1))
    return VGroup(brace, note)


def _between(note, left_arrow, right_arrow, buff: float = 0.2) -> None:
    """Shift `note` sideways, if needed, so it stays clear of the two arrows beside it (it must
    not cross them): ending `buff` before `right_arrow`, and starting `buff` after `left_arrow`."""
    note.shift(LEFT * max(0.0, note.get_right()[0] - (right_arrow.get_left()[0] - buff)))
    note.shift(RIGHT * max(0.0, left_arrow.get_right()[0] + buff - note.get_left()[0]))


def _stack(lines: VGroup) -> None:
    """The sum written line under line, left-aligned, beside the page."""
    lines.arrange(DOWN, aligned_edge=LEFT, buff=0.2)
    lines.move_to(LINES_AT, aligned_edge=UP + LEFT)
