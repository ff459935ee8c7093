"""Bookmarks fire when the word is heard (issue 21), measured from the scene's decoded audio.

The measure knows nothing of how bookmarks are computed (no durations, no tokens, no
engine): it takes a scene's narration as the mix lays it out (`scene_samples`) and the
bookmark times of its timeline, and finds, near each bookmark, the speech onset the way
issue 21 defines it: the first 10 ms window, after at least 150 ms of near-silence, whose
level rises to within 30 dB of the loudest window of the stretch around it (one second
either side of the bookmark). The windows step by 1 ms, and the onset is the first sample
of that window whose magnitude reaches the threshold, so the figure is not rounded to a
window. A bookmark that opens a sentence is one whose preceding segment ends a sentence.

`benchmarks/bench_onsets.py` runs the same measure over every scene of the plan.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from voiceover.audio_format import RATE_HZ
from voiceover.timeline import Timeline
from voiceover.track import scene_samples

WINDOW_S = 0.010
HOP_S = 0.001
QUIET_S = 0.150  # near-silence before an onset
RANGE_DB = 30.0  # an onset rises to within this of the stretch's loudest window
STRETCH_S = 1.0  # either side of the bookmark, for the loudest window
SEARCH_S = 0.150  # how far from its bookmark an onset may be found
_SENTENCE_END_RE = re.compile(r"[.!?…][»\"')\]]*$")


@dataclass(frozen=True)
class Onset:
    """One bookmark and the speech onset found near it."""

    scene: str
    bookmark: str
    time_s: float  # the bookmark's time in the timeline
    onset_s: float | None  # None: no onset after a pause within SEARCH_S
    opens_sentence: bool

    @property
    def delta_s(self) -> float:
        """Onset minus bookmark: negative when the voice starts before the bookmark."""
        assert self.onset_s is not None
        return self.onset_s - self.time_s


def window_levels(samples: npt.NDArray[np.float32], rate: int = RATE_HZ) -> npt.NDArray[np.float64]:
    """The level (dB of mean square) of every 10 ms window, one starting every 1 ms."""
    size, hop = round(WINDOW_S * rate), round(HOP_S * rate)
    if len(samples) < size:
        return np.zeros(0)
    starts = np.arange(0, len(samples) - size + 1, hop)
    energy = np.concatenate([[0.0], np.cumsum(np.square(samples, dtype=np.float64))])
    return 10 * np.log10((energy[starts + size] - energy[starts]) / size + 1e-20)


def speech_onset(samples: npt.NDArray[np.float32], near: int, rate: int = RATE_HZ) -> int | None:
    """The sample where speech starts after a pause, nearest to sample `near` (within
    SEARCH_S), or None when no onset after a pause is that close."""
    lo = max(near - round(STRETCH_S * rate), 0)
    stretch = samples[lo : near + round(STRETCH_S * rate)]
    levels = window_levels(stretch, rate)
    if not len(levels):
        return None
    threshold = levels.max() - RANGE_DB
    loud = levels >= threshold
    quiet = round(QUIET_S / HOP_S)
    loud_before = np.concatenate([[0], np.cumsum(loud)])  # loud windows among the first k
    k = np.arange(quiet, len(levels))
    starts = k[loud[k] & (loud_before[k] - loud_before[k - quiet] == 0)]
    if not len(starts):
        return None
    hop, size = round(HOP_S * rate), round(WINDOW_S * rate)
    onsets = [lo + _first_above(stretch[s * hop : s * hop + size], threshold) + s * hop for s in starts]
    best = min(onsets, key=lambda o: abs(o - near))
    return best if abs(best - near) <= SEARCH_S * rate else None


def _first_above(window: npt.NDArray[np.float32], level_db: float) -> int:
    """The first sample of `window` whose magnitude reaches `level_db` (0 if none does)."""
    above = np.flatnonzero(np.abs(window) >= 10 ** (level_db / 20))
    return int(above[0]) if len(above) else 0


def bookmark_onsets(timeline: Timeline) -> list[Onset]:
    """Every bookmark of the scene with the onset found near it."""
    samples = scene_samples(timeline)
    out = []
    for beat in timeline.beats:
        # Bookmark i sits between segments i and i + 1.
        for (name, time_s), before in zip(beat.bookmarks.items(), beat.segments):
            opens = bool(_SENTENCE_END_RE.search(before.spoken.strip()))
            onset = speech_onset(samples, round(time_s * RATE_HZ))
            out.append(Onset(timeline.scene, name, time_s, None if onset is None else onset / RATE_HZ, opens))
    return out


def summary(deltas_s: Sequence[float]) -> dict[str, float]:
    """count, mean, median |delta|, 95th percentile of |delta| and max |delta|, in ms."""
    ms = 1000 * np.asarray(deltas_s, dtype=np.float64)
    if not len(ms):
        return {"count": 0, "mean": 0.0, "median": 0.0, "p95": 0.0, "max": 0.0}
    size = np.abs(ms)
    return {
        "count": len(ms),
        "mean": float(ms.mean()),
        "median": float(np.median(size)),
        "p95": float(np.percentile(size, 95)),
        "max": float(size.max()),
    }


# --- the measure itself, on made-up audio ---------------------------------------------------


def tone(seconds: float, level: float = 0.3, freq: float = 220.0) -> npt.NDArray[np.float32]:
    t = np.arange(round(seconds * RATE_HZ)) / RATE_HZ
    return (level * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def silence(seconds: float) -> npt.NDArray[np.float32]:
    return np.zeros(round(seconds * RATE_HZ), np.float32)


def test_the_onset_is_the_first_loud_sample_after_a_pause_to_the_millisecond():
    audio = np.concatenate([tone(0.5), silence(0.3), tone(0.01, 0.0001), tone(0.4)])
    onset = speech_onset(audio, round(0.85 * RATE_HZ))
    # The faint 10 ms (70 dB down) is not speech; the loud tone starts at 0.81 s.
    assert onset is not None and abs(onset / RATE_HZ - 0.81) < 0.001


def test_no_onset_without_a_pause_or_far_from_the_bookmark():
    gap = np.concatenate([tone(0.5), silence(0.1), tone(0.5)])  # 100 ms is no pause
    assert speech_onset(gap, round(0.6 * RATE_HZ)) is None
    far = np.concatenate([tone(0.5), silence(0.5), tone(0.5)])
    assert speech_onset(far, round(0.7 * RATE_HZ)) is None
    found = speech_onset(far, round(0.95 * RATE_HZ))
    assert found is not None and abs(found / RATE_HZ - 1.0) < 0.001


# --- Kokoro: bookmarks on the heard word ------------------------------------------------------

SCENES = ("needles", "xor")  # 26 sentence-initial bookmarks, about 3 minutes of speech


@pytest.fixture
def narration_cache(monkeypatch):
    """A cache kept between runs (clips are keyed by text, voice and rules, so a stale one
    is never reused): the first run synthesises the scenes, later ones only what changed."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    monkeypatch.setenv("FFN_CACHE_DIR", str(base / "ffn-video" / "test-onsets"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(base / "ffn-video" / "test-onsets" / "no-recordings"))
    for key in ("FFN_VOICE", "FFN_VOICE_SPEED", "FFN_KOKORO_LANG"):
        monkeypatch.delenv(key, raising=False)


