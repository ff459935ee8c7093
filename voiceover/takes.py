"""One-take recordings: the lecturer reads a scene, or the whole lecture, straight through.

    voiceover/recordings/<escena>.<ext>   the scene read in one take
    voiceover/recordings/lecture.<ext>    the whole lecture, scene after scene, in plan order

(`<ext>`: wav, mp3, flac, ogg, m4a; any rate and channels; `FFN_RECORDINGS_DIR` moves the
folder.) The scene's synthesis is the reference (`voiceover.timing.measure_timeline`, words
and bookmarks exact), and `voiceover.alignment` warps the take onto it: every bookmark and
word start is found in the take. Each beat runs from its first word to its last in the take,
its pause is the take's own pause before the next beat, and its segments are clips cut from
the take at its bookmarks (10 ms fades where a beat starts and ends, silence in the pauses).
Beat and stretch files (`voiceover.recordings`) still win for the beats they cover.

In a lecture take, each scene is found where its first sentences are said, searched from
where the previous scene ended; the whole lecture is aligned once and kept in the cache.

A take that leaves the script (a sentence skipped, speech added, a long restart) is refused
with the beat, the sentence and the time in the recording (`TakeError`); nothing is written,
so what was built stays as it was. The alignment is cached by the take's content and the
reference (`<cache>/voiceover/takes/`), and its bookmark times, confidences and word times
travel in the timeline (`voice["take"]`) for `ffn-video narrate --report`, the storyboard and
the subtitles.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import soundfile

from voiceover import alignment as al
from voiceover import seals
from voiceover.atomic import atomic_path, write_json
from voiceover.clips import DAMAGED_WHAT, seal_clip, sealed_clip
from voiceover.decode import decode_span, stream
from voiceover.engines import CLIP_RATE_HZ
from voiceover.paths import cache_dir, clips_dir
from voiceover.recordings import AUDIO_EXTENSIONS, find_recordings, recordings_dir
from voiceover.script import Script, ScriptError
from voiceover.timeline import BeatTiming, Segment, Timeline

if TYPE_CHECKING:
    from voiceover.timing import NarrationStats

LECTURE_NAME = "lecture"
RULES = 1  # bump when a take's timeline is made differently (part of the cache key)
FADE_S = 0.01  # where a beat's audio starts and ends
MAX_LEAD_S = 0.3  # silence kept before a beat's first word (at most the reference's own)
MAX_TAIL_S = 0.15  # and after its last
HEAD_S = 8.0  # a lecture take's scene is found by its first seconds of speech...
SEARCH_S = 240.0  # ...within this much of where the previous scene ended
SEARCH_STEP = 4  # frames averaged for that search (40 ms)
_SENTENCE_END_RE = re.compile(r"[.!?…][»\"')\]]*$")

# measure(script, words out or None, with beat and stretch files, stats) -> timeline (not written)
Measure = Callable[[Script, "dict[str, list[float]] | None", bool, "NarrationStats"], Timeline]


class TakeError(ScriptError):
    """A one-take recording that cannot be aligned with its script; says where and why."""


@dataclass(frozen=True)
class Take:
    path: Path
    sha256: str
    whole_lecture: bool  # `lecture.<ext>`: every scene of the plan, in order


def find_take(script: Script, root: Path | None = None) -> Take | None:
    """The one-take recording of `script`'s scene, else of the lecture, if there is one."""
    folder = root if root is not None else recordings_dir()
    for name in (script.scene, LECTURE_NAME):
        found = [folder / f"{name}{ext}" for ext in AUDIO_EXTENSIONS if (folder / f"{name}{ext}").is_file()]
        if len(found) > 1:
            raise TakeError(f"{folder}: hay más de una toma de «{name}» ({', '.join(p.name for p in found)}); deja una")
        if found:
            return Take(found[0], _digest(found[0]), name == LECTURE_NAME)
    return None


_DIGESTS: dict[tuple[str, int, int], str] = {}


