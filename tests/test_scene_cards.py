"""The title and closing cards: their numbers recomputed another way, and their drawings.

The registry's size and its counts by kind are recounted through the public `all_numbers()`
(the cards group counts itself without calling it, to avoid recursing into itself); the title
card's hook is recomputed from LLaMA-2 7B's published shapes; its map is checked against the
plan, and a reordered plan against the build's cache key. Nothing renders here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ffn_core.registry import all_numbers, number
from voiceover.script import load_script

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _manim_media_in_tmp(tmp_path, monkeypatch):
    """Text mobjects cache glyph files under manim's media dir: keep them out of the repo."""
    from manim import config

    monkeypatch.setattr(config, "media_dir", str(tmp_path / "media"))


# -- numbers ---------------------------------------------------------------------------------


def test_registry_size_is_the_number_of_rows_the_audit_lists():
    everything = all_numbers()
    assert number("cards.registry_size").value == len(everything)
    assert len({n.key for n in everything}) == len(everything)
    assert "cards.registry_size" in {n.key for n in everything}


def test_the_title_cards_hook_is_llama2_7b_ffn_weights_over_all_its_weights():
    # LLaMA-2 7B (Touvron et al. 2023): 32 blocks, d = 4096, SwiGLU hidden width 11008 with three
    # matrices, 6 738 415 616 parameters in all.
    ffn = 32 * 3 * 4096 * 11008
    share = number("params.llama2_7b.ffn_share_of_total").value
    assert share == pytest.approx(ffn / 6_738_415_616, rel=1e-12)
    assert 0.6 < share < 2 / 3  # "casi dos tercios", as the narration says


def test_the_registry_counts_its_numbers_by_kind_and_the_kinds_add_up_to_the_whole():
    everything = all_numbers()
    kinds = (("computed", "cards.n_computed"), ("published", "cards.n_published"), ("quoted", "cards.n_quoted"))
    for kind, key in kinds:
        assert number(key).value == sum(n.kind == kind for n in everything), kind
    total = sum(number(k).value for k in ("cards.n_computed", "cards.n_published", "cards.n_quoted"))
    assert total == number("cards.registry_size").value
    # The seed's 72 % is the quoted figure the iceberg marks as quoted; model shapes are published.
    assert number("iceberg.quoted.llama2_7b_ffn_share").kind == "quoted"
    assert number("params.llama2_7b.n_layers").kind == "published"


def test_the_closing_card_says_each_kind_with_its_count_and_no_command_line():
    text = " ".join(b.text for b in load_script("closing_card").beats)
    for key in ("cards.registry_size", "cards.n_computed", "cards.n_published"):
        assert "{" + key + ":" in text
    assert "ffn-video" not in text and "json" not in text  # the command line is the description's
    assert "descripción" in text


def test_the_title_cards_promise_names_the_three_kinds_of_figure():
    from scenes.title_card import ORIGINS

    beat = load_script("title_card").beat("promesa")
    for words in ("calculó el código del proyecto", "configuración publicada", "cifra citada"):
        assert words in beat.text
    assert len(ORIGINS) == 3 and "citada" in ORIGINS[2]


def test_the_title_card_does_not_say_nobody_studies_the_layer_and_cites_who_does():
    beat = load_script("title_card").beat("titulo")
    assert "nadie" not in beat.text
    assert {"geva2021", "dai2022", "meng2022"} <= set(beat.sources)


# -- the map: built from the plan -----------------------------------------------------------


def _plan_toml(*scenes: tuple[str, str, str]) -> str:
    return "".join(f'[[scene]]\nname = "{n}"\nmodule = "{m}"\nclass = "{c}"\n\n' for n, m, c in scenes)


SMALL_PLAN = (
    ("title_card", "scenes/title_card.py", "TitleCard"),
    ("xor", "scenes/xor.py", "Xor"),
    ("iceberg", "scenes/iceberg.py", "Iceberg"),
)


def test_chapters_are_the_plans_scenes_in_order_titled_by_their_scripts():
    from lecture.plan import load_plan
    from voiceover.chapters import chapters

    expected = [(s.name, s.script, s.load_script().title) for s in load_plan()]
    assert [(c.scene, c.script, c.title) for c in chapters()] == expected


