"""A chunk's skipped replay of construct() is cheap and changes nothing drawn: SVG parses come
from a cache on disk (`lecture.farm.mobject_cache`), copies share glyph paths and are made
with fewer calls (`lecture.farm.fast_copy`), and a chunk rendered with the cache warm shows
exactly the frames of one rendered with it cold."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
from test_build_chunks import FPS, ChunkScene

from lecture.farm import fast_copy, mobject_cache
from lecture.farm.chunk import ChunkUnit, render_chunk
from lecture.farm.cuts import first_frame_of
from lecture.media.ffmpeg import framemd5

SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="60" height="40" viewBox="0 0 60 40">
  <g id="shapes" fill="#ff8800">
    <path id="wave" d="M 2 20 C 10 0 20 0 28 20 S 46 40 54 20 L 58 38 Z"/>
    <rect x="4" y="26" width="12" height="8" rx="2"/>
    <circle cx="40" cy="10" r="6" stroke="#0044ff" stroke-width="1.5"/>
    <path d="M 30 30 A 6 4 0 0 1 42 30"/>
  </g>
</svg>
"""


@pytest.fixture
def patched(monkeypatch, tmp_path):
    """Whatever `install()` patches is put back after the test (the cache and the fast
    copies are meant for a render process, which exits after its scene); Pango's SVGs go
    under the test's own folder."""
    from manim import Mobject, config
    from manim.mobject.svg.svg_mobject import SVGMobject, VMobjectFromSVGPath

    monkeypatch.setattr(SVGMobject, "generate_mobject", SVGMobject.generate_mobject)
    monkeypatch.setattr(VMobjectFromSVGPath, "__init__", VMobjectFromSVGPath.__init__)
    monkeypatch.setattr(Mobject, "__deepcopy__", Mobject.__deepcopy__)
    monkeypatch.setattr(fast_copy, "_colour", fast_copy._colour)
    monkeypatch.setattr(fast_copy, "_SELF_COPYING", set(fast_copy._SELF_COPYING))
    monkeypatch.setattr(config, "media_dir", str(tmp_path / "media"))


def shapes(svg: Path, **kwargs):
    from manim import SVGMobject

    return SVGMobject(svg, use_svg_cache=False, **kwargs)  # manim's in-process cache would answer first


def drawn_state(mob) -> list[tuple]:
    """Everything a frame is drawn from, family member by family member, as bytes."""
    return [
        (type(m).__name__, m.points.tobytes(), m.fill_rgbas.tobytes(), m.stroke_rgbas.tobytes(), float(m.stroke_width))
        for m in mob.get_family()
    ]


def test_a_cached_svg_parse_gives_the_points_and_colours_of_manims_own(tmp_path, patched):
    from manim import Text

    svg = tmp_path / "shapes.svg"
    svg.write_text(SVG, encoding="utf-8")
    stock_svg, stock_text = drawn_state(shapes(svg)), drawn_state(Text("Hola, ñandú", font_size=30))
    folder = tmp_path / "mobjects"
    mobject_cache.install(folder)
    cold_svg, cold_text = drawn_state(shapes(svg)), drawn_state(Text("Hola, ñandú", font_size=30))
    assert len(list(folder.glob("*.pickle"))) == 2
    warm = shapes(svg)
    assert cold_svg == stock_svg and cold_text == stock_text
    assert drawn_state(warm) == stock_svg and drawn_state(Text("Hola, ñandú", font_size=30)) == stock_text
    assert set(warm.id_to_vgroup_dict) >= {"root", "shapes", "wave"}
    assert warm.id_to_vgroup_dict["root"].submobjects == warm.submobjects  # groups hold the mobject's own parts
    # Another setting is another entry: a parse never answers for a mobject styled otherwise.
    shapes(svg, svg_default={**warm.svg_default, "fill_color": "#00ff00"})
    assert len(list(folder.glob("*.pickle"))) == 3


