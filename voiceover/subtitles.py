"""Spanish subtitles (SRT and WebVTT) from the narration's measured timings.

Scenes are laid end to end: scene i starts at the sum of the earlier scenes' `total_s`,
as in the lecture's video. Cue text is what the subtitles should read (`Segment.text`:
bookmarks removed, numbers in digits). Rules, as broadcasters and YouTube want them:

- at most `MAX_LINE_CHARS` characters a line and `MAX_LINES` lines a cue;
- every cue lasts between `MIN_CUE_S` and `MAX_CUE_S`;
- no cue crosses a scene cut (and none spans a beat's pause unless it must, to last 1 s).

Segment boundaries are measured; inside a segment a word's time is interpolated by its
character position (the only estimate here), except in a beat a one-take recording narrates
(`voiceover.takes`): there every spoken word's start was found in the take, and a written
word starts where the spoken words at its place in the text start. Cues are chosen per beat by dynamic
programming: fewest cues, breaking where a sentence or clause ends when it can.
All arithmetic is in whole milliseconds, the resolution of both formats.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import numpy as np
import srt

from voiceover.atomic import write_text
from voiceover.takes import word_starts
from voiceover.timeline import Segment, Timeline

MAX_LINE_CHARS = 42
MAX_LINES = 2
MIN_CUE_S = 1.0
MAX_CUE_S = 7.0
_MIN_MS, _MAX_MS = int(MIN_CUE_S * 1000), int(MAX_CUE_S * 1000)
# Only plain spaces separate words: the narrow no-break space inside "6 738 415 616" must
# never become a line break.
_WORD_SPLIT_RE = re.compile(r"[ \t\r\n]+")
_SENTENCE_END_RE = re.compile(r"[.!?…][»\"')]*$")
_CLAUSE_END_RE = re.compile(r"[,;:—–][»\"')]*$")


@dataclass(frozen=True)
class Cue:
    start_s: float
    end_s: float
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class _Word:
    text: str
    start_ms: int
    end_ms: int
    segment_end: bool  # the last word of a segment (a bookmark or the beat's end follows)


@dataclass
class _Draft:
    words: list[str]
    start_ms: int
    end_ms: int
    scene: int


def wrap(words: Sequence[str], width: int = MAX_LINE_CHARS, lines: int = MAX_LINES) -> tuple[str, ...] | None:
    """`words` as at most `lines` lines of at most `width` characters, as balanced as
    possible (a break after punctuation wins ties); None when they do not fit."""
    # Lengths, not joined strings: the cue planner asks this of every span of every beat.
    lengths = [len(w) for w in words]
    total = sum(lengths) + len(words) - 1
    if total <= width:
        return (" ".join(words),)
    if lines < 2:
        return None
    best_k, best_key = 0, None
    first = -1  # the first line's length, breaking after word k
    for k in range(1, len(words)):
        first += lengths[k - 1] + 1
        second = total - first - 1
        if first > width:
            break
        if second > width:
            continue
        # A line that ends where the sentence or clause pauses reads best: worth 8 characters.
        # (Both patterns end at the line's end, so its last word decides.)
        pause = _CLAUSE_END_RE.search(words[k - 1]) or _SENTENCE_END_RE.search(words[k - 1])
        key = max(first, second) - (8 if pause else 0)
        if best_key is None or key < best_key:
            best_k, best_key = k, key
    if best_key is None:
        return None
    return (" ".join(words[:best_k]), " ".join(words[best_k:]))


def cues(timelines: Sequence[Timeline]) -> list[Cue]:
    """The lecture's cues, scenes laid end to end."""
    drafts: list[_Draft] = []
    bounds: list[tuple[int, int]] = []  # each scene's [start, end) in ms
    offset = 0.0
    for index, timeline in enumerate(timelines):
        scene_start, scene_end = _ms(offset), _ms(offset + timeline.total_s)
        bounds.append((scene_start, scene_end))
        spoken_starts = word_starts(timeline)
        for beat in timeline.beats:
            words = _beat_words(beat.segments, offset, spoken_starts.get(beat.name))
            drafts += [_Draft(list(ws), start, end, index) for ws, start, end in _split_beat(words)]
        offset += timeline.total_s
    _fix_durations(drafts, bounds)
    out = []
    for d in drafts:
        lines = wrap(d.words) or _force_wrap(d.words)
        out.append(Cue(d.start_ms / 1000, d.end_ms / 1000, lines))
    return out


