"""The piano-roll scene: the one-fact edit it shows, recomputed independently, and its drawings.

The numbers are checked against the model itself: a freshly trained fact model, edited by
adding the drawn column times the drawn row to its FFN's output matrix, must give the
registered probabilities; the drawn update must be rank one by numpy's SVD; the count of
unchanged facts must follow from the answers. No rendering here.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ffn_core.registry import number
from voiceover.script import load_script


def _value(key: str):
    return number(key).value


@pytest.fixture(autouse=True)
def _manim_media_in_tmp(tmp_path, monkeypatch):
    """Text mobjects cache glyph files under manim's media dir: keep them out of the repo."""
    from manim import config

    monkeypatch.setattr(config, "media_dir", str(tmp_path / "media"))


@pytest.fixture(scope="module")
def edited_model():
    """A fresh fact model (same seed as ffn_core.memory), before and after adding the
    registered update u v^T to its edited FFN's output matrix: (vocab, probabilities before,
    probabilities after), probabilities at the last position of every fact's prompt."""
    import torch

    from ffn_core.memory import FACTS
    from ffn_core.memory_model import train

    model, vocab, _ = train(0)
    prompts = torch.tensor([[vocab.index(w) for w in prompt.split()] for prompt, _ in FACTS])

    def probabilities():
        with torch.no_grad():
            return torch.softmax(model(prompts)[:, -1], dim=-1).double().numpy()

    before = probabilities()
    update = np.outer(_value("piano_roll.update_column"), _value("piano_roll.update_row"))
    down = model.blocks[_value("memory.edit.layer")].ffn.down
    with torch.no_grad():
        down.weight += torch.tensor(update, dtype=down.weight.dtype)
    return vocab, before, probabilities()


# -- the edit, recomputed -------------------------------------------------------------------


def test_the_drawn_update_is_rank_one_by_numpys_svd():
    update = np.outer(_value("piano_roll.update_column"), _value("piano_roll.update_row"))
    rows, cols = _value("piano_roll.update_shape")
    assert update.shape == (rows, cols) == (_value("memory.d_model"), _value("memory.d_ff"))
    singular = np.linalg.svd(update, compute_uv=False)
    assert singular[1] < 1e-9 * singular[0]
    assert _value("memory.edit.update_rank") == 1


def test_the_weight_change_the_edit_made_is_rank_one_and_equals_column_times_row():
    from ffn_core.piano_roll import solve

    edit = solve()
    delta = np.array(edit.delta)
    singular = np.linalg.svd(delta, compute_uv=False)
    assert np.sum(singular > 1e-4 * singular[0]) == 1  # float32 weights: the rest is rounding noise
    assert np.allclose(np.outer(edit.column, edit.row), delta, atol=1e-6)
    relative = np.linalg.norm(delta) / edit.weight_norm
    assert relative == pytest.approx(_value("memory.edit.relative_update_norm"), rel=1e-5)


def test_adding_the_drawn_update_to_a_fresh_model_gives_the_registered_probabilities(edited_model):
    vocab, before, after = edited_model
    i = _value("piano_roll.edit_index")
    old, new = _value("piano_roll.answers_edit")
    assert before[i, vocab.index(old)] == pytest.approx(_value("memory.edit.old_answer_probability_before"), abs=1e-6)
    assert before[i, vocab.index(new)] == pytest.approx(_value("piano_roll.new_probability_before"), abs=1e-6)
    assert after[i, vocab.index(new)] == pytest.approx(_value("memory.edit.new_answer_probability_after"), abs=1e-4)
    assert after[i, vocab.index(old)] == pytest.approx(_value("piano_roll.old_probability_after"), abs=1e-4)
    assert vocab[int(before[i].argmax())] == old and vocab[int(after[i].argmax())] == new


def test_every_fact_answers_in_the_edited_model_as_the_roll_shows(edited_model):
    vocab, before, after = edited_model
    assert tuple(vocab[int(row.argmax())] for row in before) == _value("piano_roll.answers_before")
    assert tuple(vocab[int(row.argmax())] for row in after) == _value("piano_roll.answers_after")


def test_the_count_of_unchanged_facts_follows_from_the_answers():
    i = _value("piano_roll.edit_index")
    pairs = [
        (b, a)
        for k, (b, a) in enumerate(zip(_value("piano_roll.answers_before"), _value("piano_roll.answers_after")))
        if k != i
    ]
    assert len(pairs) == _value("memory.edit.others_count")
    unchanged = sum(b == a for b, a in pairs)
    assert unchanged == _value("piano_roll.others_unchanged")
    assert tuple(int(b == a) for b, a in pairs) == _value("piano_roll.others_unchanged_flags")
    assert unchanged / len(pairs) == pytest.approx(_value("memory.edit.others_unchanged_share"))


