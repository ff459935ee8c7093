"""Model badges: every model that appears on screen wears one, saying what it is.

    badge = model_badge(self, "minilm")   # inside a NarratedScene
    badge.to_corner(UR)

    MiniLM                     | real, preentrenado | 22,6 M parámetros
    Modelo de hechos           | entrenado aquí     | 2 bloques, d = 32, 16 hechos
    LLaMA-2 7B                 | solo formas        | (configuración publicada)
    GPT-2 pequeño              | solo formas        | (configuración publicada)

Every figure and every model name in a badge is read through `scene.number(...)` from
`ffn_core`'s registry (the keys each badge reads are `BADGE_NUMBERS`, which the audit of
`ffn-video numbers` reads from this file's source to attribute them to the scene that calls
`model_badge(self, "...")`). Names are written as docs/notation.md says
(`scenes.kit.notation`).
"""

from __future__ import annotations

from typing import Protocol

from manim import DOWN, LEFT, RIGHT, RoundedRectangle, Text, VGroup

from ffn_core.registry import number
from scenes.kit import notation, palette
from scenes.kit import typography as ty
from scenes.kit.gallery_samples import sample_of

MODELS = ("minilm", "fact_model", "llama2_7b", "gpt2_small")
# The registry keys each badge reads (a literal: lecture/audit.py reads it without importing).
BADGE_NUMBERS = {
    "minilm": ("params.minilm_l6.display_name", "params.minilm_l6.total"),
    "fact_model": ("memory.n_layers", "memory.d_model", "memory.n_facts"),
    "llama2_7b": ("params.llama2_7b.display_name",),
    "gpt2_small": ("params.gpt2_small.display_name", "params.gpt2_small.family"),
}
KINDS = {  # what the lecture does with the model (docs/notation.md, "Model names")
    "minilm": "real, preentrenado",
    "fact_model": "entrenado aquí",
    "llama2_7b": "solo formas",
    "gpt2_small": "solo formas",
}
SEPARATOR = " · "
PAD = 0.14  # scene units between the text and the tag's edge


class Reads(Protocol):
    """What a badge needs of its scene: `NarratedScene.number`."""

    def number(self, key: str) -> object: ...


class ModelBadge(VGroup):
    """A small rounded tag: the model's name (bold), then what it is and its figures.

    `layout="stack"` (the default) sets them on three short lines, for a corner;
    `layout="row"` on one line joined by « · », for a caption under a wide drawing."""

    def __init__(self, model: str, name: str, kind: str, details: str, layout: str = "stack", **kwargs):
        super().__init__(**kwargs)
        if layout not in ("stack", "row"):
            raise ValueError(f"a badge's layout is 'stack' or 'row' (got {layout!r})")
        self.model = model
        self.name_text = ty.small(name, color=palette.INK, weight="BOLD")
        if layout == "stack":
            self.detail_texts = [ty.small(kind), ty.small(details)]
            texts = VGroup(self.name_text, *self.detail_texts).arrange(DOWN, aligned_edge=LEFT, buff=0.08)
        else:
            self.detail_texts = [ty.small(SEPARATOR.strip() + " " + _joined(kind, details))]
            texts = VGroup(self.name_text, *self.detail_texts).arrange(RIGHT, buff=0.12)
        self.box = RoundedRectangle(
            corner_radius=0.1,
            width=texts.width + 2 * PAD,
            height=texts.height + 2 * PAD,
            stroke_color=palette.MUTED,
            stroke_width=1.5,
            fill_color=palette.BACKGROUND,
            fill_opacity=0.85,
        ).move_to(texts)
        self.add(self.box, texts)
        self.text = name + SEPARATOR + _joined(kind, details)

    @property
    def texts(self) -> list[Text]:
        return [self.name_text, *self.detail_texts]


class _Registry:
    """What a badge reads of its scene (`number`), from the audited registry."""

    def number(self, key: str):
        return number(key).value


@sample_of(ModelBadge)
def _model_badges():
    return VGroup(*(model_badge(_Registry(), m) for m in MODELS)).arrange_in_grid(2, 2, buff=0.3)


def _joined(kind: str, details: str) -> str:
    """«solo formas (configuración publicada)», «real, preentrenado · 22,6 M parámetros»."""
    return f"{kind} {details}" if details.startswith("(") else kind + SEPARATOR + details


def badge_words(scene: Reads, model: str) -> tuple[str, str, str]:
    """(name, kind, details) of `model`'s badge, every figure read through `scene.number`."""
    if model not in MODELS:
        raise KeyError(f"no badge for model {model!r} (badges: {', '.join(MODELS)})")
    n = scene.number
    if model == "minilm":
        name = notation.display_name(str(n("params.minilm_l6.display_name")))
        total = n("params.minilm_l6.total")
        assert isinstance(total, int)
        return name, KINDS[model], f"{ty.fmt_decimal(total / 1e6, 1)} M parámetros"
    if model == "fact_model":
        name = notation.model_name("fact_model").removeprefix("el ")
        blocks, width, facts = n("memory.n_layers"), n("memory.d_model"), n("memory.n_facts")
        return name[:1].upper() + name[1:], KINDS[model], f"{blocks} bloques, d = {width}, {facts} hechos"
    if model == "llama2_7b":
        return notation.display_name(str(n("params.llama2_7b.display_name"))), KINDS[model], "(configuración publicada)"
    family = str(n("params.gpt2_small.family"))  # "GPT-2": its digit is the name's, not a figure
    name = notation.display_name(str(n("params.gpt2_small.display_name")))
    if not name.startswith(family):
        raise ValueError(f"GPT-2's badge name {name!r} does not start with its family {family!r}")
    return name, KINDS[model], "(configuración publicada)"


def model_badge(scene: Reads, model: str, layout: str = "stack") -> ModelBadge:
    """The badge of `model` ("minilm", "fact_model", "llama2_7b", "gpt2_small"); place it
    yourself (`.to_corner(UR)`, `.next_to(drawing, DOWN)`)."""
    name, kind, details = badge_words(scene, model)
    return ModelBadge(model, name, kind, details, layout=layout)


__all__ = ["BADGE_NUMBERS", "MODELS", "ModelBadge", "badge_words", "model_badge"]