def srt_text(lecture_cues: Sequence[Cue]) -> str:
    """Cues as SubRip."""
    subs = [
        srt.Subtitle(index=i, start=timedelta(seconds=c.start_s), end=timedelta(seconds=c.end_s), content=c.text)
        for i, c in enumerate(lecture_cues, start=1)
    ]
    return str(srt.compose(subs, reindex=False))


def vtt_text(lecture_cues: Sequence[Cue]) -> str:
    """Cues as WebVTT."""
    blocks = ["WEBVTT"] + [f"{_vtt_time(c.start_s)} --> {_vtt_time(c.end_s)}\n{c.text}" for c in lecture_cues]
    return "\n\n".join(blocks) + "\n"


def write_srt(timelines: Sequence[Timeline], path: Path) -> Path:
    """The lecture's subtitles as SubRip (UTF-8)."""
    write_text(Path(path), srt_text(cues(timelines)))
    return Path(path)


def write_vtt(timelines: Sequence[Timeline], path: Path) -> Path:
    """The lecture's subtitles as WebVTT (UTF-8)."""
    write_text(Path(path), vtt_text(cues(timelines)))
    return Path(path)


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def _vtt_time(seconds: float) -> str:
    ms = _ms(seconds)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def _beat_words(
    segments: Sequence[Segment], offset_s: float, spoken_starts: Sequence[float] | None = None
) -> list[_Word]:
    """Each word with the share of its segment's time its characters take; the words of
    a segment tile it exactly (a word owns the space after it). With `spoken_starts` (the
    beat's spoken words' starts, in the scene), a word's share comes from them instead."""
    words: list[_Word] = []
    spoken_at = 0  # index of the segment's first spoken word in `spoken_starts`
    for seg in segments:
        spoken = seg.spoken.split()
        mine = list(spoken_starts[spoken_at : spoken_at + len(spoken)]) if spoken_starts is not None else []
        spoken_at += len(spoken)
        tokens = [t for t in _WORD_SPLIT_RE.split(seg.text.strip()) if t]
        if not tokens or seg.duration_s <= 0:
            continue
        total = sum(len(t) + 1 for t in tokens)
        start = offset_s + seg.start_s
        chars = 0
        for i, token in enumerate(tokens):
            t0 = start + seg.duration_s * chars / total
            if len(mine) == len(spoken) and mine:
                t0 = offset_s + _spoken_time(mine, spoken, chars / total, seg)
            chars += len(token) + 1
            t1 = start + seg.duration_s * chars / total
            if len(mine) == len(spoken) and mine and i + 1 < len(tokens):
                t1 = offset_s + _spoken_time(mine, spoken, chars / total, seg)
            words.append(_Word(token, _ms(t0), max(_ms(t1), _ms(t0)), i == len(tokens) - 1))
    return words


def _spoken_time(starts: Sequence[float], spoken: Sequence[str], share: float, seg: Segment) -> float:
    """The time at `share` of a segment's written text, read off its spoken words' measured
    starts (the same words when no number is spelled out; else at the same share of the
    spoken text), within the segment."""
    edges: list[float] = []  # each spoken word's share of the spoken text
    total = sum(len(w) + 1 for w in spoken)
    chars = 0
    for w in spoken:
        edges.append(chars / total)
        chars += len(w) + 1
    times = [*starts, seg.end_s]
    shares = [*edges, 1.0]
    at = float(np.interp(share, shares, times))
    return min(max(at, seg.start_s), seg.end_s)


def _break_cost(word: _Word, last: bool) -> float:
    if last or _SENTENCE_END_RE.search(word.text):
        return 0.0
    if _CLAUSE_END_RE.search(word.text):
        return 0.3
    if word.segment_end:
        return 0.8
    return 1.5  # mid-phrase: worse than one more cue that breaks at punctuation


