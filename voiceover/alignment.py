"""Aligning a lecturer's take with the narration's synthesis: MFCCs and dynamic time warping.

No speech recogniser: the scene's script spoken by the default engine (its word and bookmark
times are exact) is the reference, and the take is warped onto it, as `aeneas` does for text
and audio, but at word level. Both are turned into the same features (`features`: 20 MFCCs
of a 40-band log-mel spectrum, 10 ms frames, the first coefficient dropped and every
coefficient normalised over the file, so loudness and microphone do not count), and
`align` finds the cheapest monotonic path between them with `librosa.sequence.dtw`.

A 30-minute take against its reference would be a 180,000 x 180,000 matrix, so the path is
found block by block along the diagonal: each block is `BLOCK_S` of the reference against
the stretch of the take it can reach (at most `MAX_STRETCH` times slower, plus `SLACK_S`),
started where the previous block's path was committed and free at its end; only its first
`COMMIT_S` are kept, so every kept stretch was chosen with the next seconds in view. Memory
is one block's matrices whatever the take's length.

A point of the reference maps to the first take frame the path pairs with its frame
(`Warp.to_take`); a word the reference says after a pause is then moved onto the take's own
sound onset near there (`Warp.onset_near`), which is sharper than any 10 ms frame. Each point
has a confidence (`Warp.confidence`): the path's typical cost over the scene divided by its
cost around the point, at most 1. `off_script` reads the path for a take that leaves the
script: a sentence the path squeezes to nothing, speech where the reference pauses, a
stretch far slower than the take's own pace.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FEATURE_RATE_HZ = 16_000  # both signals are analysed at this rate
HOP = 160  # 10 ms frames
FRAME_S = HOP / FEATURE_RATE_HZ
N_FFT = 512
WIN = 400  # 25 ms analysis window
N_MELS = 40
N_MFCC = 20
FINE_HOP = 40  # the level envelope for onsets: 2.5 ms steps...
FINE_WIN = 160  # ...of 10 ms windows
FINE_S = FINE_HOP / FEATURE_RATE_HZ
BLOCK_S = 14.0  # reference seconds in one DTW block
COMMIT_S = 7.0  # of which the path is kept
MAX_STRETCH = 1.7  # the take may be this much slower than the reference inside a block...
SLACK_S = 4.0  # ...plus this (a pause, a breath, a short restart)
ONSET_SEARCH_S = 0.25  # an onset is looked for this far either side of the mapped point
MIN_PAUSE_S = 0.06  # near-silence needed before a rise for it to be an onset
CONFIDENCE_SPAN_S = 0.2  # the path's cost is judged this far either side of a point
COST_FLOOR = 0.05  # cosine distance under which two frames are the same sound (steadies the ratio)
RULES = 1  # bump when alignment changes (part of the take cache key)

Floats = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Features:
    """One signal's features: `mfcc` (frames, N_MFCC - 1), normalised over the signal, and
    the level envelope in dB (`fine_db`, one value every FINE_S) for silences and onsets."""

    mfcc: Floats
    fine_db: Floats

    @property
    def frames(self) -> int:
        return len(self.mfcc)

    @property
    def duration_s(self) -> float:
        return self.frames * FRAME_S


class FeatureStream:
    """Features of a long signal fed block by block (the same numbers as for the whole signal
    at once): only the MFCCs (4 bytes x 19 a frame) and the level envelope are kept."""

    def __init__(self) -> None:
        self._carry = np.zeros(N_FFT // 2, dtype=np.float32)  # the first frame is centred on sample 0
        self._fine_carry = np.zeros(FINE_WIN // 2, dtype=np.float32)
        self._mfcc: list[Floats] = []
        self._fine: list[Floats] = []
        self._samples = 0

    def feed(self, block: Floats) -> None:
        self._samples += len(block)
        data = np.concatenate([self._carry, block.astype(np.float32, copy=False)])
        # Frame k covers data[k*HOP : k*HOP + N_FFT]: keep whole frames whose centre is fed.
        count = max((len(data) - N_FFT) // HOP + 1, 0)
        if count:
            self._mfcc.append(_mfcc(data[: (count - 1) * HOP + N_FFT]))
            self._carry = data[count * HOP :]
        else:
            self._carry = data
        fine = np.concatenate([self._fine_carry, block.astype(np.float32, copy=False)])
        count = max((len(fine) - FINE_WIN) // FINE_HOP + 1, 0)
        if count:
            self._fine.append(_levels_db(fine[: (count - 1) * FINE_HOP + FINE_WIN]))
            self._fine_carry = fine[count * FINE_HOP :]
        else:
            self._fine_carry = fine

    def finish(self) -> Features:
        """Pads the end as the start was padded and normalises the coefficients."""
        frames = -(-self._samples // HOP)
        fine = -(-self._samples // FINE_HOP)
        self.feed(np.zeros(N_FFT, dtype=np.float32))
        mfcc = np.concatenate(self._mfcc)[:frames] if self._mfcc else np.zeros((0, N_MFCC - 1), np.float32)
        levels = np.concatenate(self._fine)[:fine] if self._fine else np.zeros(0, np.float32)
        mfcc -= mfcc.mean(axis=0) if len(mfcc) else 0.0
        mfcc /= mfcc.std(axis=0) + 1e-6 if len(mfcc) else 1.0
        return Features(mfcc.astype(np.float32), levels.astype(np.float32))


def features(samples: Floats | Iterable[Floats]) -> Features:
    """Features of 16 kHz mono samples, given whole or as consecutive blocks."""
    stream = FeatureStream()
    for block in [samples] if isinstance(samples, np.ndarray) else samples:
        stream.feed(block)
    return stream.finish()


def _mfcc(data: Floats) -> Floats:
    import librosa  # a second to import (numba): only when a take is aligned

    mel = librosa.feature.melspectrogram(
        y=data,
        sr=FEATURE_RATE_HZ,
        n_fft=N_FFT,
        hop_length=HOP,
        win_length=WIN,
        n_mels=N_MELS,
        fmin=60.0,
        fmax=7600.0,
        center=False,
    )
    log_mel = librosa.power_to_db(mel, ref=1.0, amin=1e-10, top_db=None)
    coefficients: Floats = librosa.feature.mfcc(S=log_mel, n_mfcc=N_MFCC)[1:].T.astype(np.float32)
    return coefficients


def _levels_db(data: Floats) -> Floats:
    count = (len(data) - FINE_WIN) // FINE_HOP + 1
    energy = np.concatenate([[0.0], np.cumsum(np.square(data, dtype=np.float64))])
    firsts = np.arange(count) * FINE_HOP
    mean = (energy[firsts + FINE_WIN] - energy[firsts]) / FINE_WIN
    levels: Floats = (10 * np.log10(mean + 1e-12)).astype(np.float32)
    return levels


@dataclass(frozen=True)
class Voicing:
    """Which stretches of a signal hold sound: its level envelope against a threshold set
    between its noise floor and its speech level."""

    loud: npt.NDArray[np.bool_]  # per FINE_S step
    threshold_db: float

    @classmethod
    def of(cls, fine_db: Floats) -> Voicing:
        if len(fine_db) == 0:
            return cls(np.zeros(0, dtype=bool), 0.0)
        floor, speech = np.percentile(fine_db, [10, 95])
        # A third of the way from the floor to the speech level, at least 12 dB over the
        # floor (a word's edge in a noisy room with a reverb tail) and at most 30 dB under
        # the speech (a synthesis's digital silence has no floor to speak of).
        threshold = float(max(floor + (speech - floor) / 3, floor + 12.0, speech - 30.0))
        threshold = min(threshold, float(speech) - 6.0)
        return cls(fine_db >= threshold, threshold)

    def voiced_s(self, start_s: float, end_s: float) -> float:
        lo, hi = max(int(start_s / FINE_S), 0), max(int(end_s / FINE_S), 0)
        return float(self.loud[lo:hi].sum()) * FINE_S

    def silent_before(self, at_s: float, span_s: float) -> bool:
        """Whether the `span_s` before `at_s` are (nearly) silent."""
        lo, hi = int((at_s - span_s) / FINE_S), int(at_s / FINE_S)
        if lo < 0:
            return True
        return bool(self.loud[lo:hi].mean() <= 0.1) if hi > lo else False

    def onsets(self, start_s: float, end_s: float) -> list[float]:
        """Times in [start_s, end_s] where sound rises after at least MIN_PAUSE_S of silence."""
        quiet = int(round(MIN_PAUSE_S / FINE_S))
        lo, hi = max(int(start_s / FINE_S), quiet), min(int(end_s / FINE_S) + 1, len(self.loud))
        found = []
        for k in range(lo, hi):
            if self.loud[k] and not self.loud[k - quiet : k].any():
                found.append(k * FINE_S)
        return found


@dataclass(frozen=True)
class Warp:
    """The path from a reference onto a take, as the first and last take frame paired with
    each reference frame, and the path's cost at each reference frame."""

    first: npt.NDArray[np.int64]  # per reference frame
    last: npt.NDArray[np.int64]
    cost: Floats  # mean frame distance of the pairs at each reference frame
    typical_cost: float  # the median of `cost` over the reference's voiced frames
    ref_voicing: Voicing
    take_voicing: Voicing

    @property
    def frames(self) -> int:
        return len(self.first)

    def to_take(self, ref_s: float) -> float:
        """The take's time for the reference's time `ref_s` (between frames, interpolated)."""
        f = min(max(ref_s / FRAME_S, 0.0), self.frames - 1.0)
        r = int(f)
        nxt = min(r + 1, self.frames - 1)
        frac = f - r
        return float(self.first[r] + frac * (self.first[nxt] - self.first[r])) * FRAME_S

    def span(self, ref_start_s: float, ref_end_s: float) -> tuple[float, float]:
        """The take's stretch paired with the reference's [start, end)."""
        lo = min(max(int(ref_start_s / FRAME_S), 0), self.frames - 1)
        hi = min(max(int(np.ceil(ref_end_s / FRAME_S)) - 1, lo), self.frames - 1)
        return float(self.first[lo]) * FRAME_S, float(self.last[hi] + 1) * FRAME_S

    def word_start(self, ref_s: float) -> float:
        """Where a word that starts at `ref_s` in the reference starts in the take: mapped
        through the path, then, if the reference says it after a pause, moved onto the
        take's nearest sound onset."""
        mapped = self.to_take(ref_s)
        if not self.ref_voicing.silent_before(ref_s, 2 * MIN_PAUSE_S):
            return mapped
        return self.onset_near(mapped)

    def onset_near(self, take_s: float) -> float:
        candidates = self.take_voicing.onsets(take_s - ONSET_SEARCH_S, take_s + ONSET_SEARCH_S)
        return min(candidates, key=lambda t: abs(t - take_s)) if candidates else take_s

    def confidence(self, ref_s: float) -> float:
        """1 where the path around `ref_s` costs no more than is typical for the scene,
        falling as it costs more (0.5 at twice the typical cost)."""
        r = int(ref_s / FRAME_S)
        span = int(CONFIDENCE_SPAN_S / FRAME_S)
        local = float(np.mean(self.cost[max(r - span, 0) : min(r + span + 1, self.frames)]))
        return round(min(1.0, (self.typical_cost + COST_FLOOR) / (local + COST_FLOOR)), 3)


