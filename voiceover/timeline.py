"""Timelines: when each beat, segment and bookmark of a scene's narration happens.

The timeline is the only source of time for scenes. Times are measured from the real
audio: each stretch of text between two bookmarks is synthesised on its own, so a
bookmark's time is the exact sum of the clip durations before it.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import soundfile

from voiceover.atomic import atomic_path, write_json
from voiceover.engines import Engine, default_engine
from voiceover.paths import cache_dir
from voiceover.script import FIELD_RE, Script, ScriptError, load_script
from voiceover.spoken import FieldError, render

TIMELINE_VERSION = 1


@dataclass(frozen=True)
class Segment:
    """A stretch of speech between bookmarks (or beat edges); one audio clip."""

    text: str        # as shown in subtitles (numbers in digits)
    spoken: str      # as spoken (numbers in words)
    start_s: float   # from the start of the scene
    duration_s: float
    clip: str        # path of the clip's WAV ("" for an empty segment)


@dataclass(frozen=True)
class BeatTiming:
    name: str
    start_s: float
    speech_s: float
    pause_s: float
    bookmarks: dict[str, float]  # bookmark name -> seconds from the start of the scene
    segments: tuple[Segment, ...]

    @property
    def duration_s(self) -> float:
        return self.speech_s + self.pause_s

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

    def beat(self, name: str) -> BeatTiming:
        for beat in self.beats:
            if beat.name == name:
                return beat
        known = ", ".join(b.name for b in self.beats)
        raise ScriptError(f"{self.script_path}: scene '{self.scene}' has no beat '{name}' (beats: {known})")

    def bookmark_times(self) -> dict[str, float]:
        return {k: v for beat in self.beats for k, v in beat.bookmarks.items()}

    def to_json(self) -> dict:
        return {"version": TIMELINE_VERSION, **asdict(self)}

    @classmethod
    def from_json(cls, data: dict) -> "Timeline":
        beats = tuple(
            BeatTiming(b["name"], b["start_s"], b["speech_s"], b["pause_s"], dict(b["bookmarks"]),
                       tuple(Segment(**s) for s in b["segments"]))
            for b in data["beats"])
        return cls(data["scene"], data["title"], beats, data["total_s"], data["script_path"])


def default_lookup(key: str):
    from ffn_core.numbers import number

    return number(key).value


def clip_key(engine: Engine, text: str) -> str:
    blob = json.dumps({"engine": engine.name, "settings": engine.settings(), "text": text}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def synthesize_cached(engine: Engine, text: str) -> tuple[Path, float]:
    """The clip for `text`, synthesised once and reused while text, engine and settings hold."""
    path = cache_dir() / "clips" / f"{clip_key(engine, text)}.wav"
    if not path.exists():
        with atomic_path(path) as tmp:
            engine.synthesize(text, tmp)
    try:
        info = soundfile.info(str(path))
    except RuntimeError:  # unreadable leftover: synthesise again
        path.unlink(missing_ok=True)
        return synthesize_cached(engine, text)
    return path, info.frames / info.samplerate


def timeline_path(scene: str) -> Path:
    return cache_dir() / "timelines" / f"{scene}.json"


def build_timeline(scene: str, engine: Engine | None = None, lookup=default_lookup,
                   script: Script | None = None) -> Timeline:
    """Synthesise what is missing for `scene`, measure it, and write its timeline JSON."""
    engine = engine or default_engine()
    script = script or load_script(scene)
    clock = 0.0
    beats = []
    for beat in script.beats:
        start = clock
        segments, marks = [], {}
        for i, raw in enumerate(beat.segments):
            try:
                written, spoken = _resolve(raw, lookup)
            except (FieldError, KeyError, ValueError) as err:
                raise ScriptError(f"{script.path}:{beat.line}: beat '{beat.name}': {err}") from None
            if spoken.strip():
                clip, duration = synthesize_cached(engine, spoken)
            else:
                clip, duration = "", 0.0
            segments.append(Segment(written, spoken, clock, duration, str(clip)))
            clock += duration
            if i < len(beat.bookmarks):
                marks[beat.bookmarks[i]] = clock
        beats.append(BeatTiming(beat.name, start, clock - start, beat.pause_s, marks, tuple(segments)))
        clock += beat.pause_s
    timeline = Timeline(scene, script.title, tuple(beats), clock, str(script.path))
    write_json(timeline_path(scene), timeline.to_json())
    return timeline


def _resolve(segment: str, lookup) -> tuple[str, str]:
    def checked(key: str):
        try:
            return lookup(key)
        except (KeyError, ValueError) as err:
            raise FieldError(f"number key '{key}' is not known to ffn_core ({err})") from None

    spoken, written = render(segment, checked)
    return written, spoken


def load_timeline(scene: str) -> Timeline:
    """The timeline last built for `scene` (build it with `build_timeline`)."""
    return Timeline.from_json(json.loads(timeline_path(scene).read_text(encoding="utf-8")))


__all__ = ["Segment", "BeatTiming", "Timeline", "build_timeline", "load_timeline", "FIELD_RE"]