def test_the_roll_repeats_ffn_core_memorys_edit():
    from ffn_core.memory import solve

    edit = solve().edit
    i = _value("piano_roll.edit_index")
    assert _value("piano_roll.subjects")[i] in edit.prompt.split()
    assert _value("piano_roll.answers_edit") == (edit.old_answer, edit.new_answer)
    assert tuple(r.predicted for r in edit.others_after) == tuple(
        a for k, a in enumerate(_value("piano_roll.answers_after")) if k != i
    )


def test_each_answer_has_exactly_one_lane():
    lanes = _value("piano_roll.lanes")
    assert sorted(lanes) == sorted(set(_value("piano_roll.expected")))
    assert len(set(lanes)) == len(lanes)


# -- narration ---------------------------------------------------------------------------------


def test_the_facts_the_narration_names_are_the_models_answers():
    text = " ".join(" ".join(b.text.split()) for b in load_script("piano_roll").beats).lower()
    answers = dict(zip(_value("piano_roll.subjects"), _value("piano_roll.answers_before")))
    for subject, answer in (("limón", "ácido"), ("azúcar", "dulce"), ("sena", "parís")):
        assert answers[subject] == answer
        assert re.search(rf"{subject}\W+(suena |cruza )?{answer}", text), (subject, answer)
    old, new = _value("piano_roll.answers_edit")
    assert f"el limón sea {new}" in text and f"responde {old}" in text
    assert f"el limón es {new}" in text


# -- the kit's drawings ---------------------------------------------------------------------------


def _roll():
    from scenes.kit.piano_roll import Roll

    lanes = ("a", "b", "c")
    return Roll(
        lanes,
        [("uno", "b"), ("dos", "a"), ("tres", "c"), ("cuatro", "a")],
        window_width=6.0,
        spacing=2.0,
        bar_from_left=1.0,
    )


def test_a_hole_sits_over_the_reading_bar_when_the_roll_is_at_its_offset():
    roll = _roll()
    for j in range(4):
        roll.place(roll.offset_for(j))
        assert roll.hole(j).get_center()[0] == pytest.approx(roll.bar.get_center()[0])
        assert roll.hole(j).get_center()[1] == pytest.approx(roll.lane_y(roll.hole(j).lane))


def test_holes_and_words_never_leave_the_paper_window():
    roll = _roll()
    left, right = roll.paper.get_left()[0], roll.paper.get_right()[0]
    for offset in np.linspace(-8, 12, 41):
        roll.place(offset)
        for hole in roll.marks:
            assert left - 1e-9 <= hole.get_left()[0] and hole.get_right()[0] <= right + 1e-9
        for word in roll.lyrics:
            if word.get_left()[0] < left or word.get_right()[0] > right:
                assert word.get_fill_opacity() == 0


def test_repunching_tapes_the_old_hole_and_punches_one_in_the_new_lane():
    roll = _roll()
    roll.place(roll.offset_for(0))
    old = roll.hole(0)
    patch, hole = roll.repunch(0, 2)
    assert roll.hole(0) is hole and hole.lane == 2
    assert hole.get_center()[1] == pytest.approx(roll.lane_y(2))
    assert patch.width > old.width and patch.height > old.height
    assert np.allclose(patch.get_center(), old.get_center())


def test_a_scroll_moves_the_paper_at_a_steady_speed_to_its_column():
    from scenes.kit.piano_roll import Scroll

    roll = _roll()
    roll.place(0.0)
    scroll = Scroll(roll, 3)
    scroll.begin()
    scroll.interpolate(0.5)
    assert roll.offset == pytest.approx(roll.offset_for(3) / 2)
    scroll.interpolate(1.0)
    assert roll.hole(3).get_center()[0] == pytest.approx(roll.bar_x())


def test_a_probability_bar_is_filled_in_proportion_to_its_probability():
    from scenes.kit import palette
    from scenes.kit.piano_roll import ProbabilityBar

    wide = ProbabilityBar("dulce", 0.98, palette.HIGHLIGHT, track_width=5.0)
    narrow = ProbabilityBar("ácido", 0.016, palette.FFN, track_width=5.0)
    assert wide.fill_width() == pytest.approx(0.98 * 5.0)
    assert narrow.fill_width() == pytest.approx(0.016 * 5.0)
    # docs/notation.md: a probability has one decimal, never a false certainty or zero.
    assert re.sub(r"\s", "", wide.value.text) == "98,0%"
    assert re.sub(r"\s", "", ProbabilityBar("ácido", 0.99954, palette.FFN).value.text) == ">99,9%"
    assert re.sub(r"\s", "", ProbabilityBar("dulce", 0.0000736, palette.FFN).value.text) == "<0,1%"


