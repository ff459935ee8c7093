"""Model badges: what each says, read from the registry, and attributed to the scene wearing it."""

from __future__ import annotations

import pytest

from ffn_core.registry import number
from scenes.kit.badges import BADGE_NUMBERS, MODELS, ModelBadge, badge_words, model_badge
from scenes.kit.figures import unsourced_figures


class Recorder:
    """A scene as a badge sees it: `number(key)`, with the keys it was asked for kept."""

    def __init__(self):
        self.numbers_read: dict[str, object] = {}

    def number(self, key: str):
        value = number(key).value
        self.numbers_read[key] = value
        return value


def test_each_badge_says_what_the_model_is_with_its_figures_from_the_registry():
    total = number("params.minilm_l6.total").value
    assert f"{total / 1e6:.1f}".replace(".", ",") == "22,6"  # 22 565 376 parameters
    expected = {
        "minilm": ("MiniLM", "real, preentrenado", "22,6 M parámetros"),
        "fact_model": (
            "Modelo de hechos",
            "entrenado aquí",
            f"{number('memory.n_layers').value} bloques, d = {number('memory.d_model').value}, "
            f"{number('memory.n_facts').value} hechos",
        ),
        "llama2_7b": ("LLaMA-2 7B", "solo formas", "(configuración publicada)"),
        "gpt2_small": ("GPT-2 pequeño", "solo formas", "(configuración publicada)"),
    }
    assert expected["fact_model"][2] == "2 bloques, d = 32, 16 hechos"
    for model in MODELS:
        assert badge_words(Recorder(), model) == expected[model]


@pytest.mark.parametrize("model", MODELS)
def test_a_badge_reads_exactly_its_listed_keys_and_shows_no_unsourced_figure(model):
    scene = Recorder()
    badge = model_badge(scene, model)
    assert set(scene.numbers_read) == set(BADGE_NUMBERS[model])
    texts = [t.original_text for t in badge.texts]
    assert unsourced_figures(texts, scene.numbers_read) == []
    assert badge.text.startswith(texts[0] + " · ")


def test_a_badge_is_a_small_legible_tag_in_two_layouts():
    from scenes.kit.narrated import MIN_TEXT_PX, PX_PER_FONT_SIZE

    for model in MODELS:
        stack, row = model_badge(Recorder(), model), model_badge(Recorder(), model, layout="row")
        assert isinstance(stack, ModelBadge) and stack.model == model
        assert stack.width < 5.0 and stack.height < 1.6  # fits a corner
        assert row.height < 0.7 and row.width > stack.width
        for text in stack.texts + row.texts:
            assert text.font_size * PX_PER_FONT_SIZE >= MIN_TEXT_PX
        assert stack.box.width > max(t.width for t in stack.texts)
    row = model_badge(Recorder(), "llama2_7b", layout="row")
    assert row.text == "LLaMA-2 7B · solo formas (configuración publicada)"
    with pytest.raises(ValueError, match="layout"):
        model_badge(Recorder(), "minilm", layout="column")
    with pytest.raises(KeyError, match="no badge for model 'gpt3'"):
        model_badge(Recorder(), "gpt3")


def test_the_audit_attributes_a_badges_numbers_to_the_scene_wearing_it(tmp_path):
    from ffn_core.registry import all_numbers
    from lecture.plan import PlannedScene
    from lecture.review.audit import badge_numbers, numbers_with_scenes

    assert badge_numbers() == BADGE_NUMBERS  # read from the source, without importing manim
    module = tmp_path / "escena.py"
    module.write_text(
        "class Escena(NarratedScene):\n    script = 'escena'\n\n"
        '    def construct(self):\n        model_badge(self, "fact_model").to_corner(UR)\n',
        encoding="utf-8",
    )
    script = tmp_path / "escena.toml"
    script.write_text('title = "T"\n[[beat]]\nname = "a"\ntext = "hola"\n', encoding="utf-8")
    scene = PlannedScene("escena", module, "Escena", "escena", script)
    rows = {r["key"]: r["scenes"] for r in numbers_with_scenes([scene], all_numbers())}
    assert {k for k, scenes in rows.items() if scenes} == set(BADGE_NUMBERS["fact_model"])
    module.write_text(module.read_text(encoding="utf-8").replace("fact_model", "gpt5"), encoding="utf-8")
    with pytest.raises(ValueError, match=r"model_badge for unknown models \['gpt5'\]"):
        numbers_with_scenes([scene], all_numbers())
