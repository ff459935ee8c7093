"""Timelines: when each beat, segment and bookmark of a scene's narration happens.

The timeline is the only source of time for scenes. Times are measured, never estimated:

- with an engine that knows its word times (Kokoro, `AlignedEngine`), each sentence is
  spoken whole, in one pass, so it keeps its intonation, and a bookmark's time is the
  start of the first phoneme of the word after it, from the model's own predicted
  durations. The sentences' audio is then cut at the bookmarks into one clip per segment
  (the cuts put back together are the sentences, sample for sample);
- with any other engine (espeak-ng, Piper), or in a beat with a recorded segment (see
  `voiceover.recordings`), each stretch of text between two bookmarks is synthesised on
  its own (or taken from the recording), and a bookmark's time is the exact sum of the
  clip durations before it.

Clips are cached by what is said (after the speaker-only respellings of
`voiceover/lexicon.es.toml`), engine and settings: editing one sentence re-synthesises
that sentence only (or that segment, with a segment engine); switching voice
re-synthesises everything. A scene's sentences missing from the cache are handed to an
aligned engine together (`speak_sentences`), so Kokoro can speak them side by side; each
is still spoken alone and cached alone. The timeline records which engine, voice and
model spoke.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import soundfile

from voiceover.atomic import atomic_path, sha256_file, write_json
from voiceover.engines import CLIP_RATE_HZ, AlignedEngine, Engine, EngineFacts, default_engine, identity, is_aligned
from voiceover.engines.lexicon import load_lexicon
from voiceover.paths import cache_dir
from voiceover.recordings import Recording, find_recordings, recorded_clip
from voiceover.script import FIELD_RE, BeatScript, Script, ScriptError, load_script
from voiceover.spoken import FieldError, Lookup, render

if TYPE_CHECKING:  # for annotations only: ffn_core is imported when a number is first looked up
    from ffn_core.numbers import Value

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


def default_lookup(key: str) -> Value:
    from ffn_core.numbers import number

    return number(key).value


def clip_key(engine: Engine, text: str) -> str:
    blob = json.dumps({"engine": engine.name, "settings": engine.settings(), "text": text}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def speaker_text(engine: Engine, text: str) -> str:
    """What `engine` is asked to say for `text`: the lexicon's respellings applied, unless
    the engine opts out (`respell = False`)."""
    return load_lexicon().respell(text) if getattr(engine, "respell", True) else text


def synthesize_cached(engine: Engine, text: str) -> tuple[Path, float]:
    """The clip for `text`, synthesised once and reused while text, engine and settings hold."""
    path, duration, _ = _synthesize(engine, text)
    return path, duration


def _synthesize(engine: Engine, text: str) -> tuple[Path, float, bool]:
    """(clip, duration in s, whether it was synthesised now)."""
    path = cache_dir() / "clips" / f"{clip_key(engine, text)}.wav"
    seal = path.with_suffix(".seal.json")
    if path.exists() and not _clip_intact(path, seal):
        damaged_clip(path)
        path.unlink(missing_ok=True)
    for _ in range(2):
        fresh = not path.exists()
        if fresh:
            with atomic_path(path) as tmp:
                engine.synthesize(text, tmp)
            _seal_clip(path, seal)
        try:
            info = soundfile.info(str(path))
            return path, info.frames / info.samplerate, fresh
        except RuntimeError:  # unreadable leftover: synthesise once more
            path.unlink(missing_ok=True)
    raise RuntimeError(f"{path}: {engine.name} wrote an unreadable clip twice for {text[:60]!r} (is the disk full?)")


# -- damaged clips ---------------------------------------------------------------------------
# A clip is sealed when made (size and SHA-256 beside it); one that no longer matches (a
# crash, a full disk, a sync tool) is synthesised again and named in a notice the build
# reports (`take_damage_notices`).
_DAMAGED: list[str] = []


def damaged_clip(path: Path) -> None:
    _DAMAGED.append(f"dañado, se rehace: {path} (clip de narración)")


def take_damage_notices() -> list[str]:
    out = list(_DAMAGED)
    _DAMAGED.clear()
    return out


def _seal_clip(path: Path, seal: Path) -> None:
    st = path.stat()
    write_json(seal, {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256_file(path)})


def _clip_intact(path: Path, seal: Path) -> bool:
    try:
        data: dict[str, object] = json.loads(seal.read_text(encoding="utf-8"))  # as `_seal_clip` wrote it
    except (OSError, ValueError):
        return soundfile_readable(path)  # clips cached before seals existed: readable is enough
    try:
        st = path.stat()
        if st.st_size != data["size"]:
            return False
        if st.st_mtime_ns == data.get("mtime_ns"):
            return True  # untouched since sealed: no need to read it
        return sha256_file(path) == data["sha256"]
    except (OSError, KeyError, TypeError):
        return False


def soundfile_readable(path: Path) -> bool:
    try:
        soundfile.info(str(path))
        return True
    except RuntimeError:
        return False


@dataclass(frozen=True)
class SpokenSentence:
    """One sentence said in one pass: its clip and where each word starts in it."""

    clip: Path
    starts: tuple[int, ...]  # sample of each word's first phoneme, then the clip's length
    fresh: bool  # synthesised now (not found in the cache)

    @property
    def samples(self) -> int:
        return self.starts[-1]


def _sentence_paths(engine: Engine, units: Sequence[str]) -> tuple[Path, Path]:
    key = clip_key(engine, json.dumps(list(units), ensure_ascii=False))
    clip = cache_dir() / "clips" / f"{key}.wav"
    return clip, clip.with_suffix(".words.json")


def _cached_sentence(engine: Engine, units: Sequence[str]) -> SpokenSentence | None:
    """The sentence's clip and word starts if the cache holds them intact."""
    clip, words = _sentence_paths(engine, units)
    if clip.exists() and words.exists():
        try:
            starts = tuple(json.loads(words.read_text(encoding="utf-8"))["starts"])
            if len(starts) == len(units) + 1 and soundfile.info(str(clip)).frames == starts[-1]:
                return SpokenSentence(clip, starts, False)
        except (ValueError, KeyError, RuntimeError):
            pass
        damaged_clip(clip)
    return None


