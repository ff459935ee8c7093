"""Deep copies of mobjects that build the same objects as `copy.deepcopy`, with fewer calls.

manim copies mobjects wholesale: every `Transform`, `FadeIn` or `.animate` copies its
mobject (and its target) when it begins, skipped or not, and each copy walks every
attribute of every submobject (and every group a formula keeps of its parts) through
`copy.deepcopy`, one Python call per value: numbers, flags and None come back as they
are, lists and arrays are copied, and every colour goes through `copy._reconstruct`.

`install()` gives `Mobject` (and `ManimColor`) a `__deepcopy__` that walks the same values
in the same order and does for each what `copy.deepcopy` does (the memo looked up first,
the copy recorded in it and the original kept alive in it), without the call and the
dispatch for the kinds a mobject is made of: atomic values, lists, dicts, plain numpy
arrays, mobjects and colours. Anything else still goes to `copy.deepcopy` itself. A copy
therefore holds the same values (arrays equal bit for bit) and shares exactly what the
stock copy shares.
"""

from __future__ import annotations

import copy
from enum import Enum
from typing import Any

import numpy as np

# The versions whose `Mobject.__deepcopy__` `_mobject_deepcopy` reproduces.
MIRRORED_MANIM = frozenset({"0.22.0"})
# What `copy.deepcopy` returns unchanged without looking at its memo.
ATOMIC = frozenset(t for t, f in copy._deepcopy_dispatch.items() if f is copy._deepcopy_atomic)  # type: ignore[attr-defined]
_NIL: Any = object()
_keep_alive = copy._keep_alive  # type: ignore[attr-defined]
_deepcopy = copy.deepcopy
_ndarray = np.ndarray
_colour: Any = None  # ManimColor, once install() has checked it is a plain class
_SELF_COPYING: set[type] = set()  # manim's style enums: their members copy to themselves


def install() -> None:
    """Patch this process's manim (a render process: one scene, then it exits)."""
    global _colour
    import manim
    from manim import ManimColor, Mobject

    if manim.__version__ not in MIRRORED_MANIM:
        return
    Mobject.__deepcopy__ = _mobject_deepcopy  # the patch is the point
    if _plain(ManimColor):
        _colour = ManimColor
    from manim.constants import CapStyleType, LineJointType

    for enum in (CapStyleType, LineJointType):
        if enum.__deepcopy__ is Enum.__deepcopy__:
            _SELF_COPYING.add(enum)


def _plain(cls: type) -> bool:
    """A class `copy.deepcopy` copies by `__reduce_ex__(4)` of a plain instance dict."""
    own = ("__deepcopy__", "__reduce_ex__", "__reduce__", "__setstate__", "__getstate__", "__slots__")
    return all(not any(name in vars(c) for name in own) for c in cls.__mro__ if c is not object)


def _mobject_deepcopy(self, clone_from_id: dict[int, Any]):
    """manim 0.22's `Mobject.__deepcopy__`, each attribute copied by `_deep`."""
    cls = self.__class__
    result = cls.__new__(cls)
    clone_from_id[id(self)] = result
    for k, v in self.__dict__.items():
        setattr(result, k, v if type(v) in ATOMIC else _deep(v, clone_from_id))
    result.original_id = str(id(self))
    return result


def _deep(x: Any, memo: dict[int, Any]) -> Any:
    """`copy.deepcopy(x, memo)`, done inline for the kinds a mobject is made of."""
    cls = type(x)
    if cls in ATOMIC:
        return x
    d = id(x)
    y = memo.get(d, _NIL)
    if y is not _NIL:
        return y
    if cls is list:  # copy._deepcopy_list
        y = []
        memo[d] = y
        append = y.append
        for a in x:
            append(a if type(a) in ATOMIC else _deep(a, memo))
    elif cls is dict:  # copy._deepcopy_dict
        y = {}
        memo[d] = y
        for key, value in x.items():
            y[_deep(key, memo)] = _deep(value, memo)
    elif cls is _ndarray:
        y = x.__deepcopy__(memo)
    elif cls in _SELF_COPYING:  # Enum.__deepcopy__ returns the member itself: nothing to record
        return x
    elif getattr(cls, "__deepcopy__", None) is _mobject_deepcopy:
        y = _mobject_deepcopy(x, memo)
    elif cls is _colour:  # copy._reconstruct of object.__reduce_ex__(4): a new instance, its state copied
        y = cls.__new__(cls)
        memo[d] = y
        state = _deep(x.__dict__, memo)
        y.__dict__.update(state)
    else:
        return _deepcopy(x, memo)
    # What copy.deepcopy does with every copy it makes.
    if y is not x:
        memo[d] = y
        _keep_alive(x, memo)
    return y
