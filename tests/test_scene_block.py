"""The `block` scene: the sizes it shows against LLaMA-2's published ones, the shapes it writes
on each arrow against a trace of the real block, and the behaviour of its kit drawings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ffn_core.groups.block import trace_block_shapes
from ffn_core.registry import number
from voiceover.script import load_script

# LLaMA-2 7B as Meta published it: params.json of the 7B checkpoint (dim 4096, n_layers 32,
# n_heads 32, multiple_of 256) and Table 1 of Touvron et al. 2023 (context length 4k).
PUBLISHED_DIM = 4096
PUBLISHED_LAYERS = 32
PUBLISHED_HEADS = 32
PUBLISHED_MULTIPLE_OF = 256
PUBLISHED_CONTEXT = 4 * 1024


@pytest.fixture(autouse=True)
def _manim_media_in_tmp(tmp_path, monkeypatch):
    """Text mobjects cache glyph files under manim's media dir: keep them out of the repo."""
    from manim import config

    monkeypatch.setattr(config, "media_dir", str(tmp_path / "media"))


def _value(key: str):
    return number(key).value


# -- the numbers ------------------------------------------------------------------------------


def test_context_length_is_llama2s_published_4k_window():
    assert _value("block.llama2_7b.context_length") == PUBLISHED_CONTEXT
    assert "Table 1" in number("block.llama2_7b.context_length").source


def test_model_sizes_the_scene_shows_match_the_published_checkpoint():
    assert _value("params.llama2_7b.d_model") == PUBLISHED_DIM
    assert _value("params.llama2_7b.n_layers") == PUBLISHED_LAYERS
    assert _value("params.llama2_7b.n_heads") == PUBLISHED_HEADS


def test_ffn_width_is_llamas_two_thirds_rule_recomputed_by_hand():
    # Meta's FeedForward: hidden = int(2 * 4d / 3), rounded up to a multiple of 256.
    hidden = int(2 * 4 * PUBLISHED_DIM / 3)
    expected = PUBLISHED_MULTIPLE_OF * math.ceil(hidden / PUBLISHED_MULTIPLE_OF)
    assert _value("params.llama2_7b.d_ff") == expected == 11008


@pytest.mark.parametrize("stage", ["input", "norm1", "attention", "add1", "norm2", "ffn", "add2"])
def test_every_arrow_of_the_block_carries_context_by_d_model(stage):
    assert _value(f"block.llama2_7b.shape.{stage}") == (PUBLISHED_CONTEXT, PUBLISHED_DIM)


def test_only_the_ffn_hidden_layer_is_wider():
    assert _value("block.llama2_7b.shape.ffn_hidden") == (PUBLISHED_CONTEXT, _value("params.llama2_7b.d_ff"))


def test_counts_of_numbers_are_products_of_the_shapes():
    assert _value("block.llama2_7b.stream_numbers") == 2**24 == PUBLISHED_CONTEXT * PUBLISHED_DIM
    assert _value("block.llama2_7b.hidden_numbers") == int(np.prod((PUBLISHED_CONTEXT, 11008)))


@pytest.mark.parametrize(
    "model, seq_len, width, hidden",
    [
        ("gpt2_small", 3, 768, 3072),  # GPT-2: d_ff = 4 d
        ("llama3_8b", 5, 4096, 14336),  # grouped-query attention keeps the stream's shape too
    ],
)
def test_trace_follows_each_models_published_widths(model, seq_len, width, hidden):
    shapes = trace_block_shapes(model, seq_len)
    assert set(shapes.arrows) == {(seq_len, width)}
    assert shapes.ffn_hidden == (seq_len, hidden)


def test_trace_refuses_an_empty_sequence():
    with pytest.raises(ValueError, match="seq_len"):
        trace_block_shapes("llama2_7b", 0)


def test_narration_says_the_computed_sizes_it_shows():
    fields = set(load_script("block").fields())
    for key in (
        "block.llama2_7b.context_length",
        "params.llama2_7b.d_model",
        "params.llama2_7b.d_ff",
        "params.llama2_7b.n_heads",
        "params.llama2_7b.n_layers",
    ):
        assert f"{key}:entero" in fields, key


# -- the kit drawings ------------------------------------------------------------------------


def test_shape_tag_writes_rows_by_columns_with_spanish_thousands():
    from scenes.kit.block_diagram import ShapeTag

    tag = ShapeTag((4096, 11008))
    assert tag.shape == (4096, 11008)
    assert tag.text.original_text == "4\u202f096 × 11\u202f008"


def test_slab_rows_start_uneven_and_the_norm_evens_them():
    from scenes.kit.block_diagram import Slab

    slab = Slab()
    before = [row.get_fill_opacity() for row in slab.rows]
    assert max(before) - min(before) > 0.2
    animation = slab.normalized_rows().build()
    animation.begin()
    animation.finish()
    after = [row.get_fill_opacity() for row in slab.rows]
    assert max(after) - min(after) < 1e-6


def test_notes_written_into_the_stream_keep_the_slabs_width():
    from scenes.kit.block_diagram import Slab

    slab = Slab()
    for seed in (11, 23):
        marks = slab.notes("#FFFFFF", seed)
        assert len(marks) == slab.n_rows
        for mark, row in zip(marks, slab.rows):
            assert row.get_left()[0] - 1e-9 <= mark.get_left()[0] < mark.get_right()[0] <= row.get_right()[0] + 1e-9
            assert abs(mark.get_center()[1] - row.get_center()[1]) < 1e-9


