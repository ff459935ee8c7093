"""The ReLU and expand/contract scenes: their narration, timing hooks and numbers, checked
without rendering (the preview build in test_foundation_build renders them)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ffn_core.ffn import gelu, relu
from ffn_core.registry import number

ROOT = Path(__file__).resolve().parents[1]
SCENES = {"relu": ROOT / "scenes" / "relu.py", "expand_contract": ROOT / "scenes" / "expand_contract.py"}


def _source(scene: str) -> str:
    return SCENES[scene].read_text(encoding="utf-8")


def _value(key: str):
    return number(key).value


@pytest.fixture(autouse=True)
def _manim_media_in_tmp(tmp_path, monkeypatch):
    """Text mobjects cache glyph files under manim's media dir: keep them out of the repo."""
    from manim import config

    monkeypatch.setattr(config, "media_dir", str(tmp_path / "media"))


def _clean(text: str) -> str:
    """manim's Text drops spaces from `.text`; compare strings the same way."""
    return re.sub(r"\s", "", text)


# -- narration and timing hooks ------------------------------------------------------------

# -- ReLU scene: real MiniLM neurons --------------------------------------------------------


def test_relu_row_is_minilms_first_neurons_for_the_token():
    from ffn_core.pretrained import solve

    result = solve()
    size = _value("pretrained.minilm.sample_size")
    assert _value("pretrained.minilm.sample_pre_activations") == result.pre_activation[:size]
    assert _value("pretrained.minilm.sample_n_positive") == sum(v > 0 for v in result.pre_activation[:size])
    assert _value("pretrained.minilm.block_number") == result.layer + 1


def test_minilms_sample_activations_are_gelu_of_its_pre_activations():
    # The scene plots the sample on the GELU curve: that is only honest if the model's own
    # activations are GELU of its pre-activations (float32 inside the model).
    pre = np.array(_value("pretrained.minilm.sample_pre_activations"))
    act = np.array(_value("pretrained.minilm.sample_activations"))
    assert np.allclose(act, gelu(pre), atol=1e-5)
    assert np.all((act > 0) == (relu(pre) > 0))  # GELU and ReLU agree on who fires


def test_relu_row_labels_show_the_real_values_and_silence_exactly_the_negatives():
    from scenes.kit import typography as ty
    from scenes.kit.neurons import NeuronRow, OffIcon, OnIcon

    raw = _value("pretrained.minilm.sample_pre_activations")
    row = NeuronRow(raw, unit_height=1.6, spacing=0.95)
    assert [n.label.text for n in row.neurons] == [_clean(ty.fmt_decimal(v, 2)) for v in raw]
    after = row.activated(lambda v: float(relu(v)))
    assert after.values == tuple(max(v, 0.0) for v in raw)
    assert [n.get_center()[0] for n in after.neurons] == pytest.approx([n.get_center()[0] for n in row.neurons])
    assert np.allclose(after.baseline_point(), row.baseline_point())
    icons = after.icons(after.values)
    on = sum(isinstance(i, OnIcon) for i in icons)
    assert on == _value("pretrained.minilm.sample_n_positive")
    assert sum(isinstance(i, OffIcon) for i in icons) == len(raw) - on


def test_sparsity_grid_lights_exactly_minilms_active_neurons():
    from ffn_core.pretrained import solve
    from scenes.kit.neurons import NeuronGrid

    grid = NeuronGrid(solve().activation)
    assert grid.n_firing == _value("pretrained.minilm.n_active")
    assert len(grid.activations) == _value("pretrained.minilm.d_ff")
    assert len(grid.firing.points) == 4 * 4 * grid.n_firing  # four cubic curves per square


# -- expand/contract scene: the seed's example and "perro" ----------------------------------


def test_each_expanded_entry_is_the_dot_product_the_scene_writes_out():
    x = np.array(_value("expand_contract.input"))
    w = np.array(_value("expand_contract.expand_matrix"))
    products = _value("expand_contract.expand_products")
    assert w.shape == (_value("expand_contract.input_width"), _value("expand_contract.expanded_width"))
    for j, column_products in enumerate(products):
        assert column_products == pytest.approx(tuple(x * w[:, j]))
        assert _value(f"expand_contract.expanded_{j}") == pytest.approx(sum(column_products))
        assert _value(f"expand_contract.expanded_{j}") == _value("expand_contract.expanded")[j]
    for i, xi in enumerate(x):
        assert _value(f"expand_contract.input_{i}") == xi
        for j in range(w.shape[1]):
            assert _value(f"expand_contract.expand_{i}_{j}") == w[i, j]


def test_each_contracted_entry_is_the_dot_product_the_scene_writes_out():
    h = np.array(_value("expand_contract.expanded"))
    w = np.array(_value("expand_contract.contract_matrix"))
    assert w.shape == (_value("expand_contract.expanded_width"), _value("expand_contract.input_width"))
    for j, column_products in enumerate(_value("expand_contract.contract_products")):
        assert column_products == pytest.approx(tuple(h * w[:, j]))
        assert _value(f"expand_contract.contracted_{j}") == pytest.approx(sum(column_products))


def test_the_matrixs_column_count_is_the_outputs_size():
    # The rule the scene states, on both of its matrices.
    assert np.array(_value("expand_contract.expand_matrix")).shape[1] == len(_value("expand_contract.expanded"))
    assert np.array(_value("expand_contract.contract_matrix")).shape[1] == len(_value("expand_contract.contracted"))


