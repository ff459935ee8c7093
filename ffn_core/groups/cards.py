"""Numbers of the lecture's title and closing cards: the size of the audited registry.

``cards.registry_size`` counts every number ``ffn-video numbers`` lists. It is computed
from the other groups (asking ``all_numbers()`` from here would recurse into this group)
plus this group's own numbers, itself included.
"""

from __future__ import annotations

from collections.abc import Callable

from ffn_core.numbers import Number

Provider = Callable[[], tuple[Number, ...]]

PREFIX = "cards"


def numbers() -> tuple[Number, ...]:
    own = (
        Number(
            "cards.n_groups",
            len(_other_providers()) + 1,
            "groups of numbers",
            "distinct providers of ffn_core.numbers (this group included)",
        ),
    )
    others = sum(len(_keys(provider)) for provider in _other_providers())
    size = Number(
        "cards.registry_size",
        others + len(own) + 1,
        "numbers",
        "len(ffn_core.numbers.all_numbers()), counted as the other groups' numbers plus the cards group's own",
    )
    return (*own, size)


def _other_providers() -> list[Provider]:
    from ffn_core import numbers as registry

    mine = numbers
    return [p for p in dict.fromkeys(registry._all_providers().values()) if p is not mine]


def _keys(provider: Provider) -> dict[str, Number]:
    from ffn_core import numbers as registry

    return registry._group(provider)
