"""The audited registry: every number the lecture shows or says, and every dataset a scene draws.

Each :class:`Number` (a scalar, a short tuple or a string such as a model's name) and each
:class:`Dataset` (a rich result: a sweep of lines, a tray of neurons, a fitted curve) names
the call that computed it. Both are grouped by the module that provides them (the key's
first part names the group); asking for one key computes only its group, so
``number("params.llama2_7b.total")`` trains nothing. Heavy groups (xor, memory, pretrained)
read their results from the on-disk cache when present.

Each number also says what kind of figure it is (``kind``): ``computed`` by ``ffn_core``
(the default), ``published`` (a model's configuration or size as its authors give it:
d_model 4096, 32 layers, "LLaMA-2 7B") or ``quoted`` (a figure taken from the course's
source texts, like the seed's 72 %, shown and said as quoted). A published or quoted number
names its ``citation``: a key of ``voiceover/references.toml``, then, after a space, where
in it (for a quoted figure the seed file and line, ``ffn-interactivo.txt:60``); a published
figure from a work outside the bibliography names the work in words.

Scenes read through here and nowhere else in ``ffn_core`` (bar the pure drawing functions
of ``ffn_core.shapes``), so ``ffn-video numbers --json`` lists everything they show: a
number with its value, a dataset with its shape and the SHA-256 of its content.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

Value = int | float | tuple[object, ...] | str

COMPUTED = "computed"  # by ffn_core, from the code and the data
PUBLISHED = "published"  # a model's configuration or size, as its authors give it
QUOTED = "quoted"  # a figure of the course's source texts, shown and said as quoted
KINDS = (COMPUTED, PUBLISHED, QUOTED)

PARAMETERS = "parameters"
FRACTION = "fraction (0-1)"
WIDTH = "dimensions"


@dataclass(frozen=True)
class Number:
    """One audited number: ``key`` (dotted), ``value``, ``unit``, and ``source``, the call
    that computed it (e.g. "ffn_core.params.param_counts('llama2_7b').ffn_share").

    ``kind`` is "computed" (the default), "published" or "quoted"; the last two carry a
    ``citation`` (a references key, optionally followed by a space and a locator)."""

    key: str
    value: Value
    unit: str
    source: str
    kind: str = COMPUTED
    citation: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.value, (int, float, tuple, str)):
            raise TypeError(
                f"number {self.key!r}: value must be int, float, tuple or str, got {type(self.value).__name__}"
            )
        if self.kind not in KINDS:
            raise ValueError(f"number {self.key!r}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind != COMPUTED and not self.citation.strip():
            raise ValueError(f"number {self.key!r}: a {self.kind} number names its citation (a references key)")

    @property
    def citation_key(self) -> str:
        """The bibliography key the citation starts with ("" for a work named in words)."""
        head = self.citation.split(" ", 1)[0].rstrip(",;")
        return head if head and all(c.islower() or c.isdigit() or c == "_" for c in head) else ""


@dataclass(frozen=True)
class Dataset:
    """One audited rich result: ``key`` (dotted, like a number's), ``value`` (a frozen
    dataclass or nested tuples, as its provider returns it), ``description`` (what it holds,
    in a few words) and ``source``, the call that computed it (e.g. "ffn_core.xor.solve()").

    ``shape`` and ``digest`` are derived from the value: what a reviewer needs to know that
    two runs showed the same data without reading it all."""

    key: str
    value: object
    description: str
    source: str

    @functools.cached_property
    def digest(self) -> str:
        """SHA-256 (hex) of the value's canonical JSON (see :func:`canonical_json`)."""
        return hashlib.sha256(canonical_json(self.value, self.key).encode()).hexdigest()

    @property
    def shape(self) -> str:
        """The value's type and the size of each field, e.g. "XorResult(points: 4, ...)"."""
        return shape_of(self.value)

    @property
    def logged(self) -> str:
        """What a scene's log records for a dataset it read: ``"sha256:<digest>"``."""
        return DATASET_LOG_PREFIX + self.digest


