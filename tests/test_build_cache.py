"""The scene cache key: a miss for each input that can change a scene's pixels, a hit when
only something else changed (all on a small source tree, no rendering)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from lecture.farm import scene_cache
from lecture.plan import PlannedScene
from lecture.qualities import QUALITIES
from voiceover.timeline import BeatTiming, Segment, Timeline

SCENE_SRC = """from scenes.kit import NarratedScene
from scenes.kit.shapes import Dot
from ffn_core.params import WIDTH


class S(NarratedScene):
    def construct(self):
        self.number("params.width")
"""


@pytest.fixture
def tree(tmp_path) -> Path:
    """scenes/, scenes/kit/ and ffn_core/ laid out like the repository's."""
    files = {
        "scenes/__init__.py": "",
        "scenes/kit/__init__.py": "from scenes.kit.narrated import NarratedScene\n",
        "scenes/kit/narrated.py": "class NarratedScene:\n    def number(self, key):\n"
        "        from ffn_core.registry import number\n        return number(key)\n",
        "scenes/kit/shapes.py": "Dot = 'dot'\n",
        "scenes/kit/unused.py": "Other = 'other'\n",
        "scenes/s.py": SCENE_SRC,
        "ffn_core/__init__.py": "",
        "ffn_core/params.py": "WIDTH = 4\n",
        "ffn_core/registry.py": "from ffn_core import params\n",
        "ffn_core/xor.py": "SEED = 1\n",
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def _timeline(speech_s: float = 1.5, text: str = "Hola.") -> Timeline:
    seg = Segment(text, text, 0.0, speech_s, "/clips/a.wav")
    beat = BeatTiming("uno", 0.0, speech_s, 0.5, {"marca": 0.7}, (seg,))
    return Timeline("s", "Título", (beat,), speech_s + 0.5, "/x/s.toml")


def _key(tree: Path, timeline: Timeline | None = None, quality: str = "preview") -> str:
    scene = PlannedScene("s", tree / "scenes" / "s.py", "S", "s")
    return scene_cache.scene_key(scene, timeline or _timeline(), QUALITIES[quality], root=tree)


def _edit(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")


def test_sources_followed_are_the_scene_the_kit_it_imports_and_ffn_core_it_imports(tree):
    names = {str(p.relative_to(tree)) for p in scene_cache.scene_sources(tree / "scenes" / "s.py", tree)}
    assert names == {
        "scenes/__init__.py",
        "scenes/s.py",
        "scenes/kit/__init__.py",
        "scenes/kit/narrated.py",
        "scenes/kit/shapes.py",
        "ffn_core/__init__.py",
        "ffn_core/params.py",
    }


def test_unchanged_inputs_give_the_same_key(tree):
    assert _key(tree) == _key(tree)


@pytest.mark.parametrize(
    "rel",
    ["scenes/s.py", "scenes/kit/shapes.py", "scenes/kit/narrated.py", "scenes/kit/__init__.py", "ffn_core/params.py"],
)
def test_editing_a_source_the_scene_runs_misses(tree, rel):
    before = _key(tree)
    _edit(tree / rel)
    assert _key(tree) != before


@pytest.mark.parametrize("rel", ["scenes/kit/unused.py", "ffn_core/xor.py", "ffn_core/registry.py"])
def test_editing_a_source_the_scene_does_not_run_hits(tree, rel):
    # ffn_core.registry reaches the scene only through NarratedScene.number: by value.
    before = _key(tree)
    _edit(tree / rel)
    assert _key(tree) == before


def test_a_new_import_in_the_scene_is_followed(tree):
    before = _key(tree)
    src = tree / "scenes" / "s.py"
    src.write_text(
        src.read_text(encoding="utf-8").replace("import Dot", "import Dot\nfrom scenes.kit.unused import Other"),
        encoding="utf-8",
    )
    changed = _key(tree)
    assert changed != before
    _edit(tree / "scenes" / "kit" / "unused.py")
    assert _key(tree) != changed


def test_timeline_timing_misses_but_its_words_do_not(tree):
    base = _timeline()
    assert _key(tree, _timeline(speech_s=1.6)) != _key(tree, base)
    moved_mark = replace(base, beats=(replace(base.beats[0], bookmarks={"marca": 0.8}),))
    assert _key(tree, moved_mark) != _key(tree, base)
    longer_pause = replace(base, beats=(replace(base.beats[0], pause_s=0.9),))
    assert _key(tree, longer_pause) != _key(tree, base)
    assert _key(tree, _timeline(text="Adiós.")) == _key(tree, base)


def test_each_quality_has_its_own_key(tree):
    keys = {_key(tree, quality=q) for q in QUALITIES}
    assert len(keys) == len(QUALITIES)


def test_manim_version_is_in_the_key(tree, monkeypatch):
    before = _key(tree)
    real = scene_cache._version
    monkeypatch.setattr(scene_cache, "_version", lambda p: "99.0" if p == "manim" else real(p))
    assert _key(tree) != before


def _record(tmp_path: Path, numbers: dict, digest: str = "d0") -> scene_cache.CacheRecord:
    (tmp_path / "k.mp4").write_bytes(b"\0" * 64)
    return scene_cache.CacheRecord("k", "k.mp4", numbers, "k.log.json", 30, 15.0, digest)


def test_numbers_read_hit_while_their_values_hold_and_miss_when_one_changes(tmp_path):
    record = _record(tmp_path, {"a.b": 3, "c.d": [1, 2]})
    values = {"a.b": 3, "c.d": (1, 2)}
    assert scene_cache.is_fresh(record, "k", values.__getitem__, tmp_path, digest="other")
    values["a.b"] = 4
    assert not scene_cache.is_fresh(record, "k", values.__getitem__, tmp_path, digest="other")
    assert not scene_cache.is_fresh(record, "k", {}.__getitem__, tmp_path, digest="other")  # key gone


def test_numbers_are_not_recomputed_while_ffn_core_is_unchanged(tmp_path):
    record = _record(tmp_path, {"a.b": 3})

    def never(key):
        raise AssertionError("values need no recomputing when the digest matches")

    assert scene_cache.is_fresh(record, "k", never, tmp_path, digest="d0")


def test_a_missing_or_empty_video_or_another_key_is_a_miss(tmp_path):
    record = _record(tmp_path, {})
    assert not scene_cache.is_fresh(record, "other", {}.__getitem__, tmp_path)
    (tmp_path / "k.mp4").write_bytes(b"")
    assert not scene_cache.is_fresh(record, "k", {}.__getitem__, tmp_path)
    (tmp_path / "k.mp4").unlink()
    assert not scene_cache.is_fresh(record, "k", {}.__getitem__, tmp_path)
    assert not scene_cache.is_fresh(None, "k", {}.__getitem__, tmp_path)


def test_records_round_trip_and_unreadable_ones_are_misses(tmp_path):
    record = _record(tmp_path, {"a": 1})
    scene_cache.save_record(tmp_path, record)
    assert scene_cache.load_record(tmp_path, "k") == record
    scene_cache.record_path(tmp_path, "k").write_text("{", encoding="utf-8")
    assert scene_cache.load_record(tmp_path, "k") is None


def test_pruning_keeps_the_most_recent_renders_and_drops_unrecorded_ones(tmp_path):
    import os

    for i, key in enumerate(["k1", "k2", "k3", "k4"]):
        (tmp_path / f"{key}.mp4").write_bytes(b"x")
        (tmp_path / f"{key}.log.json").write_text("{}")
        scene_cache.save_record(tmp_path, scene_cache.CacheRecord(key, f"{key}.mp4", {}))
        os.utime(scene_cache.record_path(tmp_path, key), (1000 + i, 1000 + i))
    (tmp_path / "orphan.mp4").write_bytes(b"half")  # a render whose record was never written
    removed = scene_cache.prune(tmp_path, keep=3)
    assert removed == ["k1"]
    assert sorted(p.name for p in tmp_path.glob("*.mp4")) == ["k2.mp4", "k3.mp4", "k4.mp4"]
    assert not (tmp_path / "k1.log.json").exists()


def test_the_numbers_digest_follows_every_ffn_core_source(tree):
    before = scene_cache.numbers_digest(tree)
    assert scene_cache.numbers_digest(tree) == before
    _edit(tree / "ffn_core" / "xor.py")  # not imported by the scene, but it computes registry values
    assert scene_cache.numbers_digest(tree) != before


def test_a_scene_outside_the_repository_keys_the_same_wherever_it_lies(tree):
    # Sources are hashed in order of their names; ordering by absolute path made a copied
    # scene's key depend on whether its folder sorted before or after the repository's.
    import shutil
    import tempfile

    keys = []
    for prefix in ("aaa-", "zzz-"):  # one folder sorts before the tree's, one after
        folder = Path(tempfile.mkdtemp(prefix=prefix, dir=tree.parent))
        try:
            (folder / "s.py").write_text(SCENE_SRC, encoding="utf-8")
            scene = PlannedScene("s", folder / "s.py", "S", "s")
            keys.append(scene_cache.scene_key(scene, _timeline(), QUALITIES["preview"], root=tree))
        finally:
            shutil.rmtree(folder)
    assert keys[0] == keys[1]
