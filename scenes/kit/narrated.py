"""NarratedScene: a manim Scene whose clock is its narration's timeline.

Scenes never invent durations. Inside `with self.beat("name") as b:` a scene asks
`b.until("bookmark")` or `b.remaining()` for run times; the scene keeps its own frame
clock, so every animation ends on the frame nearest the audio time it was aimed at and
rounding never accumulates. Each beat is padded to its narrated end, the scene to its
timeline's total, and a log records when each bookmark fired, which numbers were read,
which works each beat cites, every text shown (and, at each change, the heights of the texts
on screen: `text_boxes`, what the storyboard's smallest-text figure reads), and any text that
left the frame or overlapped other text at the end of any animation.

A beat whose script names `sources` shows their discreet citation (`scenes.kit.citation`)
in the corner `citation_corner` (bottom right unless the scene says otherwise) while it
plays; it fades in and out by an updater, so it never takes time from the beat.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import combinations
from pathlib import Path

import numpy as np
from manim import DR, Animation, MarkupText, MathTex, Scene, Tex, Text, Wait, config

from scenes.kit import palette
from scenes.kit.citation import Citation, fade_share
from scenes.kit.protocol import ChildRequest
from voiceover.atomic import write_json
from voiceover.script import ScriptError
from voiceover.timeline import BeatTiming, Timeline, timing_fact
from voiceover.timing import build_timeline

TEXT_TYPES = (Text, MarkupText, Tex, MathTex)
FRAME_MARGIN = 0.1  # scene units kept free at the frame's edges
MIN_TEXT_PX = 20  # the shortest legible line of text at 854x480
PX_PER_FONT_SIZE = 0.945  # height in px at 854x480 of a line with accents and descenders, per font size


class TimelineError(ScriptError):
    """A scene asked its timeline for a beat or bookmark the narration does not have."""


class ClockTime(float):
    """A run time that also carries the absolute scene time it is aimed at.

    Scaling keeps the aim: `0.6 * b.speech_remaining()` is aimed at 60 % of the way from
    the moment it was asked for to the end of the speech, frame-exact like `b.fraction(0.6)`
    (and no longer at a bookmark). A scaled time played after the scene's clock has moved
    would aim at the wrong frame, so `NarratedScene.play` refuses it; adding or subtracting
    seconds would silently lose the aim, so it fails."""

    target_s: float
    bookmark: str | None
    scaled: bool

    def __new__(cls, run_time: float, target_s: float, bookmark: str | None = None, scaled: bool = False):
        obj = super().__new__(cls, max(run_time, 0.0))
        obj.target_s = target_s
        obj.bookmark = bookmark
        obj.scaled = scaled
        return obj

    @property
    def start_s(self) -> float:
        """The scene time at which this run time was asked for."""
        return self.target_s - float(self)

    def _scaled(self, factor) -> ClockTime:
        if not isinstance(factor, (int, float)) or isinstance(factor, bool):
            return NotImplemented
        run = float(self) * float(factor)
        return ClockTime(run, self.start_s + run, scaled=True)

    def __mul__(self, factor):
        return self._scaled(factor)

    __rmul__ = __mul__

    def __truediv__(self, divisor):
        if not isinstance(divisor, (int, float)) or isinstance(divisor, bool):
            return NotImplemented
        return self._scaled(1.0 / divisor)

    def _no_shift(self, other):
        raise TypeError(
            "adding or subtracting seconds to a beat's clock time loses the frame it is "
            "aimed at; use b.until(...), b.fraction(share) or a plain float instead"
        )

    __add__ = __radd__ = __sub__ = __rsub__ = _no_shift


class Beat:
    """The clock of one narrated beat, handed out by `NarratedScene.beat`."""

    def __init__(self, scene: NarratedScene, timing: BeatTiming):
        self.scene = scene
        self.timing = timing

    def until(self, bookmark: str) -> ClockTime:
        """Run time that makes the next animation end exactly at `bookmark`."""
        target = self.scene.timing_fact(self.timing.name, "bookmark_s", bookmark)
        if target is None:
            tl = self.scene.timeline
            raise TimelineError(
                f"{tl.script_path}: scene '{tl.scene}', beat '{self.timing.name}' waits for bookmark "
                f"'{bookmark}', which the beat's text lacks (it has: "
                f"{', '.join(self.timing.bookmarks) or 'none'}); add {{#{bookmark}}} to the text"
            )
        return ClockTime(target - self.scene.clock_s, target, bookmark)

    def remaining(self) -> ClockTime:
        """Run time that makes the next animation end with the beat (its pause included)."""
        end = self.scene.timing_fact(self.timing.name, "end_s")
        return ClockTime(end - self.scene.clock_s, end)

    def speech_remaining(self) -> ClockTime:
        """Run time until the voice stops speaking in this beat (before its pause)."""
        end = self.scene.timing_fact(self.timing.name, "speech_end_s")
        return ClockTime(end - self.scene.clock_s, end)

    def fraction(self, share: float) -> ClockTime:
        """Run time covering `share` of what is left of the beat's speech."""
        end = self.scene.timing_fact(self.timing.name, "speech_end_s")
        target = self.scene.clock_s + share * max(end - self.scene.clock_s, 0.0)
        return ClockTime(target - self.scene.clock_s, target)