def align(reference: Features, take: Features, take_start_s: float | None = None) -> Warp:
    """The DTW path from `reference` onto `take`, block by block (see the module docstring).
    The path starts where the take's sound starts, less the reference's own lead-in,
    unless `take_start_s` says where."""
    from librosa.sequence import dtw, dtw_backtracking

    ref_voicing, take_voicing = Voicing.of(reference.fine_db), Voicing.of(take.fine_db)
    n_ref, n_take = reference.frames, take.frames
    if n_ref == 0 or n_take == 0:
        raise ValueError("nothing to align: the take or the reference is empty")
    if take_start_s is None:
        take_start_s = max(_first_sound_s(take_voicing) - _first_sound_s(ref_voicing), 0.0)
    first = np.full(n_ref, -1, dtype=np.int64)
    last = np.full(n_ref, -1, dtype=np.int64)
    cost = np.zeros(n_ref, dtype=np.float32)
    block, commit = int(BLOCK_S / FRAME_S), int(COMMIT_S / FRAME_S)
    r0, t0 = 0, min(int(take_start_s / FRAME_S), n_take - 1)
    while r0 < n_ref:
        r1 = min(r0 + block, n_ref)
        t1 = min(n_take, t0 + int((r1 - r0) * MAX_STRETCH + SLACK_S / FRAME_S))
        distances = cosine_distances(reference.mfcc[r0:r1], take.mfcc[t0:t1])
        total, steps = dtw(C=distances, backtrack=False, return_steps=True)
        rows = r1 - r0
        # Free end: the column where the whole block ends cheapest per step taken.
        end = int(np.argmin(total[-1] / (rows + np.arange(t1 - t0))))
        path = dtw_backtracking(steps, subseq=True, start=end)[::-1]
        done = r1 == n_ref
        keep_to = rows if done else min(commit, rows)
        for r, t in path:
            if r >= keep_to:
                break
            rr = r0 + int(r)
            tt = t0 + int(t)
            if first[rr] < 0:
                first[rr] = tt
            last[rr] = tt
        pairs = path[path[:, 0] < keep_to]
        sums = np.bincount(pairs[:, 0], weights=distances[pairs[:, 0], pairs[:, 1]], minlength=keep_to)
        counts = np.bincount(pairs[:, 0], minlength=keep_to)
        cost[r0 : r0 + keep_to] = (sums / np.maximum(counts, 1))[:keep_to]
        if done:
            break
        # The next block starts at the first take frame paired with the first frame not kept.
        nxt = path[path[:, 0] == keep_to]
        t0 = t0 + int(nxt[0, 1]) if len(nxt) else int(last[r0 + keep_to - 1]) + 1
        t0 = min(t0, n_take - 1)
        r0 += keep_to
    _fill_gaps(first, last)
    voiced = _frame_mask(ref_voicing, n_ref)
    typical = float(np.median(cost[voiced])) if voiced.any() else float(np.median(cost))
    return Warp(first, last, cost, typical, ref_voicing, take_voicing)


