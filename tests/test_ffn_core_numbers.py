"""The audited registry of numbers: complete, traceable, lazy, and helpful when wrong."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ffn_core.numbers import Number, all_numbers, number

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
        "params.gpt3_175b.d_model", 12288, "dimensions", "ffn_core.params.get_config('gpt3_175b').d_model"
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
        "from ffn_core.numbers import number\n"
        "number('params.llama2_7b.total')\n"
        "print(sorted(m for m in sys.modules if m.startswith(('torch', 'ffn_core'))))\n"
    )
    env = {"FFN_CACHE_DIR": str(tmp_path), "PATH": "", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    modules = eval(result.stdout)  # noqa: S307 - our own printed list
    assert modules == ["ffn_core", "ffn_core.numbers", "ffn_core.params"]
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
