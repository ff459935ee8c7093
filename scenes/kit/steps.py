"""Several animations one after another inside one narrated window.

manim's `Succession` shows the later animations' mobjects before their turn (a
`TransformFromCopy` target sits in its final place from the first frame), so a worked
computation would give its result away early. Here each step is its own `play`, lasting
its share of the window, and the last step ends exactly where the window ends.
"""

from __future__ import annotations

from typing import Any

from scenes.kit.narrated import ClockTime, NarratedScene

# One step: its animations (or a function making them) and its share of the window. The
# last step's share is ignored (it takes what is left), so it is usually written None.
Step = tuple[Any, float | None]


def play_in_steps(scene: NarratedScene, window: ClockTime, *steps: Step) -> None:
    """Play `steps`, each `(animations, share)`, in order inside `window` (from `b.until(...)`,
    `b.remaining()` or `b.speech_remaining()`). Shares are fractions of the window; the last
    step takes whatever is left, so the window's bookmark fires on its frame. `animations`
    may be a function returning them, called when the step's turn comes."""
    if not steps:
        raise ValueError("play_in_steps needs at least one (animations, share) step")
    shares = [share for _, share in steps[:-1]]
    if any(share is None for share in shares):
        raise ValueError("every step but the last needs its share of the window")
    if sum(share for share in shares if share is not None) >= 1.0:
        raise ValueError("the shares of all steps but the last must leave time for the last one")
    starts_s = window.target_s - float(window)
    if float(window) > 0 and abs(starts_s - scene.clock_s) > 1 / scene.fps:
        raise ValueError(
            f"scene {type(scene).__name__}: a window ending at {window.target_s:.2f} s was asked "
            f"for at {starts_s:.2f} s but is played at {scene.clock_s:.2f} s; ask the beat for it "
            "(b.until(...)) right before play_in_steps"
        )
    for (animations, _), share in zip(steps[:-1], shares):
        scene.play(*_as_tuple(animations), run_time=float(window) * (share or 0.0))  # a share of the window's length
    last = ClockTime(window.target_s - scene.clock_s, window.target_s, window.bookmark)
    scene.play(*_as_tuple(steps[-1][0]), run_time=last)


def _as_tuple(animations) -> tuple:
    # A step may be a function that makes its animations when its turn comes: `.animate`
    # copies a mobject where it is when the animation is made, so one made up front would
    # pull it back from where an earlier step moved it. (`mob.animate` itself is callable
    # but is an animation builder, recognised by its `build`.)
    if callable(animations) and not hasattr(animations, "build"):
        animations = animations()
    return tuple(animations) if isinstance(animations, (list, tuple)) else (animations,)