DATASET_LOG_PREFIX = "sha256:"


def _plain(value: object, where: str) -> object:
    """``value`` as JSON-ready data: dataclasses as field dicts, tuples and arrays as lists."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name), f"{where}.{f.name}") for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {str(k): _plain(v, f"{where}[{k!r}]") for k, v in value.items()}
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars
    if callable(tolist):
        return _plain(tolist(), where)
    raise TypeError(f"dataset {where}: {type(value).__name__} has no canonical form (use tuples, dataclasses)")


def canonical_json(value: object, key: str = "value") -> str:
    """One serialisation per content: keys sorted, no spaces, floats as their shortest repr.

    Equal content gives equal text whatever the container: a tuple, a list and a numpy array
    of the same floats serialise alike (an int stays an int: 1 and 1.0 differ). ``key`` only
    names the dataset in the error raised for a value with no JSON form."""
    return json.dumps(_plain(value, key), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def shape_of(value: object) -> str:
    """A one-line description of ``value``'s structure: a dataclass's fields with their
    lengths, a tuple's length and its first item's shape."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = []
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            parts.append(f"{f.name}: {_size(item)}")
        return f"{type(value).__name__}({', '.join(parts)})"
    return _size(value)


def _size(value: object) -> str:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return type(value).__name__
    if isinstance(value, (tuple, list)):
        inner = _size(value[0]) if value else ""
        return f"{len(value)}" + (f" x {inner}" if inner[:1].isdigit() else f" {inner}" if inner else "")
    return type(value).__name__


_COUNT_FIELDS = (  # ParamCounts attribute -> unit
    ("total", PARAMETERS),
    ("token_embedding", PARAMETERS),
    ("position_embedding", PARAMETERS),
    ("output_head", PARAMETERS),
    ("attention_per_layer", PARAMETERS),
    ("ffn_per_layer", PARAMETERS),
    ("norms_per_layer", PARAMETERS),
    ("attention_total", PARAMETERS),
    ("ffn_total", PARAMETERS),
    ("ffn_share", FRACTION),
    ("attention_share", FRACTION),
    ("ffn_share_of_total", FRACTION),
)
_CONFIG_FIELDS = (  # ModelConfig attribute -> unit
    ("n_layers", "layers"),
    ("d_model", WIDTH),
    ("d_ff", WIDTH),
    ("n_heads", "heads"),
    ("n_kv_heads", "heads"),
    ("vocab_size", "tokens"),
)


# Who published each model's configuration: a key of voiceover/references.toml, or the work
# in words when the lecture's bibliography does not list it (its `published_source`).
_CONFIG_CITATIONS = {
    "gpt2_small": "radford2019",
    "gpt2_medium": "radford2019",
    "gpt2_large": "radford2019",
    "gpt2_xl": "radford2019",
    "gpt3_175b": "brown2020",
    "llama2_7b": "touvron2023",
    "llama2_13b": "touvron2023",
    "llama2_70b": "touvron2023",
    "minilm_l6": "wang2020",  # MiniLM's 6-layer, 384-wide architecture
}
# all-MiniLM-L6-v2 (its name and its released weights) is sentence-transformers' model.
_RELEASE_CITATIONS = {"minilm_l6": "reimers2019"}


def _config_citation(name: str, source: str) -> str:
    return _CONFIG_CITATIONS.get(name) or source