def test_a_text_made_after_other_texts_finds_the_parse_made_first(tmp_path, patched):
    """cairo names a text's SVG after the surfaces the process made before it; the entry
    does not depend on that name, and the text gets its own group name back."""
    from manim import Text

    folder = tmp_path / "mobjects"
    mobject_cache.install(folder)
    first = Text("Hola, ñandú", font_size=30)
    svg = Path(first.get_file_path())
    first_name = mobject_cache.without_surface_name(svg.read_bytes())[1]
    (entry,) = folder.glob("*.pickle")
    for word in ("uno", "dos", "tres"):
        Text(word, font_size=30)
    made = len(list(folder.glob("*.pickle")))
    svg.unlink()  # as in another process: Pango draws the text again, into a later surface
    again = Text("Hola, ñandú", font_size=30)
    own = mobject_cache.without_surface_name(svg.read_bytes())[1]
    assert own is not None and first_name is not None and own != first_name
    assert len(list(folder.glob("*.pickle"))) == made and entry.exists()  # found, not parsed again
    assert drawn_state(again) == drawn_state(first)
    assert own in again.id_to_vgroup_dict and mobject_cache.SURFACE_NAME not in again.id_to_vgroup_dict
    assert list(again.id_to_vgroup_dict).index(own) == list(first.id_to_vgroup_dict).index(first_name)


def test_an_svg_that_names_its_surface_elsewhere_is_keyed_as_it_is():
    data = b'<svg><g id="surface3"><use href="#surface3"/></g></svg>'
    assert mobject_cache.without_surface_name(data) == (data, None)
    two = b'<svg><g id="surface3"/><g id="surface4"/></svg>'
    assert mobject_cache.without_surface_name(two) == (two, None)
    one = b'<svg><g id="surface12"><path d="M 0 0"/></g></svg>'
    assert mobject_cache.without_surface_name(one) == (b'<svg><g id="surface"><path d="M 0 0"/></g></svg>', "surface12")


def _one_entry(tmp_path: Path):
    """An SVG parsed once with the cache on: (its file, the folder, what it draws, its entry)."""
    svg = tmp_path / "shapes.svg"
    svg.write_text(SVG, encoding="utf-8")
    folder = tmp_path / "mobjects"
    mobject_cache.install(folder)
    expected = drawn_state(shapes(svg))
    (entry,) = folder.glob("*.pickle")
    return svg, folder, expected, entry


