"""Numbers (and words) of the closing scene: MiniLM FFN neurons that specialise in a topic.

Words and topic names shown on screen are registered as tuples of strings, so the audit
lists them with the code that produced them.

The screen writes a score as the difference of two means at two decimals
(«nota = 3,16 − (−0,05) = 3,21»); ``closing.<topic>.score_shown`` is that difference of the
rounded means, so what is written adds up (the unrounded ``selectivity`` is 3,2033...).
"""

from __future__ import annotations

from ffn_core.registry import WIDTH, Number

PREFIX = "closing"
SHOWN_PLACES = 2  # an activation's decimals on screen and in the voice (docs/notation.md)


def numbers() -> tuple[Number, ...]:
    from ffn_core.params import get_config
    from ffn_core.specialists import outranking, solve

    study = solve()
    call = "ffn_core.specialists.solve()"
    per_topic = study.n_words // len(study.topics)
    found = [
        Number("closing.block_number", study.layer + 1, "block (1-based)", f"{call}.layer + 1"),
        Number("closing.d_ff", study.d_ff, WIDTH, f"{call}.d_ff"),
        Number(
            "closing.n_blocks",
            get_config("minilm_l6").n_layers,
            "blocks",
            "ffn_core.params.get_config('minilm_l6').n_layers",
        ),
        Number("closing.n_words", study.n_words, "words", f"{call}.n_words"),
        Number("closing.n_topics", len(study.topics), "topics", f"len({call}.topics)"),
        Number("closing.words_per_topic", per_topic, "words", f"{call}.n_words // len({call}.topics)"),
        Number("closing.topic_names", study.topic_names, "words", f"{call}.topic_names"),
        Number("closing.words", study.words, "words (English)", f"{call}.words"),
        Number("closing.topic_of_word", study.topic_of_word, "topic index (0-based)", f"{call}.topic_of_word"),
        Number(
            "closing.n_separated",
            sum(s.separated for s in study.specialists),
            "topics",
            f"sum(s.separated for s in {call}.specialists)",
        ),
    ]
    for i, s in enumerate(study.specialists):
        at = f"{call}.specialists[{i}]"
        key = f"closing.{s.topic}"
        found += [
            Number(f"{key}.neuron", s.neuron, "neuron index (0-based)", f"{at}.neuron"),
            Number(f"{key}.selectivity", s.selectivity, "activation (mean inside - mean outside)", f"{at}.selectivity"),
            Number(f"{key}.mean_inside", s.mean_inside, "activation", f"{at}.mean_inside"),
            Number(f"{key}.mean_outside", s.mean_outside, "activation", f"{at}.mean_outside"),
            Number(
                f"{key}.score_shown",
                round(round(s.mean_inside, SHOWN_PLACES) - round(s.mean_outside, SHOWN_PLACES), SHOWN_PLACES),
                "activation (difference of the two means as written, two decimals)",
                f"round({at}.mean_inside, 2) - round({at}.mean_outside, 2)",
            ),
            Number(f"{key}.runner_up", s.runner_up, "activation (selectivity)", f"{at}.runner_up"),
            Number(f"{key}.activations", s.activations, "activation per word", f"{at}.activations"),
            Number(
                f"{key}.outranking",
                outranking(study, s),
                "words of other topics above every topic word",
                f"ffn_core.specialists.outranking({call}, {at})",
            ),
            Number(
                f"{key}.separated", int(s.separated), "1 = every topic word above every other word", f"{at}.separated"
            ),
        ]
    return tuple(found)
