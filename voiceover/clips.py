"""The narration's clip cache: every clip and spoken sentence, made once and reused.

Clips are cached by what is said (after the speaker-only respellings of
`voiceover/lexicon.es.toml`), engine and settings (`clip_key`): editing one sentence
re-synthesises that sentence only (or that segment, with a segment engine); switching voice
re-synthesises everything. An aligned engine's sentences are cached with their word starts
(`speak_sentences`); the clips a beat's bookmarks cut out of them are cached too
(`cut_clip`).

Every clip is sealed by content when made (`voiceover.seals`, `<clip>.seal.json` beside it):
a segment's clip, a sentence's clip and a cut. One that no longer matches its seal (a crash,
a full disk, a sync tool, zeroed samples behind an intact header), or a sentence whose clip
no longer matches its word starts, is made again and named in a notice the build reports
(`seals.take_notices`). A clip cached before seals existed is checked as it could be then
(readable; a sentence's length against its word starts) and sealed as found.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soundfile

from voiceover import seals
from voiceover.atomic import atomic_path, write_json
from voiceover.engines import CLIP_RATE_HZ, AlignedEngine, Engine
from voiceover.paths import clips_dir

DAMAGED_WHAT = "clip de narración"  # how a damage notice names a clip


def clip_key(engine: Engine, text: str) -> str:
    blob = json.dumps({"engine": engine.name, "settings": engine.settings(), "text": text}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def synthesize(engine: Engine, text: str) -> tuple[Path, float, bool]:
    """The clip `engine` speaks for `text`, made once and reused while text, engine and
    settings hold: (clip, duration in s, whether it was synthesised now)."""
    path = clips_dir() / f"{clip_key(engine, text)}.wav"
    if path.exists() and not _intact(path):
        seals.damaged(path, DAMAGED_WHAT)
        path.unlink(missing_ok=True)
    for _ in range(2):
        fresh = not path.exists()
        if fresh:
            with atomic_path(path) as tmp:
                engine.synthesize(text, tmp)
            seal_clip(path)
        try:
            info = soundfile.info(str(path))
            return path, info.frames / info.samplerate, fresh
        except RuntimeError:  # unreadable leftover: synthesise once more
            path.unlink(missing_ok=True)
    raise RuntimeError(f"{path}: {engine.name} wrote an unreadable clip twice for {text[:60]!r} (is the disk full?)")


def _seal_path(clip: Path) -> Path:
    return clip.with_suffix(".seal.json")


def seal_clip(clip: Path) -> seals.Seal:
    """Seal a clip just made (after its rename onto its cached name)."""
    sealed = seals.seal(clip)
    write_json(_seal_path(clip), sealed.to_json())
    return sealed


def sealed_clip(clip: Path) -> seals.Seal | None:
    """The seal written beside `clip`, if any (None: none, or unreadable)."""
    try:
        return seals.Seal.from_json(json.loads(_seal_path(clip).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def _intact(clip: Path) -> bool:
    if not _seal_path(clip).exists():
        return _readable(clip)  # clips cached before seals existed: readable is enough
    return seals.intact(clip, sealed_clip(clip))


def _readable(path: Path) -> bool:
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
    sha256: str = ""  # the clip's content, as sealed (names the cuts made from it)

    @property
    def samples(self) -> int:
        return self.starts[-1]


def _sentence_paths(engine: Engine, units: Sequence[str]) -> tuple[Path, Path]:
    clip = clips_dir() / f"{clip_key(engine, json.dumps(list(units), ensure_ascii=False))}.wav"
    return clip, clip.with_suffix(".words.json")


def _sentence_label(units: Sequence[str]) -> str:
    """How a notice names a sentence: the clip's kind and its first words."""
    said = " ".join(units)
    return f"{DAMAGED_WHAT}: «{said[:60]}{'…' if len(said) > 60 else ''}»"


def _cached_sentence(engine: Engine, units: Sequence[str]) -> SpokenSentence | None:
    """The sentence's clip and word starts if the cache holds them intact: the clip matches
    its seal (by content) and its length matches the word starts."""
    clip, words = _sentence_paths(engine, units)
    if clip.exists() and words.exists():
        try:
            starts = tuple(json.loads(words.read_text(encoding="utf-8"))["starts"])
            if len(starts) == len(units) + 1 and soundfile.info(str(clip)).frames == starts[-1]:
                if not _seal_path(clip).exists():  # cached before seals existed: sealed as found
                    return SpokenSentence(clip, starts, False, seal_clip(clip).sha256)
                sealed = sealed_clip(clip)
                if sealed is not None and seals.intact(clip, sealed):
                    return SpokenSentence(clip, starts, False, sealed.sha256)
        except (ValueError, KeyError, RuntimeError):
            pass
        seals.damaged(clip, _sentence_label(units))
        _seal_path(clip).unlink(missing_ok=True)
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
        for units, (clip, words), starts in zip(missing, paths, all_starts):
            seal_clip(clip)
            write_json(words, {"units": list(units), "starts": [int(s) for s in starts]})
        made.update(missing)
    raise RuntimeError(f"{engine.name}: the clip of {' '.join(missing[0])[:60]!r} does not match its word times")


def cut_clip(pieces: Sequence[tuple[SpokenSentence, int]], lo: int, hi: int) -> Path:
    """Samples [lo, hi) of a beat's sentences laid end to end (each with its offset in the
    beat), as one cached clip. Named by the sentences' content, so a sentence spoken again
    differently cuts anew; sealed like every clip."""
    parts = [(spoken, offset) for spoken, offset in pieces if offset < hi and offset + spoken.samples > lo]
    if len(parts) == 1 and lo == parts[0][1] and hi == parts[0][1] + parts[0][0].samples:
        return parts[0][0].clip  # a whole sentence: its own clip
    blob = json.dumps([[p.clip.name, p.sha256, o] for p, o in parts] + [lo, hi])
    path = clips_dir() / f"cut-{hashlib.sha256(blob.encode()).hexdigest()[:24]}.wav"
    try:
        intact = soundfile.info(str(path)).frames == hi - lo and seals.intact(path, sealed_clip(path))
    except RuntimeError:  # missing or unreadable: cut again
        intact = False
    if not intact:
        if path.exists():
            seals.damaged(path, f"{DAMAGED_WHAT} (corte)")
        chunks: list[npt.NDArray[np.int16]] = []
        for spoken, offset in parts:
            data, _ = soundfile.read(str(spoken.clip), dtype="int16")
            chunks.append(data[max(lo - offset, 0) : min(hi - offset, spoken.samples)])
        with atomic_path(path) as tmp:
            soundfile.write(str(tmp), np.concatenate(chunks), CLIP_RATE_HZ, subtype="PCM_16", format="WAV")
        seal_clip(path)
    return path