def cosine_distances(a: Floats, b: Floats) -> npt.NDArray[np.float64]:
    """1 - the cosine similarity of every frame of `a` with every frame of `b`."""
    an = a / (np.linalg.norm(a, axis=1, keepdims=True) + 1e-9)
    bn = b / (np.linalg.norm(b, axis=1, keepdims=True) + 1e-9)
    distances: npt.NDArray[np.float64] = (1.0 - an @ bn.T).astype(np.float64)
    return distances


def _fill_gaps(first: npt.NDArray[np.int64], last: npt.NDArray[np.int64]) -> None:
    """A frame the path skipped (the row-0 start of a free-start backtrack) takes its neighbour's pairs."""
    for k in range(len(first)):
        if first[k] < 0:
            first[k] = last[k] = last[k - 1] if k else max(int(np.max(first)), 0)


def _frame_mask(voicing: Voicing, frames: int) -> npt.NDArray[np.bool_]:
    per = int(round(FRAME_S / FINE_S))
    loud = voicing.loud[: frames * per]
    loud = np.pad(loud, (0, frames * per - len(loud)))
    mask: npt.NDArray[np.bool_] = np.asarray(loud.reshape(frames, per).any(axis=1), dtype=bool)
    return mask


def _first_sound_s(voicing: Voicing) -> float:
    loud = np.flatnonzero(voicing.loud)
    return float(loud[0]) * FINE_S if len(loud) else 0.0