def speak_sentence(engine: AlignedEngine, units: Sequence[str]) -> SpokenSentence:
    """The cached clip and word starts of one sentence from an `AlignedEngine`; `units`
    are its words as the speaker says them. Cached by the words (so moving a bookmark
    inside a sentence re-synthesises nothing), engine and settings."""
    return speak_sentences(engine, [units])[tuple(units)]


def speak_sentences(engine: AlignedEngine, sentences: Sequence[Sequence[str]]) -> dict[tuple[str, ...], SpokenSentence]:
    """`speak_sentence` for several sentences, by their units: those missing from the
    cache are handed to the engine together when it can speak several at once
    (`synthesize_sentences`, e.g. Kokoro side by side on every core), else one by one.
    Each sentence is still its own call and its own cache entry."""
    wanted = list(dict.fromkeys(tuple(units) for units in sentences))
    said: dict[tuple[str, ...], SpokenSentence] = {}
    made: set[tuple[str, ...]] = set()
    for _ in range(2):
        for units in wanted:
            if units not in said and (found := _cached_sentence(engine, units)) is not None:
                said[units] = replace(found, fresh=units in made)
        missing = [units for units in wanted if units not in said]
        if not missing:
            return said
        paths = [_sentence_paths(engine, units) for units in missing]
        many = getattr(engine, "synthesize_sentences", None)
        with ExitStack() as stack:
            tmps = [stack.enter_context(atomic_path(clip)) for clip, _ in paths]
            all_starts: Sequence[Sequence[int]]
            if callable(many) and len(missing) > 1:
                all_starts = many([list(units) for units in missing], tmps)
            else:
                all_starts = [engine.synthesize_words(list(units), tmp) for units, tmp in zip(missing, tmps)]
        for units, (_, words), starts in zip(missing, paths, all_starts):
            write_json(words, {"units": list(units), "starts": [int(s) for s in starts]})
        made.update(missing)
    raise RuntimeError(f"{engine.name}: the clip of {' '.join(missing[0])[:60]!r} does not match its word times")


def timeline_path(scene: str) -> Path:
    return cache_dir() / "timelines" / f"{scene}.json"


@dataclass
class NarrationStats:
    """What one `build_timeline` call did, for the `narrate` command's report."""

    synthesized: int = 0  # clips made now
    cached: int = 0  # clips reused from the cache
    recorded: int = 0  # segments taken from the lecturer's recordings


