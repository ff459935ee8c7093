"""Numbers of the lecture's title and closing cards: the size of the audited registry, and how
many of its numbers are of each kind.

``cards.registry_size`` counts every number ``ffn-video numbers`` lists; ``cards.n_computed``,
``cards.n_published`` and ``cards.n_quoted`` count them by ``kind`` (computed by ``ffn_core``,
a model's published configuration, a figure quoted from the course's texts) and add up to it.
They are computed from the other groups (asking ``all_numbers()`` from here would recurse
into this group) plus this group's own numbers, themselves included (all computed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ffn_core.registry import COMPUTED, KINDS, PUBLISHED, QUOTED, Number

Provider = Callable[[], tuple[Number, ...]]

PREFIX = "cards"
OWN_KEYS = ("cards.n_groups", "cards.n_computed", "cards.n_published", "cards.n_quoted", "cards.registry_size")


def numbers() -> tuple[Number, ...]:
    others = [n for provider in _other_providers() for n in _keys(provider).values()]
    by_kind = Counter(n.kind for n in others)
    by_kind[COMPUTED] += len(OWN_KEYS)  # this group's own numbers are computed here
    counted = "numbers of that kind in ffn_core.registry.all_numbers() (the other groups' plus the cards group's own)"
    own = (
        Number(
            "cards.n_groups",
            len(_other_providers()) + 1,
            "groups of numbers",
            "distinct providers of ffn_core.registry (this group included)",
        ),
        Number("cards.n_computed", by_kind[COMPUTED], "numbers", f"kind '{COMPUTED}': {counted}"),
        Number("cards.n_published", by_kind[PUBLISHED], "numbers", f"kind '{PUBLISHED}': {counted}"),
        Number("cards.n_quoted", by_kind[QUOTED], "numbers", f"kind '{QUOTED}': {counted}"),
    )
    size = Number(
        "cards.registry_size",
        len(others) + len(own) + 1,
        "numbers",
        "len(ffn_core.registry.all_numbers()), counted as the other groups' numbers plus the cards group's own",
    )
    assert tuple(n.key for n in (*own, size)) == OWN_KEYS
    assert sum(by_kind[k] for k in KINDS) == size.value, "every number has one of the kinds"
    return (*own, size)


def _other_providers() -> list[Provider]:
    from ffn_core import registry

    mine = numbers
    return [p for p in dict.fromkeys(registry._all_providers().values()) if p is not mine]


def _keys(provider: Provider) -> dict[str, Number]:
    from ffn_core import registry

    return registry._group(provider)