@dataclass(frozen=True)
class Departure:
    """Where the take leaves the script: the reference sentence it happens at, the take's
    time, and what was seen (`kind`: "falta" a sentence skipped, "sobra" speech added)."""

    sentence: int  # index into the sentences given to `off_script`
    take_start_s: float
    take_end_s: float
    kind: str


MIN_REF_PAUSE_S = 0.3  # a reference pause this long (a sentence's end) is a pause in the take too...
PAUSE_REACH_S = 0.15  # ...within this much of where the path puts it...
PAUSE_KEPT = 0.4  # ...lasting at least this share of it; otherwise it is missed
DRIFT_COST = 1.05  # a sentence costing this much over the typical frame belongs to a drift
LOST_WINDOW, LOST_PAUSES = 5, 3  # this many missed among that many in a row: the path lost the script
SKIP_RATIO = 0.35  # a sentence said in under this share of its expected time was skipped
ADDED_SPEECH_S = 1.0  # this much more speech than the reference has (at the take's pace) was added...
SLOW_RATIO = 1.5  # ...in a sentence taking this many times its expected time


def off_script(warp: Warp, sentences: Sequence[tuple[float, float]]) -> list[Departure]:
    """Sentences (reference [start, end) of their sound, in order) the take skips, and
    speech it adds between or inside them."""
    spans = [warp.span(a, b) for a, b in sentences]
    ratios = [(tb - ta) / max(b - a, 1e-3) for (a, b), (ta, tb) in zip(sentences, spans)]
    pace = float(np.median(ratios)) if ratios else 1.0
    found: list[Departure] = []
    lost = _lost_pauses(warp, sentences)
    if lost is not None:
        k, from_s, to_s = lost
        found.append(Departure(k, from_s, to_s, "falta"))
    for k, ((a, b), (ta, tb)) in enumerate(zip(sentences, spans)):
        expected = (b - a) * pace
        said = warp.take_voicing.voiced_s(ta, tb)
        ref_said = warp.ref_voicing.voiced_s(a, b) * pace
        if b - a >= 0.5 and (tb - ta < SKIP_RATIO * expected or said < SKIP_RATIO * ref_said):
            found.append(Departure(k, ta, tb, "falta"))
        elif tb - ta > SLOW_RATIO * expected and said - ref_said > ADDED_SPEECH_S:
            found.append(Departure(k, ta, tb, "sobra"))
        if k + 1 < len(sentences):  # the pause before the next sentence
            pa, pb = b, sentences[k + 1][0]
            qa, qb = tb, spans[k + 1][0]
            extra = warp.take_voicing.voiced_s(qa, qb) - warp.ref_voicing.voiced_s(pa, pb) * pace
            if extra > ADDED_SPEECH_S:
                found.append(Departure(k + 1, qa, qb, "sobra"))
    return found


