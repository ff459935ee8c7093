"""The audited registry: every number the lecture shows or says, and every dataset a scene draws.

Each :class:`Number` (a scalar, a short tuple or a string such as a model's name) and each
:class:`Dataset` (a rich result: a sweep of lines, a tray of neurons, a fitted curve) names
the call that computed it. Both are provided by groups, one module each under
``ffn_core/groups/`` (the key's first part names the group); asking for one key computes
only its group, so ``number("params.llama2_7b.total")`` trains nothing. Heavy groups (xor,
memory, pretrained) read their results from the on-disk cache when present.

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
import importlib
import importlib.util
import json
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import ffn_core.groups as groups

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


NumberProvider = Callable[[], tuple[Number, ...]]
DatasetProvider = Callable[[], tuple[Dataset, ...]]
P = TypeVar("P", NumberProvider, DatasetProvider)

# The group an unknown key's suggestions come from besides the group names: its keys cost
# no training (an error message must never compute a heavy group).
CHEAP_GROUP = "params"


@dataclass(frozen=True)
class _Group:
    """One module of `ffn_core/groups/`: the key prefixes it provides and its providers."""

    prefixes: tuple[str, ...]
    numbers: NumberProvider | None
    datasets: DatasetProvider | None


@functools.cache
def _load(name: str) -> _Group:
    """The group module `ffn_core.groups.<name>`, checked: it defines `PREFIX` (the keys'
    first part; a tuple when its keys start with more than one) and `numbers()`,
    `datasets()` or both."""
    module = importlib.import_module(f"{groups.__name__}.{name}")
    prefix = getattr(module, "PREFIX", None)
    prefixes = (prefix,) if isinstance(prefix, str) else prefix
    numbers, datasets = (getattr(module, kind, None) for kind in ("numbers", "datasets"))
    numbers = numbers if callable(numbers) else None
    datasets = datasets if callable(datasets) else None
    if (
        not isinstance(prefixes, tuple)
        or not prefixes
        or not all(isinstance(p, str) for p in prefixes)
        or (numbers is None and datasets is None)
    ):
        raise RuntimeError(
            f"{module.__file__}: a group defines PREFIX (a str or a tuple of str) and numbers(), datasets() or both"
        )
    return _Group(prefixes, numbers, datasets)


@functools.cache
def _discovered() -> tuple[dict[str, NumberProvider], dict[str, DatasetProvider]]:
    """Every group of `ffn_core/groups/` (one module per scene or topic), in listing order:
    `groups.LISTED_FIRST`, then the others by module name. A new group is one new file;
    nothing here changes."""
    found = {info.name for info in pkgutil.iter_modules(groups.__path__)}
    missing = [name for name in groups.LISTED_FIRST if name not in found]
    if missing:
        raise RuntimeError(f"ffn_core/groups/__init__.py lists groups that do not exist: {', '.join(missing)}")
    numbers: dict[str, NumberProvider] = {}
    datasets: dict[str, DatasetProvider] = {}
    for name in (*groups.LISTED_FIRST, *sorted(found - set(groups.LISTED_FIRST))):
        group = _load(name)
        for prefix in group.prefixes:
            if group.numbers is not None:
                _claim(numbers, prefix, group.numbers, f"ffn_core/groups/{name}.py: the numbers")
            if group.datasets is not None:
                _claim(datasets, prefix, group.datasets, f"ffn_core/groups/{name}.py: the datasets")
    return numbers, datasets


def _claim(providers: dict[str, P], prefix: str, provider: P, whose: str) -> None:
    if prefix in providers:  # a clash would hide one group's keys
        raise RuntimeError(f"{whose} key prefix {prefix!r} is already taken")
    providers[prefix] = provider


@functools.cache
def _own_group(prefix: str) -> _Group | None:
    """The group of the module named for ``prefix``, when it provides that prefix: found
    without importing the others, so asking for one key imports and computes one group."""
    if not prefix.isidentifier() or importlib.util.find_spec(f"{groups.__name__}.{prefix}") is None:
        return None
    group = _load(prefix)
    return group if prefix in group.prefixes else None


def _number_provider(prefix: str) -> NumberProvider | None:
    own = _own_group(prefix)
    if own is not None and own.numbers is not None:
        return own.numbers
    return _all_providers().get(prefix)


def _dataset_provider(prefix: str) -> DatasetProvider | None:
    own = _own_group(prefix)
    if own is not None and own.datasets is not None:
        return own.datasets
    return _all_dataset_providers().get(prefix)


def _all_providers() -> dict[str, NumberProvider]:
    """Every group of numbers, by key prefix (a group with two prefixes appears twice)."""
    return _discovered()[0]


def _all_dataset_providers() -> dict[str, DatasetProvider]:
    """Every group of datasets, by key prefix."""
    return _discovered()[1]


@functools.cache
def _group(provider: NumberProvider) -> dict[str, Number]:
    return {n.key: n for n in provider()}


@functools.cache
def _dataset_group(provider: DatasetProvider) -> dict[str, Dataset]:
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
    provider = _number_provider(key.split(".", 1)[0])
    if provider is None:
        # Suggest among group names and the cheap group's keys; never train for an error.
        cheap = _all_providers().get(CHEAP_GROUP)
        raise _unknown(key, [*(p + "." for p in _all_providers()), *(_group(cheap) if cheap else ())])
    group = _group(provider)
    if key not in group:
        if _is_dataset(key):
            raise ValueError(
                f"{key!r} is a dataset, not a number: read it with ffn_core.registry.dataset({key!r}) "
                f"(in a scene, scenes.kit.datasets.read_dataset(self, {key!r}))"
            )
        raise _unknown(key, list(group))
    return group[key]


def _is_dataset(key: str) -> bool:
    provider = _dataset_provider(key.split(".", 1)[0])
    return provider is not None and key in _dataset_group(provider)


def dataset(key: str) -> Dataset:
    """The audited dataset ``key``; computes only the group the key belongs to.

    Raises ValueError naming the unknown key and close matches.
    """
    prefix = key.split(".", 1)[0]
    provider = _dataset_provider(prefix)
    if provider is None:
        close = difflib.get_close_matches(prefix, list(_all_dataset_providers()), n=3, cutoff=0.6)
        hint = f" Close matches: {', '.join(p + '.' for p in close)}." if close else ""
        groups_named = ", ".join(_all_dataset_providers())
        raise ValueError(f"unknown dataset key {key!r}.{hint} Dataset keys start with one of: {groups_named}.")
    group = _dataset_group(provider)
    if key not in group:
        numbers_of = _number_provider(prefix)
        if numbers_of is not None and key in _group(numbers_of):
            raise ValueError(f"{key!r} is a number, not a dataset: read it with ffn_core.registry.number({key!r})")
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
