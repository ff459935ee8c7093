"""The iceberg scene: the numbers it shows, recomputed another way, and a drawing whose
submerged area really is the share it stands for. Nothing renders here."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from ffn_core.registry import number

ROOT = Path(__file__).resolve().parents[1]
MODELS = ("gpt2_small", "gpt3_175b", "llama2_7b")


def _value(key: str):
    return number(key).value


@pytest.fixture(autouse=True)
def _manim_media_in_tmp(tmp_path, monkeypatch):
    """Text mobjects cache glyph files under manim's media dir: keep them out of the repo."""
    from manim import config

    monkeypatch.setattr(config, "media_dir", str(tmp_path / "media"))


def _count(*modules: nn.Module) -> int:
    return sum(p.numel() for m in modules for p in m.parameters())


# -- the idealised block: 4 d^2 against 8 d^2 ----------------------------------------------


def test_ideal_block_recounted_with_torch_layers_is_four_against_eight_d_squared():
    d = _value("params.gpt2_small.d_model")
    expansion = _value("iceberg.ideal.expansion")
    with torch.device("meta"):
        attention = [nn.Linear(d, d, bias=False) for _ in range(4)]  # Q, K, V, O
        ffn = [nn.Linear(d, expansion * d, bias=False), nn.Linear(expansion * d, d, bias=False)]
    att, mlp = _count(*attention), _count(*ffn)
    assert att == _value("iceberg.ideal.attention_coefficient") * d * d
    assert mlp == _value("iceberg.ideal.ffn_coefficient") * d * d
    assert att + mlp == _value("iceberg.ideal.block_coefficient") * d * d
    assert _value("iceberg.ideal.attention_matrices") == len(attention)
    assert _value("iceberg.ideal.ffn_matrices") == len(ffn)


def test_ideal_share_is_exactly_eight_twelfths_reduced_to_two_thirds():
    share = Fraction(_value("iceberg.ideal.ffn_coefficient"), _value("iceberg.ideal.block_coefficient"))
    assert share == Fraction(8, 12) == Fraction(2, 3)
    assert (share.numerator, share.denominator) == (
        _value("iceberg.ideal.share_numerator"),
        _value("iceberg.ideal.share_denominator"),
    )
    assert _value("iceberg.ideal.ffn_share") == pytest.approx(2 / 3, abs=1e-12)
    assert _value("params.gpt2_small.d_ff") == _value("iceberg.ideal.expansion") * _value("params.gpt2_small.d_model")


# -- real blocks, rebuilt layer by layer ----------------------------------------------------


def _gpt_block(d: int, d_ff: int) -> tuple[int, int]:
    with torch.device("meta"):
        attention = nn.MultiheadAttention(d, num_heads=1, bias=True)  # in_proj (3d x d) + out_proj, biased
        ffn = nn.Sequential(nn.Linear(d, d_ff), nn.Linear(d_ff, d))
    return _count(attention), _count(ffn)


def _llama_block(d: int, d_ff: int) -> tuple[int, int]:
    with torch.device("meta"):
        attention = [nn.Linear(d, d, bias=False) for _ in range(4)]
        ffn = [nn.Linear(d, d_ff, bias=False), nn.Linear(d, d_ff, bias=False), nn.Linear(d_ff, d, bias=False)]
    return _count(*attention), _count(*ffn)


@pytest.mark.parametrize(
    "model, build", [("gpt2_small", _gpt_block), ("gpt3_175b", _gpt_block), ("llama2_7b", _llama_block)]
)
def test_block_counts_and_shares_match_torch_layers(model, build):
    att, mlp = build(_value(f"params.{model}.d_model"), _value(f"params.{model}.d_ff"))
    assert (att, mlp) == (_value(f"params.{model}.attention_per_layer"), _value(f"params.{model}.ffn_per_layer"))
    assert _value(f"params.{model}.ffn_share") == pytest.approx(mlp / (att + mlp), rel=1e-12)