def _params_numbers() -> tuple[Number, ...]:
    from ffn_core.params import MODELS, param_counts

    numbers = []
    for name, config in MODELS.items():
        counts = param_counts(name)
        call = f"ffn_core.params.param_counts({name!r})"
        cfg = f"ffn_core.params.get_config({name!r})"
        cited = _config_citation(name, config.published_source)
        released = _RELEASE_CITATIONS.get(name, cited)
        numbers += [
            Number(f"params.{name}.{field}", getattr(counts, field), unit, f"{call}.{field}")
            for field, unit in _COUNT_FIELDS
        ]
        numbers += [
            Number(f"params.{name}.{field}", getattr(config, field), unit, f"{cfg}.{field}", PUBLISHED, cited)
            for field, unit in _CONFIG_FIELDS
        ]
        numbers += [
            # Names carry figures too ("LLaMA-2 7B"): registered, so the screen shows them audited.
            Number(
                f"params.{name}.display_name", config.display_name, "name", f"{cfg}.display_name", PUBLISHED, released
            ),
            # The name without its size ("GPT-2" of "GPT-2 small"), for a screen that writes
            # the size in Spanish («GPT-2 pequeño»).
            Number(
                f"params.{name}.family",
                config.display_name.split(" ")[0],
                "name",
                f"{cfg}.display_name.split(' ')[0]",
                PUBLISHED,
                released,
            ),
            Number(
                f"params.{name}.published_total",
                config.published_total,
                PARAMETERS,
                f"{cfg}.published_total ({config.published_source})",
                PUBLISHED,
                released,
            ),
            Number(
                f"params.{name}.total_vs_published",
                counts.total / config.published_total - 1.0,
                "relative difference",
                f"{call}.total / {cfg}.published_total - 1",
            ),
        ]
    return tuple(numbers)


def _swiglu_numbers() -> tuple[Number, ...]:
    from ffn_core.ffn import swiglu_width
    from ffn_core.params import get_config

    numbers = []
    for model in ("llama2_7b", "llama3_8b"):
        width = swiglu_width(model)
        call = f"ffn_core.ffn.swiglu_width({model!r})"
        numbers += [
            Number(f"swiglu.{model}.relu_width", width.relu_width, WIDTH, f"{call}.relu_width"),
            Number(f"swiglu.{model}.two_thirds_width", width.two_thirds_width, WIDTH, f"{call}.two_thirds_width"),
            Number(
                f"swiglu.{model}.multiple_of",
                width.multiple_of,
                WIDTH,
                f"{call}.multiple_of",
                PUBLISHED,
                _config_citation(model, get_config(model).published_source),
            ),
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
        Number(
            "perro.key_value_max_difference",
            reading.max_abs_difference,
            "absolute difference",
            "ffn_core.ffn.key_value_reading(perro).max_abs_difference",
        ),
        # What the expand/contract scene draws and says, entry by entry (narration speaks scalars).
        Number("expand_contract.input_width", len(example.expand.input), WIDTH, f"len({ec}.expand.input)"),
        Number("expand_contract.expanded_width", len(example.expanded), WIDTH, f"len({ec}.expanded)"),
        Number("expand_contract.expand_matrix", example.expand.matrix, "matrix", f"{ec}.expand.matrix"),
        Number("expand_contract.contract_matrix", example.contract.matrix, "matrix", f"{ec}.contract.matrix"),
        Number(
            "expand_contract.expand_products", example.expand.products, "products per output", f"{ec}.expand.products"
        ),
        Number(
            "expand_contract.contract_products",
            example.contract.products,
            "products per output",
            f"{ec}.contract.products",
        ),
        *(
            Number(f"expand_contract.input_{i}", v, "value", f"{ec}.expand.input[{i}]")
            for i, v in enumerate(example.expand.input)
        ),
        *(
            Number(f"expand_contract.expand_{i}_{j}", v, "value", f"{ec}.expand.matrix[{i}][{j}]")
            for i, row in enumerate(example.expand.matrix)
            for j, v in enumerate(row)
        ),
        *(
            Number(f"expand_contract.expanded_{j}", v, "value", f"{ec}.expanded[{j}]")
            for j, v in enumerate(example.expanded)
        ),
        *(
            Number(f"expand_contract.contracted_{j}", v, "value", f"{ec}.contracted[{j}]")
            for j, v in enumerate(example.contracted)
        ),
        Number("perro.d_model", len(walk.trace.x), WIDTH, f"len({wk}.trace.x)"),
        # The key-value reading term by term: neuron i adds activation_i * value_i to the output.
        *(
            Number(f"perro.contribution.n{i + 1}", term, "vector", f"ffn_core.ffn.key_value_reading(perro).terms[{i}]")
            for i, term in enumerate(reading.terms)
        ),
        Number(
            "perro.loudest_neuron",
            1 + max(range(len(reading.terms)), key=lambda i: sum(v * v for v in reading.terms[i])),
            "neuron (1-based)",
            "1 + argmax_i |ffn_core.ffn.key_value_reading(perro).terms[i]|",
        ),
    )