def _split_beat(words: list[_Word]) -> list[tuple[list[str], int, int]]:
    """Fewest good cues for one beat: dynamic programming over break points."""
    n = len(words)
    if n == 0:
        return []
    texts = [w.text for w in words]
    best = [0.0] + [float("inf")] * n
    back = [0] * (n + 1)
    for j in range(1, n + 1):
        chars = -1  # of words i..j-1 joined by spaces
        for i in range(j - 1, -1, -1):
            chars += len(texts[i]) + 1
            if chars > MAX_LINE_CHARS * MAX_LINES:
                break
            duration = words[j - 1].end_ms - words[i].start_ms
            if j - i > 1 and (duration > _MAX_MS or wrap(texts[i:j]) is None):
                continue
            cost = 1.0 + _break_cost(words[j - 1], j == n)
            cost += 2.0 if duration < _MIN_MS else 0.0
            cost += 0.5 if chars < 12 and n > j - i else 0.0
            if best[i] + cost < best[j]:
                best[j], back[j] = best[i] + cost, i
    parts = []
    j = n
    while j > 0:
        i = back[j]
        parts.append(([w.text for w in words[i:j]], words[i].start_ms, words[j - 1].end_ms))
        j = i
    return parts[::-1]


def _fix_durations(drafts: list[_Draft], bounds: list[tuple[int, int]]) -> None:
    """Make every cue last MIN_CUE_S..MAX_CUE_S without leaving its scene or overlapping
    another: first into the silence around it, then by moving the (estimated) boundary
    with a neighbour that can spare the time, and last by merging with a neighbour."""
    i = 0
    while i < len(drafts):
        d = drafts[i]
        lo, hi = bounds[d.scene]
        prev = drafts[i - 1] if i > 0 and drafts[i - 1].scene == d.scene else None
        nxt = drafts[i + 1] if i + 1 < len(drafts) and drafts[i + 1].scene == d.scene else None
        if d.end_ms - d.start_ms > _MAX_MS:  # a single word spoken for over 7 s
            d.end_ms = d.start_ms + _MAX_MS
        short = _MIN_MS - (d.end_ms - d.start_ms)
        if short > 0:  # into the silence after, then before
            limit = nxt.start_ms if nxt else hi
            d.end_ms = min(d.end_ms + short, limit)
            short = _MIN_MS - (d.end_ms - d.start_ms)
        if short > 0:
            limit = prev.end_ms if prev else lo
            d.start_ms = max(d.start_ms - short, limit)
            short = _MIN_MS - (d.end_ms - d.start_ms)
        if short > 0 and nxt and nxt.start_ms == d.end_ms and nxt.end_ms - nxt.start_ms - short >= _MIN_MS:
            d.end_ms += short
            nxt.start_ms += short
            short = 0
        if short > 0 and prev and prev.end_ms == d.start_ms and prev.end_ms - prev.start_ms - short >= _MIN_MS:
            d.start_ms -= short
            prev.end_ms -= short
            short = 0
        if short > 0:
            for other, first in ((nxt, d), (prev, prev)):
                if other is None:
                    continue
                a, b = (d, other) if first is d else (other, d)
                merged = a.words + b.words
                if wrap(merged) and b.end_ms - a.start_ms <= _MAX_MS:
                    a.words, a.end_ms = merged, b.end_ms
                    drafts.remove(b)
                    i = max(drafts.index(a) - 1, 0)  # look at the merged cue and its neighbour again
                    break
            else:
                i += 1  # a scene shorter than a second: nothing can lengthen this cue
            continue
        i += 1


def _force_wrap(words: Sequence[str]) -> tuple[str, ...]:
    """Last resort for a single word longer than a line: cut it at the line width."""
    text = " ".join(words)
    return tuple(text[k : k + MAX_LINE_CHARS] for k in range(0, len(text), MAX_LINE_CHARS))[:MAX_LINES]
