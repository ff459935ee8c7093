"""The piano roll: the FFN adds to the residual stream, and one fact can be re-punched alone.

The roll is the fact model of ffn_core.memory: one hole per fact (its key: a pattern over
the layer's neurons, not one neuron), in the lane of its answer. Re-punching the lemon's
hole is the real rank-one edit (ffn_core.piano_roll, the same edit as
ffn_core.memory.solve().edit), drawn in the lecture's x.W orientation as
Delta W2 = column x row (d_ff x d_model); then how much of the change each fact's key
receives (1 for the lemon, near 0 for the others: why the others keep their answers).
"""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Circle,
    Create,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowArrow,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
    smooth,
)

from scenes.kit import notation as n
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.blocks import FlowArrow, StageBox
from scenes.kit.narrated import NarratedScene
from scenes.kit.piano_roll import CHECK, Checklist, OuterProduct, ProbabilityBar, Roll, Scroll, StreamToken, note_line
from scenes.kit.steps import play_in_steps

ROLL_Y = 1.4  # centre of the paper: the roll fills the upper part of the frame
NOTE_Y = -1.9  # the note the reading bar plays, under the roll
WAITING = 0.3  # opacity of a part of a diagram drawn before the narration reaches it


def late(t: float) -> float:
    """Rate function that waits for the last 30 % of a step: a note sounds when its hole arrives."""
    return smooth(min(max((t - 0.7) / 0.3, 0.0), 1.0))


