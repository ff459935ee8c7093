"""Una analogía: the jury, told with the real numbers of "perro" (4 -> 8 -> ReLU -> 4): each juror is a
neuron, its vote a dot product with its column of W₁, the silenced ones ReLU's zeros, and the verdict the
sum of the speakers' rows of W₂ scaled by their votes: exactly the layer's output."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
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
from scenes.kit.blocks import FlowArrow
from scenes.kit.icons import Jury, JuryBox, StageFrame
from scenes.kit.matrix import VectorColumn
from scenes.kit.narrated import NarratedScene
from scenes.kit.neurons import NeuronRow

JUROR_SPACING = 1.4  # scene units between jurors (room for a column of two-decimal values each)
JUROR_SIZE = 1.5  # jurors are drawn this much larger than the kit's default
VOTE_UNIT = 1.0  # scene units of bar height per unit of vote
BOX_CENTRE_X = 1.1  # the jury box sits right of centre, the evidence at the left edge
WALL_TOP_Y = 1.6  # the rail the jurors sit behind
WALL_HEIGHT = 2.8
VOTE_BASELINE_SHARE = 0.36  # where on the wall's front the votes' zero line sits (0 bottom, 1 top)
EVIDENCE_AT = (-6.0, 0.2, 0)


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
        self.trial()
        self.votes_cast()
        self.silence()
        self.verdict_reached()

    def trial(self) -> None:
        with self.beat("juicio") as b:
            self.heading = ty.title("Una analogía: el jurado").to_edge(UP, buff=0.3)
            self.box = JuryBox(self.d_ff, spacing=JUROR_SPACING, wall_height=WALL_HEIGHT)
            self.box.shift(RIGHT * BOX_CENTRE_X + UP * (WALL_TOP_Y - self.box.wall.get_top()[1]))
            # The courtroom is there from the first frame; its empty chairs are drawn as the voice sets the scene.
            self.add(self.heading, self.box.wall, self.box.rail)
            self.play(Create(self.box.seats, lag_ratio=0.1), run_time=b.until("evidencia"))
            self.evidence_col = VectorColumn(self.evidence, places=1, font_size=ty.LABEL_SIZE, scale=self.scale)
            self.evidence_col.move_to(EVIDENCE_AT)
            self.evidence_tags = VGroup(
                ty.small("evidencia").next_to(self.evidence_col, UP, buff=0.2),
                ty.small("«perro»").next_to(self.evidence_col, DOWN, buff=0.2),
            )
            self.play(
                FadeIn(self.evidence_col, shift=RIGHT * 0.3),
                FadeIn(self.evidence_tags),
                run_time=0.6 * b.until("jurado"),
            )
            self.wait(b.until("jurado"))
            self.jury = Jury(self.d_ff, spacing=JUROR_SPACING, size=JUROR_SIZE).seat_in(self.box)
            self.members = ty.label(f"{self.d_ff} miembros = {self.d_ff} neuronas", color=palette.INK).move_to(
                (self.box.get_x(), self.box.board_y(0.5), 0)
            )
            self.play(
                LaggedStart(*(FadeIn(j, shift=DOWN * 0.2) for j in self.jury.jurors), lag_ratio=0.15),
                FadeIn(self.members),
                run_time=0.6 * b.speech_remaining(),
            )

    def votes_cast(self) -> None:
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
            self.play(
                FadeOut(self.members),
                LaggedStart(*(Create(s) for s in sight), lag_ratio=0.1),
                run_time=0.6 * b.until("votos"),
            )
            self.wait(b.until("votos"))
            self.vote_row = self._vote_row(self.votes)
            self.vote_axis = self.vote_row.y_axis("voto", buff=0.25, title_on_top=True)
            self.play(
                FadeOut(sight),
                FadeIn(self.vote_axis),
                LaggedStart(*(FadeIn(n, shift=UP * 0.2) for n in self.vote_row.neurons), lag_ratio=0.1),
                run_time=0.6 * b.speech_remaining(),
            )

    def silence(self) -> None:
        with self.beat("silencio") as b:
            self.wait(b.until("callan"))
            spoken_row = self._vote_row(self.spoken)
            self.icons = spoken_row.icons(self.spoken)
            self.icons.set_y(self.box.board_y(VOTE_BASELINE_SHARE) - 0.45)
            moods = [j.speaking() if a > 0 else j.silenced() for j, a in zip(self.jury.jurors, self.spoken)]
            self.play(
                *(Transform(n, m) for n, m in zip(self.vote_row.neurons, spoken_row.neurons)),
                FadeIn(self.icons),
                *moods,
                run_time=0.4 * b.speech_remaining(),
            )
            n_active = self.number("perro.n_active")
            self.tally = ty.label(f"hablan {n_active} de {self.d_ff}", color=palette.ACTIVE)
            self.tally.next_to(self.box.wall, DOWN, buff=0.45)
            self.play(FadeIn(self.tally, shift=UP * 0.2), run_time=0.4 * b.speech_remaining())

    def verdict_reached(self) -> None:
        with self.beat("veredicto") as b:
            speaking = [i for i, a in enumerate(self.spoken) if a > 0]
            # Each speaker's contribution is written on the wall under it, where its vote was.
            terms = {
                i: VectorColumn(
                    self.number(f"perro.contribution.n{i + 1}"),
                    places=2,
                    font_size=ty.SMALL_SIZE,
                    h_buff=0.2,
                    scale=self.scale,
                ).move_to((self.box.column_x(i), self.box.board_y(0.5), 0))
                for i in speaking
            }
            self.play(
                FadeOut(self.vote_row),
                FadeOut(self.vote_axis),
                FadeOut(self.icons),
                FadeOut(self.tally),
                run_time=0.3 * b.until("aportes"),
            )
            self.wait(b.until("aportes"))
            self.play(
                *(ReplacementTransform(self.jury.jurors[i].copy(), terms[i]) for i in speaking),
                run_time=0.8 * b.until("suma"),
            )
            self.wait(b.until("suma"))
            self.verdict_col = VectorColumn(
                self.verdict, places=2, font_size=ty.LABEL_SIZE, h_buff=0.25, scale=self.scale
            )
            self.verdict_col.move_to((self.box.get_x(), -2.65, 0))
            verdict_tag = VGroup(
                ty.label("veredicto", color=palette.FFN).next_to(self.verdict_col, LEFT, buff=0.4),
                ty.small("= salida de la capa").next_to(self.verdict_col, RIGHT, buff=0.4),
            )
            # Every speaking juror's vector travels into the one verdict: the sum, drawn as a merge.
            # One group becomes the verdict, so no pile of copies is left stacked on it.
            travellers = VGroup(*(t.copy() for t in terms.values()))
            self.play(
                ReplacementTransform(travellers, self.verdict_col),
                FadeIn(verdict_tag),
                run_time=0.8 * b.until("fuerte"),
            )
            self.wait(b.until("fuerte"))
            loudest = self.number("perro.loudest_neuron") - 1
            mark = SurroundingRectangle(
                VGroup(self.jury.jurors[loudest], terms[loudest]), color=palette.HIGHLIGHT, buff=0.12, corner_radius=0.1
            )
            self.play(FadeIn(mark), run_time=0.4 * b.speech_remaining())
            self.verdict_leftovers = VGroup(self.box, *terms.values(), verdict_tag, mark)

    def _vote_row(self, values) -> NeuronRow:
        """Vote bars on the jury box's wall, each under its juror."""
        row = NeuronRow(values, unit_height=VOTE_UNIT, spacing=JUROR_SPACING, places=2)
        baseline = (self.box.get_x(), self.box.board_y(VOTE_BASELINE_SHARE), 0)
        return row.shift(baseline - row.baseline_point())

    # -- la capa entera ------------------------------------------------------------------------
    def closing(self) -> None:
        with self.beat("cierre") as b:
            # The jury story folds into the layer's three stages: the evidence, the jurors and
            # the verdict move into their frames (the jury's frame wider: the layer opens).
            heading = ty.title("Abrir, decidir, cerrar").to_edge(UP, buff=0.3)
            first = StageFrame(1.8, 2.7, palette.MUTED, f"{self.d_model} números", "evidencia")
            middle = StageFrame(6.4, 2.7, palette.FFN, f"{self.d_ff} neuronas", "jurado")
            last = StageFrame(1.8, 2.7, palette.MUTED, f"{self.d_model} números", "veredicto")
            frames = VGroup(first, middle, last).arrange(RIGHT, buff=1.0).move_to(UP * 0.75)
            for stage in frames:
                stage.frame.set_z_index(-1)  # behind the drawing it holds, even once lit up
            open_arrow = FlowArrow(first.frame.get_right(), middle.frame.get_left())
            close_arrow = FlowArrow(middle.frame.get_right(), last.frame.get_left())
            evidence = self.evidence_col.copy().move_to(first.frame)
            jurors = VGroup(*(j.copy() for j in self.jury.jurors)).arrange(RIGHT, buff=0.12)
            jurors.scale_to_fit_width(middle.frame.width - 0.8).move_to(middle.frame)
            verdict = self.verdict_col.copy().move_to(last.frame)
            self.play(
                FadeOut(self.verdict_leftovers),
                FadeOut(self.evidence_tags),
                ReplacementTransform(self.heading, heading),
                ReplacementTransform(self.evidence_col, evidence),
                ReplacementTransform(VGroup(*self.jury.jurors), jurors),
                ReplacementTransform(self.verdict_col, verdict),
                FadeIn(VGroup(first.frame, middle.frame, last.frame)),
                run_time=b.until("abre"),
            )
            self.play(GrowArrow(open_arrow), FadeIn(first.caption, first.role), run_time=0.8 * b.until("decide"))
            self.wait(b.until("decide"))
            speakers = VGroup(*(j for j, a in zip(jurors, self.spoken) if a > 0))
            self.play(
                middle.light_up(),
                FadeIn(middle.caption, middle.role),
                Indicate(speakers, color=palette.ACTIVE, scale_factor=1.15),
                run_time=b.until("cierra"),
            )
            self.play(GrowArrow(close_arrow), FadeIn(last.caption, last.role), run_time=0.8 * b.until("llama"))
            self.wait(b.until("llama"))
            d_model = self.number("params.llama2_7b.d_model")
            d_ff = self.number("params.llama2_7b.d_ff")
            name = nt.display_name(self.number("params.llama2_7b.display_name"))
            llama = ty.body(
                f"{name}, cada bloque:  {ty.fmt_int(d_model)} → {ty.fmt_int(d_ff)} → {ty.fmt_int(d_model)}",
                color=palette.FFN,
            ).move_to(DOWN * 2.2)
            badge = model_badge(self, "llama2_7b", layout="row").next_to(llama, DOWN, buff=0.35)
            self.play(Write(llama), FadeIn(badge), run_time=0.6 * b.speech_remaining())