def test_every_block_share_is_near_two_thirds_and_the_quoted_figure_is_not():
    for model in MODELS:
        assert abs(_value(f"params.{model}.ffn_share") - 2 / 3) < 0.005, model
    quoted, computed = _value("iceberg.quoted.llama2_7b_ffn_share"), _value("params.llama2_7b.ffn_share")
    assert abs(quoted - computed) > 0.04  # the correction the narration makes is a real one


def test_llama_ffn_has_three_matrices_and_the_gpts_two():
    assert [_value(f"iceberg.{m}.ffn_matrices") for m in MODELS] == [2, 2, 3]


# -- whole models: every term a checkpoint has ----------------------------------------------

# Exact totals as counted from the released checkpoints (Hugging Face `num_parameters()` of
# gpt2 and meta-llama/Llama-2-7b-hf); GPT-3's weights were never released, its paper says 175.0B.
CHECKPOINT_TOTALS = {"gpt2_small": 124_439_808, "llama2_7b": 6_738_415_616}


def _parts(model: str) -> dict[str, int]:
    return {
        "token_embedding": _value(f"params.{model}.token_embedding"),
        "position_embedding": _value(f"params.{model}.position_embedding"),
        "attention": _value(f"params.{model}.attention_total"),
        "ffn": _value(f"params.{model}.ffn_total"),
        "norms": _value(f"iceberg.{model}.norms_total"),
        "output_head": _value(f"params.{model}.output_head"),
    }


@pytest.mark.parametrize("model", MODELS)
def test_whole_model_total_is_the_sum_of_the_parts_the_card_lists(model):
    assert sum(_parts(model).values()) == _value(f"params.{model}.total")


@pytest.mark.parametrize("model", sorted(CHECKPOINT_TOTALS))
def test_whole_model_total_equals_the_released_checkpoint(model):
    assert _value(f"params.{model}.total") == CHECKPOINT_TOTALS[model]


def test_gpt3_total_rounds_to_its_published_175_billion():
    assert round(_value("params.gpt3_175b.total") / 1e9, 1) == pytest.approx(174.6)
    assert round(_value("params.gpt3_175b.total"), -9) == 175_000_000_000


def test_norms_recounted_from_layernorm_and_rmsnorm_modules():
    with torch.device("meta"):
        gpt2 = _count(*(nn.LayerNorm(768) for _ in range(2 * 12 + 1)))
        llama = _count(*(nn.RMSNorm(4096) for _ in range(2 * 32 + 1)))
    assert (gpt2, llama) == (_value("iceberg.gpt2_small.norms_total"), _value("iceberg.llama2_7b.norms_total"))


def test_tied_heads_are_zero_and_llama_has_its_own_head_and_no_position_table():
    assert _value("params.gpt2_small.output_head") == 0 and _value("params.gpt3_175b.output_head") == 0
    assert _value("params.llama2_7b.output_head") == _value("params.llama2_7b.token_embedding")
    assert _value("params.llama2_7b.position_embedding") == 0


@pytest.mark.parametrize("model", MODELS)
def test_whole_model_shares_add_up_to_one(model):
    parts, total = _parts(model), _value(f"params.{model}.total")
    ffn, att = _value(f"params.{model}.ffn_share_of_total"), _value(f"iceberg.{model}.attention_share_of_total")
    rest = _value(f"iceberg.{model}.rest_share_of_total")
    assert ffn == pytest.approx(parts["ffn"] / total)
    assert att == pytest.approx(parts["attention"] / total)
    assert ffn + att + rest == pytest.approx(1.0, abs=1e-12)


def test_the_berg_sinks_as_the_models_grow():
    """What the narration claims at {#hundido}: sorted by size, the whole-model share grows."""
    by_size = sorted(MODELS, key=lambda m: _value(f"params.{m}.total"))
    shares = [_value(f"params.{m}.ffn_share_of_total") for m in by_size]
    assert shares == sorted(shares) and shares[0] < 0.5 < shares[-1]


# -- the drawing ---------------------------------------------------------------------------


def _berg(submerged: float, attention: float):
    from scenes.kit.iceberg import BergState, Iceberg

    return Iceberg(state=BergState(submerged, attention, center_x=-4.0, waterline_y=0.5, width=3.0, height=5.0))


