"""Timelines: when each beat, segment and bookmark of a scene's narration happens.

The timeline is the only source of time for scenes. This module is the model and its JSON
file; `voiceover.timing` builds a timeline by measuring the narration's clips
(`voiceover.clips`), never by estimating them. The timeline records which engine, voice and
model spoke.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from voiceover.engines import EngineFacts
from voiceover.paths import cache_dir
from voiceover.script import ScriptError

TIMELINE_VERSION = 3


@dataclass(frozen=True)
class Segment:
    """A stretch of speech between bookmarks (or beat edges); one audio clip."""

    text: str  # as shown in subtitles (numbers in digits)
    spoken: str  # as spoken (numbers in words)
    start_s: float  # from the start of the scene
    duration_s: float
    clip: str  # path of the clip's WAV ("" for an empty segment)
    source: str = ""  # engine name, or the path of the lecturer's recording it came from

    @property
    def end_s(self) -> float:
        return self.start_s + self.duration_s


@dataclass(frozen=True)
class BeatTiming:
    name: str
    start_s: float
    speech_s: float
    pause_s: float
    bookmarks: dict[str, float]  # bookmark name -> seconds from the start of the scene
    segments: tuple[Segment, ...]
    sources: tuple[str, ...] = ()  # reference keys the beat cites (`voiceover/references.toml`)

    @property
    def duration_s(self) -> float:
        return self.speech_s + self.pause_s

    @property
    def text(self) -> str:
        """The beat's text as subtitles show it (bookmarks removed, numbers in digits)."""
        return " ".join(s.text for s in self.segments if s.text)

    @property
    def end_s(self) -> float:
        return self.start_s + self.duration_s


@dataclass(frozen=True)
class Timeline:
    scene: str
    title: str
    beats: tuple[BeatTiming, ...]
    total_s: float
    script_path: str
    # Who spoke: {"engine", "voice", "speed", "model", "model_sha256", ...}, and
    # "recorded": how many segments came from the lecturer's recordings.
    voice: EngineFacts = field(default_factory=dict)

    def beat(self, name: str) -> BeatTiming:
        for beat in self.beats:
            if beat.name == name:
                return beat
        known = ", ".join(b.name for b in self.beats)
        raise ScriptError(f"{self.script_path}: scene '{self.scene}' has no beat '{name}' (beats: {known})")

    def bookmark_times(self) -> dict[str, float]:
        return {k: v for beat in self.beats for k, v in beat.bookmarks.items()}

    def to_json(self) -> dict[str, Any]:  # JSON-ready
        data = {"version": TIMELINE_VERSION, **asdict(self)}
        for beat, timing in zip(data["beats"], self.beats):  # derived, for people reading the file
            beat["text"] = timing.text
            beat["duration_s"] = timing.duration_s
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Timeline:  # as `to_json` wrote it
        beats = tuple(
            BeatTiming(
                b["name"],
                b["start_s"],
                b["speech_s"],
                b["pause_s"],
                dict(b["bookmarks"]),
                tuple(Segment(**s) for s in b["segments"]),
                tuple(b.get("sources") or ()),  # absent in timelines written before sources
            )
            for b in data["beats"]
        )
        return cls(
            data["scene"], data["title"], beats, data["total_s"], data["script_path"], dict(data.get("voice") or {})
        )


# What a scene can read of its timeline while it draws (`NarratedScene` reads nothing else):
# every read is one of these facts, so a render's frames up to a frame depend on the
# timeline only through the facts read before it (`lecture.farm.jobs.earlier_head`).
TIMING_FACTS = ("start_s", "end_s", "speech_end_s", "bookmark_s", "first_bookmark_s", "sources", "citation_end_s")


def timing_fact(timeline: Timeline, beat: str, fact: str, name: str = "") -> Any:
    """One fact of `beat` (JSON-ready; None when the beat or the bookmark `name` is absent),
    or with `fact` "total_s" the scene's length. Computed here only, so a scene's read and a
    later check of it against another timeline agree to the bit."""
    if fact == "total_s":
        return timeline.total_s
    if fact not in TIMING_FACTS:
        raise ValueError(f"unknown timing fact {fact!r} (known: {', '.join(TIMING_FACTS)}, total_s)")
    found = [i for i, b in enumerate(timeline.beats) if b.name == beat]
    if not found:
        return None
    timing = timeline.beats[found[0]]
    if fact == "start_s":
        return timing.start_s
    if fact == "end_s":
        return timing.end_s
    if fact == "speech_end_s":
        return timing.start_s + timing.speech_s
    if fact == "bookmark_s":
        return timing.bookmarks.get(name)
    if fact == "first_bookmark_s":
        return min(timing.bookmarks.values()) if timing.bookmarks else None
    if fact == "sources":
        return list(timing.sources)
    # citation_end_s: a citation shows until the end of the last of the following beats that
    # cite the same works.
    end = timing.end_s
    for later in timeline.beats[found[0] + 1 :]:
        if tuple(later.sources) != tuple(timing.sources):
            break
        end = later.end_s
    return end


def timeline_path(scene: str) -> Path:
    return cache_dir() / "timelines" / f"{scene}.json"


def require_bookmarks(timeline: Timeline, beat: str, names: Iterable[str]) -> dict[str, float]:
    """The times of the bookmarks a scene waits for in `beat`; a bookmark the beat's text
    lacks is a ScriptError naming the script, scene, beat and bookmark."""
    timing = timeline.beat(beat)
    missing = [n for n in names if n not in timing.bookmarks]
    if missing:
        have = ", ".join(timing.bookmarks) or "none"
        raise ScriptError(
            f"{timeline.script_path}: scene '{timeline.scene}', beat '{beat}' waits for bookmark"
            f"{'s' if len(missing) > 1 else ''} {', '.join(repr(m) for m in missing)}, which the beat's "
            f"text lacks (it has: {have}); add {' '.join('{#' + m + '}' for m in missing)} to the text"
        )
    return {n: timing.bookmarks[n] for n in names}


def load_timeline(scene: str) -> Timeline:
    """The timeline last built for `scene` (built by `voiceover.timing.build_timeline`)."""
    return Timeline.from_json(json.loads(timeline_path(scene).read_text(encoding="utf-8")))