@pytest.mark.slow
def test_sentence_initial_bookmarks_fire_when_kokoro_s_voice_starts_the_word(narration_cache):
    from voiceover.engines import resolve_engine
    from voiceover.timing import build_timeline

    engine = resolve_engine("kokoro").engine
    timelines = [build_timeline(scene, engine=engine) for scene in SCENES]
    opening = [o for timeline in timelines for o in bookmark_onsets(timeline) if o.opens_sentence]
    assert len(opening) >= 15
    missing = [o.bookmark for o in opening if o.onset_s is None]
    assert not missing, f"no onset after a pause within {SEARCH_S * 1000:.0f} ms of {missing}"
    figures = summary([o.delta_s for o in opening])
    mean_size = 1000 * float(np.mean([abs(o.delta_s) for o in opening]))
    worst = max(opening, key=lambda o: abs(o.delta_s))
    assert mean_size <= 10, figures
    assert figures["max"] <= 20, f"{worst.scene}/{worst.bookmark}: {1000 * worst.delta_s:+.1f} ms; {figures}"
    # The clip that ends at such a bookmark ends in the pause: its last 50 ms are quiet.
    for timeline in timelines:
        for cut in pause_cuts(timeline):
            assert cut.tail_db < -RANGE_DB, cut


@dataclass(frozen=True)
class Cut:
    """Where a segment's clip ends at a sentence-opening bookmark, and how loud its end is."""

    scene: str
    bookmark: str
    tail_db: float  # the last 50 ms's loudest 10 ms window, in dB from the stretch's loudest (as onsets)


def pause_cuts(timeline: Timeline) -> list[Cut]:
    """For every bookmark that opens a sentence, the end of the clip before it."""
    import soundfile

    samples = scene_samples(timeline)
    out = []
    for beat in timeline.beats:
        for (name, time_s), before in zip(beat.bookmarks.items(), beat.segments):
            if not before.clip or not _SENTENCE_END_RE.search(before.spoken.strip()):
                continue
            clip = soundfile.read(before.clip, dtype="float32")[0]
            at, reach = round(time_s * RATE_HZ), round(STRETCH_S * RATE_HZ)
            loudest = window_levels(samples[max(at - reach, 0) : at + reach]).max()  # as `speech_onset`
            tail = window_levels(clip[-round(0.05 * RATE_HZ) :]).max()
            out.append(Cut(timeline.scene, name, float(tail - loudest)))
    return out
