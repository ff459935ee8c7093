"""Each audited number says what kind of figure it is: computed by ffn_core, published by a
model's authors, or quoted from the course's source texts; the last two name their citation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ffn_core.registry import COMPUTED, KINDS, PUBLISHED, QUOTED, Number, all_numbers, number
from voiceover.references import load_references

SEEDS = Path("/work/shared/seeds")  # the course's source texts, where this machine has them


def test_every_number_has_a_kind_and_every_published_or_quoted_one_a_citation():
    refs = load_references()
    kinds = {n.kind for n in all_numbers()}
    assert kinds <= set(KINDS) and {COMPUTED, PUBLISHED, QUOTED} <= kinds
    for n in all_numbers():
        if n.kind == COMPUTED:
            assert n.citation == "", n.key
            continue
        assert n.citation.strip(), f"{n.key}: a {n.kind} number without a citation"
        if n.citation_key:
            assert n.citation_key in refs, f"{n.key}: cites {n.citation_key!r}, not in voiceover/references.toml"
        else:  # a work outside the lecture's bibliography, named in words
            assert re.search(r"\b(19|20)\d\d\b", n.citation), f"{n.key}: {n.citation!r} names no year"


def test_the_seeds_72_percent_is_quoted_from_its_file_and_line():
    quoted = number("iceberg.quoted.llama2_7b_ffn_share")
    assert (quoted.kind, quoted.value) == (QUOTED, 0.72)
    assert quoted.citation_key == "fuente_ffn_interactivo"
    match = re.search(r"(\S+\.txt):(\d+)", quoted.citation)
    assert match, quoted.citation
    assert [n.key for n in all_numbers() if n.kind == QUOTED] == [quoted.key]
    seed = SEEDS / match.group(1)
    if not seed.exists():
        pytest.skip(f"{seed} is not on this machine")
    line = seed.read_text(encoding="utf-8").splitlines()[int(match.group(2)) - 1]
    assert "LLaMA-2 7B" in line and "72%" in line


@pytest.mark.parametrize(
    "key, citation",
    [
        ("params.llama2_7b.d_model", "touvron2023"),
        ("params.llama2_7b.n_layers", "touvron2023"),
        ("params.llama2_7b.d_ff", "touvron2023"),
        ("params.llama2_7b.display_name", "touvron2023"),
        ("params.llama2_7b.published_total", "touvron2023"),
        ("params.gpt2_small.n_heads", "radford2019"),
        ("params.gpt2_small.vocab_size", "radford2019"),
        ("params.gpt2_small.family", "radford2019"),
        ("params.minilm_l6.d_ff", "wang2020"),
        ("params.minilm_l6.display_name", "reimers2019"),
        ("block.llama2_7b.context_length", "touvron2023"),
        ("swiglu.llama2_7b.multiple_of", "touvron2023"),
    ],
)
def test_model_configurations_are_published_by_their_authors(key, citation):
    n = number(key)
    assert (n.kind, n.citation) == (PUBLISHED, citation)


@pytest.mark.parametrize(
    "key",
    [
        "params.llama2_7b.total",  # counted here from the published configuration
        "params.llama2_7b.ffn_share",
        "params.minilm_l6.total",
        "memory.d_model",  # the fact model is trained here
        "pretrained.minilm.d_ff",  # read off the real model's weights
        "swiglu.llama2_7b.width",
    ],
)
def test_what_ffn_core_computes_is_computed(key):
    assert number(key).kind == COMPUTED


def test_a_number_refuses_an_unknown_kind_and_an_uncited_published_figure():
    with pytest.raises(ValueError, match="kind must be one of computed, published, quoted"):
        Number("x.y", 1, "u", "ffn_core.x", kind="measured")
    with pytest.raises(ValueError, match="'x.y': a published number names its citation"):
        Number("x.y", 1, "u", "ffn_core.x", kind=PUBLISHED)
    assert Number("x.y", 1, "u", "ffn_core.x", QUOTED, "fuente_ffn_interactivo f.txt:3").citation_key == (
        "fuente_ffn_interactivo"
    )
    assert Number("x.y", 1, "u", "ffn_core.x", PUBLISHED, "Meta 2024, a model card").citation_key == ""


def test_numbers_json_lists_each_numbers_kind_and_citation(capsys):
    import json

    from lecture.review.audit import numbers_with_scenes

    rows = {r["key"]: r for r in numbers_with_scenes((), all_numbers())}
    assert rows["iceberg.quoted.llama2_7b_ffn_share"]["kind"] == QUOTED
    assert rows["params.llama2_7b.d_model"]["kind"] == PUBLISHED
    assert rows["params.llama2_7b.d_model"]["citation"] == "touvron2023"
    assert rows["params.llama2_7b.total"]["kind"] == COMPUTED and rows["params.llama2_7b.total"]["citation"] == ""
    json.dumps(list(rows.values()))

    from lecture.review.listing import audit_lines

    lines = audit_lines(list(rows.values()))
    assert any(
        line.startswith("params.llama2_7b.d_model\t4096\t") and "\tpublished (touvron2023)\t" in line for line in lines
    )


def test_a_scene_asks_a_numbers_kind():
    import types

    from scenes.kit.narrated import NarratedScene

    scene = types.SimpleNamespace()
    assert NarratedScene.number_kind(scene, "iceberg.quoted.llama2_7b_ffn_share") == QUOTED
    assert NarratedScene.number_kind(scene, "params.llama2_7b.n_layers") == PUBLISHED
    assert NarratedScene.number_kind(scene, "params.llama2_7b.total") == COMPUTED