def _xor_numbers() -> tuple[Number, ...]:
    from ffn_core.xor import VIEW, solve

    result = solve()
    call = "ffn_core.xor.solve()"
    sweep = tuple(frame.accuracy for frame in result.sweep)
    return (
        Number("xor.linear_best_accuracy", result.linear.best_accuracy, FRACTION, f"{call}.linear.best_accuracy"),
        Number(
            "xor.linear_best_correct_points",
            round(result.linear.best_accuracy * 4),
            "points of 4",
            f"{call}.linear.best_accuracy * 4",
        ),
        Number(
            "xor.linear_splits_achievable",
            result.linear.achievable_splits,
            "labelings of 16",
            f"{call}.linear.achievable_splits",
        ),
        Number("xor.linear_lines_tried", result.linear.n_lines_tried, "lines", f"{call}.linear.n_lines_tried"),
        Number("xor.sweep_best_accuracy", max(sweep), FRACTION, f"max(frame.accuracy for frame in {call}.sweep)"),
        Number("xor.n_points", len(result.points), "points", f"len({call}.points)"),
        Number("xor.view", VIEW, "data units (low, high) of the drawn square, both axes", "ffn_core.xor.VIEW"),
        Number(
            "xor.sweep_correct_points",
            tuple(sum(frame.correct) for frame in result.sweep),
            "points of 4",
            f"{call}.sweep[*].correct (count of True)",
        ),
        Number("xor.mlp_accuracy", result.mlp.accuracy, FRACTION, f"{call}.mlp.accuracy"),
        Number("xor.mlp_correct_points", round(result.mlp.accuracy * 4), "points of 4", f"{call}.mlp.accuracy * 4"),
        Number("xor.mlp_hidden", result.mlp.hidden, "neurons", f"{call}.mlp.hidden"),
        Number("xor.mlp_final_loss", result.mlp.final_loss, "binary cross-entropy (nats)", f"{call}.mlp.final_loss"),
        Number(
            "xor.mlp_point_probabilities",
            result.mlp.point_probabilities,
            "probability of class 1",
            f"{call}.mlp.point_probabilities",
        ),
    )


def _approx_numbers() -> tuple[Number, ...]:
    from ffn_core.approx import INTERVAL, fit_all

    result = fit_all()
    call = "ffn_core.approx.fit_all()"
    numbers = [
        Number("approx.interval", INTERVAL, "x units (low, high) of the fitted curve", "ffn_core.approx.INTERVAL"),
        Number("approx.neuron_counts", tuple(f.n_neurons for f in result.fits), "neurons", f"{call}.fits[*].n_neurons"),
        Number(
            "approx.rms_error", tuple(f.rms_error for f in result.fits), "y units (RMS)", f"{call}.fits[*].rms_error"
        ),
        Number(
            "approx.max_error",
            tuple(f.max_error for f in result.fits),
            "y units (max abs)",
            f"{call}.fits[*].max_error",
        ),
    ]
    for fit in result.fits:
        numbers += [
            Number(
                f"approx.n{fit.n_neurons}.rms_error",
                fit.rms_error,
                "y units (RMS)",
                f"{call}.fit({fit.n_neurons}).rms_error",
            ),
            Number(
                f"approx.n{fit.n_neurons}.folds", len(fit.folds), "kinks", f"len({call}.fit({fit.n_neurons}).folds)"
            ),
            Number(
                f"approx.n{fit.n_neurons}.neurons", fit.n_neurons, "neurons", f"{call}.fit({fit.n_neurons}).n_neurons"
            ),
        ]
    first, last = result.fits[0], result.fits[-1]
    numbers.append(
        Number(
            "approx.rms_shrink_factor",
            round(first.rms_error / last.rms_error),
            "times (rounded ratio)",
            f"round({call}.fits[0].rms_error / {call}.fits[-1].rms_error)",
        )
    )
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
        Number(
            "memory.edit.old_answer_probability_before",
            edit.before.probability,
            FRACTION,
            f"{call}.edit.before.probability",
        ),
        Number(
            "memory.edit.new_answer_probability_after",
            edit.after.probability,
            FRACTION,
            f"{call}.edit.after.probability",
        ),
        Number("memory.edit.others_count", len(edit.others_after), "facts", f"len({call}.edit.others_after)"),
        Number(
            "memory.edit.others_unchanged_share",
            edit.others_unchanged_share,
            FRACTION,
            f"{call}.edit.others_unchanged_share",
        ),
        Number("memory.edit.update_rank", edit.update_rank, "rank", f"{call}.edit.update_rank"),
        Number(
            "memory.edit.relative_update_norm",
            edit.update_norm / edit.weight_norm,
            "ratio of Frobenius norms",
            f"{call}.edit.update_norm / {call}.edit.weight_norm",
        ),
    )


