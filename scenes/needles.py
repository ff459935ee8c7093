"""Compass needles: a word passes like a magnet over a tray of real MiniLM FFN neurons."""

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
    Indicate,
    LaggedStart,
    Rectangle,
    SurroundingRectangle,
    VGroup,
)

from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.narrated import NarratedScene
from scenes.kit.needles import (
    READING,
    REST,
    THRESHOLD,
    BarMagnet,
    Needle,
    NeedleTray,
    NeedleWave,
    front_start_x,
    magnet_pass,
    tray_row,
)
from scenes.kit.steps import play_in_steps

PANEL_LEFT = 1.75  # left edge of the text panel right of the tray
MAGNET_Y = 2.62  # the magnet's lane, between the title and the tray


class Needles(NarratedScene):
    script = "needles"

    def construct(self):
        data = self.dataset("needles.tray")
        first, second = data.readings
        n = self.number("needles.n_needles")
        first_pre = self.number("needles.first_word.pre_activations")
        second_pre = self.number("needles.second_word.pre_activations")
        first_after = [max(v, 0.0) for v in first_pre]  # the threshold: ReLU's picture of GELU
        second_after = [max(v, 0.0) for v in second_pre]

        tray = NeedleTray(self.number("needles.rows"), self.number("needles.columns"))
        tray.move_to((-6.0 + tray.box.width / 2, 2.15 - tray.box.height / 2, 0))
        title = ty.title("Agujas de brújula").to_corner(UP + LEFT, buff=0.3)
        badge = model_badge(self, "minilm").to_corner(UP + RIGHT, buff=0.3)
        self.floor = self.number("needles.gelu_floor")

        with self.beat("bandeja") as b:
            # The scene opens on its title, badge and the tray of needles at rest already on
            # screen (no cut from the previous scene's full frame to an empty one); a highlight
            # sweeps the tray, row by row, while the voice names the tray of compass needles.
            rows = [VGroup(*tray.needles[r * tray.columns : (r + 1) * tray.columns]) for r in range(tray.rows)]
            self.add(title, badge, tray.box, *rows)
            self.play(
                LaggedStart(*(Indicate(row, color=palette.HIGHLIGHT, scale_factor=1.0) for row in rows), lag_ratio=0.3),
                run_time=b.until("agujas"),
            )
            heading = _in_panel(ty.label("cada aguja es una neurona"), 1.75)
            info = _in_panel(self._sample_info(), 1.0)
            self.play(FadeIn(heading), FadeIn(info), run_time=b.until("reposo"))
            self.wait(b.remaining())

        magnet = BarMagnet(first.word).move_to((front_start_x(tray), MAGNET_Y, 0))
        with self.beat("iman") as b:
            sentence = _in_panel(_sentence_line(first.word, first.sentence), 1.0)
            play_in_steps(
                self,
                b.until("pasa"),
                ((FadeOut(info), FadeIn(magnet, shift=RIGHT * 0.3)), 0.3),
                (FadeIn(sentence), None),
            )
            self.play(magnet_pass(tray, magnet, [0.0] * n, first_pre, REST, READING), run_time=b.until("leyenda"))
            legend = _legend_in_panel(_reading_legend())
            self.play(FadeIn(legend), run_time=b.speech_remaining())

        with self.beat("umbral") as b:
            self.play(legend.animate.set_opacity(0.3), run_time=b.until("tumbar"))
            self.play(NeedleWave(tray, first_pre, first_after, READING, THRESHOLD), run_time=b.until("en_pie"))
            after_legend = _legend_in_panel(_threshold_legend(self.floor))
            play_in_steps(self, b.until("cuenta"), (FadeOut(legend), 0.3), (FadeIn(after_legend), None))
            first_rings = tray.rings(first.standing)
            first_count = _count_row(
                Circle(radius=0.17, color=palette.INK, stroke_width=2.5),
                first.word,
                self.number("needles.first_word.n_standing"),
                n,
            )
            _row_in_panel(first_count, first_count[0], -1.3)
            self.play(
                LaggedStart(*(Create(r) for r in first_rings), lag_ratio=0.15),
                FadeIn(first_count),
                run_time=b.speech_remaining(),
            )

        with self.beat("otra_palabra") as b:
            magnet2 = BarMagnet(second.word).move_to((front_start_x(tray), MAGNET_Y, 0))
            sentence2 = _in_panel(_sentence_line(second.word, second.sentence), 1.0)
            reading_legend = _legend_in_panel(_reading_legend())
            play_in_steps(
                self,
                b.until("gira"),
                (FadeOut(VGroup(magnet, sentence, after_legend)), 0.3),
                ((FadeIn(magnet2, shift=RIGHT * 0.3), FadeIn(sentence2), FadeIn(reading_legend)), None),
            )
            self.play(
                magnet_pass(tray, magnet2, first_after, second_pre, THRESHOLD, READING), run_time=b.until("umbral")
            )
            after_legend = _legend_in_panel(_threshold_legend(self.floor))
            second_count = _count_row(
                Needle(0.4, 1.0, THRESHOLD), second.word, self.number("needles.second_word.n_standing"), n
            )
            _row_in_panel(second_count, second_count[0], -1.95)
            play_in_steps(
                self,
                b.speech_remaining(),
                ((NeedleWave(tray, second_pre, second_after, READING, THRESHOLD), FadeOut(reading_legend)), 0.7),
                ((FadeIn(after_legend), FadeIn(second_count)), None),
            )

        overlap = set(data.overlap)
        with self.beat("solape") as b:
            both = VGroup(*(r for r, p in zip(first_rings, first.standing) if p in overlap))
            first_only = VGroup(*(r for r, p in zip(first_rings, first.standing) if p not in overlap))
            self.play(FadeOut(magnet2), first_only.animate.set_stroke(opacity=0.35), run_time=b.until("ambas"))
            both_count = _count_row(
                Circle(radius=0.17, color=palette.HIGHLIGHT, stroke_width=4),
                "las dos",
                self.number("needles.overlap"),
                n,
                color=palette.HIGHLIGHT,
            )
            _row_in_panel(both_count, both_count[0], -2.6)
            self.play(
                both.animate.set_stroke(palette.HIGHLIGHT, width=4), FadeIn(both_count), run_time=b.until("una_sola")
            )
            singles = VGroup(*first_only, *(tray.needles[p] for p in second.standing if p not in overlap))
            single_line = ty.small(
                f"{ty.fmt_int(self.number('needles.only_one'))} de "
                f"{ty.fmt_int(self.number('needles.union'))}: una sola palabra",
                color=palette.INK,
            )
            single_line.move_to((second_count[1].get_left()[0] + single_line.width / 2, -3.15, 0))
            self.play(
                first_only.animate.set_stroke(opacity=1.0),
                LaggedStart(*(Indicate(m, color=palette.INK, scale_factor=1.4) for m in singles), lag_ratio=0.1),
                FadeIn(single_line),
                run_time=b.speech_remaining(),
            )

        with self.beat("ancho") as b:
            # The layer's trays, folded in rows; later a copy of the word's vector lies over each pair.
            span = self.number("needles.model_trays")
            ratio = self.number("needles.width_ratio")
            layer = tray_row(
                self.number("needles.layer_trays"), tray, width=2.0, gap=0.3, per_row=2 * span, row_gap=0.3
            ).move_to((0, -1.05, 0))
            layer_label = ty.label(
                f"capa feed-forward: {ty.fmt_int(self.number('needles.d_ff'))} neuronas", color=palette.FFN
            ).next_to(layer, DOWN, buff=0.25)
            heading2 = ty.title("La capa entera").to_edge(UP, buff=0.3)
            panel = VGroup(heading, sentence2, after_legend, first_count, second_count, both_count, single_line)
            play_in_steps(
                self,
                b.until("capa"),
                ((FadeOut(panel), FadeOut(first_rings), FadeOut(title), tray.animate.replace(layer[0].box)), 0.6),
                ((FadeIn(heading2), FadeIn(VGroup(*layer[1:]), lag_ratio=0.2)), None),
            )
            self.play(
                FadeIn(layer_label),
                tray.box.animate.set_stroke(palette.HIGHLIGHT, width=3),
                run_time=b.until("modelo"),
            )
            vector = Rectangle(
                width=layer[span - 1].get_right()[0] - layer[0].get_left()[0],
                height=0.4,
                stroke_color=palette.INK,
                stroke_width=2,
                fill_color=palette.INK,
                fill_opacity=0.25,
            )
            vector.next_to(layer, UP, buff=0.3).align_to(layer, LEFT)
            vector_label = ty.label(f"vector de la palabra: {ty.fmt_int(self.number('needles.d_model'))} números")
            vector_label.next_to(vector, RIGHT, buff=0.4)
            self.play(FadeIn(vector), FadeIn(vector_label), run_time=b.until("veces"))
            # Each copy frames the trays it spans: the word is tested against every pattern at once.
            copies = VGroup(
                *(
                    SurroundingRectangle(VGroup(*layer[k * span : (k + 1) * span]), buff=0.08, corner_radius=0.08)
                    .set_stroke(palette.FFN, width=4)
                    .set_fill(palette.FFN, opacity=0.12)
                    for k in range(ratio)
                )
            )
            times = ty.title(f"× {ty.fmt_int(ratio)}", color=palette.FFN).next_to(layer, RIGHT, buff=0.35)
            play_in_steps(
                self,
                b.speech_remaining(),
                (LaggedStart(*(FadeTransform(vector.copy(), c) for c in copies), lag_ratio=0.4), 0.7),
                (FadeIn(times, scale=1.3), None),
            )

    def _sample_info(self) -> VGroup:
        block = self.number("needles.block_number")
        blocks = self.number("params.minilm_l6.n_layers")
        shown = self.number("needles.n_needles")
        width = self.number("needles.d_ff")
        where = ty.small(f"MiniLM · bloque {block} de {blocks}")
        which = ty.small(f"{ty.fmt_int(shown)} de {ty.fmt_int(width)} neuronas, al azar")
        return VGroup(where, which).arrange(DOWN, aligned_edge=LEFT, buff=0.12)