class NarratedScene(Scene):
    """Base class of every lecture scene. Subclasses set `script` to their narration name."""

    script: str = ""
    # Where a beat's citation sits (DR, DL, UR, UL); `citation_corners` overrides it per beat,
    # for a beat whose own text takes that corner.
    citation_corner: np.ndarray = DR
    citation_corners: dict[str, np.ndarray] = {}

    def setup(self) -> None:
        if not self.script:
            raise TimelineError(f"{type(self).__name__}: set `script` to the scene's narration name")
        self.camera.background_color = palette.BACKGROUND
        # Our build caches whole scenes; manim's per-animation cache would skip frames and
        # let the clock drift, so it is off inside narrated scenes.
        config.disable_caching = True
        self.timeline = _load_timeline(self.script)
        self.fps = config.frame_rate
        self.frames = 0
        self.fired: dict[str, float] = {}
        self.numbers_read: dict[str, object] = {}
        self.layout_problems: list[str] = []
        self._beat_names: list[str] = []
        self.beat_sources: dict[str, list[str]] = {}
        self.visible_texts: dict[str, list[str]] = {}
        self.text_boxes: list[dict] = []  # heights of the texts on screen, at each change
        # What was read of the timeline, in order ((beat, fact, name) -> value), and at each
        # animation's start frame how many of those facts the frames before it depend on.
        self.timing_facts: dict[tuple[str, str, str], object] = {}
        self.animation_starts: list[tuple[int, int]] = []
        self._facts_drawn = 0  # facts read before the clock reached its current frame
        self._citation: Citation | None = None
        self._citation_span = (0.0, 0.0)  # scene seconds it shows from and to
        self._citation_clock = 0.0  # scene time as its updater counts it inside a play

    # -- time ------------------------------------------------------------------------
    def timing_fact(self, beat: str, fact: str, name: str = ""):
        """A fact of the timeline (`voiceover.timeline.timing_fact`), noted as read: the only
        way this class and its beats read their timing."""
        value = timing_fact(self.timeline, beat, fact, name)
        self.timing_facts.setdefault((beat, fact, name), value)
        return value

    @property
    def clock_s(self) -> float:
        return self.frames / self.fps

    def play(self, *animations, run_time: float | None = None, **kwargs) -> None:
        self._refuse_stale(run_time)
        if self._citation is not None:
            # The citation belongs to the beat, not to the scene's drawing: a scene clearing
            # the stage (`FadeOut(m) for m in self.mobjects`) leaves it where it is.
            kept = tuple(a for a in animations if not (isinstance(a, Animation) and a.mobject is self._citation))
            if not kept and animations:
                seconds = run_time if run_time is not None else _natural_run_time(animations)
                kept = (Wait(run_time=seconds),)
            animations = kept
        target = run_time.target_s if isinstance(run_time, ClockTime) else None
        seconds = run_time if run_time is not None else _natural_run_time(animations)
        wanted = round(target * self.fps) - self.frames if target is not None else round(seconds * self.fps)
        wanted = max(int(wanted), 1)
        self._advance(lambda rt: Scene.play(self, *animations, run_time=rt, **kwargs), wanted)
        if isinstance(run_time, ClockTime) and run_time.bookmark:
            self.fired[run_time.bookmark] = self.clock_s
        # Every animation's end state is checked, not only the beat's last frame: a beat that
        # ends by clearing the stage would otherwise hide what was wrong while it was shown.
        self._check_layout(self._beat_names[-1] if self._beat_names else "(antes del primer beat)")

    def wait(self, duration: float = 1.0, **kwargs) -> None:
        self._refuse_stale(duration)
        target = duration.target_s if isinstance(duration, ClockTime) else None
        wanted = round(target * self.fps) - self.frames if target is not None else round(duration * self.fps)
        if wanted >= 1:
            self._advance(lambda rt: Scene.play(self, Wait(run_time=rt, **kwargs)), int(wanted))
        if isinstance(duration, ClockTime) and duration.bookmark:
            self.fired[duration.bookmark] = self.clock_s

    def _refuse_stale(self, run_time) -> None:
        if (
            isinstance(run_time, ClockTime)
            and run_time.scaled
            and abs(run_time.start_s - self.clock_s) > 0.5 / self.fps
        ):
            raise TimelineError(
                f"scene {type(self).__name__}: a scaled clock time asked for at {run_time.start_s:.2f} s is played at "
                f"{self.clock_s:.2f} s, so it would aim at the wrong frame; scale it right where it is played, or "
                f"use b.fraction(share) there"
            )

    def _advance(self, play_fn, frames: int) -> None:
        """Run `play_fn` so that exactly `frames` frames are written.

        manim writes ceil(run_time*fps) frames for a moving animation but floor(...) for a
        frozen one; aiming half a frame inside gives `frames` or `frames - 1`, and a frozen
        top-up supplies the missing frame. (Scene.play is called directly: Scene.wait
        would come back through our own `play`.)"""
        before = self.renderer.time
        # The frames before this animation were drawn from the facts read while they were.
        self.animation_starts.append((self.frames, self._facts_drawn))
        self._citation_before(frames)
        play_fn((frames - 0.5) / self.fps)
        if self.renderer.skip_animations:  # `-s` stills: nothing is written, count as asked
            self.frames += frames
            self._facts_drawn = len(self.timing_facts)
            self._citation_after()
            return
        written = int(round((self.renderer.time - before) * self.fps))
        if written < frames:
            Scene.play(self, Wait(run_time=(frames - written + 0.5) / self.fps, frozen_frame=True))
            written = int(round((self.renderer.time - before) * self.fps))
        self.frames += written
        self._facts_drawn = len(self.timing_facts)
        self._citation_after()

    # -- beats -----------------------------------------------------------------------
    @contextmanager
    def beat(self, name: str) -> Iterator[Beat]:
        try:
            timing = self.timeline.beat(name)
        except ScriptError as err:
            raise TimelineError(f"scene {type(self).__name__}: {err}") from None
        start_frame = round(self.timing_fact(name, "start_s") * self.fps)
        first_bookmark = self.timing_fact(name, "first_bookmark_s")
        if first_bookmark is not None:
            # A bookmark at the beat's very start needs one frame of animation to reach it:
            # the beat then starts a frame early rather than the bookmark firing late.
            start_frame = min(start_frame, round(first_bookmark * self.fps) - 1)
        if self.frames < start_frame:
            self.wait(ClockTime((start_frame - self.frames) / self.fps, start_frame / self.fps))
        self._beat_names.append(name)
        self.beat_sources[name] = list(self.timing_fact(name, "sources"))
        self._show_citation(timing)
        yield Beat(self, timing)
        self._check_layout(name)
        end = self.timing_fact(name, "end_s")
        self.wait(ClockTime(end - self.clock_s, end))
        self._end_citation(timing)

    def number(self, key: str):
        """A value from `ffn_core`'s audited registry (never a typed-in figure)."""
        from ffn_core.registry import number

        value = number(key).value
        self.numbers_read[key] = value
        return value

    def number_kind(self, key: str) -> str:
        """What kind of figure `key` is: "computed" (by ffn_core), "published" (a model's
        configuration as its authors give it) or "quoted" (a figure of the source texts,
        shown and said as quoted)."""
        from ffn_core.registry import number

        return number(key).kind

    # -- citations ---------------------------------------------------------------------
    def place_citation(self, citation: Citation, beat: str) -> None:
        """Put a beat's citation in its corner; override for a place no corner gives."""
        citation.place(self.citation_corners.get(beat, self.citation_corner))

    def _show_citation(self, timing: BeatTiming) -> None:
        keys = tuple(self.timing_fact(timing.name, "sources"))
        if self._citation is not None and self._citation.keys == keys:
            return  # the previous beat cited the same works: it stays, without a blink
        self._drop_citation()
        if not keys:
            return
        citation = Citation.of(keys)
        self.place_citation(citation, timing.name)
        # It shows until the end of the last of the following beats citing the same works.
        self._citation_span = (self.clock_s, self.timing_fact(timing.name, "citation_end_s"))
        self._citation = citation
        citation.fade(fade_share(self.clock_s, *self._citation_span))
        self.add_foreground_mobject(citation)

    def _end_citation(self, timing: BeatTiming) -> None:
        if self._citation is not None and self.clock_s >= self._citation_span[1] - 0.5 / self.fps:
            self._drop_citation()

    def _drop_citation(self) -> None:
        if self._citation is not None:
            self._citation.clear_updaters()
            self.remove_foreground_mobject(self._citation)
            self.remove(self._citation)
            self._citation = None

    def _citation_before(self, frames: int) -> None:
        """Before a play of `frames` frames: an updater fades the citation only while the
        play crosses a fade (a static wait elsewhere stays a frozen frame)."""
        citation = self._citation
        if citation is None:
            return
        if citation not in self.mobjects:  # removed by the scene (self.clear(), a remover)
            self.add_foreground_mobject(citation)
        start, end = self.clock_s, self.clock_s + frames / self.fps
        lo, hi = self._citation_span
        share = fade_share(start, lo, hi)
        citation.clear_updaters()
        citation.fade(share)
        steady = share >= 1.0 and fade_share(end, lo, hi) >= 1.0 and (hi - lo) > 0
        if not steady:
            self._citation_clock = start

            def follow(mob: Citation, dt: float) -> None:
                self._citation_clock += dt
                mob.fade(fade_share(self._citation_clock, lo, hi))

            citation.add_updater(follow)

    def _citation_after(self) -> None:
        citation = self._citation
        if citation is None:
            return
        citation.clear_updaters()
        if citation not in self.mobjects:
            self.add_foreground_mobject(citation)
        citation.fade(fade_share(self.clock_s, *self._citation_span))

    def dataset(self, key: str):
        """A rich result (a tray, a fit, a walk) from `ffn_core`'s audited registry, logged
        by its SHA-256 digest like a number by its value."""
        from scenes.kit.datasets import read_dataset

        return read_dataset(self, key)

    # -- checks and log ----------------------------------------------------------------
    def _check_layout(self, beat: str) -> None:
        # Runs with animations skipped too: each play still leaves its end state, so a
        # scene's layout is checked without drawing a frame (the scene contract test does).
        texts = [m for m in self._visible_family() if isinstance(m, TEXT_TYPES)]
        if self._citation is not None:  # checked while it is on, however far it has faded
            texts += self._citation.lines
        seen = self.visible_texts.setdefault(beat, [])
        for m in texts:
            text = _text_of(m)
            if text and text not in seen:
                seen.append(text)
        # Each text's size and box read once: this runs after every animation, skipped ones too.
        sizes = [getattr(m, "font_size", None) for m in texts]
        self._log_text_heights(beat, texts, sizes)
        for m, size in zip(texts, sizes):
            if isinstance(m, (Text, MarkupText)) and size is not None and size * PX_PER_FONT_SIZE < MIN_TEXT_PX:
                self._problem(
                    f"beat '{beat}': {_describe(m)} is {size * PX_PER_FONT_SIZE:.0f} px tall at 854x480 "
                    f"(under {MIN_TEXT_PX}); use ty.small or larger, unscaled"
                )
        half_w = config.frame_width / 2 - FRAME_MARGIN
        half_h = config.frame_height / 2 - FRAME_MARGIN
        boxes = []
        for m in texts:
            lo, hi = _corners(m)
            name = _describe(m)
            if lo[0] < -half_w or hi[0] > half_w or lo[1] < -half_h or hi[1] > half_h:
                self._problem(f"beat '{beat}': {name} leaves the frame")
            boxes.append((name, lo, hi))
        for (na, la, ha), (nb, lb, hb) in combinations(boxes, 2):
            overlap_w = min(ha[0], hb[0]) - max(la[0], lb[0])
            overlap_h = min(ha[1], hb[1]) - max(la[1], lb[1])
            if overlap_w > 0.02 and overlap_h > 0.02:
                self._problem(f"beat '{beat}': {na} overlaps {nb}")

    def _log_text_heights(self, beat: str, texts, sizes) -> None:
        """The heights (px at 854x480, as a line of its font size) of the texts on screen
        now, logged when they change: the storyboard reads the smallest at each still."""
        sized = [(float(size) * PX_PER_FONT_SIZE, m) for m, size in zip(texts, sizes) if size]
        entry: dict = {"t_s": round(self.clock_s, 4), "beat": beat, "heights_px": sorted(round(h, 1) for h, _ in sized)}
        if sized:
            entry["smallest"] = _describe(min(sized, key=lambda hm: hm[0])[1])
        last = self.text_boxes[-1] if self.text_boxes else {}
        if (last.get("heights_px"), last.get("smallest")) != (entry["heights_px"], entry.get("smallest")):
            self.text_boxes.append(entry)

    def _problem(self, message: str) -> None:
        if message not in self.layout_problems:
            self.layout_problems.append(message)

    def _visible_family(self):
        """Top-most text mobjects on screen (a Text's own glyphs are not compared), the
        beat's citation left out (it is bibliography, not the scene's drawing)."""
        found = []

        def walk(mob):
            if mob is self._citation:
                return
            if isinstance(mob, TEXT_TYPES):
                # A Tex keeps its glyphs' opacity in its submobjects (its own reads 0), so
                # a text counts as shown when any part of it that draws is.
                parts = mob.family_members_with_points() or [mob]
                if any(p.get_fill_opacity() > 0.05 or p.get_stroke_opacity() > 0.05 for p in parts):
                    found.append(mob)
                return
            for sub in mob.submobjects:
                walk(sub)

        for mob in self.mobjects:
            walk(mob)
        return found

    def tear_down(self) -> None:
        total = self.timing_fact("", "total_s")
        if self.clock_s < total - 0.5 / self.fps:
            self.wait(ClockTime(total - self.clock_s, total))
        self._write_log()

    @staticmethod
    def _citation_label(keys: list[str]) -> str:
        from scenes.kit.citation import citation_text
        from voiceover.references import reference

        return citation_text([reference(k).short for k in keys])

    def _write_log(self) -> None:
        target = (
            ChildRequest.from_env().scene_log or Path(config.media_dir) / "ffn_logs" / f"{type(self).__name__}.json"
        )
        write_json(
            target,
            {
                "scene": type(self).__name__,
                "script": self.script,
                "fps": self.fps,
                "frames": self.frames,
                "duration_s": self.clock_s,
                "timeline_total_s": self.timeline.total_s,
                "beats": self._beat_names,
                "bookmarks_fired_s": self.fired,
                "bookmarks_timeline_s": self.timeline.bookmark_times(),
                "numbers_read": {k: _jsonable(v) for k, v in self.numbers_read.items()},
                "layout_problems": self.layout_problems,
                "sources": self.beat_sources,
                "citations": {b: self._citation_label(k) for b, k in self.beat_sources.items() if k},
                "visible_texts": self.visible_texts,
                "text_boxes": self.text_boxes,
                "timing_facts": [[*k, _jsonable(v)] for k, v in self.timing_facts.items()],
                "animation_starts": self.animation_starts,
            },
        )