def _pretrained_numbers() -> tuple[Number, ...]:
    from ffn_core.pretrained import solve

    result = solve()
    call = "ffn_core.pretrained.solve()"
    sample = result.pre_activation[:10]
    return (
        # What the ReLU scene's caption names: the model, the word and the sentence it sits in.
        Number("pretrained.minilm.model", result.model, "name", f"{call}.model"),
        Number("pretrained.minilm.token", result.token, "word (WordPiece token)", f"{call}.token"),
        Number("pretrained.minilm.sentence", result.sentence, "sentence", f"{call}.sentence"),
        Number("pretrained.minilm.layer", result.layer, "block index (0-based)", f"{call}.layer"),
        Number("pretrained.minilm.d_model", result.d_model, WIDTH, f"{call}.d_model"),
        Number("pretrained.minilm.d_ff", result.d_ff, WIDTH, f"{call}.d_ff"),
        Number("pretrained.minilm.active_share", result.active_share, FRACTION, f"{call}.active_share"),
        Number(
            "pretrained.minilm.n_active",
            round(result.active_share * result.d_ff),
            "neurons",
            f"{call}.active_share * {call}.d_ff",
        ),
        Number("pretrained.minilm.top_neuron", result.top_neurons[0][0], "neuron index", f"{call}.top_neurons[0][0]"),
        Number("pretrained.minilm.top_activation", result.top_neurons[0][1], "activation", f"{call}.top_neurons[0][1]"),
        Number(
            "pretrained.minilm.active_share_per_token",
            result.active_share_per_token,
            FRACTION,
            f"{call}.active_share_per_token",
        ),
        # The ReLU scene's row: the first neurons, an unpicked sample (the strongest would flatter).
        Number("pretrained.minilm.block_number", result.layer + 1, "block (1-based)", f"{call}.layer + 1"),
        Number("pretrained.minilm.sample_size", len(sample), "neurons", f"len({call}.pre_activation[:10])"),
        Number("pretrained.minilm.sample_pre_activations", sample, "pre-activation", f"{call}.pre_activation[:10]"),
        Number(
            "pretrained.minilm.sample_activations",
            result.activation[: len(sample)],
            "GELU activation",
            f"{call}.activation[:10]",
        ),
        Number(
            "pretrained.minilm.sample_n_positive",
            sum(v > 0 for v in sample),
            "neurons",
            f"sum(v > 0 for v in {call}.pre_activation[:10])",
        ),
    )