def test_each_station_reads_below_and_writes_back_above_on_the_stream():
    from scenes.kit.block_diagram import BlockDiagram

    diagram = BlockDiagram("A", "F")
    x = diagram.stream.x
    previous_top = diagram.stream.bottom
    for station in diagram.stations:
        assert station.junction.get_center()[0] == pytest.approx(x)
        assert station.add_node.get_center()[0] == pytest.approx(x)
        assert previous_top < station.flow_y < station.write_y < diagram.stream.top
        # A passing slab ends its return trip on the "+" node.
        assert np.allclose(station.back.get_end(), station.add_node.get_center())
        previous_top = station.write_y
    stretches = diagram.stream_stretches()
    assert all(y0 < y1 for y0, y1 in stretches)
    assert all(a[1] == b[0] for a, b in zip(stretches, stretches[1:]))


def test_stream_tags_sit_clear_of_a_slab_riding_the_stream():
    from scenes.kit.block_diagram import BlockDiagram, Slab

    diagram = BlockDiagram("A", "F")
    slab_half = Slab().width / 2
    for y0, y1 in diagram.stream_stretches():
        tag = diagram.stream.tag((PUBLISHED_CONTEXT, PUBLISHED_DIM), y0, y1)
        assert tag.get_right()[0] < diagram.stream.x - slab_half
        assert y0 < tag.get_center()[1] < y1


def test_causal_arcs_link_each_position_to_every_earlier_one_on_the_left():
    from scenes.kit.block_diagram import PositionRows

    rows = PositionRows(6)
    arcs = rows.causal_arcs()
    assert len(arcs) == 6 * 5 // 2
    left_edge = rows.rows.get_left()[0]
    for arc in arcs:
        assert arc.get_right()[0] <= left_edge + 1e-6


def test_block_stack_draws_the_real_count_with_every_part_inside_its_block():
    from scenes.kit.block_diagram import BlockStack

    n_layers = _value("params.llama2_7b.n_layers")
    stack = BlockStack(n_layers)
    assert len(stack.blocks) == n_layers == PUBLISHED_LAYERS
    heights = [block.get_center()[1] for block in stack.blocks]
    assert heights == sorted(heights)  # blocks[0] is the bottom one
    for block in stack.blocks:
        shell = block[0]
        for part in (block.attention, block.ffn):
            assert shell.get_left()[0] <= part.get_left()[0] and part.get_right()[0] <= shell.get_right()[0]
    assert stack.stream.get_start()[1] < stack.blocks[0].get_bottom()[1]
    assert stack.stream.get_end()[1] > stack.blocks[-1].get_top()[1]


def test_block_stack_refuses_zero_blocks():
    from scenes.kit.block_diagram import BlockStack

    with pytest.raises(ValueError, match="at least one block"):
        BlockStack(0)


# -- what the screen and the voice say about the block ----------------------------------------


def test_llama2_is_pre_norm_with_rmsnorm_and_a_swiglu_ffn_as_the_diagram_labels_it():
    from ffn_core.params import get_config

    config = get_config("llama2_7b")
    assert config.norm_kind == "rmsnorm"
    assert config.ffn_kind == "swiglu"


def test_the_blocks_update_is_x_plus_sublayer_of_norm_of_x_the_stream_itself_unnormalised():
    # The formulas on screen: x ← x + Atención(RMSNorm(x)), then x ← x + FFN(RMSNorm(x)).
    # A small pre-norm block with random weights, checked stage by stage against its forward.
    import torch

    from ffn_core.modules import Block
    from ffn_core.params import ModelConfig

    config = ModelConfig(
        name="tiny_prenorm",
        display_name="tiny",
        vocab_size=11,
        d_model=8,
        n_layers=1,
        n_heads=2,
        n_kv_heads=2,
        d_ff=24,
        ffn_kind="swiglu",
        max_positions=5,
        norm_kind="rmsnorm",
        tied_embeddings=True,
        attention_bias=False,
        ffn_bias=False,
    )
    torch.manual_seed(0)
    block = Block(config, pre_norm=True, eps=1e-5)
    x = torch.randn(1, 5, 8)
    with torch.no_grad():
        after_attention = x + block.attention(block.norm1(x), True)
        expected = after_attention + block.ffn.trace(block.norm2(after_attention))["output"]
        assert torch.allclose(block(x, causal=True), expected, atol=1e-6)
        # The norm rescales only the copy: the stream is not normalised on its way up.
        assert not torch.allclose(block.norm1(x), x, atol=1e-3)


def test_the_narration_says_up_to_the_window_and_causal_reading_includes_each_position_itself():
    script = load_script("block")
    assert "hasta {block.llama2_7b.context_length:entero}" in " ".join(script.beat("entrada").text.split())
    assert "de las anteriores y de sí misma" in script.beat("por_que_dos").text
    # Position i's attention weights cover keys 0..i, itself included (causal mask j <= i).
    from ffn_core.attention_walk import solve

    for head in solve().heads:
        assert all(head.visible[i][i] == 1 for i in range(len(head.visible)))
        assert all(head.visible[i][j] == 0 for i in range(len(head.visible)) for j in range(i + 1, len(head.visible)))


def test_block_announces_swiglu_before_stencil_explains_it_and_cites_its_sources():
    script = load_script("block")
    assert "una variante con compuerta que veremos más adelante" in " ".join(script.beat("ffn").text.split())
    assert {"shazeer2020", "touvron2023"} <= set(script.beat("ffn").sources)
    assert {"zhang2019", "xiong2020"} <= set(script.beat("atencion").sources)