class PianoRoll(NarratedScene):
    script = "piano_roll"

    def construct(self):
        # Words as the screen writes them: proper nouns capitalised («Sena → París»).
        proper = set(self.number("piano_roll.proper_nouns"))

        def shown(words):
            return tuple(w[:1].upper() + w[1:] if w in proper else w for w in words)

        self.subjects = shown(self.number("piano_roll.subjects"))
        self.before = shown(self.number("piano_roll.answers_before"))
        self.after = shown(self.number("piano_roll.answers_after"))
        self.lanes = shown(self.number("piano_roll.lanes"))
        self.edited = self.number("piano_roll.edit_index")
        self.old, self.new = shown(self.number("piano_roll.answers_edit"))
        self.stream()
        self.song()
        self.edit()
        self.rest_of_the_song()

    # -- x <- x + FFN(Norm(x)) -------------------------------------------------------------
    def stream(self) -> None:
        with self.beat("suma") as b:
            formula = n.residual_ffn().scale(1.3).to_edge(UP, buff=0.6)
            y = -1.3
            river = FlowArrow(
                (-6.6, y, 0),
                (6.6, y, 0),
                buff=0,
                stroke_width=12,
                color=palette.MUTED,
                max_tip_length_to_length_ratio=0.03,
            )
            river_name = ty.label("flujo residual", color=palette.MUTED).next_to(river, DOWN, buff=0.3).to_edge(LEFT)
            # The whole layer is drawn from the start, dimmed; each part brightens when it is spoken.
            ffn = StageBox("FFN", palette.FFN, width=3.6, height=1.6).move_to((-0.6, 1.2, 0))
            read = FlowArrow((-2.9, y + 0.45, 0), ffn.get_left() + DOWN * 0.4, color=palette.FFN)
            read_note = ty.small("copia normalizada", color=palette.FFN).next_to(read, LEFT, buff=0.15)
            plus = VGroup(
                Circle(radius=0.36, color=palette.FFN, stroke_width=5, fill_color=palette.BACKGROUND, fill_opacity=1),
                ty.math("+", color=palette.FFN).scale(1.3),
            ).move_to((1.6, y, 0))
            write = FlowArrow(ffn.get_right() + DOWN * 0.4, plus.get_top(), color=palette.FFN)
            waiting = VGroup(read, write, plus)
            waiting.set_opacity(WAITING)
            # The scene opens on the formula and the dimmed layer already on screen (no cut from
            # the previous scene's full frame to an empty one); the stream then flows in under
            # them (added first, so it stays behind the plus, and grown from nothing).
            self.add(river, formula, ffn, waiting)
            self.play(GrowArrow(river), FadeIn(river_name), run_time=b.until("flujo"))
            x_token = StreamToken(ty.math("x").scale(1.3), palette.INK).move_to((-5.4, y, 0))
            self.play(FadeIn(x_token, shift=RIGHT * 0.5), run_time=b.until("lee"))
            play_in_steps(
                self,
                b.until("suma"),
                (x_token.animate.move_to((-3.4, y, 0)), 0.3),
                ((read.animate.set_opacity(1), FadeIn(read_note)), 0.4),
                ((ffn.light_up(), plus.animate.set_opacity(1)), None),
            )
            out = StreamToken(ty.math(r"\mathrm{aporte}", color=palette.FFN).scale(1.2), palette.FFN)
            out.move_to((3.4, 0.4, 0))
            total = VGroup(ty.math("x"), ty.math(r"+\;\mathrm{aporte}", color=palette.FFN)).arrange(RIGHT, buff=0.15)
            total = StreamToken(total.scale(1.2), palette.INK).move_to((4.1, y, 0))
            kept = ty.label("x no se reemplaza: se le suma", color=palette.INK).next_to(total, DOWN, buff=0.45)
            play_in_steps(
                self,
                b.speech_remaining(),
                ((write.animate.set_opacity(1), FadeIn(out, shift=DOWN * 0.2)), 0.3),
                (ReplacementTransform(VGroup(x_token, out), total), 0.55),
                (FadeIn(kept, shift=UP * 0.2), None),
            )
            self.play(Indicate(total.content[0], color=palette.INK), run_time=b.remaining())
        self.stage_clear = [formula, river, river_name, ffn, read, read_note, write, plus, total, kept]

    # -- the song as the model knows it ----------------------------------------------------
    def song(self) -> None:
        columns = list(zip(self.subjects, self.before))
        self.roll = Roll(self.lanes, columns).center_paper_at((0, ROLL_Y, 0))
        roll = self.roll.place(self.roll.offset_for(-1))  # the leader: the first hole just past the bar
        with self.beat("rollo") as b:
            self.play(*(FadeOut(m) for m in self.stage_clear), run_time=0.3 * b.until("agujeros"))
            self.play(FadeIn(roll), run_time=b.until("agujeros"))
            key = SurroundingRectangle(roll.hole(0), color=palette.HIGHLIGHT, buff=0.08)
            key_name = ty.label(f"agujero = {n.KEY}", color=palette.HIGHLIGHT).next_to(roll.paper, DOWN, buff=0.35)
            key_name.set_x(roll.column_x(0))
            self.play(Create(key), FadeIn(key_name), run_time=b.until("lectura"))
            self.note = note_line(self.subjects[0], self.before[0]).move_to((roll.bar_x(), NOTE_Y, 0))
            self.glow = roll.bar.port_glow(roll.hole(0).lane)
            value_name = ty.label(f"nota = {n.VALUE}", color=palette.FFN).next_to(self.note, DOWN, buff=0.3)
            play_in_steps(
                self,
                b.until("cancion"),
                ((FadeOut(key), FadeOut(key_name), Scroll(roll, 0)), 0.5),
                ((FadeIn(self.glow), FadeIn(self.note), FadeIn(value_name)), None),
            )
            self.play(FadeOut(value_name), run_time=0.1 * b.speech_remaining())
            self.play_song(range(1, len(self.subjects)), self.before, 0.7 * b.speech_remaining())
            # A hole is a fact's key, a pattern over many neurons: not one neuron per fact.
            self.spread = ty.small(
                f"{self.number('memory.n_facts')} hechos en {self.number('memory.d_ff')} {n.NEURONS}: "
                f"cada {n.KEY} es un patrón repartido entre muchas",
                color=palette.MUTED,
            ).move_to((0, NOTE_Y - 1.3, 0))
            self.play(FadeIn(self.spread, shift=UP * 0.2), run_time=b.speech_remaining())

    def play_song(self, columns, answers, window, notes: bool = True, marks: dict | None = None) -> None:
        """Scroll the roll column by column inside `window`; each hole lights its port at the
        bar as it arrives, and (with `notes`) its note appears under the bar. `marks[j]` are
        animations played as column j arrives."""
        roll, steps = self.roll, []
        columns = list(columns)
        for j in columns:
            glow = roll.bar.port_glow(roll.hole(j).lane)
            arrive = [Scroll(roll, j), FadeTransform(self.glow, glow, rate_func=late), *(marks or {}).get(j, ())]
            if notes:
                note = note_line(self.subjects[j], answers[j]).move_to((roll.bar_x(), NOTE_Y, 0))
                arrive.append(FadeTransform(self.note, note, rate_func=late))
                self.note = note
            steps.append((arrive, 1 / len(columns)))
            self.glow = glow
        play_in_steps(self, window, *steps[:-1], (steps[-1][0], None))

    # -- the edit --------------------------------------------------------------------------
    def edit(self) -> None:
        roll = self.roll
        with self.beat("antes") as b:
            glow = roll.bar.port_glow(roll.hole(self.edited).lane)
            self.play(
                Scroll(roll, self.edited, rate_func=smooth),
                FadeOut(self.note),
                FadeOut(self.spread),
                FadeTransform(self.glow, glow),
                run_time=b.until("pregunta"),
            )
            self.glow = glow
            prompt = ty.body(f"el {self.subjects[self.edited]} es …").move_to((-4.9, -2.45, 0))
            self.play(FadeIn(prompt), run_time=0.4 * b.until("respuesta"))
            self.wait(b.until("respuesta"))
            bars = self._bars(
                self.number("memory.edit.old_answer_probability_before"),
                self.number("piano_roll.new_probability_before"),
            )
            self.play(
                LaggedStart(*(FadeIn(bar, shift=RIGHT * 0.3) for bar in bars), lag_ratio=0.4),
                run_time=0.6 * b.speech_remaining(),
            )

        with self.beat("perforar") as b:
            old_lane, new_lane = self.lanes.index(self.old), self.lanes.index(self.new)
            old_tag = roll.lane_tag(old_lane, palette.FFN)
            old_fact = note_line(self.subjects[self.edited], self.old).move_to((-3.3, NOTE_Y - 0.3, 0))
            # The paper is pulled back a little, so the hole to re-punch sits clear of the bar.
            play_in_steps(
                self,
                b.until("tapar"),
                (
                    (
                        FadeOut(bars),
                        FadeOut(prompt),
                        FadeOut(self.glow),
                        Scroll(roll, self.edited - 0.7, rate_func=smooth),
                    ),
                    0.5,
                ),
                ((FadeIn(old_tag), FadeIn(old_fact)), None),
            )
            patch, hole = roll.repunch(self.edited, new_lane)
            hole.set_opacity(0)
            strike = Line(old_fact.get_left(), old_fact.get_right(), color=palette.HIGHLIGHT, stroke_width=4)
            self.play(
                FadeIn(patch, scale=1.4),
                Create(strike),
                old_fact.animate.set_opacity(0.5),
                run_time=b.until("perforar"),
            )
            new_tag = roll.lane_tag(new_lane, palette.HIGHLIGHT)
            new_fact = note_line(self.subjects[self.edited], self.new, palette.HIGHLIGHT)
            new_fact.move_to((3.3, NOTE_Y - 0.3, 0))
            punch = SurroundingRectangle(hole, color=palette.HIGHLIGHT, buff=0.1, stroke_width=4)
            play_in_steps(
                self,
                b.speech_remaining(),
                ((hole.animate.set_opacity(1), Create(punch), FadeIn(new_tag), FadeIn(new_fact)), 0.4),
                (FadeOut(punch), None),
            )
            self.tags = VGroup(old_tag, new_tag)

        with self.beat("rango_uno") as b:
            self.outer_product(b)

        with self.beat("respuesta") as b:
            self.key_responses(b)

        with self.beat("despues") as b:
            self.play(*(FadeOut(m) for m in self.mobjects), run_time=0.3 * b.until("nueva"))
            self.glow = roll.bar.port_glow(new_lane, palette.HIGHLIGHT)
            prompt = ty.body(f"el {self.subjects[self.edited]} es …").move_to((-4.9, -2.45, 0))
            self.play(FadeIn(roll), FadeIn(self.tags), FadeIn(prompt), run_time=0.4 * b.until("nueva"))
            self.play(
                Scroll(roll, self.edited, rate_func=smooth),
                FadeIn(self.glow, rate_func=late),
                run_time=b.until("nueva"),
            )
            bars = self._bars(
                self.number("piano_roll.old_probability_after"), self.number("memory.edit.new_answer_probability_after")
            )
            self.play(FadeIn(bars[1], shift=RIGHT * 0.3), run_time=b.until("vieja"))
            self.play(FadeIn(bars[0], shift=RIGHT * 0.3), run_time=0.5 * b.speech_remaining())
            self.after_edit = VGroup(prompt, bars, self.tags)

    def outer_product(self, b) -> None:
        """Delta W2 in the lecture's x.W orientation: d_ff rows (one per neuron's value) by
        d_model columns; a column (a direction over the neurons) times the row u."""
        rows, cols = self.number("piano_roll.update_matrix_shape")
        self.play(*(FadeOut(m) for m in self.mobjects), run_time=0.3 * b.until("columna"))
        heading = VGroup(
            ty.math(r"\Delta W_2 = \frac{C^{-1} k^{\top}}{k\, C^{-1} k^{\top}}\; u").scale(0.95),
            ty.label(f"{n.shape(rows, cols)}: la forma de {n.matrix(2)} en x · {n.matrix(2)}", color=palette.MUTED),
        ).arrange(RIGHT, buff=0.6)
        heading.to_edge(UP, buff=0.3)
        product = OuterProduct(
            self.number("piano_roll.update_row"),  # d_ff numbers: the column of Delta W2
            self.number("piano_roll.update_column"),  # d_model numbers: u, the row
            width=3.2,
            height=4.6,
            strip=0.3,
        ).move_to((-1.0, -1.05, 0))
        # The change to W2 first, as a whole matrix; then what it is made of: a column times a row.
        play_in_steps(
            self,
            b.until("columna"),
            (FadeIn(heading), 0.3),
            (
                (
                    Create(product.frame),
                    LaggedStart(*(FadeIn(r, shift=DOWN * 0.1) for r in product.product), lag_ratio=0.01),
                ),
                None,
            ),
        )
        column_name = ty.small(f"columna:\nuna dirección\nen las {rows}\n{n.NEURONS}", color=palette.INK)
        column_name.next_to(product.column, LEFT, buff=0.3)
        self.play(GrowFromEdge(product.column, UP), FadeIn(column_name), run_time=b.until("fila"))
        u_name = ty.small(f"u: cuánto cambia la nota\nde «{self.subjects[self.edited]}» ({cols} números)")
        u_name.next_to(product.row, RIGHT, buff=0.35)
        self.play(GrowFromEdge(product.row, LEFT), FadeIn(u_name), run_time=b.until("producto"))
        rows_note = ty.small(
            f"cada fila: u por un número\n(el cambio del {n.VALUE} de una neurona)", color=palette.HIGHLIGHT
        )
        rows_note.next_to(product.frame, RIGHT, buff=0.5).align_to(product.frame, UP).shift(DOWN * 0.6)
        sample = VGroup(
            *(
                SurroundingRectangle(product.product_row(i), color=palette.HIGHLIGHT, buff=0.02, stroke_width=2)
                for i in (0, rows // 2, rows - 1)
            )
        )
        play_in_steps(self, b.until("rango"), ((FadeIn(rows_note), Create(sample)), 0.7), (FadeOut(sample), None))
        rank = self.number("memory.edit.update_rank")
        size = self.number("memory.edit.relative_update_norm")
        facts = ty.label(f"rango {rank}\n‖Δ{n.matrix(2)}‖ / ‖{n.matrix(2)}‖ = {n.share(size)}", color=palette.HIGHLIGHT)
        facts.next_to(rows_note, DOWN, buff=0.6).align_to(rows_note, LEFT)
        same = VGroup(
            *(
                SurroundingRectangle(product.product_row(i), color=palette.HIGHLIGHT, buff=0.02, stroke_width=2)
                for i in (0, rows // 2, rows - 1)
            )
        )
        play_in_steps(self, b.speech_remaining(), (FadeIn(facts), 0.3), (Create(same), 0.4), (FadeOut(same), None))
        self.product = product

    def key_responses(self, b) -> None:
        """The column is not the lemon's key: C^-1 k^T / (k C^-1 k^T). How much of u each fact's
        key receives, k_j . column: 1 for the lemon, near 0 for the other facts."""
        facts = self.number("memory.n_facts")
        column = ty.math(r"\text{columna} = \frac{C^{-1} k^{\top}}{k\, C^{-1} k^{\top}}").scale(0.95)
        column.to_edge(UP, buff=0.3).to_edge(LEFT, buff=0.6)
        key_note = ty.small(
            f"k: la {n.KEY} de «{self.subjects[self.edited]}», sus {self.number('memory.d_ff')} activaciones"
            f" ({self.number('piano_roll.key_active')} mayores que cero)"
        )
        c_note = ty.small(f"C: cómo se parecen las {n.KEYS} de los\n{facts} hechos (su segundo momento)")
        key_note.next_to(column, DOWN, buff=0.3).align_to(column, LEFT)
        # The product stays, smaller, under the formula that says what its column is.
        product = self.product
        kept = set(product.get_family())
        self.remove(*(m for m in self.mobjects if m in kept))
        self.add(product)
        target = product.copy().scale(0.72)
        target.next_to(key_note, DOWN, buff=0.25).align_to(key_note, LEFT).shift(RIGHT * 0.2)
        c_note.next_to(target, RIGHT, buff=0.5).align_to(target, UP)
        c_home = c_note.copy().next_to(key_note, DOWN, buff=0.15).align_to(key_note, LEFT).get_center()
        # «¿Qué columna?»: this one, the strip left of the product.
        which = SurroundingRectangle(target.column, color=palette.HIGHLIGHT, buff=0.05, stroke_width=3)
        play_in_steps(
            self,
            b.until("llave"),
            ((*(FadeOut(m) for m in self.mobjects if m is not product), Transform(product, target)), 0.5),
            ((Write(column), Create(which)), None),
        )
        self.play(FadeIn(key_note), run_time=b.until("corregida"))
        self.play(FadeIn(c_note), run_time=b.until("otras"))
        responses = self.number("piano_roll.key_responses")
        bars, names, axis, y_name = _response_bars(responses, self.subjects, self.edited)
        edited_value = ty.label(n.activation(self.number("piano_roll.edited_key_response")), color=palette.HIGHLIGHT)
        edited_value.next_to(bars[self.edited], UP, buff=0.12)
        others = ty.label(
            f"los otros {self.number('memory.edit.others_count')}: |kⱼ · columna| ≤ "
            f"{n.activation(self.number('piano_roll.max_other_response'))}",
            color=palette.ACTIVE,
        )
        others.next_to(axis, UP, buff=1.0).align_to(bars[self.edited + 1], LEFT).shift(RIGHT * 0.3)
        play_in_steps(
            self,
            b.speech_remaining(),
            ((FadeOut(product), FadeOut(which), c_note.animate.move_to(c_home)), 0.12),
            ((Create(axis), FadeIn(y_name), FadeIn(names)), 0.2),
            ((GrowFromEdge(bars[self.edited], DOWN), FadeIn(edited_value)), 0.3),
            ((*(GrowFromEdge(bar, DOWN) for k, bar in enumerate(bars) if k != self.edited), FadeIn(others)), None),
        )

    # -- the rest of the song --------------------------------------------------------------
    def rest_of_the_song(self) -> None:
        others = [j for j in range(len(self.subjects)) if j != self.edited]
        flags = self.number("piano_roll.others_unchanged_flags")
        with self.beat("resto") as b:
            self.play(FadeOut(self.after_edit), FadeOut(self.glow), run_time=b.until("tocar"))
            self.glow = self.roll.bar.port_glow(self.roll.hole(self.edited).lane, palette.HIGHLIGHT)
            self.add(self.glow)
            grid = Checklist([(self.subjects[j], self.after[j], flag) for j, flag in zip(others, flags)], top=-1.1)
            marks = {j: (FadeIn(item, rate_func=late),) for j, item in zip(others, grid.items)}
            self.play_song(others, self.after, b.until("cuenta"), notes=False, marks=marks)
            count = ty.label(
                f"{CHECK} {self.number('piano_roll.others_unchanged')} de "
                f"{self.number('memory.edit.others_count')} iguales",
                color=palette.ACTIVE,
            )
            count.move_to((0, grid.free_cell()[1], 0))
            self.play(FadeOut(self.glow), FadeIn(count, scale=1.2), run_time=b.speech_remaining())
            self.grid, self.count = grid, count

        with self.beat("cierre") as b:
            self.play(FadeOut(self.grid), FadeOut(self.count), run_time=0.3 * b.until("direccion"))
            question = ty.body("¿Por qué el resto suena igual?").move_to((0, -1.45, 0))
            self.play(FadeIn(question), Scroll(self.roll, self.edited, rate_func=smooth), run_time=b.until("direccion"))
            hole = SurroundingRectangle(self.roll.hole(self.edited), color=palette.HIGHLIGHT, buff=0.08)
            line1 = ty.label(
                f"por la dirección del cambio: las otras {n.KEYS} casi no lo reciben", color=palette.HIGHLIGHT
            ).move_to((0, -2.05, 0))
            self.play(Create(hole), FadeIn(line1), run_time=b.until("juguete"))
            toy = model_badge(self, "fact_model", layout="row").move_to((0, -2.6, 0))
            self.play(FadeOut(hole), FadeIn(toy), run_time=b.until("limites"))
            line2 = ty.label(
                "en modelos grandes se edita parecido, con límites conocidos", color=palette.MUTED
            ).move_to((0, -3.1, 0))
            # The song plays on past the re-punched hole: every other hole where it was.
            play_in_steps(
                self,
                b.speech_remaining(),
                (FadeIn(line2), 0.25),
                (Scroll(self.roll, len(self.subjects) - 1), None),
            )

    # -- pieces ----------------------------------------------------------------------------
    def _bars(self, old_probability: float, new_probability: float) -> VGroup:
        bars = VGroup(
            ProbabilityBar(self.old, old_probability, palette.FFN),
            ProbabilityBar(self.new, new_probability, palette.HIGHLIGHT),
        )
        bars.arrange(DOWN, buff=0.4, aligned_edge=LEFT).move_to((1.6, -2.45, 0))
        return bars


def _response_bars(responses, subjects, edited: int, height: float = 2.0, pitch: float = 0.64):
    """One bar per fact, as tall as k_j . column (the edited fact's is 1), on a baseline, with
    the subjects under it and the quantity named at the left."""
    y0 = -1.9
    xs = [(k - (len(responses) - 1) / 2) * pitch + 1.6 for k in range(len(responses))]
    bars = VGroup()
    for k, (x, r) in enumerate(zip(xs, responses)):
        h = max(abs(r) * height, 0.015)
        color = palette.HIGHLIGHT if k == edited else palette.ACTIVE
        bar = Rectangle(width=pitch * 0.6, height=h, stroke_width=0, fill_color=color, fill_opacity=0.9)
        bar.move_to((x, y0 + (h / 2 if r >= 0 else -h / 2), 0))
        bars.add(bar)
    axis = Line((xs[0] - pitch / 2, y0, 0), (xs[-1] + pitch / 2, y0, 0), color=palette.MUTED, stroke_width=2)
    names = VGroup(
        *(
            ty.small(word, color=palette.HIGHLIGHT if k == edited else palette.INK)
            .rotate(1.5708)
            .move_to((x, 0, 0))
            .align_to((0, y0 - 0.12, 0), UP)
            for k, (x, word) in enumerate(zip(xs, subjects))
        )
    )
    y_name = ty.small("kⱼ · columna:\ncuánto de u\nrecibe cada hecho", color=palette.MUTED)
    y_name.next_to(axis, LEFT, buff=0.3).align_to((0, y0 + height, 0), UP)
    return bars, names, axis, y_name