def _collapse_numbers() -> tuple[Number, ...]:
    from ffn_core.collapse import solve

    result = solve()
    call = "ffn_core.collapse.solve()"
    return (
        Number("collapse.w1", result.w1, "matrix (3x4)", f"{call}.w1"),
        Number("collapse.w2", result.w2, "matrix (4x3)", f"{call}.w2"),
        Number("collapse.product", result.product, "matrix (3x3)", f"{call}.product"),
        Number("collapse.x", result.x, "vector", f"{call}.x"),
        Number("collapse.hidden", result.hidden, "vector", f"{call}.hidden"),
        Number("collapse.hidden_relu", result.hidden_relu, "vector", f"{call}.hidden_relu"),
        Number("collapse.linear_output", result.linear_output, "vector", f"{call}.linear_output"),
        Number("collapse.relu_output", result.relu_output, "vector", f"{call}.relu_output"),
        Number("collapse.n_silenced", len(result.silenced), "neurons", f"len({call}.silenced)"),
        Number("collapse.max_difference", result.max_difference, "absolute difference", f"{call}.max_difference"),
    )


def _xor_datasets() -> tuple[Dataset, ...]:
    from ffn_core.xor import solve

    return (
        Dataset(
            "xor.solution",
            solve(),
            "the four XOR points, the sweeping line's positions and the trained ReLU network's folds and regions",
            "ffn_core.xor.solve()",
        ),
    )


def _approx_datasets() -> tuple[Dataset, ...]:
    from ffn_core.approx import fit_all

    return (
        Dataset(
            "approx.fits",
            fit_all(),
            "the target curve on its grid and its ReLU fits (folds, output weights, fitted curve) per neuron count",
            "ffn_core.approx.fit_all()",
        ),
    )


def _pretrained_datasets() -> tuple[Dataset, ...]:
    from ffn_core.pretrained import solve

    return (
        Dataset(
            "pretrained.minilm.ffn",
            solve(),
            "one word through MiniLM's FFN: every neuron's pre-activation and GELU activation",
            "ffn_core.pretrained.solve()",
        ),
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
    "collapse": _collapse_numbers,
}
_DATASET_PROVIDERS: dict[str, Callable[[], tuple[Dataset, ...]]] = {
    "xor": _xor_datasets,
    "approx": _approx_datasets,
    "pretrained": _pretrained_datasets,
}