@pytest.mark.parametrize("model", MODELS)
def test_drawn_submerged_area_is_the_block_share(model):
    share = _value(f"params.{model}.ffn_share")
    berg = _berg(share, 1 - share)
    assert berg.submerged_fraction() == pytest.approx(share, abs=1e-3)
    assert berg.drawn_areas()["cap"] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("model", MODELS)
def test_drawn_bands_are_the_whole_model_shares(model):
    ffn = _value(f"params.{model}.ffn_share_of_total")
    att = _value(f"iceberg.{model}.attention_share_of_total")
    berg = _berg(ffn, att)
    areas = berg.drawn_areas()
    whole = sum(areas.values())
    assert areas["mass"] / whole == pytest.approx(ffn, abs=1e-3)
    assert areas["tip"] / whole == pytest.approx(att, abs=1e-3)
    assert areas["cap"] / whole == pytest.approx(_value(f"iceberg.{model}.rest_share_of_total"), abs=1e-3)


def test_mass_lies_below_the_waterline_and_the_tip_above():
    berg = _berg(0.6, 0.3)
    mass_y = berg.mass.get_vertices()[:, 1]
    tip_y = berg.tip.get_vertices()[:, 1]
    assert mass_y.max() <= 0.5 + 1e-6 and tip_y.min() >= 0.5 - 1e-6
    assert berg.cap.get_vertices()[:, 1].min() >= tip_y.max() - 1e-6


def test_refloat_changes_the_drawn_share_and_a_deeper_berg_shows_less_above_water():
    from manim import linear

    from scenes.kit.iceberg import Refloat

    berg = _berg(0.455, 0.3)

    def summit_y():
        return max(berg.tip.get_vertices()[:, 1].max(), berg.cap.get_vertices()[:, 1].max())

    high_top = summit_y()
    animation = Refloat(berg, berg.state.__class__(0.668, 0.332, -4.0, 0.5, 3.0, 5.0), rate_func=linear)
    animation.begin()
    animation.interpolate(0.5)
    assert berg.submerged_fraction() == pytest.approx((0.455 + 0.668) / 2, abs=1e-3)
    animation.interpolate(1.0)
    assert berg.submerged_fraction() == pytest.approx(0.668, abs=1e-3)
    assert summit_y() < high_top  # sank: its summit is nearer the water


def test_silhouette_is_irregular_not_a_triangle_or_a_blob():
    from scenes.kit.iceberg import _OUTLINE, polygon_area

    assert len(_OUTLINE) >= 20
    # Not convex: some vertices turn the other way (notches and shoulders of real ice).
    edges = np.roll(_OUTLINE, -1, axis=0) - _OUTLINE
    turns = np.sign(edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0])
    assert (turns > 0).any() and (turns < 0).any()
    # Fills its box far less than a rectangle and more than a triangle would.
    box = np.ptp(_OUTLINE[:, 0]) * np.ptp(_OUTLINE[:, 1])
    assert 0.5 < polygon_area(_OUTLINE) / box < 0.85


def test_level_for_share_splits_the_area_as_asked():
    from scenes.kit.iceberg import (
        _OUTLINE,
        clip_half_plane,
        level_for_share,
        polygon_area,
    )

    total = polygon_area(_OUTLINE)
    for share in (0.1, 0.455, 2 / 3, 0.9):
        level = level_for_share(share)
        below = polygon_area(clip_half_plane(_OUTLINE, keep_above=False, level=level))
        assert below / total == pytest.approx(share, abs=1e-6)


def test_empty_band_and_impossible_shares():
    from scenes.kit.iceberg import BergState

    with pytest.raises(ValueError, match="add up to at most 1"):
        BergState(0.7, 0.4)
    with pytest.raises(ValueError):
        BergState(0.0, 0.5)


# -- the tables ----------------------------------------------------------------------------