def build_timeline(
    scene: str,
    engine: Engine | None = None,
    lookup: Callable[[str], Value] = default_lookup,
    script: Script | None = None,
    *,
    recordings: Path | None = None,
    stats: NarrationStats | None = None,
) -> Timeline:
    """Synthesise what is missing for `scene`, measure it, and write its timeline JSON.

    Segments recorded by the lecturer (under `recordings`, default `recordings_dir()`)
    replace synthesis; their trimmed real duration sets the timeline."""
    engine = engine or default_engine()
    script = script or load_script(scene)
    recorded = find_recordings(script, recordings)
    stats = stats if stats is not None else NarrationStats()
    aligned = engine if is_aligned(engine) else None  # the engine, when it knows its word times
    resolved_beats = []
    for beat in script.beats:
        resolved = []
        for raw in beat.segments:
            try:
                resolved.append(_resolve(raw, lookup))
            except (FieldError, KeyError, ValueError, TypeError) as err:
                field_ = next(
                    (m.group(0) for m in FIELD_RE.finditer(raw) if getattr(err, "field", None) in (None, m.group(1))),
                    "",
                )
                raise ScriptError(
                    f"{script.path}:{beat.line_of(field_) if field_ else beat.line}: beat '{beat.name}': {err}"
                ) from None
        whole = aligned is not None and not any((beat.name, i) in recorded for i in range(len(beat.segments)))
        resolved_beats.append((beat, resolved, whole))
    # The scene's sentences missing from the cache go to the engine all at once, so one
    # that can (Kokoro) speaks them side by side; each is still said alone, in one pass,
    # and cached on its own.
    said = (
        speak_sentences(
            aligned, [units for _, resolved, whole in resolved_beats if whole for units in _sentences(engine, resolved)]
        )
        if aligned is not None
        else {}  # no beat is spoken whole
    )
    clock = 0.0
    beats = []
    for beat, resolved, whole in resolved_beats:
        if whole and aligned is not None:
            segments, cuts = _aligned_beat(aligned, resolved, clock, stats, said)
        else:
            segments, cuts = _segment_beat(engine, beat, resolved, recorded, clock, stats)
        marks = dict(zip(beat.bookmarks, cuts))
        end = segments[-1].end_s if segments else clock
        beats.append(BeatTiming(beat.name, clock, end - clock, beat.pause_s, marks, tuple(segments), beat.sources))
        clock = end + beat.pause_s
    voice = identity(engine)
    if stats.recorded:
        voice["recorded"] = sum(1 for b in beats for s in b.segments if s.source and s.source != engine.name)
    timeline = Timeline(scene, script.title, tuple(beats), clock, str(script.path), voice)
    write_json(timeline_path(scene), timeline.to_json())
    return timeline


def _segment_beat(
    engine: Engine,
    beat: BeatScript,
    resolved: Sequence[tuple[str, str]],
    recorded: Mapping[tuple[str, int], Recording],
    clock: float,
    stats: NarrationStats,
) -> tuple[list[Segment], list[float]]:
    """A beat spoken segment by segment (or recorded): (segments, bookmark times)."""
    segments: list[Segment] = []
    cuts: list[float] = []
    for i, (written, spoken) in enumerate(resolved):
        source = engine.name
        clip: Path | str  # "" for a segment with nothing to say
        if (beat.name, i) in recorded:
            path = recorded[(beat.name, i)].path
            clip, duration = recorded_clip(path)
            source = str(path)
            stats.recorded += 1
        elif spoken.strip():
            clip, duration, fresh = _synthesize(engine, speaker_text(engine, spoken))
            if fresh:
                stats.synthesized += 1
            else:
                stats.cached += 1
        else:
            clip, duration, source = "", 0.0, ""
        segments.append(Segment(written, spoken, clock, duration, str(clip), source))
        clock += duration
        if i < len(beat.bookmarks):
            cuts.append(clock)
    return segments, cuts


_SENTENCE_END_RE = re.compile(r"[.!?…][»\"')\]]*$")


def _beat_words(resolved: Sequence[tuple[str, str]]) -> tuple[list[str], list[int], list[tuple[int, int]]]:
    """A beat's spoken words, the word index of each bookmark (it sits before that word),
    and each sentence's [first, last) word range."""
    words: list[str] = []
    bounds: list[int] = []  # word index where each bookmark sits (before that word)
    for i, (_, spoken) in enumerate(resolved):
        words += spoken.split()
        if i < len(resolved) - 1:
            bounds.append(len(words))
    sentences: list[tuple[int, int]] = []
    start = 0
    for k, word in enumerate(words):
        if _SENTENCE_END_RE.search(word) or k == len(words) - 1:
            sentences.append((start, k + 1))
            start = k + 1
    return words, bounds, sentences


def _sentences(engine: Engine, resolved: Sequence[tuple[str, str]]) -> list[list[str]]:
    """The units of each of a beat's sentences, as the speaker says them."""
    words, _, sentences = _beat_words(resolved)
    return [[speaker_text(engine, w) for w in words[first:last]] for first, last in sentences]


