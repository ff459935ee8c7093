"""Numbers (and the words) of the piano-roll scene: the one-fact edit of the fact model.

Words shown on screen are registered as tuples of strings (a Number's value may be a
tuple), so the audit lists them with the code that produced them.
"""

from __future__ import annotations

from ffn_core.registry import FRACTION, Number

PREFIX = "piano_roll"


def numbers() -> tuple[Number, ...]:
    from ffn_core.piano_roll import PROPER_NOUNS, solve

    edit = solve()
    call = "ffn_core.piano_roll.solve()"
    facts = edit.facts
    # One lane per distinct answer, in alphabetical order (accents ignored), as a keyboard's
    # keys are in order of pitch: the holes of the song then jump between lanes like a tune.
    lanes = tuple(sorted(dict.fromkeys(f.expected for f in facts), key=_plain))
    others = edit.others
    return (
        Number("piano_roll.n_facts", len(facts), "facts", f"len({call}.facts)"),
        Number("piano_roll.subjects", tuple(f.subject for f in facts), "words", f"{call}.facts[*].subject"),
        Number("piano_roll.expected", tuple(f.expected for f in facts), "words", f"{call}.facts[*].expected"),
        Number(
            "piano_roll.lanes",
            lanes,
            "words (one lane per distinct answer)",
            f"distinct {call}.facts[*].expected, sorted alphabetically ignoring accents",
        ),
        Number(
            "piano_roll.answers_before",
            tuple(f.answer_before for f in facts),
            "words",
            f"{call}.facts[*].answer_before",
        ),
        Number(
            "piano_roll.answers_after", tuple(f.answer_after for f in facts), "words", f"{call}.facts[*].answer_after"
        ),
        Number(
            "piano_roll.probabilities_before",
            tuple(f.probability_before for f in facts),
            FRACTION,
            f"{call}.facts[*].probability_before",
        ),
        Number(
            "piano_roll.probabilities_after",
            tuple(f.probability_after for f in facts),
            FRACTION,
            f"{call}.facts[*].probability_after",
        ),
        Number("piano_roll.edit_index", edit.edit_index, "fact index (0-based)", f"{call}.edit_index"),
        Number(
            "piano_roll.answers_edit",
            (edit.old_answer, edit.new_answer),
            "words (old, new)",
            f"({call}.old_answer, {call}.new_answer)",
        ),
        Number(
            "piano_roll.old_probability_before", edit.old_probability_before, FRACTION, f"{call}.old_probability_before"
        ),
        Number(
            "piano_roll.new_probability_before", edit.new_probability_before, FRACTION, f"{call}.new_probability_before"
        ),
        Number(
            "piano_roll.old_probability_after", edit.old_probability_after, FRACTION, f"{call}.old_probability_after"
        ),
        Number(
            "piano_roll.new_probability_after", edit.new_probability_after, FRACTION, f"{call}.new_probability_after"
        ),
        Number("piano_roll.update_column", edit.column, "vector (d_model)", f"{call}.column"),
        Number("piano_roll.update_row", edit.row, "vector (d_ff)", f"{call}.row"),
        Number(
            "piano_roll.update_shape",
            (len(edit.column), len(edit.row)),
            "rows, columns",
            f"(len({call}.column), len({call}.row))",
        ),
        Number(
            "piano_roll.update_matrix_shape",
            (len(edit.row), len(edit.column)),
            "rows, columns of Delta W2 in the lecture's x.W orientation (d_ff x d_model)",
            f"(len({call}.row), len({call}.column))",
        ),
        Number("piano_roll.key_active", edit.key_active, "neurons above zero in the edited key", f"{call}.key_active"),
        Number(
            "piano_roll.key_responses",
            edit.key_responses,
            "k_j . row: the share of u each fact's key receives (1 for the edited fact)",
            f"{call}.key_responses",
        ),
        Number(
            "piano_roll.edited_key_response",
            edit.key_responses[edit.edit_index],
            "k . row for the edited key (1 by construction)",
            f"{call}.key_responses[{call}.edit_index]",
        ),
        Number(
            "piano_roll.max_other_response",
            edit.max_other_response,
            "largest |k_j . row| over the facts not edited",
            f"{call}.max_other_response",
        ),
        Number(
            "piano_roll.proper_nouns",
            tuple(w for w in PROPER_NOUNS if w in {*(f.subject for f in facts), *(f.expected for f in facts)}),
            "words written capitalised on screen",
            "ffn_core.piano_roll.PROPER_NOUNS found among the facts' subjects and answers",
        ),
        Number("piano_roll.others_unchanged", edit.others_unchanged, "facts", f"{call}.others_unchanged"),
        Number(
            "piano_roll.others_unchanged_flags",
            tuple(int(f.unchanged) for f in others),
            "1 = same answer",
            f"{call}.others[*].unchanged",
        ),
    )


def _plain(word: str) -> str:
    """The word without accents, for alphabetical order ("ácido" sorts with "a")."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))
