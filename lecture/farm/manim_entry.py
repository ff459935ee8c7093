"""Runs manim's command line in this process, rendering only one chunk of a narrated scene.

    FFN_CHUNK_FRAMES=START:END python -m lecture.farm.manim_entry render ... scene.py Scene

(the variables are `scenes.kit.protocol`'s)

`construct()` runs whole; every animation (`play` or `wait`) that starts before frame
START of the scene's narration clock is skipped, the way manim's own
`--from_animation_number` skips (the renderer's skipping status: end states are applied,
no frame is drawn), and the scene ends, the way `--upto_animation_number` ends it, at the
first animation that starts at or after END (END empty: the scene's end). Manim's own
animation numbers cannot be used: `NarratedScene` tops a frozen `wait` up with one more
`play` only when frames are really written, so the same animation has different numbers
in a skipped and a rendered run; the narration clock (`scene.frames`) counts the same in
both (the contract test relies on it).

Writes FFN_CHUNK_INFO (JSON): the frame the first rendered animation started at (null when
none started inside the range), the frame the first animation past the range started at
(null when none did: the scene's end) and this process's CPU seconds, its children's
included. Dies with its parent (Linux PR_SET_PDEATHSIG), like every render of the build.

The skipped part is made cheap without changing what is drawn after it: a skipped play
draws nothing (manim would paint its static and moving mobjects into a frame nobody
writes; the next play paints its own from scratch), and SVG parses come from the build's
cache on disk, their paths shared by copies (`lecture.farm.mobject_cache`), and mobjects
are deep-copied with fewer Python calls (`lecture.farm.fast_copy`).
"""

from __future__ import annotations

import ctypes
import os
import resource
import runpy
import signal
import sys

from lecture.farm.warm_start import WAIT_FLAG, wait_for_request
from scenes.kit.protocol import ChildRequest, ChunkInfo


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    # The parent may have died before prctl ran.
    parent = ChildRequest.from_env().parent_pid
    if parent is not None and os.getppid() != parent:
        sys.exit(70)


class ChunkGate:
    """Decides, at the start of every animation, whether it is drawn, skipped or ends the run."""

    def __init__(self, start_frame: int, end_frame: int | None):
        self.start_frame = start_frame
        self.end_frame = end_frame
        self.first_frame: int | None = None  # the first drawn animation's start
        self.past_frame: int | None = None  # the first animation past the range
        self.tearing_down = False
        self.cpu_to_first_s: float | None = None  # CPU seconds spent before the first drawn animation

    def install(self) -> None:
        from manim.renderer.cairo_renderer import CairoRenderer
        from manim.utils.exceptions import EndSceneEarlyException

        from scenes.kit.narrated import NarratedScene

        gate = self
        play = CairoRenderer.play
        tear_down = NarratedScene.tear_down

        def gated_play(renderer, scene, *args, **kwargs):
            at = getattr(scene, "frames", None)
            if at is None:  # not a narrated scene: no clock to cut by
                return play(renderer, scene, *args, **kwargs)
            if gate.end_frame is not None and at >= gate.end_frame:
                if gate.past_frame is None:
                    gate.past_frame = at
                    if not gate.tearing_down:
                        renderer.skip_animations = True
                        raise EndSceneEarlyException()
            elif at >= gate.start_frame:
                if gate.first_frame is None:
                    gate.first_frame = at
                    gate.cpu_to_first_s = _cpu_s()
                return play(renderer, scene, *args, **kwargs)
            # Skipped: manim restores this status at the start of each play.
            saved = renderer._original_skipping_status
            renderer._original_skipping_status = True
            # A skipped play still paints its frame (update_frame ignores skipping by
            # default) and add_frame then drops it; every play paints its own frames from
            # the background up, so the skipped ones need none.
            renderer.update_frame = _no_frame
            try:
                return play(renderer, scene, *args, **kwargs)
            finally:
                del renderer.update_frame
                renderer._original_skipping_status = saved

        def gated_tear_down(scene):
            # The scene's closing wait must not end the scene early: it is outside construct().
            gate.tearing_down = True
            return tear_down(scene)

        # Patched in this manim process only (it renders one chunk and exits), so the gate sees every play.
        CairoRenderer.play = gated_play  # type: ignore[method-assign,assignment]  # the patch is the point
        NarratedScene.tear_down = gated_tear_down  # type: ignore[method-assign]  # likewise

    def info(self) -> ChunkInfo:
        return ChunkInfo(self.first_frame, self.past_frame, _cpu_s(), self.cpu_to_first_s)


def _no_frame(*args, **kwargs) -> None:
    return None


def _cpu_s() -> float:
    """CPU seconds of this process so far, its waited-for children included."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    if sys.argv[1:2] == [WAIT_FLAG]:
        _wait_for_chunk()
    _die_with_parent()
    request = ChildRequest.from_env()
    start, end = request.chunk_frames or (0, None)
    gate = ChunkGate(start, end)
    gate.install()
    from lecture.farm import fast_copy, mobject_cache

    fast_copy.install()
    mobject_cache.install(mobject_cache.default_folder())
    sys.argv = ["manim"] + sys.argv[1:]
    try:
        runpy.run_module("manim", run_name="__main__", alter_sys=True)
    finally:
        if request.chunk_info is not None:
            from voiceover.atomic import write_json

            write_json(request.chunk_info, gate.info().to_json())


def _wait_for_chunk() -> None:
    """Started ahead (`lecture.farm.warm_start`): import what every chunk imports before
    `main` runs, then take the chunk's command line and variables from standard input."""
    _die_with_parent()  # waiting, too, it dies with the build
    import manim.cli.render.commands  # noqa: F401 - imported now, before the chunk is known
    import manim.renderer.cairo_renderer  # noqa: F401

    import lecture.farm.fast_copy  # noqa: F401
    import lecture.farm.mobject_cache  # noqa: F401
    import scenes.kit.narrated  # noqa: F401

    argv, own = wait_for_request(sys.stdin.buffer)
    os.environ.update(own)
    sys.argv = [sys.argv[0], *argv]


if __name__ == "__main__":
    main()