def _in_panel(mob, y: float):
    """Place `mob` in the text panel right of the tray: left-aligned, centred on height `y`."""
    return mob.move_to((PANEL_LEFT + mob.width / 2, y, 0))


def _row_in_panel(rows, icon, y: float, slot: float = 0.5):
    """Place icon-and-text rows (see `_icon_then_text`) so that `icon`'s slot starts at the
    panel's left edge, centred on height `y`: every row's text then starts at the same x."""
    rows.shift(RIGHT * (PANEL_LEFT + slot / 2 - icon.get_center()[0]))
    return rows.shift(UP * (y - rows.get_center()[1]))


def _legend_in_panel(legend: VGroup) -> VGroup:
    return _row_in_panel(legend, legend[0][0], -0.05)


def _sentence_line(word: str, sentence: str) -> VGroup:
    """'la palabra «lemon»' over 'en «the lemon is sour»'."""
    return VGroup(ty.small(f"la palabra «{word}»", color=palette.INK), ty.small(f"en «{sentence}»")).arrange(
        DOWN, aligned_edge=LEFT, buff=0.12
    )


def _icon_then_text(icon, text, slot: float = 0.5, buff: float = 0.25) -> VGroup:
    """`icon` centred in a slot `slot` wide, then `text`: rows built this way line up their texts."""
    text.move_to(icon.get_center() + RIGHT * (slot / 2 + buff + text.width / 2))
    return VGroup(icon, text)


