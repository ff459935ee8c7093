"""The audited registry of numbers: complete, traceable, lazy, and helpful when wrong."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ffn_core.registry import Number, all_numbers, number

REPO = Path(__file__).resolve().parent.parent

REQUIRED = [
    *(
        f"params.{m}.{f}"
        for m in ("gpt2_small", "gpt3_175b", "llama2_7b")
        for f in ("total", "attention_per_layer", "ffn_per_layer", "ffn_share", "n_layers", "d_model", "d_ff")
    ),
    "expand_contract.expanded",
    "expand_contract.contracted",
    "xor.linear_best_accuracy",
    "xor.mlp_accuracy",
    "memory.edit.target_changed",
    "memory.edit.others_unchanged_share",
]


@pytest.fixture(scope="module")
def numbers():
    return {n.key: n for n in all_numbers()}


def test_every_required_key_is_registered(numbers):
    missing = [key for key in REQUIRED if key not in numbers]
    assert not missing


def test_registered_values_are_plain_json_numbers_with_unit_and_source(numbers):
    for entry in numbers.values():
        assert isinstance(entry.value, (int, float, tuple, str)), entry.key
        assert entry.unit and "ffn_core." in entry.source, entry.key  # names the computing call
        json.dumps(entry.value)


def test_keys_are_unique_and_stable_in_order():
    keys = [n.key for n in all_numbers()]
    assert len(keys) == len(set(keys))
    assert keys == [n.key for n in all_numbers()]


def test_headline_numbers_match_independent_values(numbers):
    assert numbers["params.gpt2_small.total"].value == 124_439_808
    assert numbers["params.llama2_7b.total"].value == 6_738_415_616
    assert numbers["expand_contract.expanded"].value == (2.0, 2.6, 2.8, 1.9)
    assert numbers["expand_contract.contracted"].value == (2.29, 2.64)
    assert numbers["xor.linear_best_accuracy"].value == 0.75
    assert numbers["xor.mlp_accuracy"].value == 1.0
    assert numbers["memory.edit.target_changed"].value is True
    # LLaMA-2 7B per block: attention 4·4096² = 67 108 864, SwiGLU FFN 3·4096·11 008 = 135 266 304.
    assert numbers["params.llama2_7b.ffn_share"].value == pytest.approx(135_266_304 / (67_108_864 + 135_266_304))


def test_number_looks_up_one_key():
    entry = number("params.gpt3_175b.d_model")
    assert entry == Number(
        "params.gpt3_175b.d_model",
        12288,
        "dimensions",
        "ffn_core.params.get_config('gpt3_175b').d_model",
        "published",  # a model's configuration, as its authors give it
        "brown2020",
    )


def test_unknown_key_error_names_the_key_and_close_matches():
    with pytest.raises(ValueError) as error:
        number("params.llama2_7b.totl")
    assert "'params.llama2_7b.totl'" in str(error.value) and "params.llama2_7b.total" in str(error.value)
    with pytest.raises(ValueError, match="Close matches: xor.mlp_accuracy"):
        number("xor.mlp_acuracy")
    with pytest.raises(ValueError, match="params"):
        number("parms.gpt2_small.total")


def test_asking_for_a_parameter_count_trains_nothing_and_imports_no_torch(tmp_path):
    code = (
        "import sys\n"
        "from ffn_core.registry import number\n"
        "number('params.llama2_7b.total')\n"
        "print(sorted(m for m in sys.modules if m.startswith(('torch', 'ffn_core'))))\n"
    )
    env = {"FFN_CACHE_DIR": str(tmp_path), "PATH": "", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    modules = eval(result.stdout)  # noqa: S307 - our own printed list
    assert modules == ["ffn_core", "ffn_core.groups", "ffn_core.groups.params", "ffn_core.params", "ffn_core.registry"]
    assert not any(tmp_path.iterdir())  # nothing computed, nothing cached


def test_ffn_core_never_imports_manim_voiceover_scenes_or_lecture():
    import ast

    forbidden = {"manim", "voiceover", "scenes", "lecture"}
    for path in (REPO / "ffn_core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not {name.split(".")[0] for name in names} & forbidden, f"{path.name}: {names}"


# -- datasets: rich results, audited by digest ------------------------------------------------


def test_a_datasets_digest_is_the_sha256_of_its_sorted_compact_json():
    import hashlib
    from dataclasses import dataclass

    import numpy as np

    from ffn_core.registry import Dataset

    @dataclass(frozen=True)
    class Probe:
        weights: object
        name: str

    written = '{"name":"limón","weights":[[1.0,2.5],[-0.125,3.0]]}'  # keys sorted, no spaces, UTF-8
    expected = hashlib.sha256(written.encode()).hexdigest()
    as_tuples = Dataset("probe.t", Probe(((1.0, 2.5), (-0.125, 3.0)), "limón"), "a probe", "test")
    as_array = Dataset("probe.a", Probe(np.array([[1, 2.5], [-0.125, 3]]), "limón"), "a probe", "test")
    as_ints = Dataset("probe.i", Probe(((1, 2.5), (-0.125, 3)), "limón"), "a probe", "test")
    assert as_tuples.digest == as_array.digest == expected
    assert as_ints.digest != expected  # 1 and 1.0 are different content
    assert as_tuples.logged == "sha256:" + expected
    assert as_tuples.shape == "Probe(weights: 2 x 2 float, name: str)"


def test_a_dataset_with_no_canonical_form_names_its_key_and_field():
    from fractions import Fraction

    from ffn_core.registry import Dataset

    probe = Dataset("probe.f", (1, Fraction(1, 3)), "a probe", "test")
    with pytest.raises(TypeError, match=r"probe\.f\[1\]: Fraction"):
        _ = probe.digest


def test_every_dataset_is_registered_once_with_its_source_and_no_number_shares_its_key(numbers):
    from ffn_core.registry import all_datasets

    datasets = all_datasets()
    keys = [d.key for d in datasets]
    assert len(keys) == len(set(keys)) and not set(keys) & set(numbers)
    assert {"xor.solution", "approx.fits", "needles.tray", "stamps.reading", "attention.walk"} <= set(keys)
    for d in datasets:
        assert d.description and "ffn_core." in d.source, d.key
        assert len(d.digest) == 64 and d.digest == all_datasets()[keys.index(d.key)].digest  # cached, stable


def test_a_dataset_holds_what_its_source_returns():
    from ffn_core.approx import fit_all
    from ffn_core.registry import dataset

    assert dataset("approx.fits").value == fit_all()
    assert dataset("approx.fits").source == "ffn_core.approx.fit_all()"


def test_unknown_dataset_key_error_names_the_key_and_close_matches():
    from ffn_core.registry import dataset

    with pytest.raises(ValueError, match=r"unknown dataset key 'xor\.solutoin'\. Close matches: xor\.solution\."):
        dataset("xor.solutoin")
    with pytest.raises(ValueError, match="Dataset keys start with one of: .*xor"):
        dataset("zzz.solution")
    with pytest.raises(ValueError, match=r"'xor.n_points' is a number, not a dataset"):
        dataset("xor.n_points")
    with pytest.raises(ValueError, match=r"'xor.solution' is a dataset, not a number: read it with"):
        number("xor.solution")


def test_logged_value_is_a_numbers_value_or_a_datasets_digest():
    from ffn_core.registry import dataset, logged_value

    assert logged_value("params.gpt2_small.d_model") == 768
    assert logged_value("approx.fits") == "sha256:" + dataset("approx.fits").digest
    with pytest.raises(ValueError, match="unknown number key 'approx.fitz'"):
        logged_value("approx.fitz")


def test_asking_for_one_dataset_computes_only_its_group(tmp_path):
    code = (
        "import sys\n"
        "from ffn_core.registry import dataset\n"
        "dataset('approx.fits').digest\n"
        "print(sorted(m for m in sys.modules if m.startswith(('torch', 'ffn_core'))))\n"
    )
    env = {"FFN_CACHE_DIR": str(tmp_path), "PATH": "", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    modules = eval(result.stdout)  # noqa: S307 - our own printed list
    assert "ffn_core.approx" in modules
    assert not [m for m in modules if m.startswith("torch") or m in ("ffn_core.xor", "ffn_core.pretrained")]


def test_a_render_that_drew_a_dataset_is_reused_while_its_digest_holds(tmp_path):
    from ffn_core.registry import dataset, logged_value
    from lecture.farm.scene_cache import CacheRecord, is_fresh

    (tmp_path / "k.mp4").write_bytes(b"video")
    read = {"approx.fits": dataset("approx.fits").logged, "approx.interval": (-2.0, 2.0)}
    record = CacheRecord(key="k", video="k.mp4", numbers_read=read)
    assert is_fresh(record, "k", logged_value, tmp_path)
    changed = CacheRecord(key="k", video="k.mp4", numbers_read={**read, "approx.fits": "sha256:" + "0" * 64})
    assert not is_fresh(changed, "k", logged_value, tmp_path)