def test_ledger_right_aligns_numbers_and_left_aligns_names():
    from scenes.kit import palette
    from scenes.kit.iceberg import Ledger

    table = Ledger(
        [("Modelo", None), ("Total", None)], [[("a", None), ("1", None)], [("bbbbbb", None), ("1 234 567", None)]]
    )
    names = [row[0].get_left()[0] for row in table.rows]
    numbers = [row[1].get_right()[0] for row in table.rows]
    assert names[0] == pytest.approx(names[1]) and numbers[0] == pytest.approx(numbers[1])
    frame = table.highlight(1)
    assert frame.get_color() == palette.HIGHLIGHT
    assert frame.get_top()[1] > table.rows[1].get_top()[1] and frame.get_bottom()[1] < table.rows[1].get_bottom()[1]
    with pytest.raises(ValueError, match="cells"):
        Ledger([("a", None), ("b", None)], [[("only one", None)]])


def test_parts_card_writes_each_term_and_says_why_a_term_is_absent():
    from scenes.kit import palette
    from scenes.kit.iceberg import CardLine, PartsCard

    card = PartsCard(
        "LLaMA-2 7B", [CardLine("Tabla", 10), CardLine("Posiciones", 0, None, "rotatorias, sin pesos")], 10
    )
    values = [re.sub(r"\s", "", line[1].text) for line in card.lines]
    assert values == ["10", "rotatorias,sinpesos"]
    assert card.lines[1][0].get_color() == palette.MUTED
    assert re.sub(r"\s", "", card.total[1].text) == "10"
    assert card.total.get_top()[1] < card.lines[-1].get_bottom()[1]


# -- narration -----------------------------------------------------------------------------


def test_narration_speaks_the_quoted_figure_and_then_the_computed_one():
    from voiceover.script import load_script

    beat = load_script("iceberg").beat("cifra_citada")
    text = beat.text
    assert (
        text.index("iceberg.quoted.llama2_7b_ffn_share")
        < text.index("{#corregida}")
        < text.index("params.llama2_7b.ffn_share")
    )


def test_scene_shows_the_computed_share_in_the_correction_and_marks_the_quoted_one():
    source = (ROOT / "scenes" / "iceberg.py").read_text(encoding="utf-8")
    assert re.search(r'fixed = ty\.body\(f"cuenta exacta: \{ty\.fmt_percent\(llama\.block_share\)\}"', source)
    assert re.search(r'claim = ty\.body\(f"cifra citada: ≈ \{ty\.fmt_percent\(quoted, places=0\)\}"', source)
    assert number("iceberg.quoted.llama2_7b_ffn_share").kind == "quoted"


def test_share_columns_say_they_are_percentages():
    source = (ROOT / "scenes" / "iceberg.py").read_text(encoding="utf-8")
    assert source.count('("% FFN", palette.FFN)') == 2 and '("FFN", palette.FFN)' not in source


def test_narration_counts_parameters_not_pesos_and_cites_the_models():
    from voiceover.script import load_script

    script = load_script("iceberg")
    text = " ".join(b.text for b in script.beats)
    assert "pesos" not in text  # «millones de pesos» sounds like money in Latin America
    assert "GPT dos pequeño" in text and " small" not in text
    for beat in ("punta", "masa", "modelos", "modelo_entero"):
        assert "touvron2023" in script.beat(beat).sources, beat
    assert "fuente_ffn_interactivo" in script.beat("cifra_citada").sources


def test_iceberg_plays_third_and_only_announces_swiglu():
    # Right after panorama: the gated FFN is named as a variant seen later, never explained here.
    from lecture.plan import load_plan
    from voiceover.script import load_script

    assert [s.name for s in load_plan()][:3] == ["title_card", "panorama", "iceberg"]
    text = " ".join(b.text for b in load_script("iceberg").beats)
    assert "SwiGLU" not in text and "compuerta que veremos más adelante" in text


def test_the_closing_line_is_as_hedged_as_its_sources():
    from voiceover.script import load_script

    beat = load_script("iceberg").beat("cierre")
    assert "buena parte" in beat.text and {"geva2021", "meng2022"} <= set(beat.sources)
    source = (ROOT / "scenes" / "iceberg.py").read_text(encoding="utf-8")
    assert "buena parte de lo que sabe" in source and "Lo que el modelo sabe vive debajo del agua." not in source
