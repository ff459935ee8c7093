"""The one-fact edit of ``ffn_core.memory`` seen as re-punching one hole of a piano roll.

``ffn_core.memory.solve().edit`` reports the edit's outcome (answers, probabilities, rank,
norms) but not the weight change itself. This module repeats the very same edit (same
seed, same training, same ``rank_one_edit``) on a fresh copy of the fact model and keeps
what a picture of it needs:

* the weight change ``delta`` of the FFN's output matrix, as torch stores it (``down.weight``,
  d_model x d_ff: the lecture's ``W2`` transposed), and its two factors,
  ``delta = outer(column, row)``: the column ``u = delta @ k`` is how the FFN's output for
  the edited subject changes (new note minus old note, d_model numbers), and the row is
  ``delta.T @ u / |u|^2 = C^-1 k / (k^T C^-1 k)`` (d_ff numbers), where ``k`` is the subject's
  key (the FFN's d_ff hidden activations at the subject) and ``C`` the second moment of the
  facts' keys (``ffn_core.memory_model.rank_one_edit``). In the lecture's x.W orientation the
  change is ``Delta W2 = row^T u`` (d_ff x d_model): row i of it is ``row[i] * u``;
* how much of ``u`` each fact's key receives, ``key_responses[j] = k_j . row`` (exactly 1 for
  the edited key, near 0 for the others: that is why the others keep their answers, not the
  mere fact that the FFN adds);
* the singular values of ``delta`` (one is non-zero: the update has rank one);
* every fact's answer and its probability before and after the edit, and the
  probabilities of the old and the new answer of the edited fact on both sides.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import SupportsFloat

from ffn_core.cache import disk_cached
from ffn_core.memory import EDIT_LAYER, EDIT_NEW_ANSWER, EDIT_PROMPT, FACTS, SUBJECT_POSITION

# Words of the facts that are proper nouns: the vocabulary is lower case (one token per word),
# the screen writes them capitalised («Sena → París»).
PROPER_NOUNS = ("sena", "parís", "támesis", "londres", "tíber", "roma", "danubio", "viena")

# A singular value below this share of the largest one is numerical noise (float32 weights).
RANK_TOLERANCE = 1e-4


@dataclass(frozen=True)
class FactPlay:
    """One fact of the roll: its subject, the model's answer and its probability (0..1)
    before and after the edit."""

    prompt: str
    subject: str
    expected: str
    answer_before: str
    probability_before: float
    answer_after: str
    probability_after: float

    @property
    def unchanged(self) -> bool:
        return self.answer_before == self.answer_after


@dataclass(frozen=True)
class RollEdit:
    """The rank-one edit of one fact, with its weight change and every fact's answers.

    ``column`` (d_model) and ``row`` (d_ff) multiply to ``delta`` (d_model x d_ff, nested
    tuples, row-major). ``singular_values`` are delta's, largest first. ``edit_index`` is
    the edited fact's position in ``facts``.
    """

    layer: int
    edit_index: int
    old_answer: str
    new_answer: str
    facts: tuple[FactPlay, ...]
    old_probability_before: float  # P(old answer | edited prompt) before the edit
    new_probability_before: float  # P(new answer | edited prompt) before the edit
    old_probability_after: float
    new_probability_after: float
    column: tuple[float, ...]
    row: tuple[float, ...]
    key: tuple[float, ...]  # the edited subject's key k: the FFN's d_ff hidden activations at the subject
    key_responses: tuple[float, ...]  # k_j . row for every fact j (1 for the edited one), in roll order
    delta: tuple[tuple[float, ...], ...]
    singular_values: tuple[float, ...]
    numerical_rank: int
    update_norm: float  # Frobenius norm of delta
    weight_norm: float  # Frobenius norm of the output matrix before the edit

    @property
    def others(self) -> tuple[FactPlay, ...]:
        """Every fact but the edited one, in roll order."""
        return tuple(f for i, f in enumerate(self.facts) if i != self.edit_index)

    @property
    def others_unchanged(self) -> int:
        return sum(f.unchanged for f in self.others)

    @property
    def key_active(self) -> int:
        """How many of the d_ff neurons the edited key has above zero (a key is a pattern over many)."""
        return sum(a > 0 for a in self.key)

    @property
    def max_other_response(self) -> float:
        """The largest |k_j . row| over the facts that were not edited."""
        return max(abs(r) for i, r in enumerate(self.key_responses) if i != self.edit_index)


def numerical_rank(singular_values: Iterable[SupportsFloat], tolerance: float = RANK_TOLERANCE) -> int:
    """How many singular values exceed ``tolerance`` times the largest."""
    values = [float(s) for s in singular_values]
    if not values or values[0] <= 0:
        return 0
    return sum(s > tolerance * values[0] for s in values)


@disk_cached
def solve(seed: int = 0) -> RollEdit:
    """Train the fact model as ``ffn_core.memory.solve(seed)`` does, edit the same fact the
    same way, and return the weight change with every fact's answers before and after."""
    import torch

    from ffn_core.memory_model import _ffn_hidden, _prompt_batch, rank_one_edit, train
    from ffn_core.seeding import deterministic

    model, vocab, _ = train(seed)
    prompts = _prompt_batch(FACTS, vocab)
    edit_index = [p for p, _ in FACTS].index(EDIT_PROMPT)
    old_answer = FACTS[edit_index][1]
    down = model.blocks[EDIT_LAYER].ffn.down
    weight_before = down.weight.detach().clone()
    keys = _ffn_hidden(model, prompts, EDIT_LAYER, SUBJECT_POSITION)  # (n_facts, d_ff), unchanged by the edit
    key = keys[edit_index]

    def probabilities() -> torch.Tensor:
        with torch.no_grad():
            return torch.softmax(model(prompts)[:, -1], dim=-1)

    before = probabilities()
    with deterministic(seed):  # as ffn_core.memory_model.build_result runs it
        result = rank_one_edit(model, vocab)
    after = probabilities()
    if result.prompt != EDIT_PROMPT or result.new_answer != EDIT_NEW_ANSWER:
        raise RuntimeError(
            f"rank_one_edit edited {result.prompt!r} -> {result.new_answer!r}, "
            f"expected {EDIT_PROMPT!r} -> {EDIT_NEW_ANSWER!r}"
        )

    delta = (down.weight.detach() - weight_before).double()
    column = delta @ key.double()
    row = delta.T @ column / (column @ column)
    responses = keys.double() @ row
    singular = torch.linalg.svdvals(delta)
    plays = []
    for i, (prompt, expected) in enumerate(FACTS):
        b, a = int(before[i].argmax()), int(after[i].argmax())
        plays.append(
            FactPlay(
                prompt=prompt,
                subject=prompt.split()[SUBJECT_POSITION],
                expected=expected,
                answer_before=vocab[b],
                probability_before=float(before[i, b]),
                answer_after=vocab[a],
                probability_after=float(after[i, a]),
            )
        )
    old_id, new_id = vocab.index(old_answer), vocab.index(EDIT_NEW_ANSWER)
    return RollEdit(
        layer=EDIT_LAYER,
        edit_index=edit_index,
        old_answer=old_answer,
        new_answer=EDIT_NEW_ANSWER,
        facts=tuple(plays),
        old_probability_before=float(before[edit_index, old_id]),
        new_probability_before=float(before[edit_index, new_id]),
        old_probability_after=float(after[edit_index, old_id]),
        new_probability_after=float(after[edit_index, new_id]),
        column=tuple(float(v) for v in column),
        row=tuple(float(v) for v in row),
        key=tuple(float(v) for v in key),
        key_responses=tuple(float(v) for v in responses),
        delta=tuple(tuple(float(v) for v in r) for r in delta),
        singular_values=tuple(float(s) for s in singular),
        numerical_rank=numerical_rank(singular),
        update_norm=float(torch.linalg.matrix_norm(delta)),
        weight_norm=float(torch.linalg.matrix_norm(weight_before.double())),
    )
