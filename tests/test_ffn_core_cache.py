"""The on-disk cache: keyed by code and inputs, atomic, and self-healing."""

import pickle

import pytest

from ffn_core import cache
from ffn_core.approx import fit_all


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path))
    return tmp_path


def test_cache_dir_comes_from_the_environment(cache_dir):
    assert cache.cache_dir() == cache_dir


def test_cache_dir_defaults_to_the_repo(monkeypatch):
    monkeypatch.delenv(cache.ENV_VAR, raising=False)
    assert cache.cache_dir() == cache.REPO_ROOT / ".cache" / "ffn_core"


def test_a_result_is_stored_once_and_read_back_equal(cache_dir):
    first = fit_all((1, 2), 51)
    entries = list(cache_dir.glob("*.pkl"))
    assert len(entries) == 1
    fit_all.clear_memory()
    assert fit_all((1, 2), 51) == first
    assert not list(cache_dir.glob("*.tmp"))  # atomic write left no temp file


def test_different_inputs_get_different_entries(cache_dir):
    fit_all((1, 2), 51)
    fit_all((1, 3), 51)
    assert len(list(cache_dir.glob("*.pkl"))) == 2


def test_corrupt_entry_is_recomputed_and_rewritten(cache_dir):
    expected = fit_all((1, 4), 41)
    (entry,) = cache_dir.glob("*.pkl")
    entry.write_bytes(b"\x80\x05 truncated garbage")
    fit_all.clear_memory()
    assert fit_all((1, 4), 41) == expected
    key, value = pickle.loads(entry.read_bytes())
    assert value == expected and entry.stem == key


def test_key_changes_when_the_provider_source_changes(monkeypatch):
    before = cache.cache_key(("ffn_core.approx",), "fit_all", ((1,),))
    real = cache._module_source
    monkeypatch.setattr(cache, "_module_source", lambda name: real(name) + "\n# edited\n")
    assert cache.cache_key(("ffn_core.approx",), "fit_all", ((1,),)) != before


def test_key_changes_with_inputs_and_function_name():
    base = cache.cache_key(("ffn_core.approx",), "fit_all", (1,))
    assert base != cache.cache_key(("ffn_core.approx",), "fit_all", (2,))
    assert base != cache.cache_key(("ffn_core.approx",), "fit_relu", (1,))
