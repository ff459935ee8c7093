"""Numbers of the scene «relay»: gather (attention) then recall (FFN), on "el limón es".

From ``ffn_core.relay.read_relay()`` (the fact model, its last position read after every
sublayer through the final norm and the head) and ``ffn_core.relay.relay_count()`` (the
handoffs and norms of LLaMA-2 7B, counted on its modules). Blocks and heads are numbered
from 1 in the keys, as on screen ("bloque 1", "cabeza 2").
"""

from __future__ import annotations

from ffn_core.registry import FRACTION, Number

PREFIX = "relay"

STEP_KEYS = ("embedding", "attention1", "ffn1", "attention2", "ffn2")  # the fact model's five readings


def numbers() -> tuple[Number, ...]:
    from ffn_core.memory import FACTS
    from ffn_core.relay import LARGE_MODEL, read_relay, relay_count

    r = read_relay()
    count = relay_count()
    call, cnt = "ffn_core.relay.read_relay()", f"ffn_core.relay.relay_count({LARGE_MODEL!r})"
    if len(r.steps) != len(STEP_KEYS):
        raise RuntimeError(f"{call} has {len(r.steps)} steps; the keys name {len(STEP_KEYS)}")
    subject = r.tokens[1]
    found = [
        Number("relay.n_facts", len(FACTS), "facts", "len(ffn_core.memory.FACTS)"),
        Number("relay.prompt_words", r.tokens, "words", f"{call}.tokens"),
        Number("relay.answer", r.answer, "word", f"{call}.answer"),
        Number("relay.top_words", r.top_words, "words", f"{call}.top_words"),
        Number("relay.n_layers", r.n_layers, "blocks", f"{call}.n_layers"),
        Number("relay.n_heads", r.n_heads, "heads", f"{call}.n_heads"),
        Number("relay.block_numbers", tuple(range(1, r.n_layers + 1)), "block (1-based)", f"1 .. {call}.n_layers"),
        Number("relay.head_numbers", tuple(range(1, r.n_heads + 1)), "head (1-based)", f"1 .. {call}.n_heads"),
        Number(
            "relay.attention",
            r.attention,
            "weights [block][head][key] of the last position, rows sum to 1",
            f"{call}.attention",
        ),
        Number("relay.answer_probabilities", r.answer_probabilities, FRACTION, f"{call}.answer_probabilities"),
        Number("relay.gains", r.gains, "change of probability (0-1)", f"{call}.gains"),
        Number("relay.model_probability", r.model_probability, FRACTION, f"{call}.model_probability"),
        *(
            Number(f"relay.p_{name}", step.answer_probability, FRACTION, f"{call}.steps[{i}].answer_probability")
            for i, (name, step) in enumerate(zip(STEP_KEYS, r.steps))
        ),
        Number("relay.first_top_probability", r.steps[0].top_probability, FRACTION, f"{call}.steps[0].top_probability"),
        # What the narration says about the last word's attention in block 1.
        Number(
            "relay.block1.head1.subject_weight",
            r.attention[0][0][1],
            FRACTION,
            f"{call}.attention[0][0][1] (weight on {subject!r})",
        ),
        Number(
            "relay.block1.head2.first_weight",
            r.attention[0][1][0],
            FRACTION,
            f"{call}.attention[0][1][0] (weight on {r.tokens[0]!r})",
        ),
        Number(
            "relay.block2.min_subject_weight",
            min(head[1] for head in r.attention[1]),
            FRACTION,
            f"min over heads of {call}.attention[1][h][1]",
        ),
        Number("relay.large.n_blocks", count.n_blocks, "blocks", f"{cnt}.n_blocks"),
        Number("relay.large.handoffs", count.handoffs, "sublayers (attention + FFN)", f"{cnt}.handoffs"),
        Number("relay.large.norms", count.norms, "norm modules", f"{cnt}.norms"),
    ]
    return tuple(found)
