"""Attention in brief: Q, K, V, the score table, its scale, the causal mask, the softmax and
the weighted sum of values, with the fact model's real numbers; two heads side by side; and
the point of it all: attention mixes positions, the FFN works on each position alone."""

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
    GrowFromCenter,
    Indicate,
    ReplacementTransform,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
)

from scenes.kit import notation as nt
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.attention_map import Heatmap, row_words, weight_arcs
from scenes.kit.badges import model_badge
from scenes.kit.blocks import FlowArrow, StageBox
from scenes.kit.narrated import NarratedScene
from scenes.kit.steps import play_in_steps
from scenes.kit.tokens import TokenRow

ROW_H = 0.75  # height of one token's row in every heatmap of Q, K, V
SCORE_CELL = (1.45, 0.85)  # the query x key table, wide enough for "−62,17"
SCORE_AT = RIGHT * 2.6 + DOWN * 0.6  # where that table stays from the scores to the softmax


class Attention(NarratedScene):
    script = "attention"

    def construct(self):
        walk = self.dataset("attention.walk")
        focus_query = self.number("attention.focus_query")
        self.tokens = walk.tokens
        self.focus = walk.index(focus_query)
        self.subject = walk.index(walk.top_key(0, focus_query))  # where head 1 sends «es»
        n_heads = self.number("memory.n_heads")
        heading = ty.title("La atención, en breve", color=palette.ATTENTION).to_corner(UP + LEFT, buff=0.35)

        with self.beat("frase") as b:
            chips = TokenRow(self.tokens, gap=0.5).scale(1.25).move_to(DOWN * 0.95)
            caption = ty.small(
                f"{nt.model_name('fact_model', capitalized=True)} · bloque {self.number('attention.layer_number')} "
                f"de {self.number('memory.n_layers')}"
            ).next_to(chips, DOWN, buff=0.5)
            # The model is met here: its badge first large in the middle while the voice presents
            # it, then in the corner for the rest of the scene.
            self.badge = model_badge(self, "fact_model").to_corner(UP + RIGHT, buff=0.3)
            intro = self.badge.copy().scale(2.2).next_to(chips, UP, buff=0.3)
            # The scene opens on the heading and the model already on screen (no cut from the
            # previous scene's full frame to an empty one); the voice presents the model.
            self.add(heading, intro)
            self.play(Indicate(intro, color=palette.ATTENTION, scale_factor=1.05), run_time=0.3 * b.until("frase"))
            self.wait(b.until("frase"))
            # The sentence the model reads, under the model that reads it.
            self.play(FadeIn(chips, shift=UP * 0.2), FadeIn(caption), run_time=b.until("vectores"))
            x_map, labels = self._input_map()
            play_in_steps(
                self,
                b.speech_remaining(),
                (
                    (
                        FadeOut(caption),
                        ReplacementTransform(intro, self.badge),
                        *(ReplacementTransform(c.label, label) for c, label in zip(chips.chips, labels)),
                        *(FadeOut(c.box) for c in chips.chips),
                    ),
                    0.4,
                ),
                ((FadeIn(x_map, shift=RIGHT * 0.3),), None),
            )

        with self.beat("qkv") as b:
            q_map, k_map, v_map = self._qkv_maps(x_map)
            self.play(Indicate(x_map.grid, color=palette.ATTENTION, scale_factor=1.02), run_time=b.until("consulta"))
            self.play(FadeOut(x_map), FadeIn(q_map, shift=RIGHT * 0.3), run_time=b.until("llave"))
            self.play(FadeIn(k_map, shift=RIGHT * 0.3), run_time=b.until("valor"))
            self.play(FadeIn(v_map, shift=RIGHT * 0.3), run_time=b.speech_remaining())

        table = Heatmap(
            self.number("attention.head1.scores"),
            places=2,
            cell_width=SCORE_CELL[0],
            cell_height=SCORE_CELL[1],
            row_labels=self.tokens,
            col_labels=self.tokens,
        )
        table.shift(SCORE_AT - table.grid.get_center())
        with self.beat("puntos") as b:
            q_small, k_small = self._qk_column(q_map, k_map)
            corner = ty.math(r"Q\,K^{\top}", color=palette.ATTENTION).next_to(table.col_labels, LEFT, buff=0.45)
            corner.align_to(table.col_labels, DOWN)
            table.hide_rows(range(len(self.tokens)))
            self.play(
                FadeOut(VGroup(v_map, labels, q_map[1:], k_map[1:])),
                ReplacementTransform(q_map[0], q_small[0]),
                ReplacementTransform(k_map[0], k_small[0]),
                FadeIn(q_small[1:]),
                FadeIn(k_small[1:]),
                FadeIn(corner),
                FadeIn(table.row_labels),
                FadeIn(table.col_labels),
                run_time=b.until("tabla"),
            )
            self.add(table)
            boxes = self._fill_scores(b, table, q_small, k_small)
            cell = table.cell_box(self.focus, self.subject)
            self.play(FadeOut(boxes), Create(cell), run_time=b.speech_remaining())

        with self.beat("escala") as b:
            steps = self._pipeline()
            # The steps now name what the table holds; the corner's formula moves to their head.
            self.play(
                FadeOut(VGroup(q_small, k_small, cell)),
                ReplacementTransform(corner, steps[0]),
                FadeIn(steps[1]),
                run_time=b.until("escala"),
            )
            self.play(*table.retarget(self.number("attention.head1.scaled")), run_time=b.speech_remaining())
            table.drop_faded()

        with self.beat("mascara") as b:
            self.play(_mark_done(steps[1]), FadeIn(steps[2]), run_time=b.until("futuro"))
            self.play(
                *table.retarget(table.values, visible=self.number("attention.head1.visible")),
                run_time=b.speech_remaining(),
            )
            table.drop_faded()

        with self.beat("softmax") as b:
            sums = self._row_sums(table)
            weights_name = VGroup(
                ty.label("pesos de", color=palette.ATTENTION), ty.label("atención", color=palette.ATTENTION)
            ).arrange(DOWN, aligned_edge=RIGHT, buff=0.08)
            weights_name.next_to(table.col_labels, LEFT, buff=0.45).align_to(table.col_labels, DOWN)
            self.play(
                _mark_done(steps[2]), FadeIn(steps[3]), FadeIn(sums[0]), FadeIn(weights_name), run_time=b.until("filas")
            )
            weights = self.number("attention.head1.weights")
            seen = np.ones_like(weights)  # a masked key's weight is an ordinary zero now
            last = len(self.tokens) - 1
            play_in_steps(
                self,
                b.until("es"),
                *(
                    (
                        (*table.retarget(weights, kind="weight", visible=seen, rows=[i]), FadeIn(sums[1][i])),
                        0.25 if i < last else None,
                    )
                    for i in range(len(self.tokens))
                ),
            )
            table.drop_faded()
            cell = table.cell_box(self.focus, self.subject)
            self.play(Create(cell), run_time=b.speech_remaining())

        with self.beat("mezcla") as b:
            mix = self._weighted_sum(b, table, VGroup(steps, sums, cell, weights_name))

        with self.beat("cabezas") as b:
            title = ty.title("Dos cabezas", color=palette.ATTENTION).to_corner(UP + LEFT, buff=0.35)
            maps = self._head_maps(n_heads)
            # The weights just used are the first head's: that table grows into its place.
            self.play(
                FadeOut(VGroup(mix[1:], heading)),
                ReplacementTransform(mix[0], maps[0][1]),
                FadeIn(title),
                run_time=b.until("lado"),
            )
            self.play(FadeIn(maps[0][0]), FadeIn(maps[1], shift=UP * 0.2), run_time=b.until("primera"))
            first = VGroup(
                maps[0][1].row_box(self.focus, color=palette.MUTED), maps[0][1].cell_box(self.focus, self.subject)
            )
            self.play(Create(first), run_time=b.until("segunda"))
            second_key = self.tokens.index(walk.top_key(1, focus_query))
            second = VGroup(
                maps[1][1].row_box(self.focus, color=palette.MUTED), maps[1][1].cell_box(self.focus, second_key)
            )
            self.play(Create(second), run_time=b.speech_remaining())

        with self.beat("cierre") as b:
            self._mixing_versus_alone(b, VGroup(title, maps, first, second))

    # -- the input and its three projections --------------------------------------------
    def _input_map(self) -> tuple[Heatmap, VGroup]:
        """Each word's input vector as a row of coloured cells, the words as row labels."""
        x = Heatmap(self.number("attention.input"), cell_width=0.3, cell_height=ROW_H)
        labels = self._row_labels(x)
        VGroup(labels, x).move_to(DOWN * 0.2)
        size = ty.label(
            f"{ty.fmt_int(self.number('memory.d_model'))} números por palabra", color=palette.MUTED
        ).next_to(x, DOWN, buff=0.35)
        x.add(size)
        return x, labels

    def _row_labels(self, heatmap: Heatmap) -> VGroup:
        return row_words(self.tokens, [row[0] for row in heatmap.cells], LEFT)

    def _qkv_maps(self, x_map: Heatmap) -> tuple[VGroup, VGroup, VGroup]:
        """Q, K, V of head 1 side by side, in the rows of the input map, each with its name."""
        names = nt.ATTENTION_NAMES  # Q consulta, K llave, V valor
        maps = []
        values = (self.number("attention.head1.q"), self.number("attention.head1.k"), self.number("attention.head1.v"))
        scale = float(max(np.max(np.abs(v)) for v in values))
        for (letter, word), value in zip(names, values):
            heat = Heatmap(value, cell_width=0.2, cell_height=ROW_H, scale=scale)
            header = VGroup(ty.math(letter, color=palette.ATTENTION), ty.label(word)).arrange(RIGHT, buff=0.2)
            header.next_to(heat, UP, buff=0.25)
            maps.append(VGroup(heat, header))
        row = VGroup(*maps).arrange(RIGHT, buff=0.45, aligned_edge=DOWN)
        # Rows where the input's rows were, so the word labels stay put.
        row.shift(x_map.grid.get_corner(UP + LEFT) - maps[0][0].grid.get_corner(UP + LEFT))
        width = ty.label(
            f"{ty.fmt_int(self.number('attention.head_dim'))} números cada uno", color=palette.MUTED
        ).next_to(row, DOWN, buff=0.35)
        maps[2].add(width)  # shown with the last of the three: "cada uno"
        return tuple(maps)

    def _qk_column(self, q_map: VGroup, k_map: VGroup) -> tuple[VGroup, VGroup]:
        """Q above K on the left, smaller, each with the words as row labels (targets of a move)."""
        column = []
        for source in (q_map, k_map):
            heat = Heatmap(source[0].values, cell_width=0.17, cell_height=0.55, scale=source[0].value_scale)
            labels = self._row_labels(heat)
            letter = source[1][0].copy().next_to(labels, LEFT, buff=0.3)
            column.append(VGroup(heat, letter, labels))
        VGroup(*column).arrange(DOWN, buff=0.3).to_edge(LEFT, buff=0.45).shift(DOWN * 0.6)
        return column[0], column[1]

    # -- the score table --------------------------------------------------------------------
    def _fill_scores(self, b, table: Heatmap, q_small: VGroup, k_small: VGroup) -> VGroup:
        """Row i of Q K^T appears while query row i and every key are boxed."""
        q_heat, k_heat = q_small[0], k_small[0]
        k_box = SurroundingRectangle(k_heat, color=palette.HIGHLIGHT, buff=0.05)
        q_box = q_heat.row_box(0)
        steps = []
        for i in range(len(self.tokens)):
            box = q_heat.row_box(i)
            move = (Create(q_box), Create(k_box)) if i == 0 else (ReplacementTransform(q_box, box),)
            if i:
                q_box = box
            steps.append(((*move, *table.reveal_row(i)), 0.25 if i < len(self.tokens) - 1 else None))
        play_in_steps(self, b.until("cifra"), *steps)
        return VGroup(q_box, k_box)

    def _pipeline(self) -> VGroup:
        """The four steps from scores to weights, listed on the left; each appears on its turn."""
        head_dim = self.number("attention.head_dim")
        scale = self.number("memory.attention.scale")
        rows = VGroup(
            ty.math(r"Q\,K^{\top}", color=palette.MUTED),
            ty.math(
                rf"\div \sqrt{{{head_dim}}} = \times\,{ty.fmt_decimal(scale).replace(',', '{,}')}",
                color=palette.ATTENTION,
            ),
            ty.label("máscara causal", color=palette.ATTENTION),
            ty.label("softmax por filas", color=palette.ATTENTION),
        ).arrange(DOWN, buff=0.55, aligned_edge=LEFT)
        rows.to_edge(LEFT, buff=0.5).shift(DOWN * 0.6)
        return rows

    def _row_sums(self, table: Heatmap) -> VGroup:
        """'suma' above a column right of the table, and each weight row's computed sum."""
        sums = self.number("attention.head1.row_sums")
        header = ty.label("suma", color=palette.MUTED).next_to(table.grid, RIGHT, buff=0.3)
        header.align_to(table.col_labels, DOWN)
        values = VGroup(
            *(
                ty.label(ty.fmt_decimal(s), color=palette.ATTENTION).next_to(table.cells[i][-1], RIGHT, buff=0.3)
                for i, s in enumerate(sums)
            )
        )
        return VGroup(header, values)

    # -- the weighted sum of values -----------------------------------------------------------
    def _weighted_sum(self, b, table: Heatmap, previous: VGroup) -> VGroup:
        """The row of «es»: its weights meet the value rows, and their weighted sum is its output."""
        weights = np.asarray(self.number("attention.head1.weights"))[self.focus]
        values = self.number("attention.head1.v")
        output = [self.number("attention.head1.output")[self.focus]]
        scale = float(np.max(np.abs(values)))
        v_heat = Heatmap(values, cell_width=0.24, cell_height=0.62, scale=scale)
        out_heat = Heatmap(output, cell_width=0.24, cell_height=0.62, scale=scale)
        v_heat.move_to(RIGHT * 2.45 + UP * 0.55)
        out_heat.next_to(v_heat, DOWN, buff=0.95)
        v_name = VGroup(ty.math("V", color=palette.ATTENTION), ty.label(nt.VALUES)).arrange(RIGHT, buff=0.2)
        v_name.next_to(v_heat, UP, buff=0.25)
        words = row_words(self.tokens, [row[-1] for row in v_heat.cells], RIGHT, buff=0.25, color=palette.MUTED)
        factors = VGroup(
            *(
                ty.label(f"{ty.fmt_decimal(w)} ×", color=palette.ATTENTION).next_to(v_heat.cells[i][0], LEFT, buff=0.25)
                for i, w in enumerate(weights)
            )
        )
        factors.align_to(factors[0], RIGHT)
        equals = ty.math("=").next_to(out_heat, LEFT, buff=0.25).align_to(factors, RIGHT)
        out_name = ty.label(f"salida de «{self.tokens[self.focus]}»", color=palette.ATTENTION)
        out_name.next_to(out_heat, DOWN, buff=0.25)

        small = table.copy()
        small_row = small.row_box(self.focus)
        VGroup(small, small_row).scale(0.82).to_edge(LEFT, buff=0.35).shift(DOWN * 0.1)
        self.play(
            FadeOut(previous),
            ReplacementTransform(table, small),
            Create(small_row),
            FadeIn(v_heat),
            FadeIn(v_name),
            FadeIn(words),
            run_time=b.until("suma"),
        )
        dims = [v_heat.row(i).animate.set_opacity(0.2 + 0.8 * w) for i, w in enumerate(weights)]
        play_in_steps(
            self,
            b.until("copia"),
            ((*(TransformFromCopy(small.texts[self.focus][j], factors[j]) for j in range(len(weights))),), 0.35),
            ((*dims,), 0.25),
            ((FadeIn(equals), TransformFromCopy(v_heat.grid, out_heat.grid), FadeIn(out_name)), None),
        )
        same = VGroup(v_heat.row_box(self.subject), out_heat.row_box(0))
        self.play(Create(same), run_time=b.speech_remaining())
        return VGroup(small, small_row, v_heat, out_heat, v_name, words, factors, equals, out_name, same)

    # -- two heads ----------------------------------------------------------------------------
    def _head_maps(self, n_heads: int) -> VGroup:
        """Each head's weight table (rows: who asks; columns: who answers), side by side."""
        tables = (self.number("attention.head1.weights"), self.number("attention.head2.weights"))
        maps = VGroup()
        for h in range(n_heads):
            heat = Heatmap(
                tables[h],
                kind="weight",
                places=2,
                cell_width=1.15,
                cell_height=0.8,
                row_labels=self.tokens,
                col_labels=self.tokens,
            )
            name = ty.body(f"cabeza {h + 1}", color=palette.ATTENTION).next_to(heat, UP, buff=0.3)
            maps.add(VGroup(name, heat))
        maps.arrange(RIGHT, buff=0.8).move_to(DOWN * 0.4)
        return maps

    # -- the point: mixing across positions versus one position at a time --------------------
    def _mixing_versus_alone(self, b, previous: VGroup) -> None:
        title = ty.title("Reunir y luego procesar").to_corner(UP + LEFT, buff=0.35)
        chips = TokenRow(self.tokens, gap=0.9).move_to(DOWN * 0.7)
        arcs = VGroup(
            weight_arcs(chips.chips, self.number("attention.head1.weights"), bend_rad=2.0),
            weight_arcs(chips.chips, self.number("attention.head2.weights"), bend_rad=1.3),
        )
        mixes = ty.label("atención: mezcla entre posiciones", color=palette.ATTENTION)
        mixes.next_to(arcs, UP, buff=0.25)
        self.play(FadeOut(previous), FadeIn(title), FadeIn(chips), run_time=b.fraction(0.3))
        self.play(Create(arcs), FadeIn(mixes), run_time=b.until("ffn"))
        boxes = VGroup(
            *(StageBox("FFN", palette.FFN, width=1.5, height=0.8).next_to(c, DOWN, buff=0.75) for c in chips.chips)
        )
        arrows = VGroup(*(FlowArrow(c.get_bottom(), box.get_top()) for c, box in zip(chips.chips, boxes)))
        alone = ty.label("feed-forward: cada posición a solas", color=palette.FFN).next_to(boxes, DOWN, buff=0.35)
        self.play(*(GrowFromCenter(box) for box in boxes), Create(arrows), FadeIn(alone), run_time=b.until("relevo"))
        self.play(
            arcs.animate.set_stroke(opacity=1.0), *(box.light_up() for box in boxes), run_time=b.speech_remaining()
        )


def _mark_done(step):
    """A pipeline step already applied turns muted."""
    return step.animate.set_color(palette.MUTED)
