"""The on-disk cache: keyed by code and inputs, atomic, self-healing, and signed."""

import os
import pickle
import stat
import subprocess
import sys

import pytest

from ffn_core import cache, settings
from ffn_core.approx import fit_all


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """The entries' folder: ffn_core/ under the cache root that FFN_CACHE_DIR names; the
    signing key in a folder of its own, outside the cache, as in ~/.config/ffn-video/."""
    monkeypatch.setenv(settings.CACHE_DIR.name, str(tmp_path / "cache"))
    monkeypatch.setenv(settings.CACHE_KEY.name, str(tmp_path / "config" / "ffn-video" / "cache.key"))
    return tmp_path / "cache" / "ffn_core"


def _signed_payload(entry):
    """What `store` pickled, read the way `load` reads it (signature checked first)."""
    found, value = cache.load(entry.stem)
    assert found, f"{entry} is not signed by this user's key"
    return entry.stem, value


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
    key, value = _signed_payload(entry)
    assert value == expected and entry.stem == key


class _RunsCode:
    """A pickle that, when loaded, writes a file: what a writer of the shared cache could plant."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ejecutado')",))


def test_a_tampered_entry_is_recomputed_and_never_unpickled(cache_dir, tmp_path):
    """Someone who can write the cache replaces an entry with a pickle that runs code, in the
    old unsigned format and then with a signature made by another key: neither is unpickled,
    the result is recomputed and the entry rewritten, signed."""
    expected = fit_all((1, 5), 41)
    (entry,) = cache_dir.glob("*.pkl")
    marker = tmp_path / "ran.txt"
    planted = pickle.dumps((entry.stem, _RunsCode(marker)))

    def served_after(tampered: bytes) -> None:
        entry.write_bytes(tampered)
        fit_all.clear_memory()
        assert fit_all((1, 5), 41) == expected
        assert not marker.exists(), "a tampered entry was unpickled"
        assert _signed_payload(entry)[1] == expected  # rewritten, signed with this user's key

    served_after(planted)  # unsigned, as every entry was before
    key_file = settings.cache_key_file()
    forged = cache._SIGNED + cache._mac(bytes(range(32)), entry.stem, planted) + planted
    served_after(forged)  # signed, with a key that is not this user's
    served_after(entry.read_bytes()[:-1] + b"\x00")  # this user's entry, one byte changed
    assert key_file.is_file() and not key_file.is_relative_to(cache_dir.parent)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700


def test_another_user_with_another_key_recomputes_instead_of_trusting_the_entry(cache_dir, tmp_path):
    """Two users share the cache folder, each with a key of their own: the second (a fresh
    process, as a second user would be) does not trust the first one's entry; given the same
    key file, it reads it."""
    expected = fit_all((1, 6), 41)
    (entry,) = cache_dir.glob("*.pkl")
    first = entry.read_bytes()
    probe = f"from ffn_core import cache; print(cache.load({entry.stem!r})[0])"
    env = {**os.environ, settings.CACHE_KEY.name: str(tmp_path / "otro" / "cache.key")}
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"  # another key: not trusted
    env[settings.CACHE_KEY.name] = str(settings.cache_key_file())
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert run.stdout.strip() == "True", run.stderr  # the same key file: shared
    assert entry.read_bytes() == first and fit_all((1, 6), 41) == expected


def test_without_a_place_for_the_key_results_are_computed_and_not_stored(cache_dir, monkeypatch, tmp_path, capsys):
    blocker = tmp_path / "un_archivo"
    blocker.write_text("no es una carpeta")
    monkeypatch.setenv(settings.CACHE_KEY.name, str(blocker / "cache.key"))
    fit_all.clear_memory()
    assert fit_all((1, 7), 41) == fit_all.uncached((1, 7), 41)
    assert not list(cache_dir.glob("*.pkl"))
    assert "no se guarda" in capsys.readouterr().err


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