def test_the_default_plan_is_lecture_plans_and_ffn_plan_moves_both(tmp_path, monkeypatch):
    from lecture import plan as lecture_plan
    from voiceover import chapters, paths

    assert paths.DEFAULT_PLAN == lecture_plan.PLAN_PATH
    other = tmp_path / "plan.toml"
    other.write_text(_plan_toml(SMALL_PLAN[1]), encoding="utf-8")
    monkeypatch.setenv("FFN_PLAN", str(other))
    assert paths.plan_file() == lecture_plan.plan_path() == other.resolve()
    assert [c.title for c in chapters.chapters()] == [load_script("xor").title]


def test_a_plan_without_a_narration_for_a_scene_is_refused_naming_it(tmp_path):
    from voiceover.chapters import ChapterError, chapters

    plan = tmp_path / "plan.toml"
    plan.write_text(_plan_toml(("ghost", "scenes/ghost.py", "Ghost")), encoding="utf-8")
    with pytest.raises(ChapterError, match="«ghost»"):
        chapters(plan)


def test_reordering_the_plan_changes_the_title_cards_cache_key_and_no_other(tmp_path, monkeypatch):
    from lecture.farm.scene_cache import scene_key
    from lecture.plan import load_plan
    from lecture.qualities import QUALITIES
    from voiceover.timeline import Timeline

    timeline = Timeline("x", "x", (), 1.0, "")

    def keys(order):
        plan = tmp_path / ("-".join(s[0] for s in order) + ".toml")
        plan.write_text(_plan_toml(*order), encoding="utf-8")
        monkeypatch.setenv("FFN_PLAN", str(plan))
        return {s.name: scene_key(s, timeline, QUALITIES["preview"]) for s in load_plan(plan)}

    before = keys(SMALL_PLAN)
    after = keys((SMALL_PLAN[0], SMALL_PLAN[2], SMALL_PLAN[1]))
    assert before["title_card"] != after["title_card"]  # the map follows the plan
    assert before["xor"] == after["xor"] and before["iceberg"] == after["iceberg"]


def test_the_title_card_maps_every_other_scene_of_the_plan_in_order(tmp_path, monkeypatch):
    from voiceover.chapters import chapters

    plan = tmp_path / "plan.toml"
    plan.write_text(_plan_toml(*SMALL_PLAN), encoding="utf-8")
    monkeypatch.setenv("FFN_PLAN", str(plan))
    source = (ROOT / "scenes" / "title_card.py").read_text(encoding="utf-8")
    assert "from voiceover.chapters import chapters" in source and "CHAPTERS" not in source
    assert "c.script != self.script" in source  # the card does not list itself
    mapped = [c.title for c in chapters() if c.script != "title_card"]
    assert mapped == [load_script("xor").title, load_script("iceberg").title]


def test_the_title_cards_narration_speaks_of_parts_not_of_scenes():
    # A reordered plan redraws the map; the voice must not go stale with it.
    text = load_script("title_card").beat("mapa").text.lower()
    for scene_word in ("iceberg", "xor", "relu", "agujas", "sellos", "pianola", "plantilla", "relevo"):
        assert scene_word not in text


# -- drawings --------------------------------------------------------------------------------


@pytest.mark.parametrize("share", [0.0, 0.25, 0.6423, 1.0])
def test_share_bar_fills_exactly_its_share_from_the_left(share):
    from scenes.kit.cards import ShareBar

    bar = ShareBar(share, width=10.0)
    assert bar.fill.width == pytest.approx(10.0 * share, abs=1e-6)
    assert bar.fill.get_left()[0] == pytest.approx(bar.frame.get_left()[0])
    assert bar.rest.get_right()[0] == pytest.approx(bar.frame.get_right()[0])


def test_share_bar_refuses_a_share_outside_zero_to_one():
    from scenes.kit.cards import ShareBar

    with pytest.raises(ValueError, match="between 0 and 1"):
        ShareBar(1.2)