def _digest(path: Path) -> str:
    """The file's SHA-256, hashed once per process while its size and time hold."""
    info = path.stat()
    key = (str(path.resolve()), info.st_size, info.st_mtime_ns)
    if key not in _DIGESTS:
        digest = hashlib.sha256()
        with path.open("rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
        _DIGESTS[key] = digest.hexdigest()
    return _DIGESTS[key]


# --- the reference -------------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """A scene's synthesis: its timeline, each beat's spoken words and their starts."""

    timeline: Timeline
    words: dict[str, list[str]]
    starts: dict[str, list[float]]

    def key(self) -> str:
        blob = json.dumps([self.timeline.to_json(), self.starts], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()

    def samples_16k(self) -> al.Floats:
        from scipy.signal import resample_poly

        from voiceover.track import scene_samples

        factor = CLIP_RATE_HZ // al.FEATURE_RATE_HZ
        samples: al.Floats = resample_poly(scene_samples(self.timeline), 1, factor).astype(np.float32)
        return samples

    def sentences(self) -> list[tuple[str, int, float, float, str]]:
        """Every sentence: (beat, index in the beat, start, end of its sound, its words)."""
        out = []
        for beat in self.timeline.beats:
            words, starts = self.words[beat.name], self.starts[beat.name]
            speech_end = beat.start_s + beat.speech_s
            first = 0
            count = 0
            for k, word in enumerate(words):
                if _SENTENCE_END_RE.search(word) or k == len(words) - 1:
                    end = starts[k + 1] if k + 1 < len(words) else speech_end
                    out.append((beat.name, count, starts[first], end, " ".join(words[first : k + 1])))
                    first, count = k + 1, count + 1
        return out


def reference_of(script: Script, measure: Measure, stats: NarrationStats) -> Reference:
    starts: dict[str, list[float]] = {}
    timeline = measure(script, starts, False, stats)
    words = {b.name: [w for s in b.segments for w in s.spoken.split()] for b in timeline.beats}
    return Reference(timeline, words, starts)


# --- aligning -------------------------------------------------------------------------------


def aligned_scene(
    take: Take, reference: Reference, take_features: al.Features, offset_s: float, start_s: float | None = None
) -> dict[str, Any]:
    """Where each beat, bookmark and word of `reference` falls in the take (seconds in the
    file), with each bookmark's confidence; or the departures from the script.
    `take_features` start `offset_s` into the file; `start_s` (in the file) is where the
    scene's reference starts, if known."""
    ref = al.features(reference.samples_16k())
    warp = al.align(ref, take_features, None if start_s is None else start_s - offset_s)
    sentences = reference.sentences()
    spans = [(a, _sound_end(warp.ref_voicing, a, b)) for _, _, a, b, _ in sentences]
    departures = al.off_script(warp, spans)
    if departures:
        d = departures[0]
        beat_name, index, _, _, text = sentences[d.sentence]
        return {
            "departure": {
                "kind": d.kind,
                "beat": beat_name,
                "sentence": index,
                "text": text,
                "take_start_s": offset_s + d.take_start_s,
                "take_end_s": offset_s + d.take_end_s,
            }
        }
    beats = []
    previous_end = 0.0
    timeline = reference.timeline
    for i, beat in enumerate(timeline.beats):
        starts = reference.starts[beat.name]
        speech_end = beat.start_s + beat.speech_s
        if not starts:
            continue
        words = _monotonic([warp.word_start(t) for t in starts])
        lead = min(starts[0] - beat.start_s, MAX_LEAD_S)
        begin = max(words[0] - lead, previous_end)
        sound = _sound_end(warp.ref_voicing, starts[0], speech_end)
        end = _take_sound_end(warp, warp.span(sound - al.FRAME_S, sound)[1])
        end = max(end + min(speech_end - sound, MAX_TAIL_S), words[-1] + al.FRAME_S)
        if i + 1 < len(timeline.beats) and reference.starts[timeline.beats[i + 1].name]:
            nxt = timeline.beats[i + 1]
            nxt_words = reference.starts[nxt.name]
            nxt_begin = warp.word_start(nxt_words[0]) - min(nxt_words[0] - nxt.start_s, MAX_LEAD_S)
            end = min(end, max(nxt_begin, words[-1] + al.FRAME_S))
        marks = {
            name: [min(max(warp.word_start(t), begin), end), warp.confidence(t)] for name, t in beat.bookmarks.items()
        }
        beats.append(
            {
                "name": beat.name,
                "start_s": offset_s + begin,
                "end_s": offset_s + end,
                "bookmarks": {k: [offset_s + t, c] for k, (t, c) in marks.items()},
                "words": [offset_s + min(max(t, begin), end) for t in words],
            }
        )
        previous_end = end
    return {"beats": beats, "typical_cost": warp.typical_cost}


def _monotonic(times: list[float]) -> list[float]:
    for k in range(1, len(times)):
        times[k] = max(times[k], times[k - 1])
    return times


def _sound_end(voicing: al.Voicing, start_s: float, end_s: float) -> float:
    """The end of the last sound in [start_s, end_s] (end_s if none is found)."""
    lo, hi = int(start_s / al.FINE_S), min(int(end_s / al.FINE_S), len(voicing.loud))
    loud = np.flatnonzero(voicing.loud[lo:hi])
    return (lo + int(loud[-1]) + 1) * al.FINE_S if len(loud) else end_s


def _take_sound_end(warp: al.Warp, near_s: float) -> float:
    """Where the take's sound stops near `near_s`: the end of the sounding run there."""
    loud = warp.take_voicing.loud
    k = min(max(int(near_s / al.FINE_S), 0), len(loud) - 1)
    reach = int(al.ONSET_SEARCH_S / al.FINE_S)
    if not loud[k]:  # already quiet: back to the last sound, if it is near
        back = np.flatnonzero(loud[max(k - reach, 0) : k])
        return (max(k - reach, 0) + int(back[-1]) + 1) * al.FINE_S if len(back) else near_s
    ahead = np.flatnonzero(~loud[k : k + reach])
    return (k + int(ahead[0])) * al.FINE_S if len(ahead) else near_s


def take_features(take: Take, start_s: float = 0.0, duration_s: float | None = None) -> al.Features:
    """The take's features, decoded at the analysis rate block by block."""
    if start_s <= 0 and duration_s is None:
        return al.features(stream(take.path, al.FEATURE_RATE_HZ, al.FEATURE_RATE_HZ * 10, TakeError))
    return al.features(decode_span(take.path, start_s, duration_s, al.FEATURE_RATE_HZ, TakeError))


def _cached(key: str, make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    path = cache_dir() / "takes" / f"{key}.json"
    try:
        cached: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))  # as written below
        return cached
    except (OSError, ValueError):
        pass
    made = make()
    write_json(path, made)
    return made


def _key(*parts: object) -> str:
    blob = json.dumps([RULES, al.RULES, *parts], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def scene_alignment(take: Take, reference: Reference) -> dict[str, Any]:
    """`aligned_scene` for a scene's own take, cached."""
    return _cached(
        _key("scene", take.sha256, reference.key()),
        lambda: aligned_scene(take, reference, take_features(take), 0.0),
    )


def lecture_alignment(take: Take, references: list[Reference]) -> dict[str, Any]:
    """Every planned scene found and aligned in a lecture take, cached: {"scenes": {name: ...}}."""
    return _cached(
        _key("lecture", take.sha256, [r.key() for r in references]),
        lambda: _align_lecture(take, references),
    )


def _align_lecture(take: Take, references: list[Reference]) -> dict[str, Any]:
    whole = take_features(take)
    scenes: dict[str, Any] = {}
    position = 0.0
    for reference in references:
        name = reference.timeline.scene
        ref = al.features(reference.samples_16k())
        start = _locate(ref, whole, position)
        if start is None:
            scenes[name] = {"missing_after_s": position}
            break
        lead = _first_sound(ref)
        begin = max(start - lead - 1.0, 0.0)
        length = reference.timeline.total_s * al.MAX_STRETCH + 30.0
        lo, hi = int(begin / al.FRAME_S), int((begin + length) / al.FRAME_S)
        part = al.Features(whole.mfcc[lo:hi], whole.fine_db[int(begin / al.FINE_S) : int((begin + length) / al.FINE_S)])
        result = aligned_scene(take, reference, part, lo * al.FRAME_S, start - lead)
        scenes[name] = result
        if "departure" in result:
            break
        position = max(b["end_s"] for b in result["beats"])
    return {"scenes": scenes}


def _first_sound(features: al.Features) -> float:
    loud = np.flatnonzero(al.Voicing.of(features.fine_db).loud)
    return float(loud[0]) * al.FINE_S if len(loud) else 0.0


def _locate(ref: al.Features, take: al.Features, from_s: float) -> float | None:
    """Where in `take` (after `from_s`) the reference's first HEAD_S of speech are said."""
    from librosa.sequence import dtw

    lead = int(_first_sound(ref) / al.FRAME_S)
    head = _pooled(ref.mfcc[lead : lead + int(HEAD_S / al.FRAME_S)])
    lo = int(from_s / al.FRAME_S)
    window = _pooled(take.mfcc[lo : lo + int(SEARCH_S / al.FRAME_S)])
    if len(head) == 0 or len(window) < len(head) // 2:
        return None
    total, path = dtw(C=al.cosine_distances(head, window), subseq=True)
    return (lo + int(path[-1][1]) * SEARCH_STEP) * al.FRAME_S


def _pooled(mfcc: al.Floats) -> al.Floats:
    n = len(mfcc) // SEARCH_STEP
    pooled: al.Floats = mfcc[: n * SEARCH_STEP].reshape(n, SEARCH_STEP, -1).mean(axis=1)
    return pooled


# --- the timeline ---------------------------------------------------------------------------


def timeline_from_take(
    take: Take, script: Script, measure: Measure, stats: NarrationStats, recordings: Path | None = None
) -> Timeline:
    """`script`'s timeline re-timed from the take (see the module docstring)."""
    from voiceover.narrate import plan_scripts
    from voiceover.script import load_script
    from voiceover.timing import NarrationStats

    reference = reference_of(script, measure, stats)
    if take.whole_lecture:
        references = []
        for entry in plan_scripts():
            other = script if entry.script == script.scene else load_script(entry.script, entry.script_path)
            references.append(reference if other is script else reference_of(other, measure, NarrationStats()))
        if script.scene not in [r.timeline.scene for r in references]:
            raise TakeError(
                f"{take.path}: la escena «{script.scene}» no está en el plan, así que no se busca en la toma"
            )
        found = lecture_alignment(take, references)["scenes"]
        result = found.get(script.scene)
        if result is None:
            earlier = next((k for k, v in found.items() if "departure" in v or "missing_after_s" in v), None)
            raise TakeError(
                f"{take.path}: la escena «{script.scene}» no se alinea porque la toma se aparta antes del guion "
                f"(en la escena «{earlier}»: {_explain(found[earlier], take, earlier) if earlier else '?'})"
            )
        if "missing_after_s" in result:
            raise TakeError(
                f"{take.path}: la toma no dice el principio de la escena «{script.scene}» después de "
                f"{_clock(result['missing_after_s'])}; ¿falta en la grabación o está fuera de orden?"
            )
    else:
        result = scene_alignment(take, reference)
    if "departure" in result:
        raise TakeError(_explain(result, take, script.scene, script))
    stats.take = str(take.path)
    files = find_recordings(script, recordings)
    with_files = measure(script, None, True, NarrationStats()) if files else None
    return _retimed(take, script, reference, result, with_files, stats)


def _explain(result: dict[str, Any], take: Take, scene: str | None, script: Script | None = None) -> str:
    d = result["departure"]
    where = f" ({script.path}:{script.beat(d['beat']).line})" if script is not None else ""
    text = d["text"] if len(d["text"]) <= 70 else d["text"][:67] + "..."
    if d["kind"] == "falta":
        what = (
            f"la grabación no sigue el guion desde la frase {d['sentence'] + 1} del beat «{d['beat']}» de la "
            f"escena «{scene}», «{text}»: falta esa frase o se dice otra cosa entre {_clock(d['take_start_s'])} "
            f"y {_clock(d['take_end_s'])} de la grabación"
        )
    else:
        what = (
            f"la grabación no sigue el guion de {_clock(d['take_start_s'])} a {_clock(d['take_end_s'])}, en el "
            f"beat «{d['beat']}» de la escena «{scene}», en la frase {d['sentence'] + 1} o justo antes, «{text}»: "
            f"dura mucho más de lo que su texto pide (una frase añadida, un reinicio largo o una frase cambiada "
            f"por otra)"
        )
    return (
        f"{take.path}: {what}{where}. No se adivina: graba de nuevo ese trozo (o corrige el guion) y vuelve a "
        f"construir; lo ya construido no se ha tocado."
    )


def _clock(seconds: float) -> str:
    """m:ss,d as a lecturer reads a player's clock."""
    tenths = int(round(max(seconds, 0.0) * 10))
    return f"{tenths // 600}:{tenths // 10 % 60:02d},{tenths % 10}"


def _retimed(
    take: Take,
    script: Script,
    reference: Reference,
    result: dict[str, Any],
    with_files: Timeline | None,
    stats: NarrationStats,
) -> Timeline:
    aligned = {b["name"]: b for b in result["beats"]}
    ref = reference.timeline
    first = min(b["start_s"] for b in result["beats"])
    last = max(b["end_s"] for b in result["beats"])
    audio = decode_span(take.path, first, last - first + 0.05, CLIP_RATE_HZ, TakeError)
    origin = int(round(first * CLIP_RATE_HZ))
    clock = 0  # samples
    beats: list[BeatTiming] = []
    facts: dict[str, Any] = {"path": str(take.path), "sha256": take.sha256, "bookmarks": {}, "words": {}}
    recorded = 0
    for i, beat in enumerate(ref.beats):
        filed = with_files.beats[i] if with_files is not None else None
        from_files = filed is not None and any(s.source and s.source != filed_source(ref) for s in filed.segments)
        here = aligned.get(beat.name)
        nxt = next((aligned[b.name] for b in ref.beats[i + 1 :] if b.name in aligned), None)
        if here is not None:
            lo = int(round(here["start_s"] * CLIP_RATE_HZ))
            hi = max(int(round(here["end_s"] * CLIP_RATE_HZ)), lo)
            pause = (nxt["start_s"] - here["end_s"]) if nxt is not None else beat.pause_s
        else:  # a beat with nothing to say
            lo = hi = int(round((beat.start_s) * CLIP_RATE_HZ)) + origin
            pause = beat.pause_s
        start_s = clock / CLIP_RATE_HZ
        if from_files and filed is not None:
            shift = start_s - filed.start_s
            segments = tuple(
                Segment(s.text, s.spoken, s.start_s + shift, s.duration_s, s.clip, s.source) for s in filed.segments
            )
            marks = {k: v + shift for k, v in filed.bookmarks.items()}
            speech = int(round(filed.speech_s * CLIP_RATE_HZ))
            recorded += sum(1 for s in filed.segments if s.clip and s.source != filed_source(ref))
        else:
            times = [here["bookmarks"][k][0] for k in beat.bookmarks] if here is not None else []
            cuts = [lo] + [min(max(int(round(t * CLIP_RATE_HZ)), lo), hi) for t in times] + [hi]
            cuts = _monotonic_ints(cuts)
            segments = tuple(
                _segment(
                    take,
                    seg,
                    audio,
                    cuts[k] - origin,
                    cuts[k + 1] - origin,
                    clock + cuts[k] - lo,
                    cuts[k] == lo,
                    cuts[k + 1] == hi,
                )
                for k, seg in enumerate(beat.segments)
            )
            marks = {k: (clock + c - lo) / CLIP_RATE_HZ for k, c in zip(beat.bookmarks, cuts[1:-1])}
            speech = hi - lo
            recorded += sum(1 for s in segments if s.clip)
            if here is not None:
                facts["words"][beat.name] = [
                    round((clock + t * CLIP_RATE_HZ - lo) / CLIP_RATE_HZ, 4) for t in here["words"]
                ]
                for k in beat.bookmarks:
                    t, confidence = here["bookmarks"][k]
                    facts["bookmarks"][k] = {"beat": beat.name, "take_s": round(t, 4), "confidence": confidence}
        pause_s = max(round(pause, 4), 0.0)
        beats.append(BeatTiming(beat.name, start_s, speech / CLIP_RATE_HZ, pause_s, marks, segments, beat.sources))
        clock += speech + int(round(pause_s * CLIP_RATE_HZ))
    voice = dict(ref.voice)
    voice["recorded"] = recorded
    voice["take"] = facts
    stats.recorded += recorded
    return Timeline(ref.scene, ref.title, tuple(beats), clock / CLIP_RATE_HZ, ref.script_path, voice)


def filed_source(reference: Timeline) -> str:
    """The engine's name as the reference's segments carry it."""
    return next((s.source for b in reference.beats for s in b.segments if s.source), "")


def _monotonic_ints(values: list[int]) -> list[int]:
    for k in range(1, len(values)):
        values[k] = max(values[k], values[k - 1])
    return values


def _segment(
    take: Take, seg: Segment, audio: np.ndarray, lo: int, hi: int, at: int, first: bool, last: bool
) -> Segment:
    """One segment of a beat cut from the take (samples [lo, hi) of `audio`), placed at `at`."""
    if hi <= lo or not seg.spoken.strip():
        return Segment(seg.text, seg.spoken, at / CLIP_RATE_HZ, (hi - lo) / CLIP_RATE_HZ if hi > lo else 0.0, "", "")
    clip = _cut(take, audio, lo, hi, fade_in=first, fade_out=last)
    return Segment(seg.text, seg.spoken, at / CLIP_RATE_HZ, (hi - lo) / CLIP_RATE_HZ, str(clip), str(take.path))


def _cut(take: Take, audio: np.ndarray, lo: int, hi: int, *, fade_in: bool, fade_out: bool) -> Path:
    name = hashlib.sha256(f"{take.sha256}|{lo}|{hi}|{fade_in}|{fade_out}|{FADE_S}".encode()).hexdigest()[:24]
    path = clips_dir() / f"take-{name}.wav"
    try:
        if soundfile.info(str(path)).frames == hi - lo and seals.intact(path, sealed_clip(path)):
            return path
    except RuntimeError:  # missing or unreadable: cut again
        pass
    if path.exists():
        seals.damaged(path, f"{DAMAGED_WHAT} (corte de la grabación)")
    part = np.zeros(hi - lo, dtype=np.float64)
    got = audio[max(lo, 0) : hi].astype(np.float64)
    part[max(-lo, 0) : max(-lo, 0) + len(got)] = got
    fade = min(int(FADE_S * CLIP_RATE_HZ), len(part))
    ramp = np.linspace(0.0, 1.0, fade, endpoint=False)
    if fade_in:
        part[:fade] *= ramp
    if fade_out:
        part[len(part) - fade :] *= ramp[::-1]
    pcm = np.clip(np.round(part * 32767.0), -32768, 32767).astype(np.int16)
    with atomic_path(path) as tmp:
        soundfile.write(str(tmp), pcm, CLIP_RATE_HZ, subtype="PCM_16", format="WAV")
    seal_clip(path)
    return path


def bookmark_report(timeline: Timeline) -> list[tuple[str, str, float, float | None, float | None]]:
    """(beat, bookmark, time in the scene, time in the take, confidence) of every bookmark;
    the last two are None where no take narrates the beat."""
    take = timeline.voice.get("take")
    facts: dict[str, Any] = take.get("bookmarks", {}) if isinstance(take, dict) else {}
    rows = []
    for beat in timeline.beats:
        for name, at in beat.bookmarks.items():
            fact = facts.get(name)
            rows.append((beat.name, name, at, fact["take_s"] if fact else None, fact["confidence"] if fact else None))
    return rows


def word_starts(timeline: Timeline) -> dict[str, list[float]]:
    """Each take-narrated beat's spoken word starts (seconds in the scene)."""
    take = timeline.voice.get("take")
    words = take.get("words", {}) if isinstance(take, dict) else {}
    return {k: list(v) for k, v in words.items()} if isinstance(words, dict) else {}


def narrated_by_recordings(timelines: Iterable[Timeline]) -> bool:
    """Every spoken segment of every timeline comes from the lecturer's recordings."""
    timelines = list(timelines)
    spoken = [s for t in timelines for b in t.beats for s in b.segments if s.clip]
    return bool(spoken) and all(
        int(str(t.voice.get("recorded") or 0)) >= sum(1 for b in t.beats for s in b.segments if s.clip)
        for t in timelines
    )


def bookmark_confidence(timeline: Timeline, bookmark: str) -> float | None:
    """The alignment's confidence in `bookmark`, where a one-take recording narrates it."""
    take = timeline.voice.get("take")
    fact = take.get("bookmarks", {}).get(bookmark) if isinstance(take, dict) else None
    return float(fact["confidence"]) if fact else None