def _lost_pauses(warp: Warp, sentences: Sequence[tuple[float, float]]) -> tuple[int, float, float] | None:
    """Where the reference's sentence pauses stop landing on the take's: LOST_PAUSES of
    LOST_WINDOW in a row with no take silence near where the path puts them (one missed
    pause is a reader's own phrasing; a run of them is a path that had to squeeze or
    stretch content that is not there). Returns the sentence after the last pause that
    still landed, and the take's stretch from there to the first missed pause."""
    if not sentences:
        return None
    ref, take = warp.ref_voicing, warp.take_voicing
    lo, hi = int(sentences[0][0] / FINE_S), min(int(sentences[-1][1] / FINE_S), len(ref.loud))
    quiet = ~ref.loud[lo:hi]
    edges = np.flatnonzero(np.diff(np.concatenate([[0], quiet.astype(np.int8), [0]])))
    pauses = [((lo + a) * FINE_S, (lo + b) * FINE_S) for a, b in zip(edges[::2], edges[1::2])]
    pauses = [(a, b) for a, b in pauses if b - a >= MIN_REF_PAUSE_S]
    spans = [warp.span(a, b) for a, b in sentences]
    pace = float(np.median([(tb - ta) / max(b - a, 1e-3) for (a, b), (ta, tb) in zip(sentences, spans)]))
    missed = []
    for a, b in pauses:
        ta, tb = warp.to_take(a), warp.to_take(b)
        k0, k1 = max(int((ta - PAUSE_REACH_S) / FINE_S), 0), int((tb + PAUSE_REACH_S) / FINE_S)
        kept = _longest_run(~take.loud[k0:k1]) * FINE_S
        missed.append(kept < max(PAUSE_KEPT * (b - a) * pace, MIN_PAUSE_S))
    for i in range(len(pauses)):
        if missed[i] and sum(missed[i : i + LOST_WINDOW]) >= LOST_PAUSES:
            lost = pauses[i][0]
            k = next((n for n, (_, end) in enumerate(sentences) if lost < end), len(sentences) - 1)
            # The path drifts from where the take left the script: back over the sentences
            # before, while they cost more than is typical (a later pause can land by chance).
            while k > 0 and _sentence_cost(warp, sentences[k - 1]) > DRIFT_COST * warp.typical_cost:
                k -= 1
            return k, warp.to_take(sentences[k][0]), warp.to_take(lost)
    return None


def _sentence_cost(warp: Warp, sentence: tuple[float, float]) -> float:
    lo = int(sentence[0] / FRAME_S)
    return float(np.mean(warp.cost[lo : max(int(sentence[1] / FRAME_S), lo + 1)]))


def _longest_run(mask: npt.NDArray[np.bool_]) -> int:
    if not mask.any():
        return 0
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
    return int((edges[1::2] - edges[::2]).max())