def test_chapter_lines_hold_their_picture_and_name_inside_and_refuse_unknown_glyphs():
    from scenes.kit.cards import GLYPHS, ChapterTile

    # The longest titles of the plan: one with a picture, one without (which gets more room).
    cases = [(glyph, "Perforar de nuevo un solo agujero") for glyph in GLYPHS]
    for glyph, title in [*cases, (None, "Superposición: más rasgos que dimensiones")]:
        tile = ChapterTile(glyph, title)
        for part in (tile.picture, tile.name):
            assert tile.frame.get_left()[0] < part.get_left()[0] < part.get_right()[0] < tile.frame.get_right()[0]
            assert tile.frame.get_bottom()[1] < part.get_bottom()[1] < part.get_top()[1] < tile.frame.get_top()[1]
        assert tile.picture.get_right()[0] < tile.name.get_left()[0]  # the name sits right of the picture
        assert len(tile.name) == 2  # a long title on two lines, at the type scale's size (not shrunk)
        assert all(line.font_size == pytest.approx(22) for line in tile.name)
    assert len(ChapterTile(None, "XOR").name) == 1
    with pytest.raises(ValueError, match="unknown chapter glyph"):
        ChapterTile("kraken", "Kraken")


def test_the_chapter_map_reads_down_each_column_in_playing_order():
    from manim import VGroup

    from scenes.kit.cards import ChapterTile, chapter_map

    tiles = VGroup(*(ChapterTile(None, f"capítulo {k}") for k in "abcdefg"))
    chapter_map(tiles, columns=3)
    xs = [round(t.get_x(), 3) for t in tiles]
    assert xs[0] == xs[1] == xs[2] < xs[3] == xs[4] == xs[5] < xs[6]
    assert tiles[0].get_y() > tiles[1].get_y() > tiles[2].get_y()


def test_the_key_value_shelf_is_labelled_in_spanish():
    from scenes.kit.cards import KeyValueShelf

    assert [h.text for h in KeyValueShelf().heads] == ["llave", "valor"]


def test_terminal_box_colours_commands_and_output_differently_and_holds_its_lines():
    from scenes.kit import palette
    from scenes.kit.cards import TerminalBox

    box = TerminalBox(["$ ffn-video numbers", "cards.registry_size  5  numbers"])
    assert box.lines[0].get_color().to_hex() == palette.ACTIVE.to_hex()
    assert box.lines[1].get_color().to_hex() == palette.INK.to_hex()
    for line in box.lines:
        assert box.window.get_left()[0] < line.get_left()[0] < line.get_right()[0] < box.window.get_right()[0]
        assert box.window.get_bottom()[1] < line.get_bottom()[1] < box.bar.get_center()[1]


def test_fact_strip_repunches_only_the_edited_hole():
    from manim.animation.animation import prepare_animation

    from scenes.kit.cards import FactStrip

    strip = FactStrip(6)
    before = [h.get_center().copy() for h in strip.holes]
    anim = prepare_animation(strip.repunch(2))
    anim.begin()
    anim.interpolate(1.0)
    anim.finish()
    after = [h.get_center() for h in strip.holes]
    moved = [i for i, (a, b) in enumerate(zip(before, after)) if abs(a[1] - b[1]) > 1e-6]
    assert moved == [2]
    assert after[2][0] == pytest.approx(before[2][0])  # same place along the song, another note


def test_share_bar_tick_marks_its_share_of_the_length_and_two_thirds_lies_past_the_fill():
    from scenes.kit.cards import ShareBar

    share = number("params.llama2_7b.ffn_share_of_total").value
    bar = ShareBar(share, width=9.0)
    two_thirds = number("iceberg.ideal.ffn_share").value
    assert two_thirds == pytest.approx(2 / 3)
    tick = bar.tick(two_thirds)
    assert tick.get_center()[0] - bar.frame.get_left()[0] == pytest.approx(6.0)
    assert bar.fill.get_right()[0] < tick.get_center()[0]  # "casi dos tercios": just short of the tick


def test_terminal_box_keeps_the_indentation_of_its_lines():
    from scenes.kit.cards import TerminalBox

    box = TerminalBox(["{", '  "key": 1', '    "x"'])
    left = [line.get_left()[0] for line in box.lines]
    assert left[0] < left[1] < left[2]
    assert left[2] - left[1] == pytest.approx(left[1] - left[0], rel=0.05)


def test_terminal_box_widens_to_hold_its_longest_line():
    from scenes.kit.cards import TerminalBox

    box = TerminalBox(["$ ls", "x" * 90], width=4.0)
    assert box.window.get_left()[0] < box.lines.get_left()[0]
    assert box.lines.get_right()[0] < box.window.get_right()[0]
