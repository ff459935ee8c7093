"""The audited registry: every scalar (or short tuple) number the lecture shows or says.

Each :class:`Number` names the function that computed it. Numbers are grouped by the
module that provides them (the key's first part names the group); asking for one key
computes only its group, so ``number("params.llama2_7b.total")`` trains nothing. Heavy
groups (xor, memory, pretrained) read their results from the on-disk cache when present.

Rich, non-scalar results for scenes come from the provider modules directly:
``ffn_core.xor.solve()``, ``ffn_core.approx.fit_all()``, ``ffn_core.memory.solve()``,
``ffn_core.pretrained.solve()``, ``ffn_core.examples.expand_contract()``,
``ffn_core.examples.word_walkthrough()``, ``ffn_core.ffn.swiglu_width()``.
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass
from typing import Callable, Union

Value = Union[int, float, tuple]

PARAMETERS = "parameters"
FRACTION = "fraction (0-1)"
WIDTH = "dimensions"


@dataclass(frozen=True)
class Number:
    """One audited number: ``key`` (dotted), ``value``, ``unit``, and ``source``, the call
    that computed it (e.g. "ffn_core.params.param_counts('llama2_7b').ffn_share")."""

    key: str
    value: Value
    unit: str
    source: str

    def __post_init__(self) -> None:
        if not isinstance(self.value, (int, float, tuple)):
            raise TypeError(f"number {self.key!r}: value must be int, float or tuple, got {type(self.value).__name__}")


def _params_numbers() -> tuple[Number, ...]:
    from ffn_core.params import MODELS, param_counts

    numbers = []
    for name, config in MODELS.items():
        counts = param_counts(name)
        call = f"ffn_core.params.param_counts({name!r})"
        cfg = f"ffn_core.params.get_config({name!r})"
        numbers += [
            Number(f"params.{name}.total", counts.total, PARAMETERS, f"{call}.total"),
            Number(f"params.{name}.token_embedding", counts.token_embedding, PARAMETERS, f"{call}.token_embedding"),
            Number(f"params.{name}.position_embedding", counts.position_embedding, PARAMETERS, f"{call}.position_embedding"),
            Number(f"params.{name}.output_head", counts.output_head, PARAMETERS, f"{call}.output_head"),
            Number(f"params.{name}.attention_per_layer", counts.attention_per_layer, PARAMETERS, f"{call}.attention_per_layer"),
            Number(f"params.{name}.ffn_per_layer", counts.ffn_per_layer, PARAMETERS, f"{call}.ffn_per_layer"),
            Number(f"params.{name}.norms_per_layer", counts.norms_per_layer, PARAMETERS, f"{call}.norms_per_layer"),
            Number(f"params.{name}.attention_total", counts.attention_total, PARAMETERS, f"{call}.attention_total"),
            Number(f"params.{name}.ffn_total", counts.ffn_total, PARAMETERS, f"{call}.ffn_total"),
            Number(f"params.{name}.ffn_share", counts.ffn_share, FRACTION, f"{call}.ffn_share"),
            Number(f"params.{name}.attention_share", counts.attention_share, FRACTION, f"{call}.attention_share"),
            Number(f"params.{name}.ffn_share_of_total", counts.ffn_share_of_total, FRACTION, f"{call}.ffn_share_of_total"),
            Number(f"params.{name}.n_layers", config.n_layers, "layers", f"{cfg}.n_layers"),
            Number(f"params.{name}.d_model", config.d_model, WIDTH, f"{cfg}.d_model"),
            Number(f"params.{name}.d_ff", config.d_ff, WIDTH, f"{cfg}.d_ff"),
            Number(f"params.{name}.n_heads", config.n_heads, "heads", f"{cfg}.n_heads"),
            Number(f"params.{name}.n_kv_heads", config.n_kv_heads, "heads", f"{cfg}.n_kv_heads"),
            Number(f"params.{name}.vocab_size", config.vocab_size, "tokens", f"{cfg}.vocab_size"),
            Number(f"params.{name}.published_total", config.published_total, PARAMETERS,
                   f"{cfg}.published_total ({config.published_source})"),
            Number(f"params.{name}.total_vs_published", counts.total / config.published_total - 1.0,
                   "relative difference", f"{call}.total / {cfg}.published_total - 1"),
        ]
    return tuple(numbers)


def _swiglu_numbers() -> tuple[Number, ...]:
    from ffn_core.ffn import swiglu_width

    numbers = []
    for model in ("llama2_7b", "llama3_8b"):
        width = swiglu_width(model)
        call = f"ffn_core.ffn.swiglu_width({model!r})"
        numbers += [
            Number(f"swiglu.{model}.relu_width", width.relu_width, WIDTH, f"{call}.relu_width"),
            Number(f"swiglu.{model}.two_thirds_width", width.two_thirds_width, WIDTH, f"{call}.two_thirds_width"),
            Number(f"swiglu.{model}.multiple_of", width.multiple_of, WIDTH, f"{call}.multiple_of"),
            Number(f"swiglu.{model}.width", width.swiglu_width, WIDTH, f"{call}.swiglu_width"),
            Number(f"swiglu.{model}.relu_params", width.relu_params, PARAMETERS, f"{call}.relu_params"),
            Number(f"swiglu.{model}.swiglu_params", width.swiglu_params, PARAMETERS, f"{call}.swiglu_params"),
            Number(f"swiglu.{model}.param_ratio", width.param_ratio, "ratio", f"{call}.param_ratio"),
        ]
    return tuple(numbers)


def _examples_numbers() -> tuple[Number, ...]:
    from ffn_core.examples import expand_contract, word_walkthrough
    from ffn_core.ffn import key_value_reading

    example = expand_contract()
    walk = word_walkthrough()
    reading = key_value_reading(walk.trace.x, walk.w_in, walk.w_out)
    ec, wk = "ffn_core.examples.expand_contract()", "ffn_core.examples.word_walkthrough()"
    return (
        Number("expand_contract.input", example.expand.input, "vector", f"{ec}.expand.input"),
        Number("expand_contract.expanded", example.expanded, "vector", f"{ec}.expanded"),
        Number("expand_contract.contracted", example.contracted, "vector", f"{ec}.contracted"),
        Number("perro.input", walk.trace.x, "vector", f"{wk}.trace.x"),
        Number("perro.expanded", walk.expanded, "vector", f"{wk}.expanded"),
        Number("perro.activated", walk.activated, "vector", f"{wk}.activated"),
        Number("perro.contracted", walk.contracted, "vector", f"{wk}.contracted"),
        Number("perro.n_active", walk.n_active, "neurons", f"{wk}.n_active"),
        Number("perro.d_ff", len(walk.expanded), WIDTH, f"len({wk}.expanded)"),
        Number("perro.key_value_max_difference", reading.max_abs_difference, "absolute difference",
               "ffn_core.ffn.key_value_reading(perro).max_abs_difference"),
    )


def _xor_numbers() -> tuple[Number, ...]:
    from ffn_core.xor import solve

    result = solve()
    call = "ffn_core.xor.solve()"
    sweep = tuple(frame.accuracy for frame in result.sweep)
    return (
        Number("xor.linear_best_accuracy", result.linear.best_accuracy, FRACTION, f"{call}.linear.best_accuracy"),
        Number("xor.linear_best_correct_points", round(result.linear.best_accuracy * 4), "points of 4",
               f"{call}.linear.best_accuracy * 4"),
        Number("xor.linear_splits_achievable", result.linear.achievable_splits, "labelings of 16",
               f"{call}.linear.achievable_splits"),
        Number("xor.linear_lines_tried", result.linear.n_lines_tried, "lines", f"{call}.linear.n_lines_tried"),
        Number("xor.sweep_best_accuracy", max(sweep), FRACTION, f"max(frame.accuracy for frame in {call}.sweep)"),
        Number("xor.mlp_accuracy", result.mlp.accuracy, FRACTION, f"{call}.mlp.accuracy"),
        Number("xor.mlp_correct_points", round(result.mlp.accuracy * 4), "points of 4", f"{call}.mlp.accuracy * 4"),
        Number("xor.mlp_hidden", result.mlp.hidden, "neurons", f"{call}.mlp.hidden"),
        Number("xor.mlp_final_loss", result.mlp.final_loss, "binary cross-entropy (nats)", f"{call}.mlp.final_loss"),
        Number("xor.mlp_point_probabilities", result.mlp.point_probabilities, "probability of class 1",
               f"{call}.mlp.point_probabilities"),
    )


def _approx_numbers() -> tuple[Number, ...]:
    from ffn_core.approx import fit_all

    result = fit_all()
    call = "ffn_core.approx.fit_all()"
    numbers = [
        Number("approx.neuron_counts", tuple(f.n_neurons for f in result.fits), "neurons", f"{call}.fits[*].n_neurons"),
        Number("approx.rms_error", tuple(f.rms_error for f in result.fits), "y units (RMS)", f"{call}.fits[*].rms_error"),
        Number("approx.max_error", tuple(f.max_error for f in result.fits), "y units (max abs)", f"{call}.fits[*].max_error"),
    ]
    for fit in result.fits:
        numbers += [
            Number(f"approx.n{fit.n_neurons}.rms_error", fit.rms_error, "y units (RMS)",
                   f"{call}.fit({fit.n_neurons}).rms_error"),
            Number(f"approx.n{fit.n_neurons}.folds", len(fit.folds), "kinks", f"len({call}.fit({fit.n_neurons}).folds)"),
        ]
    return tuple(numbers)


def _memory_numbers() -> tuple[Number, ...]:
    from ffn_core.memory import solve

    result = solve()
    edit = result.edit
    call = "ffn_core.memory.solve()"
    return (
        Number("memory.n_facts", len(result.facts), "facts", f"len({call}.facts)"),
        Number("memory.n_parameters", result.n_parameters, PARAMETERS, f"{call}.n_parameters"),
        Number("memory.d_model", result.config.d_model, WIDTH, f"{call}.config.d_model"),
        Number("memory.d_ff", result.config.d_ff, WIDTH, f"{call}.config.d_ff"),
        Number("memory.n_layers", result.config.n_layers, "layers", f"{call}.config.n_layers"),
        Number("memory.n_heads", result.config.n_heads, "heads", f"{call}.config.n_heads"),
        Number("memory.recall_accuracy", result.recall_accuracy, FRACTION, f"{call}.recall_accuracy"),
        Number("memory.answer_neuron_share", result.answer_neuron_share, FRACTION, f"{call}.answer_neuron_share"),
        Number("memory.attention.scale", result.attention[0].scale, "1/sqrt(head_dim)", f"{call}.attention[0].scale"),
        Number("memory.edit.layer", edit.layer, "block index (0-based)", f"{call}.edit.layer"),
        Number("memory.edit.target_changed", edit.target_changed, "boolean", f"{call}.edit.target_changed"),
        Number("memory.edit.old_answer_probability_before", edit.before.probability, FRACTION,
               f"{call}.edit.before.probability"),
        Number("memory.edit.new_answer_probability_after", edit.after.probability, FRACTION,
               f"{call}.edit.after.probability"),
        Number("memory.edit.others_count", len(edit.others_after), "facts", f"len({call}.edit.others_after)"),
        Number("memory.edit.others_unchanged_share", edit.others_unchanged_share, FRACTION,
               f"{call}.edit.others_unchanged_share"),
        Number("memory.edit.update_rank", edit.update_rank, "rank", f"{call}.edit.update_rank"),
        Number("memory.edit.relative_update_norm", edit.update_norm / edit.weight_norm, "ratio of Frobenius norms",
               f"{call}.edit.update_norm / {call}.edit.weight_norm"),
    )


def _pretrained_numbers() -> tuple[Number, ...]:
    from ffn_core.pretrained import solve

    result = solve()
    call = "ffn_core.pretrained.solve()"
    return (
        Number("pretrained.minilm.layer", result.layer, "block index (0-based)", f"{call}.layer"),
        Number("pretrained.minilm.d_model", result.d_model, WIDTH, f"{call}.d_model"),
        Number("pretrained.minilm.d_ff", result.d_ff, WIDTH, f"{call}.d_ff"),
        Number("pretrained.minilm.active_share", result.active_share, FRACTION, f"{call}.active_share"),
        Number("pretrained.minilm.n_active", round(result.active_share * result.d_ff), "neurons",
               f"{call}.active_share * {call}.d_ff"),
        Number("pretrained.minilm.top_neuron", result.top_neurons[0][0], "neuron index", f"{call}.top_neurons[0][0]"),
        Number("pretrained.minilm.top_activation", result.top_neurons[0][1], "activation", f"{call}.top_neurons[0][1]"),
        Number("pretrained.minilm.active_share_per_token", result.active_share_per_token, FRACTION,
               f"{call}.active_share_per_token"),
    )


# Key prefix -> provider. Each provider computes its whole group at once.
_PROVIDERS: dict[str, Callable[[], tuple[Number, ...]]] = {
    "params": _params_numbers,
    "swiglu": _swiglu_numbers,
    "expand_contract": _examples_numbers,
    "perro": _examples_numbers,
    "xor": _xor_numbers,
    "approx": _approx_numbers,
    "memory": _memory_numbers,
    "pretrained": _pretrained_numbers,
}


@functools.lru_cache(maxsize=None)
def _group(provider: Callable[[], tuple[Number, ...]]) -> dict[str, Number]:
    return {n.key: n for n in provider()}


def _unknown(key: str, candidates: list[str]) -> ValueError:
    close = difflib.get_close_matches(key, candidates, n=5, cutoff=0.6)
    hint = f" Close matches: {', '.join(close)}." if close else ""
    return ValueError(f"unknown number key {key!r}.{hint} Keys start with one of: {', '.join(_PROVIDERS)}.")


def number(key: str) -> Number:
    """The audited number ``key``; computes only the group the key belongs to.

    Raises ValueError naming the unknown key and close matches.
    """
    prefix = key.split(".", 1)[0]
    provider = _PROVIDERS.get(prefix)
    if provider is None:
        # Suggest among group names and the cheap parameter keys; never train for an error.
        raise _unknown(key, [*(p + "." for p in _PROVIDERS), *_group(_params_numbers)])
    group = _group(provider)
    if key not in group:
        raise _unknown(key, list(group))
    return group[key]


def all_numbers() -> tuple[Number, ...]:
    """Every audited number, grouped by provider, in a stable order."""
    seen: dict[str, Number] = {}
    for provider in dict.fromkeys(_PROVIDERS.values()):  # each provider once, in order
        for key, value in _group(provider).items():
            if key in seen:
                raise RuntimeError(f"number key {key!r} is provided twice")
            seen[key] = value
    return tuple(seen.values())