def test_perro_stages_have_the_sizes_and_on_neurons_the_scene_states():
    expanded, activated = _value("perro.expanded"), _value("perro.activated")
    assert len(_value("perro.input")) == len(_value("perro.contracted")) == _value("perro.d_model")
    assert len(expanded) == len(activated) == _value("perro.d_ff")
    assert activated == tuple(max(v, 0.0) for v in expanded)
    assert sum(v > 0 for v in activated) == _value("perro.n_active")


def test_matrix_kit_draws_the_real_entries_and_dims_silenced_zeros():
    from scenes.kit import palette
    from scenes.kit import typography as ty
    from scenes.kit.matrix import MatrixMob, VectorColumn

    w = _value("expand_contract.expand_matrix")
    mob = MatrixMob(w, places=1)
    assert [[t.text for t in row] for row in mob.entries] == [[_clean(ty.fmt_decimal(v, 1)) for v in r] for r in w]
    activated = _value("perro.activated")
    column = VectorColumn(activated, places=2, dim_zeros=True)
    dimmed = [column.entry(i).color == palette.MUTED for i in range(len(activated))]
    assert dimmed == [v == 0 for v in activated]


# -- steps inside one narrated window --------------------------------------------------------


class _FakeScene:
    """Just the clock NarratedScene gives play_in_steps: plays advance it by whole frames."""

    fps = 15

    def __init__(self):
        self.frames, self.played = 0, []

    @property
    def clock_s(self):
        return self.frames / self.fps

    def play(self, *animations, run_time):
        target = getattr(run_time, "target_s", None)
        wanted = round(target * self.fps) - self.frames if target is not None else round(run_time * self.fps)
        self.frames += max(int(wanted), 1)
        self.played.append((animations, self.clock_s))


def test_steps_share_a_window_and_the_last_ends_on_its_bookmark():
    from scenes.kit.narrated import ClockTime
    from scenes.kit.steps import play_in_steps

    scene = _FakeScene()
    play_in_steps(scene, ClockTime(4.0, 4.0, "marca"), ("a", 0.25), ("b", 0.5), ("c", None))
    assert [a for (a,), _ in scene.played] == ["a", "b", "c"]
    assert [t for _, t in scene.played] == pytest.approx([1.0, 3.0, 4.0])


def test_a_window_asked_for_before_earlier_animations_is_refused():
    from scenes.kit.narrated import ClockTime
    from scenes.kit.steps import play_in_steps

    scene = _FakeScene()
    stale = ClockTime(4.0, 4.0, "marca")  # asked at 0 s ...
    scene.play("antes", run_time=1.0)  # ... but played at 1 s
    with pytest.raises(ValueError, match="right before play_in_steps"):
        play_in_steps(scene, stale, ("a", 0.5), ("b", None))


# -- what the scripts and the screens claim ------------------------------------------------


def test_relu_drops_the_ten_neuron_row_and_says_gelu_dips_below_zero():
    from voiceover.script import load_script

    script = load_script("relu")
    assert [b.name for b in script.beats] == ["regla", "gelu", "escasez", "cierre"]  # no row of ten
    text = " ".join(" ".join(b.text.split()) for b in script.beats)
    assert "gran mayoría" not in text  # no unregistered share
    assert "un poco por debajo" in script.beat("gelu").text and "por debajo de cero" in " ".join(
        script.beat("escasez").text.split()
    )
    assert "NeuronRow" not in _source("relu")


def test_gelu_sends_every_negative_pre_activation_slightly_below_zero():
    # What the narration says of MiniLM's GELU: negative inputs land a little under zero, not on it.
    pre = np.array(_value("pretrained.minilm.sample_pre_activations"))
    act = np.array(_value("pretrained.minilm.sample_activations"))
    negative = pre < 0
    assert negative.any()
    assert np.all(act[negative] < 0) and np.all(act[negative] > -0.2)
    full = np.array(gelu(np.linspace(-6.0, 0.0, 601)[:-1]))
    assert np.all(full < 0) and full.min() > -0.2


def test_relu_scene_wears_minilms_badge_and_writes_its_lecture_name():
    source = _source("relu")
    assert 'model_badge(self, "minilm")' in source
    assert "notation.display_name" in source


def test_perro_is_drawn_as_row_vectors_as_the_scene_taught():
    source = _source("expand_contract")
    assert "VectorColumn" not in source
    assert source.count("VectorRow(") >= 6  # the worked example's vectors and the four "perro" stages
    from voiceover.script import load_script

    assert "como una fila" in " ".join(load_script("expand_contract").beat("vector").text.split())


def test_the_activated_row_sits_entry_under_entry_below_the_expanded_one():
    from scenes.expand_contract import STAGE_TYPE, _pitch, _row_with_pitch
    from scenes.kit.matrix import VectorRow

    expanded = VectorRow(_value("perro.expanded"), places=2, **STAGE_TYPE)
    activated = _row_with_pitch(_value("perro.activated"), _pitch(expanded), places=2, dim_zeros=True)
    assert _pitch(activated) == pytest.approx(_pitch(expanded), abs=1e-3)
    # Narrower digits ("0,00") would otherwise pack closer than the expanded row's ("−0,49").
    assert _pitch(VectorRow(_value("perro.activated"), places=2, **STAGE_TYPE)) < _pitch(expanded)
