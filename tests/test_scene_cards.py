"""The title and closing cards: their numbers recomputed another way, and their drawings.

The registry's size is counted through the public `all_numbers()` (the cards group counts
itself without calling it, to avoid recursing into itself); the title card's hook is
recomputed from LLaMA-2 7B's published shapes. Nothing renders here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ffn_core.numbers import all_numbers, number
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


def test_the_title_card_names_every_chapter_it_draws_in_the_same_order():
    from scenes.title_card import CHAPTERS

    text = " ".join(b.text for b in load_script("title_card").beats)
    marks = re.findall(r"\{#(\w+)\}", text)
    chapter_marks = [m for m in marks if m not in ("gancho", "tercios", "codigo")]
    assert len(chapter_marks) == len(CHAPTERS)
    spoken = {
        "iceberg": "iceberg",
        "xor": "XOR",
        "relu": "ReLU",
        "needles": "agujas",
        "stamps": "sellos",
        "piano_roll": "pianola",
        "stencil": "plantilla",
        "relay": "relevo",
    }
    positions = [text.index(spoken[glyph]) for glyph, _ in CHAPTERS]
    assert positions == sorted(positions)


def test_the_closing_card_command_exists_in_the_cli_with_its_json_option():
    from lecture.cli import main  # noqa: F401  (the command line the card shows)

    source = (ROOT / "lecture" / "cli.py").read_text(encoding="utf-8")
    assert 'add_parser("numbers"' in source and '"--json"' in source


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


def test_chapter_tiles_know_every_glyph_the_title_card_uses_and_refuse_others():
    from scenes.kit.cards import ChapterTile
    from scenes.title_card import CHAPTERS

    for glyph, name in CHAPTERS:
        tile = ChapterTile(glyph, name)
        assert tile.frame.get_left()[0] <= tile.picture.get_left()[0]
        assert tile.picture.get_right()[0] <= tile.frame.get_right()[0]
        assert tile.name.get_top()[1] < tile.picture.get_bottom()[1]  # the name sits under the picture
    with pytest.raises(ValueError, match="unknown chapter glyph"):
        ChapterTile("kraken", "Kraken")


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