def _legend_row(needle: Needle, text: str, color) -> VGroup:
    return _icon_then_text(needle, ty.label(text, color=color))


def _reading_legend() -> VGroup:
    rows = VGroup(
        _legend_row(Needle(0.5, 1.0, READING), "encaja", palette.POSITIVE),
        _legend_row(Needle(0.5, -1.0, READING), "en contra", palette.NEGATIVE),
    )
    return _stack(rows)


def _threshold_legend(floor: float) -> VGroup:
    """After the threshold: standing (GELU > 0), or flat. Flat is drawn as ReLU's zero, but
    MiniLM's GELU leaves a flat needle's output a little below zero, never under `floor`."""
    rows = VGroup(
        _legend_row(Needle(0.5, 1.0, THRESHOLD), "en pie", palette.ACTIVE),
        _icon_then_text(
            Needle(0.5, 0.0, THRESHOLD),
            VGroup(
                ty.label("tumbada", color=palette.MUTED), ty.small(f"salida entre {ty.fmt_decimal(floor, 2)} y 0")
            ).arrange(DOWN, aligned_edge=LEFT, buff=0.1),
        ),
    )
    return _stack(rows)


def _stack(rows: VGroup) -> VGroup:
    rows.arrange(DOWN, buff=0.3)
    rows[1].shift(RIGHT * (rows[0][0].get_center()[0] - rows[1][0].get_center()[0]))  # icons in one column
    return rows


def _count_row(icon, word: str, count: int, total: int, color=palette.INK) -> VGroup:
    """Icon, then 'lemon: 26 de 192' (word, count standing, of how many)."""
    return _icon_then_text(icon, ty.label(f"{word}: {ty.fmt_int(count)} de {ty.fmt_int(total)}", color=color))
