"""Timing: a scene's narration spoken (or taken from recordings) and measured into its timeline.

Times are measured, never estimated:

- with an engine that knows its word times (Kokoro, `AlignedEngine`), each sentence is
  spoken whole, in one pass, so it keeps its intonation, and a bookmark's time is the
  start of the first phoneme of the word after it, from the model's own predicted
  durations. The sentences' audio is then cut at the bookmarks into one clip per segment
  (the cuts put back together are the sentences, sample for sample);
- with any other engine (espeak-ng, Piper), or in a beat with a recorded segment (see
  `voiceover.recordings`), each stretch of text between two bookmarks is synthesised on
  its own (or taken from the recording), and a bookmark's time is the exact sum of the
  clip durations before it;
- from a lecturer's one-take recording of the scene or of the lecture (`voiceover.takes`):
  the synthesis is the reference, and every bookmark and word is found in the take by
  dynamic time warping (`voiceover.alignment`); the take's own pauses become the beats'.

A scene's sentences missing from the cache (`voiceover.clips`) are handed to an aligned
engine together (`speak_sentences`), so Kokoro can speak them side by side; each is still
spoken alone and cached alone. The numbers a script's fields name are looked up in
`ffn_core` (`default_lookup`) and said in words (`voiceover.spoken`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from voiceover.atomic import write_json
from voiceover.clips import SpokenSentence, cut_clip, speak_sentence, speak_sentences, synthesize
from voiceover.engines import CLIP_RATE_HZ, AlignedEngine, Engine, default_engine, identity, is_aligned
from voiceover.engines.lexicon import load_lexicon
from voiceover.recordings import Recording, find_recordings, recorded_clip
from voiceover.script import FIELD_RE, BeatScript, Script, ScriptError, load_script
from voiceover.spoken import FieldError, Lookup, render
from voiceover.timeline import BeatTiming, Segment, Timeline, timeline_path

if TYPE_CHECKING:  # for annotations only: ffn_core is imported when a number is first looked up
    from ffn_core.registry import Value


@dataclass
class NarrationStats:
    """What one `build_timeline` call did, for the `narrate` command's report."""

    synthesized: int = 0  # clips made now
    cached: int = 0  # clips reused from the cache
    recorded: int = 0  # segments taken from the lecturer's recordings
    take: str = ""  # the one-take recording the scene was aligned with, if any


def default_lookup(key: str) -> Value:
    from ffn_core.registry import number

    return number(key).value


def speaker_text(engine: Engine, text: str) -> str:
    """What `engine` is asked to say for `text`: the lexicon's respellings applied, unless
    the engine opts out (`respell = False`)."""
    return load_lexicon().respell(text) if getattr(engine, "respell", True) else text


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
    replace synthesis; their trimmed real duration sets the timeline. A one-take recording
    of the scene (or of the lecture) re-times every other beat (`voiceover.takes`)."""
    from voiceover.takes import find_take, timeline_from_take  # the alignment only where takes are looked for

    engine = engine or default_engine()
    script = script or load_script(scene)
    stats = stats if stats is not None else NarrationStats()
    take = find_take(script, recordings)
    if take is None:
        timeline = measure_timeline(scene, engine, lookup, script, recordings=recordings, stats=stats)
    else:
        timeline = timeline_from_take(
            take,
            script,
            lambda other, words, with_files, counts: measure_timeline(
                other.scene,
                engine,
                lookup,
                other,
                recordings=recordings,
                stats=counts,
                words=words,
                use_recordings=with_files,
            ),
            stats,
            recordings,
        )
    write_json(timeline_path(scene), timeline.to_json())
    return timeline


def measure_timeline(
    scene: str,
    engine: Engine,
    lookup: Callable[[str], Value],
    script: Script,
    *,
    recordings: Path | None = None,
    stats: NarrationStats,
    words: dict[str, list[float]] | None = None,
    use_recordings: bool = True,
) -> Timeline:
    """`scene`'s timeline from synthesis and, with `use_recordings`, the beat or stretch
    recordings under `recordings` (not written). `words`, if given, receives each beat's
    spoken word starts (seconds in the scene)."""
    recorded = find_recordings(script, recordings) if use_recordings else {}
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
        starts: list[float] = []
        if whole and aligned is not None:
            segments, cuts = _aligned_beat(aligned, resolved, clock, stats, said, starts)
        else:
            segments, cuts = _segment_beat(engine, beat, resolved, recorded, clock, stats)
            starts = _interpolated_starts(segments)
        if words is not None:
            words[beat.name] = starts
        marks = dict(zip(beat.bookmarks, cuts))
        end = segments[-1].end_s if segments else clock
        beats.append(BeatTiming(beat.name, clock, end - clock, beat.pause_s, marks, tuple(segments), beat.sources))
        clock = end + beat.pause_s
    voice = identity(engine)
    if stats.recorded:
        voice["recorded"] = sum(1 for b in beats for s in b.segments if s.source and s.source != engine.name)
    return Timeline(scene, script.title, tuple(beats), clock, str(script.path), voice)


def _interpolated_starts(segments: Sequence[Segment]) -> list[float]:
    """Each spoken word's start where the engine gives none: its characters' share of its segment."""
    starts: list[float] = []
    for seg in segments:
        tokens = seg.spoken.split()
        total = sum(len(t) + 1 for t in tokens)
        chars = 0
        for token in tokens:
            starts.append(seg.start_s + seg.duration_s * chars / max(total, 1))
            chars += len(token) + 1
    return starts


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
            clip, duration, fresh = synthesize(engine, speaker_text(engine, spoken))
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
    starts: list[float] | None = None,
) -> tuple[list[Segment], list[float]]:
    """A beat spoken sentence by sentence, each in one pass; the bookmarks fall on the
    first phoneme of the word after them and cut the audio into one clip per segment.
    `said`: sentences already spoken (`speak_sentences`), each used once as fresh;
    `starts`, if given, receives each spoken word's start (seconds in the scene).
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
    if starts is not None:
        starts += [clock + w / CLIP_RATE_HZ for w in word_start]
    cuts = [0] + [word_start[b] if b < len(words) else total for b in bounds] + [total]
    for a in range(len(cuts) - 2, -1, -1):  # never backwards (a word with no sound)
        cuts[a] = min(cuts[a], cuts[a + 1])
    segments: list[Segment] = []
    for i, (written, spoken) in enumerate(resolved):
        lo, hi = cuts[i], cuts[i + 1]
        clip = cut_clip(pieces, lo, hi) if hi > lo else ""
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
