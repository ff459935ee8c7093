"""The on-disk cache: keyed by code and inputs, atomic, and self-healing."""

import pickle

import pytest

from ffn_core import cache, settings
from ffn_core.approx import fit_all


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """The entries' folder: ffn_core/ under the cache root that FFN_CACHE_DIR names."""
    monkeypatch.setenv(settings.CACHE_DIR.name, str(tmp_path))
    return tmp_path / "ffn_core"


def test_cache_dir_comes_from_the_environment(cache_dir):
    assert cache.cache_dir() == cache_dir


def test_cache_dir_defaults_to_the_repo(monkeypatch):
    monkeypatch.delenv(settings.CACHE_DIR.name, raising=False)
    assert cache.cache_dir() == settings.REPO_ROOT / ".cache" / "ffn_core"


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


@pytest.fixture
def tree(tmp_path):
    """A small ffn_core/: a provider importing a helper, beside a module it does not import."""
    files = {
        "ffn_core/__init__.py": "",
        "ffn_core/cache.py": "def disk_cached(f):\n    return f\n",
        "ffn_core/helper.py": "SCALE = 2\n",
        "ffn_core/unused.py": "OTHER = 3\n",
        "ffn_core/provider.py": "from ffn_core.cache import disk_cached\n"
        "from ffn_core.helper import SCALE\n\n\n@disk_cached\ndef solve():\n    return SCALE\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return tmp_path


def _key(tree):
    return cache.cache_key("ffn_core.provider", "solve", (), tree)


def _edit(path):
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")


@pytest.mark.parametrize("rel", ["ffn_core/provider.py", "ffn_core/helper.py", "ffn_core/__init__.py"])
def test_key_changes_when_the_provider_or_a_module_it_imports_changes(tree, rel):
    before = _key(tree)
    _edit(tree / rel)
    assert _key(tree) != before


@pytest.mark.parametrize("rel", ["ffn_core/unused.py", "ffn_core/cache.py"])
def test_key_holds_when_a_module_the_provider_does_not_compute_with_changes(tree, rel):
    before = _key(tree)
    _edit(tree / rel)
    assert _key(tree) == before


def test_the_dependencies_are_the_imports_followed_through_ffn_core():
    names = {p.relative_to(settings.REPO_ROOT).as_posix() for p in cache.dependency_files("ffn_core.groups.block")}
    assert {"ffn_core/groups/block.py", "ffn_core/modules.py", "ffn_core/params.py"} <= names
    assert "ffn_core/cache.py" not in names


def test_key_changes_with_inputs_and_function_name():
    base = cache.cache_key("ffn_core.approx", "fit_all", (1,))
    assert base != cache.cache_key("ffn_core.approx", "fit_all", (2,))
    assert base != cache.cache_key("ffn_core.approx", "fit_relu", (1,))