def test_every_row_of_the_outer_product_is_the_row_pattern_scaled_by_the_column():
    from scenes.kit.piano_roll import OuterProduct, signed_color

    column, row = [2.0, -1.0, 0.0], [0.5, -0.25, 1.0, 0.0]
    product = OuterProduct(column, row, width=4.0, height=3.0)
    scale = 2.0
    for i, u in enumerate(column):
        strip = product.product_row(i)
        assert [c.to_hex() for c in strip.cell_colors] == [signed_color(u * v, scale).to_hex() for v in row]
        # The strip's gradient holds each cell's colour, left to right.
        stops = [c.to_hex() for c in strip.get_fill_colors()]
        assert stops[:: len(stops) // len(row)] == [signed_color(u * v, scale).to_hex() for v in row]
    # Sign picks the hue: a positive and a negative entry of equal size differ.
    assert signed_color(1.0, 1.0).to_hex() != signed_color(-1.0, 1.0).to_hex()


def test_the_checklist_marks_a_changed_answer_with_a_cross():
    from scenes.kit.piano_roll import CHECK, CROSS, Checklist

    grid = Checklist([("azúcar", "dulce", True), ("nieve", "negro", False)])
    assert grid.items[0].text.endswith(CHECK) and grid.items[1].text.endswith(CROSS)
    assert grid.free_cell()[0] == pytest.approx(grid.cell(2)[0])


def test_a_fact_line_colours_only_its_answer_in_the_value_colour():
    from scenes.kit import palette
    from scenes.kit.piano_roll import fact_text

    line = fact_text("limón", "ácido")
    colours = [c.get_fill_color().to_hex() for c in line.chars]
    # chars skip spaces: 'limón' (5), '→' (1), 'ácido' (5)
    assert colours[:5] == [palette.INK.to_hex()] * 5
    assert colours[5] == palette.MUTED.to_hex()
    assert colours[6:] == [palette.FFN.to_hex()] * 5


# -- why the other facts keep their answers ----------------------------------------------------


def test_the_row_is_not_the_lemons_key_but_receives_it_exactly_once_and_the_others_barely():
    # The edit's row is C^-1 k / (k^T C^-1 k), recomputed here from a fresh model's keys; the
    # lemon's key receives all of u (1), the other facts' keys almost none of it.
    import torch

    from ffn_core.memory import FACTS, SUBJECT_POSITION
    from ffn_core.memory_model import _ffn_hidden, _prompt_batch, train

    model, vocab, _ = train(0)
    keys = _ffn_hidden(model, _prompt_batch(FACTS, vocab), _value("memory.edit.layer"), SUBJECT_POSITION).double()
    edited = _value("piano_roll.edit_index")
    key = keys[edited]
    second_moment = keys.T @ keys / len(keys) + 1e-2 * torch.eye(keys.shape[1], dtype=torch.float64)
    direction = torch.linalg.solve(second_moment, key)
    row = (direction / (key @ direction)).numpy()
    assert np.allclose(row, _value("piano_roll.update_row"), rtol=1e-3, atol=1e-6)
    responses = keys.numpy() @ np.asarray(_value("piano_roll.update_row"))
    assert np.allclose(responses, _value("piano_roll.key_responses"), atol=1e-9)
    assert _value("piano_roll.edited_key_response") == pytest.approx(1.0, abs=1e-9)
    others = np.delete(np.abs(responses), edited)
    assert others.max() == pytest.approx(_value("piano_roll.max_other_response"))
    assert others.max() < 0.01  # «como mucho 0,01 de u»
    # Not the lemon's key itself: the key's own direction would leak much more to the others.
    plain = keys.numpy() @ (key.numpy() / (key @ key).item())
    assert np.delete(np.abs(plain), edited).max() > 10 * others.max()
    assert _value("piano_roll.key_active") == int((key > 0).sum()) > 1  # a pattern over many neurons


def test_the_drawn_matrix_has_the_lectures_orientation_d_ff_by_d_model():
    assert _value("piano_roll.update_matrix_shape") == (_value("memory.d_ff"), _value("memory.d_model"))
    assert len(_value("piano_roll.update_row")) == _value("memory.d_ff")
    assert len(_value("piano_roll.update_column")) == _value("memory.d_model")


def test_proper_nouns_are_the_facts_place_and_river_names():
    proper = set(_value("piano_roll.proper_nouns"))
    assert {"sena", "parís", "támesis", "londres"} <= proper
    assert not proper & {"limón", "ácido", "dulce", "perro"}


def test_the_script_says_what_the_toy_edit_is_and_cites_the_editing_literature():
    script = load_script("piano_roll")
    text = " ".join(" ".join(b.text.split()) for b in script.beats)
    assert "no borra nada" not in text and "su value" not in text
    assert "modelo de juguete" in text and "entrenado aquí" in text
    assert {"meng2022", "hase2023"} <= {k for b in script.beats for k in b.sources}