def test_a_damaged_entry_is_parsed_again_and_written_anew(tmp_path, patched):
    svg, folder, expected, entry = _one_entry(tmp_path)
    whole = entry.read_bytes()
    for damage in (whole[: len(whole) // 2], b"not a pickle", b""):
        entry.write_bytes(damage)
        assert drawn_state(shapes(svg)) == expected
        assert entry.read_bytes() != damage and mobject_cache.MobjectStore(folder).load(entry.stem) is not None
    assert not list(folder.glob(".*.part"))  # written by rename: no temporary file left behind


def test_an_entry_not_signed_by_this_users_key_is_never_unpickled(tmp_path, patched, monkeypatch):
    import pickle

    from ffn_core import cache

    svg, folder, expected, entry = _one_entry(tmp_path)
    ran = tmp_path / "ran"

    class Payload:  # what a writer of a shared cache could plant: code run on unpickling
        def __reduce__(self):
            return (Path.touch, (ran,))

    planted = pickle.dumps((mobject_cache.FORMAT, entry.stem, Payload()))
    with monkeypatch.context() as other:  # another user's key signs it
        other.setattr(cache, "signing_key", lambda: b"k" * 32)
        other_users = cache.signed(entry.stem, planted)
    for forged in (planted, other_users):
        entry.write_bytes(forged)
        assert drawn_state(shapes(svg)) == expected and not ran.exists()
        assert mobject_cache.MobjectStore(folder).load(entry.stem) is not None  # parsed again, signed anew


def test_the_folder_is_kept_under_its_bound_the_oldest_used_deleted_first(tmp_path):
    import os

    store = mobject_cache.MobjectStore(tmp_path)
    for i, name in enumerate(("old", "mid", "new")):
        (tmp_path / f"{name}.pickle").write_bytes(b"x" * 100)
        os.utime(tmp_path / f"{name}.pickle", ns=(i * 10**9, i * 10**9))
    store.prune(250)
    assert sorted(p.stem for p in tmp_path.glob("*.pickle")) == ["mid", "new"]


def test_a_glyph_path_stays_readable_after_a_round_trip_and_copies_share_it(tmp_path, patched):
    from manim import Text
    from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath

    mobject_cache.install(tmp_path / "mobjects")
    cold = Text("ab", font_size=30)
    warm = Text("ab", font_size=30)
    glyph = warm.submobjects[0]
    assert isinstance(glyph.path_obj, mobject_cache.PathOnDemand)
    assert glyph.copy().path_obj is glyph.path_obj
    # Rebuilt from the path it keeps, a glyph has the points it was built with.
    again = VMobjectFromSVGPath(glyph.path_obj.resolve())
    assert again.points.tobytes() == VMobjectFromSVGPath(cold.submobjects[0].path_obj).points.tobytes()


def same_graph(x, y, seen_x: dict, seen_y: dict) -> str | None:
    """None when y is a copy of x's object graph: equal values and the same sharing."""
    if type(x) is not type(y):
        return f"{type(x).__name__} against {type(y).__name__}"
    if type(x) in fast_copy.ATOMIC:
        return None if x is y or x == y else f"{x!r} against {y!r}"
    if id(x) in seen_x or id(y) in seen_y:
        return None if seen_x.get(id(x)) == id(y) and seen_y.get(id(y)) == id(x) else "shared differently"
    seen_x[id(x)], seen_y[id(y)] = id(y), id(x)
    if isinstance(x, np.ndarray):
        return None if (x.dtype, x.shape, x.tobytes()) == (y.dtype, y.shape, y.tobytes()) else "array"
    if isinstance(x, (list, tuple)):
        return (
            "length"
            if len(x) != len(y)
            else next(filter(None, map(same_graph, x, y, [seen_x] * len(x), [seen_y] * len(x))), None)
        )
    if isinstance(x, dict):
        if list(x) != list(y):
            return "keys"
        return next((f"[{k}] {r}" for k in x if (r := same_graph(x[k], y[k], seen_x, seen_y))), None)
    if hasattr(x, "__dict__") and not callable(x):
        keys = [k for k in vars(x) if k != "original_id"]  # the original's id: differs by design
        if keys != [k for k in vars(y) if k != "original_id"]:
            return "attributes"
        return next((f".{k} {r}" for k in keys if (r := same_graph(vars(x)[k], vars(y)[k], seen_x, seen_y))), None)
    return None if x is y or x == y else f"{type(x).__name__} differs"


def test_a_fast_copy_is_the_stock_deep_copy_value_for_value_and_shares_the_same(patched):
    from manim import LEFT, RED, RIGHT, Arrow, ManimColor, Rectangle, Text, VGroup

    text = Text("Hola mundo", font_size=30, t2c={"mundo": RED})
    box = Rectangle().set_fill(ManimColor("#336699"), 0.5)
    group = VGroup(text, box, Arrow(LEFT, RIGHT))
    group.add_updater(lambda mob, dt: None)
    colour = ManimColor("#993366")
    group.notes = [box, {"glyph": text[0], "points": box.points, "colour": colour, "again": colour}]  # shared
    stock = copy.deepcopy(group)
    fast_copy.install()
    fast = copy.deepcopy(group)
    assert same_graph(stock, fast, {}, {}) is None
    assert fast.notes[0] is fast.submobjects[1] and fast.notes[1]["points"] is fast.submobjects[1].points
    assert fast.notes[1]["colour"] is not colour and fast.notes[1]["again"] is fast.notes[1]["colour"]
    assert fast.original_id == str(id(group))
    assert drawn_state(group.copy()) == drawn_state(group)


@pytest.mark.slow
def test_a_chunk_rendered_with_the_cache_warm_shows_the_frames_of_one_rendered_cold(tmp_path, monkeypatch):
    c = ChunkScene(tmp_path, monkeypatch)
    timeline = c.timeline()
    timeline_json = c.job(timeline, "x").unit.timeline_json
    second_beat = first_frame_of(timeline.beats[1], FPS)  # beat "dos" on: its label is a Text
    cache = tmp_path / "cache" / "build" / "svg" / mobject_cache.FOLDER

    def chunk(start: int, name: str) -> ChunkUnit:
        return ChunkUnit(
            "tiny_c", 1, 2, str(c.scene.module), "TinyC", 854, 480, FPS, start, None, timeline_json,
            str(tmp_path / "media"), str(tmp_path / f"{name}.mp4"), str(tmp_path / f"{name}.log.json"),
        )  # fmt: skip

    whole = render_chunk(chunk(0, "whole"))  # cold: it writes the entries
    assert whole.ok, whole.error
    assert list(cache.glob("*.pickle"))
    tail = render_chunk(chunk(second_beat, "warm"))  # its label was parsed by the whole render
    assert tail.ok, tail.error
    for entry in cache.glob("*.pickle"):
        entry.unlink()
    cold = render_chunk(chunk(second_beat, "cold"))
    assert cold.ok, cold.error
    frames = framemd5(Path(whole.output))
    assert tail.first_frame == cold.first_frame and tail.first_frame is not None
    assert framemd5(Path(tail.output)) == framemd5(Path(cold.output)) == frames[tail.first_frame :]