@functools.cache
def _discovered() -> tuple[dict[str, Callable[[], tuple[Number, ...]]], dict[str, Callable[[], tuple[Dataset, ...]]]]:
    """Groups kept in their own modules under `ffn_core/groups/` (one per scene or topic):
    each module defines `PREFIX` (the key's first part) and `numbers()`, `datasets()` or
    both. A new group is one new file; nothing here changes."""
    import importlib
    import pkgutil

    import ffn_core.groups as groups

    numbers: dict[str, Callable[[], tuple[Number, ...]]] = {}
    datasets: dict[str, Callable[[], tuple[Dataset, ...]]] = {}
    for info in sorted(pkgutil.iter_modules(groups.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"ffn_core.groups.{info.name}")
        prefix = getattr(module, "PREFIX", None)
        provides = {
            kind: getattr(module, kind) for kind in ("numbers", "datasets") if callable(getattr(module, kind, None))
        }
        if not isinstance(prefix, str) or not provides:
            raise RuntimeError(f"{module.__file__}: a group defines PREFIX (str) and numbers(), datasets() or both")
        for kind, found, built_in in (("numbers", numbers, _PROVIDERS), ("datasets", datasets, _DATASET_PROVIDERS)):
            if kind not in provides:
                continue
            if prefix in built_in or prefix in found:  # a clash would hide one group's keys
                raise RuntimeError(f"{module.__file__}: the {kind} key prefix {prefix!r} is already taken")
            found[prefix] = provides[kind]
    return numbers, datasets


@functools.cache
def _all_providers() -> dict[str, Callable[[], tuple[Number, ...]]]:
    """The built-in groups of numbers and the discovered ones (imported only when a key needs them)."""
    return {**_PROVIDERS, **_discovered()[0]}


@functools.cache
def _all_dataset_providers() -> dict[str, Callable[[], tuple[Dataset, ...]]]:
    """The built-in groups of datasets and the discovered ones."""
    return {**_DATASET_PROVIDERS, **_discovered()[1]}


@functools.cache
def _group(provider: Callable[[], tuple[Number, ...]]) -> dict[str, Number]:
    return {n.key: n for n in provider()}


@functools.cache
def _dataset_group(provider: Callable[[], tuple[Dataset, ...]]) -> dict[str, Dataset]:
    found = {}
    for d in provider():
        if not isinstance(d, Dataset):
            raise TypeError(f"{provider.__module__}.{provider.__name__}() returned {type(d).__name__}, not a Dataset")
        found[d.key] = d
    return found


def _unknown(key: str, candidates: list[str]) -> ValueError:
    close = difflib.get_close_matches(key, candidates, n=5, cutoff=0.6)
    hint = f" Close matches: {', '.join(close)}." if close else ""
    return ValueError(f"unknown number key {key!r}.{hint} Keys start with one of: {', '.join(_all_providers())}.")


def number(key: str) -> Number:
    """The audited number ``key``; computes only the group the key belongs to.

    Raises ValueError naming the unknown key and close matches.
    """
    prefix = key.split(".", 1)[0]
    provider = _PROVIDERS.get(prefix) or _all_providers().get(prefix)
    if provider is None:
        # Suggest among group names and the cheap parameter keys; never train for an error.
        raise _unknown(key, [*(p + "." for p in _all_providers()), *_group(_params_numbers)])
    group = _group(provider)
    if key not in group:
        if _is_dataset(key):
            raise ValueError(
                f"{key!r} is a dataset, not a number: read it with ffn_core.numbers.dataset({key!r}) "
                f"(in a scene, scenes.kit.datasets.read_dataset(self, {key!r}))"
            )
        raise _unknown(key, list(group))
    return group[key]


def _is_dataset(key: str) -> bool:
    provider = _all_dataset_providers().get(key.split(".", 1)[0])
    return provider is not None and key in _dataset_group(provider)


def dataset(key: str) -> Dataset:
    """The audited dataset ``key``; computes only the group the key belongs to.

    Raises ValueError naming the unknown key and close matches.
    """
    prefix = key.split(".", 1)[0]
    provider = _all_dataset_providers().get(prefix)
    groups = ", ".join(_all_dataset_providers())
    if provider is None:
        close = difflib.get_close_matches(prefix, list(_all_dataset_providers()), n=3, cutoff=0.6)
        hint = f" Close matches: {', '.join(p + '.' for p in close)}." if close else ""
        raise ValueError(f"unknown dataset key {key!r}.{hint} Dataset keys start with one of: {groups}.")
    group = _dataset_group(provider)
    if key not in group:
        if prefix in _all_providers() and key in _group(_all_providers()[prefix]):
            raise ValueError(f"{key!r} is a number, not a dataset: read it with ffn_core.numbers.number({key!r})")
        close = difflib.get_close_matches(key, list(group), n=5, cutoff=0.6)
        hint = f" Close matches: {', '.join(close)}." if close else ""
        raise ValueError(f"unknown dataset key {key!r}.{hint} The {prefix!r} group has: {', '.join(group)}.")
    return group[key]


def logged_value(key: str) -> Value:
    """What a scene's log records for ``key``: a number's value, or ``"sha256:<digest>"``
    for a dataset. Comparing it with a log says whether what the scene read has changed."""
    try:
        return number(key).value
    except ValueError as number_error:
        try:
            return dataset(key).logged
        except ValueError:
            raise number_error from None


def all_datasets() -> tuple[Dataset, ...]:
    """Every audited dataset, grouped by provider, in a stable order."""
    seen: dict[str, Dataset] = {}
    for provider in dict.fromkeys(_all_dataset_providers().values()):
        for key, found in _dataset_group(provider).items():
            if key in seen:
                raise RuntimeError(f"dataset key {key!r} is provided twice")
            seen[key] = found
    return tuple(seen.values())


def all_numbers() -> tuple[Number, ...]:
    """Every audited number, grouped by provider, in a stable order."""
    seen: dict[str, Number] = {}
    for provider in dict.fromkeys(_all_providers().values()):  # each provider once, in order
        for key, value in _group(provider).items():
            if key in seen:
                raise RuntimeError(f"number key {key!r} is provided twice")
            seen[key] = value
    return tuple(seen.values())