def _load_timeline(script: str) -> Timeline:
    """The build passes a prepared timeline; a standalone `manim` run narrates on demand."""
    path = ChildRequest.from_env().timeline
    if path is not None:
        return Timeline.from_json(json.loads(path.read_text(encoding="utf-8")))
    return build_timeline(script)


def _corners(mob) -> tuple[np.ndarray, np.ndarray]:
    """The lower-left and upper-right corners (x, y) of `mob`, as `get_corner(DL)` and
    `get_corner(UR)` give them, from one pass over its boundary points."""
    points = mob.get_points_defining_boundary()
    if len(points) == 0:
        return np.zeros(2), np.zeros(2)
    return points[:, :2].min(axis=0), points[:, :2].max(axis=0)


def _natural_run_time(animations) -> float:
    times = [getattr(a, "run_time", 1.0) for a in animations if hasattr(a, "run_time")]
    return max(times) if times else 1.0


def _text_of(mob) -> str:
    """What a text mobject says: a Text's or MarkupText's text as written, a formula's TeX."""
    if isinstance(mob, (Text, MarkupText)):
        return str(getattr(mob, "original_text", None) or getattr(mob, "text", "") or "")
    return str(getattr(mob, "tex_string", "") or "")


def _describe(mob) -> str:
    text = (
        getattr(mob, "original_text", None)  # a Text's `.text` has its spaces taken out
        or getattr(mob, "text", None)
        or getattr(mob, "tex_string", None)
        or type(mob).__name__
    )
    return f"{type(mob).__name__}({str(text)[:30]!r})"


def _jsonable(value):
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return str(value)
