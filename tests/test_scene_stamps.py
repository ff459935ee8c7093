"""The stamps scene: one FFN of the fact model read term by term, checked another way.

The reading (ffn_core.stamps) is recomputed here with torch directly on a freshly trained
fact model: the sum of the marks against the module's own forward, the active units
against the pre-activations, the pushed words against an argmax over the output head.
The kit's stamps and pages are checked for what they draw.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
import torch

from ffn_core.memory import FACTS
from ffn_core.registry import number
from ffn_core.stamps import N_PRESSED, read_stamps
from voiceover.script import load_script

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reading():
    return read_stamps()


@pytest.fixture(scope="module")
def model_run(reading):
    """A fresh training of the fact model and, per block, the FFN input (batch, seq, d_model)."""
    from ffn_core.memory_model import encode, train

    model, vocab, _ = train(reading.seed)
    ids = encode(reading.prompt, vocab).unsqueeze(0)
    inputs = []
    hooks = [
        block.norm2.register_forward_hook(lambda _m, _i, out: inputs.append(out.detach().clone()))
        for block in model.blocks
    ]
    try:
        with torch.no_grad():
            logits = model(ids)[0, -1]
    finally:
        for hook in hooks:
            hook.remove()
    return model, vocab, inputs, logits


def test_prompt_is_a_fact_the_model_answers_correctly(reading, model_run):
    _, vocab, _, logits = model_run
    assert (reading.prompt, reading.answer) in FACTS
    assert vocab[int(logits.argmax())] == reading.answer == reading.predicted


def test_fed_x_is_the_blocks_normed_residual_at_the_last_word(reading, model_run):
    _, _, inputs, _ = model_run
    assert np.allclose(reading.x, inputs[reading.layer][0, -1].double().numpy(), atol=0)
    assert reading.position == len(reading.prompt.split()) - 1


def test_sum_of_marks_equals_the_ffn_modules_own_forward(reading, model_run):
    model, _, inputs, _ = model_run
    ffn = model.blocks[reading.layer].ffn
    x = inputs[reading.layer]  # the whole sentence, as the model runs it
    with torch.no_grad():
        float32 = ffn(x)[0, -1].double().numpy()
        float64 = ffn.double()(x.double())[0, -1].numpy()
        ffn.float()
    marks = np.sum([t.term for t in reading.terms], axis=0) + np.asarray(reading.bias)
    assert np.allclose(marks, reading.output, atol=1e-12)
    assert np.max(np.abs(marks - float64)) < 1e-12  # same arithmetic, term by term
    assert np.array_equal(np.asarray(reading.module_output), float32)
    assert reading.max_abs_difference == pytest.approx(np.max(np.abs(marks - float32)), rel=1e-6)
    assert 0 < reading.max_abs_difference < 1e-5
    assert 10.0 ** -(reading.agreeing_decimals + 1) <= reading.max_abs_difference < 10.0**-reading.agreeing_decimals


def test_active_units_are_exactly_those_with_positive_pre_activation(reading, model_run):
    model, _, inputs, _ = model_run
    with torch.no_grad():
        pre = model.blocks[reading.layer].ffn.up(inputs[reading.layer][0, -1]).double().numpy()
    positive = set(np.flatnonzero(pre > 0).tolist())
    assert {t.unit for t in reading.terms} == positive
    assert reading.n_active == len(positive) == sum(c > 0 for c in reading.coefficients)
    assert 0 < reading.n_active < reading.d_ff


def test_each_mark_is_its_coefficient_times_its_value(reading, model_run):
    model, _, _, _ = model_run
    down = model.blocks[reading.layer].ffn.down.weight.detach().double().numpy()  # (d_model, d_ff)
    for term in reading.terms:
        assert np.allclose(term.value, down[:, term.unit])
        assert np.allclose(term.term, term.coefficient * down[:, term.unit])
        assert term.coefficient == pytest.approx(term.match) and term.coefficient > 0


def test_marks_come_loudest_first_and_partial_sums_accumulate(reading):
    sizes = [t.mark_size for t in reading.terms]
    assert sizes == sorted(sizes, reverse=True)
    running = np.zeros(reading.d_model)
    for term, partial in zip(reading.terms, reading.partial_sums):
        running = running + np.asarray(term.term)
        assert np.allclose(partial, running)
    assert np.allclose(np.asarray(reading.partial_sums[-1]) + reading.bias, reading.output)


def test_layer_read_is_the_block_whose_ffn_pushes_the_answer_hardest(reading, model_run):
    model, vocab, inputs, _ = model_run
    gamma, head = model.final_norm.weight.detach().double(), model.head.weight.detach().double()
    pushes = []
    for block, x in zip(model.blocks, inputs):
        with torch.no_grad():
            logits = head @ (block.ffn(x)[0, -1].double() * gamma)
        pushes.append(float(logits[vocab.index(reading.answer)] - logits.mean()))
    assert np.allclose(pushes, reading.answer_push_per_layer)
    assert reading.layer == int(np.argmax(pushes))


def test_loudest_value_pushes_the_words_an_independent_argmax_finds(reading, model_run):
    from ffn_core.memory_model import encode as _encode

    model, vocab, _, _ = model_run
    unit = reading.loudest.unit
    value = model.blocks[reading.layer].ffn.down.weight.detach()[:, unit].double()
    # The exact lens: the final LayerNorm centres the write and divides by the stream's spread
    # at the prompt's last position (captured here from the model's own forward pass).
    seen = []
    hook = model.final_norm.register_forward_pre_hook(lambda _m, args: seen.append(args[0].detach()))
    try:
        with torch.no_grad():
            model(_encode(reading.prompt, vocab).unsqueeze(0))
    finally:
        hook.remove()
    stream = seen[0][0, -1].double()
    sigma = torch.sqrt(stream.var(unbiased=False) + model.final_norm.eps)
    centred = value - value.mean()
    gamma, head = model.final_norm.weight.detach().double(), model.head.weight.detach().double()
    logits = (head @ (centred * gamma) / sigma).numpy()
    found = []
    for _ in range(len(reading.loudest_words)):
        best = int(np.argmax(logits))
        found.append((vocab[best], reading.loudest.coefficient * logits[best]))
        logits[best] = -np.inf
    assert [w.word for w in reading.loudest_words] == [w for w, _ in found]
    assert [w.boost for w in reading.loudest_words] == pytest.approx([b for _, b in found], rel=1e-5)
    assert reading.loudest_words[0].word == reading.answer  # the loudest stamp writes the answer


def test_loudest_unit_agrees_with_ffn_core_memorys_own_reading(reading):
    from ffn_core.memory import solve

    memory = solve()
    if reading.layer != memory.config.n_layers - 1:
        pytest.skip("ffn_core.memory reads the last block; the stamps read another one")
    (subject,) = [s for s in memory.answer_neurons if s.prompt == reading.prompt]
    assert subject.top[0].neuron == int(np.argmax(reading.coefficients))
    assert subject.top[0].activation == pytest.approx(max(reading.coefficients), rel=1e-5)
    assert subject.active_share == pytest.approx(reading.n_active / reading.d_ff)


def test_registered_numbers_are_the_readings_with_neurons_counted_from_zero(reading):
    pressed = reading.terms[:N_PRESSED]
    assert number("stamps.n_active").value == reading.n_active
    assert number("stamps.n_rest").value == reading.n_active - N_PRESSED
    assert number("stamps.block_number").value == reading.layer + 1
    assert number("stamps.first_index").value == 0
    # docs/notation.md: «neurona N» is index N of the code, W2's row N.
    assert number("stamps.pressed_units").value == tuple(t.unit for t in pressed)
    for k, term in enumerate(pressed, start=1):
        assert number(f"stamps.unit_{k}").value == term.unit
        assert number(f"stamps.coefficient_{k}").value == term.coefficient
        assert number(f"stamps.mark_{k}").value == term.mark_size
        assert number(f"stamps.value_norm_{k}").value == pytest.approx(float(np.linalg.norm(term.value)))
    assert number("stamps.loudest_unit").value == reading.loudest.unit
    assert number("stamps.top_boost").value == reading.loudest_words[0].boost


def test_the_stamps_are_pressed_in_the_order_of_the_mark_the_screen_shows(reading):
    # The row is ranked by the mark's size, and the screen writes that size under each stamp
    # (with the force beside it): the order a viewer reads is the order pressed.
    shown = [round(size, 2) for size in number("stamps.pressed_mark_sizes").value]
    assert shown == sorted(shown, reverse=True)
    assert number("stamps.pressed_mark_sizes").value == tuple(t.mark_size for t in reading.terms[:N_PRESSED])
    for term in reading.terms[:N_PRESSED]:
        assert term.mark_size == pytest.approx(term.coefficient * float(np.linalg.norm(term.value)))


def test_what_the_narration_says_of_the_second_stamp_is_true(reading):
    # «La {unit_2} se presiona más fuerte, {c_2}, pero su cara es más tenue: marca {m_2}.»
    first, second = reading.terms[0], reading.terms[1]
    assert second.coefficient > first.coefficient
    assert np.linalg.norm(second.value) < np.linalg.norm(first.value)
    assert second.mark_size < first.mark_size


def test_the_loudest_mark_pushes_the_other_words_much_less(reading):
    # «"Negro" y "caliente" suben mucho menos»: less than half the answer's boost.
    top, *others = (w.boost for w in reading.loudest_words)
    assert others and all(0 < b < top / 2 for b in others)


def test_the_script_glosses_key_and_value_in_english_once_and_cites_the_key_value_papers():
    script = load_script("stamps")
    text = " ".join(" ".join(beat.text.split()) for beat in script.beats)
    assert text.count("llave (en inglés, key)") == 1
    assert text.count("valor (en inglés, value)") == 1
    assert "neurona cero" in text  # the index base, said once where indices first appear
    assert "unidad" not in text
    cited = {key for beat in script.beats for key in beat.sources}
    assert {"geva2021", "geva2022"} <= cited


def test_narration_names_the_words_the_model_computes(reading):
    script = tomllib.loads((REPO / "voiceover/script/es/stamps.toml").read_text(encoding="utf-8"))
    text = " ".join(beat["text"] for beat in script["beat"]).replace("\n", " ").lower()
    assert f"«{reading.prompt}»" in text
    assert f"«{reading.answer}»" in text
    for push in reading.loudest_words:
        assert f"«{push.word}»" in text


# -- the kit -------------------------------------------------------------------------------


def _distance(a, b) -> float:
    from manim import ManimColor

    return float(np.linalg.norm(ManimColor(a).to_rgb() - ManimColor(b).to_rgb()))


def test_grid_shape_is_the_rectangle_nearest_one_to_two():
    from scenes.kit.stamps import grid_shape

    assert grid_shape(32) == (4, 8)
    assert grid_shape(8) == (2, 4)
    rows, cols = grid_shape(18)
    assert rows * cols == 18


def test_page_ink_follows_the_sign_and_grows_with_the_value():
    from scenes.kit import palette
    from scenes.kit.stamps import PAPER, Page

    page = Page(4, scale=1.0).printed([0.0, 0.2, 0.9, -0.9])
    colors = page.grid.cell_colors()
    assert _distance(colors[0], PAPER) < 1e-6  # nothing printed: bare paper
    assert _distance(colors[2], palette.POSITIVE) < _distance(colors[2], palette.NEGATIVE)
    assert _distance(colors[3], palette.NEGATIVE) < _distance(colors[3], palette.POSITIVE)
    assert _distance(colors[2], PAPER) > _distance(colors[1], PAPER) > 0  # more ink for a larger value


def test_prepared_prints_keep_their_own_values():
    from scenes.kit.stamps import Page, ink_color

    page = Page(2, scale=1.0)
    first, second = page.print_sum([0.5, -0.5]), page.print_sum([-1.0, 1.0])
    target = first.target_mobject.cell_colors()
    assert _distance(target[0], ink_color(0.5, 1.0)) < 1e-6
    assert _distance(second.target_mobject.cell_colors()[0], ink_color(-1.0, 1.0)) < 1e-6


def test_stamp_face_carries_its_value_and_lands_on_the_print_area():
    from scenes.kit import palette
    from scenes.kit.stamps import Page, Stamp

    value = [0.3, -0.2, 0.0, 0.1, -0.4, 0.25, 0.05, -0.1]
    stamp = Stamp(value).scale(0.4).shift(3 * np.array([1.0, 1.0, 0.0]))
    assert len(stamp.face.cells) == len(value)
    colors = stamp.face.cell_colors()
    assert _distance(colors[0], palette.POSITIVE) < _distance(colors[0], palette.NEGATIVE)
    assert _distance(colors[4], palette.NEGATIVE) < _distance(colors[4], palette.POSITIVE)
    page = Page(len(value), scale=1.0).shift(np.array([-2.0, -1.0, 0.0]))
    pressed = stamp.placed_over(page)
    assert np.allclose(pressed.face.get_center(), page.grid.get_center())
    assert pressed.face.width == pytest.approx(page.grid.width)
    hovering = stamp.placed_over(page, lift=0.5)
    assert hovering.face.get_center()[1] == pytest.approx(page.grid.get_center()[1] + 0.5)
    # The handle sits above the face, as on a real stamp.
    assert stamp.knob.get_center()[1] > stamp.mount.get_center()[1] > stamp.face.get_center()[1]


def test_the_sum_of_marks_reads_like_the_formula_page_marks_then_the_bias():
    from scenes.kit.stamps import SumOfMarks, ink_color

    output, bias = [1.0, -0.5, 0.25, 0.0], [0.1, 0.0, -0.1, 0.0]
    marks = [[0.5, -0.25, 0.2, 0.0], [0.4, -0.25, 0.15, 0.0]]
    picture = SumOfMarks(output, marks, bias, scale=1.0)
    # Left to right as the formula is written: FFN(x) = term + term + ... + b2.
    xs = [picture.output_page.get_x(), *(m.get_x() for m in picture.mark_prints), picture.bias_print.get_x()]
    assert xs == sorted(xs)
    assert len(picture.mark_prints) == len(marks)
    # Every print inks its own vector on the one shared scale.
    assert _distance(picture.output_page.grid.cell_colors()[1], ink_color(-0.5, 1.0)) < 1e-6
    assert _distance(picture.bias_print.grid.cell_colors()[2], ink_color(-0.1, 1.0)) < 1e-6
    assert _distance(picture.mark_prints[1].grid.cell_colors()[0], ink_color(0.4, 1.0)) < 1e-6
