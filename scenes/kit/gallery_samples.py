"""The registry of the gallery's samples: one function per kit drawing, for `ffn-video gallery`.

Each sample is written beside the class it builds, in the kit module that defines it, as
`@sample_of(TheClass)` on a function that takes nothing and returns a mobject; importing
the module registers it here (the gallery imports every kit module). Data come from
`ffn_core`'s audited registry (`number(...).value` for figures, `dataset(...).value` for a
solver's whole result, as the scenes read them); everything else is illustrative and
carries no digits (a count of slots, a word, a colour).

A drawing that only makes sense on something else (points on their plane, a hole in its
paper) returns a group holding both: the gallery looks for an instance of the class
itself inside what the sample returns.

Adding a kit drawing? Give it its sample beside it; the gallery's test fails, naming the
class, until it has one.
"""

from __future__ import annotations

from collections.abc import Callable

from manim import Mobject

SampleFn = Callable[[], Mobject]
SAMPLES: dict[type, SampleFn] = {}


def sample_of(cls: type) -> Callable[[SampleFn], SampleFn]:
    """Register the decorated function as `cls`'s sample."""

    def register(fn: SampleFn) -> SampleFn:
        if cls in SAMPLES:
            raise ValueError(f"{cls.__name__} already has a sample ({SAMPLES[cls].__name__})")
        SAMPLES[cls] = fn
        return fn

    return register
