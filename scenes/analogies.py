"""Una analogía: the jury, told with the real numbers of "perro" (4 -> 8 -> ReLU -> 4): each juror is a
neuron, its vote a dot product with its column of W₁, the silenced ones ReLU's zeros, and the verdict the
sum of the speakers' rows of W₂ scaled by their votes: exactly the layer's output."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    FadeIn,
    FadeOut,
    GrowArrow,
    LaggedStart,
    Line,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from scenes.kit import notation as nt
from scenes.kit import palette
from scenes.kit import typography as ty
from scenes.kit.badges import model_badge
from scenes.kit.blocks import StageBox, stage_row
from scenes.kit.icons import Jury
from scenes.kit.matrix import VectorColumn
from scenes.kit.narrated import NarratedScene
from scenes.kit.neurons import NeuronRow

JUROR_SPACING = 1.45  # scene units between jurors (room for a column of two-decimal values each)
VOTE_UNIT = 0.8  # scene units of bar height per unit of vote


class Analogies(NarratedScene):
    script = "analogies"

    def construct(self):
        self.evidence = self.number("perro.input")
        self.votes = self.number("perro.expanded")
        self.spoken = self.number("perro.activated")
        self.verdict = self.number("perro.contracted")
        self.d_model = self.number("perro.d_model")
        self.d_ff = self.number("perro.d_ff")
        self.scale = max(abs(v) for v in (*self.evidence, *self.votes, *self.verdict))
        self.jury_story()
        self.closing()

    # -- el jurado ---------------------------------------------------------------------
    def jury_story(self) -> None:
        with self.beat("juicio") as b:
            heading = ty.title("Una analogía: el jurado").to_edge(UP, buff=0.45)
            self.play(FadeIn(heading), run_time=b.until("evidencia"))
            self.evidence_col = VectorColumn(self.evidence, places=1, font_size=ty.SMALL_SIZE, scale=self.scale)
            self.evidence_col.move_to((-6.0, 0.9, 0))
            tag = VGroup(
                ty.small("evidencia").next_to(self.evidence_col, UP, buff=0.2),
                ty.small("«perro»").next_to(self.evidence_col, DOWN, buff=0.2),
            )
            self.play(FadeIn(self.evidence_col), FadeIn(tag), run_time=0.6 * b.until("jurado"))
            self.wait(b.until("jurado"))
            self.jury = Jury(self.d_ff, spacing=JUROR_SPACING).move_to((0.65, 2.2, 0))
            self.play(
                LaggedStart(*(FadeIn(j, shift=DOWN * 0.2) for j in self.jury.jurors), lag_ratio=0.15),
                run_time=0.6 * b.speech_remaining(),
            )

        with self.beat("votos") as b:
            sight = VGroup(
                *(
                    Line(
                        self.evidence_col.get_right(),
                        j.get_bottom(),
                        color=palette.MUTED,
                        stroke_width=2,
                        stroke_opacity=0.6,
                    )
                    for j in self.jury.jurors
                )
            )
            self.play(LaggedStart(*(FadeIn(s) for s in sight), lag_ratio=0.1), run_time=0.6 * b.until("votos"))
            self.wait(b.until("votos"))
            self.vote_row = self._vote_row(self.votes)
            self.vote_axis = self.vote_row.y_axis("voto", title_on_top=True)
            self.play(
                FadeOut(sight),
                FadeIn(self.vote_axis),
                LaggedStart(*(FadeIn(n, shift=UP * 0.2) for n in self.vote_row.neurons), lag_ratio=0.1),
                run_time=0.6 * b.speech_remaining(),
            )

        with self.beat("silencio") as b:
            self.wait(b.until("callan"))
            spoken_row = self._vote_row(self.spoken)
            icons = spoken_row.icons(self.spoken)
            moods = [j.speaking() if a > 0 else j.silenced() for j, a in zip(self.jury.jurors, self.spoken)]
            self.play(
                *(Transform(n, m) for n, m in zip(self.vote_row.neurons, spoken_row.neurons)),
                FadeIn(icons),
                *moods,
                run_time=0.5 * b.speech_remaining(),
            )
            self.icons = icons

        with self.beat("veredicto") as b:
            speaking = [i for i, a in enumerate(self.spoken) if a > 0]
            terms = {
                i: VectorColumn(
                    self.number(f"perro.contribution.n{i + 1}"),
                    places=2,
                    font_size=ty.SMALL_SIZE,
                    h_buff=0.2,
                    scale=self.scale,
                ).move_to((self.jury.jurors[i].get_x(), 0.35, 0))
                for i in speaking
            }
            self.play(
                FadeOut(self.vote_row), FadeOut(self.vote_axis), FadeOut(self.icons), run_time=0.3 * b.until("aportes")
            )
            self.wait(b.until("aportes"))
            self.play(
                *(ReplacementTransform(self.jury.jurors[i].copy(), terms[i]) for i in speaking),
                run_time=0.8 * b.until("suma"),
            )
            self.wait(b.until("suma"))
            verdict = VectorColumn(self.verdict, places=2, font_size=ty.SMALL_SIZE, h_buff=0.2, scale=self.scale)
            verdict.move_to((self.jury.get_x(), -2.35, 0))
            verdict_tag = VGroup(
                ty.label("veredicto", color=palette.FFN).next_to(verdict, LEFT, buff=0.4),
                ty.small("= salida de la capa").next_to(verdict, RIGHT, buff=0.4),
            )
            # Every speaking juror's vector travels into the one verdict: the sum, drawn as a merge.
            # One group becomes the verdict, so no pile of copies is left stacked on it.
            travellers = VGroup(*(t.copy() for t in terms.values()))
            self.play(ReplacementTransform(travellers, verdict), FadeIn(verdict_tag), run_time=0.8 * b.until("fuerte"))
            self.wait(b.until("fuerte"))
            loudest = self.number("perro.loudest_neuron") - 1
            mark = SurroundingRectangle(
                VGroup(self.jury.jurors[loudest], terms[loudest]), color=palette.HIGHLIGHT, buff=0.15, corner_radius=0.1
            )
            self.play(FadeIn(mark), run_time=0.4 * b.speech_remaining())

    def _vote_row(self, values) -> NeuronRow:
        row = NeuronRow(values, unit_height=VOTE_UNIT, spacing=JUROR_SPACING, places=2)
        return row.shift(RIGHT * self.jury.get_x() + UP * 0.1)

    # -- la capa entera ------------------------------------------------------------------------
    def closing(self) -> None:
        with self.beat("cierre") as b:
            self.play(*(FadeOut(m) for m in self.mobjects), run_time=0.3 * b.until("abre"))
            heading = ty.title("Abrir, decidir, cerrar").to_edge(UP, buff=0.45)
            row = stage_row(
                StageBox(f"{self.d_model} números", palette.MUTED, width=3.0),
                StageBox(f"{self.d_ff} neuronas", palette.FFN, width=3.0),
                StageBox(f"{self.d_model} números", palette.MUTED, width=3.0),
                gap=1.0,
            )
            row.move_to(UP * 0.5)
            (first, middle, last), open_arrow, close_arrow = row[0], row[1], row[2]
            captions = [
                _caption(text, box)
                for text, box in (
                    ("evidencia", first),
                    ("jurado", middle),
                    ("veredicto", last),
                )
            ]
            self.play(FadeIn(heading), FadeIn(first), FadeIn(captions[0]), run_time=b.until("abre"))
            self.play(GrowArrow(open_arrow), FadeIn(middle), FadeIn(captions[1]), run_time=b.until("decide"))
            self.play(middle.light_up(), run_time=b.until("cierra"))
            self.play(GrowArrow(close_arrow), FadeIn(last), FadeIn(captions[2]), run_time=b.until("llama"))
            d_model = self.number("params.llama2_7b.d_model")
            d_ff = self.number("params.llama2_7b.d_ff")
            name = nt.display_name(self.number("params.llama2_7b.display_name"))
            llama = ty.body(
                f"{name}, cada bloque:  {ty.fmt_int(d_model)} → {ty.fmt_int(d_ff)} → {ty.fmt_int(d_model)}",
                color=palette.FFN,
            ).move_to(DOWN * 1.9)
            badge = model_badge(self, "llama2_7b", layout="row").next_to(llama, DOWN, buff=0.35)
            self.play(Write(llama), FadeIn(badge), run_time=0.6 * b.speech_remaining())


def _caption(text: str, mob, y: float | None = None):
    """A small caption under `mob`; captions of one row share the height `y` when given."""
    caption = ty.small(text).next_to(mob, DOWN, buff=0.3)
    return caption if y is None else caption.set_y(y)