def _aligned_beat(
    engine: AlignedEngine,
    resolved: Sequence[tuple[str, str]],
    clock: float,
    stats: NarrationStats,
    said: dict[tuple[str, ...], SpokenSentence] | None = None,
) -> tuple[list[Segment], list[float]]:
    """A beat spoken sentence by sentence, each in one pass; the bookmarks fall on the
    first phoneme of the word after them and cut the audio into one clip per segment.
    `said`: sentences already spoken (`speak_sentences`), each used once as fresh.
    Returns (segments, bookmark times)."""
    said = {} if said is None else said
    words, bounds, _ = _beat_words(resolved)
    word_start: list[int] = []  # sample of each word in the beat's audio
    pieces: list[tuple[SpokenSentence, int]] = []  # each sentence and its offset in the beat
    offset = 0
    for units in _sentences(engine, resolved):
        sentence = said.pop(tuple(units), None) or speak_sentence(engine, units)
        if sentence.fresh:
            stats.synthesized += 1
        else:
            stats.cached += 1
        pieces.append((sentence, offset))
        word_start += [offset + s for s in sentence.starts[:-1]]
        offset += sentence.samples
    total = offset
    cuts = [0] + [word_start[b] if b < len(words) else total for b in bounds] + [total]
    for a in range(len(cuts) - 2, -1, -1):  # never backwards (a word with no sound)
        cuts[a] = min(cuts[a], cuts[a + 1])
    segments: list[Segment] = []
    for i, (written, spoken) in enumerate(resolved):
        lo, hi = cuts[i], cuts[i + 1]
        clip = _cut_clip(pieces, lo, hi) if hi > lo else ""
        segments.append(
            Segment(
                written,
                spoken,
                clock + lo / CLIP_RATE_HZ,
                (hi - lo) / CLIP_RATE_HZ,
                str(clip),
                engine.name if clip else "",
            )
        )
    return segments, [clock + c / CLIP_RATE_HZ for c in cuts[1:-1]]


def _cut_clip(pieces: Sequence[tuple[SpokenSentence, int]], lo: int, hi: int) -> Path:
    """Samples [lo, hi) of the beat's sentences laid end to end, as one cached clip."""
    parts = [(spoken, offset) for spoken, offset in pieces if offset < hi and offset + spoken.samples > lo]
    if len(parts) == 1 and lo == parts[0][1] and hi == parts[0][1] + parts[0][0].samples:
        return parts[0][0].clip  # a whole sentence: its own clip
    name = hashlib.sha256(json.dumps([[p.clip.name, o] for p, o in parts] + [lo, hi]).encode()).hexdigest()[:24]
    path = cache_dir() / "clips" / f"cut-{name}.wav"
    try:
        intact = soundfile.info(str(path)).frames == hi - lo
    except RuntimeError:  # missing or unreadable: cut again
        intact = False
    if not intact:
        chunks: list[npt.NDArray[np.int16]] = []
        for spoken, offset in parts:
            data, _ = soundfile.read(str(spoken.clip), dtype="int16")
            chunks.append(data[max(lo - offset, 0) : min(hi - offset, spoken.samples)])
        with atomic_path(path) as tmp:
            soundfile.write(str(tmp), np.concatenate(chunks), CLIP_RATE_HZ, subtype="PCM_16", format="WAV")
    return path


def _resolve(segment: str, lookup: Callable[[str], Value]) -> tuple[str, str]:
    """(written, spoken) text of one segment; a field that fails raises FieldError
    carrying the field (`err.field`) so the message can point at its line."""
    values: dict[str, Value] = {}
    # `render` takes numbers; a tuple or text value fails in it (TypeError, ValueError), reported below with its field.
    value_of: Lookup = values.__getitem__
    for m in FIELD_RE.finditer(segment):
        key = m.group(1).partition(":")[0]
        if key not in values:
            try:
                values[key] = lookup(key)
            except (KeyError, ValueError) as err:
                raise _field_error(f"number key '{key}' is not known to ffn_core ({err})", m.group(1)) from None
        try:
            render(m.group(0), value_of)
        except (FieldError, ValueError, TypeError) as err:
            raise _field_error(f"field {m.group(0)}: {err}", m.group(1)) from None
    spoken, written = render(segment, value_of)
    return written, spoken


def _field_error(message: str, field: str) -> FieldError:
    err = FieldError(message)
    err.field = field
    return err


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
    """The timeline last built for `scene` (build it with `build_timeline`)."""
    return Timeline.from_json(json.loads(timeline_path(scene).read_text(encoding="utf-8")))


__all__ = [
    "Segment",
    "BeatTiming",
    "Timeline",
    "NarrationStats",
    "build_timeline",
    "load_timeline",
    "timeline_path",
    "require_bookmarks",
    "speak_sentence",
    "speak_sentences",
    "speaker_text",
    "FIELD_RE",
]
