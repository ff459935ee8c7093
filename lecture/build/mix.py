"""Step 4, mix: each scene's narration track fitted to its video's frames, the lecture's
sticky gain, each scene limited with it, and the narration encoded in stretches of whole
AAC packets that join exactly (see `lecture.media.soundtrack`): only the stretches whose
samples changed are encoded again, and the chosen scenes' own narration and the lecture's
are their stretches' packets joined. Only what changed is made again
(`lecture.build.signatures`); measurements and stretches of the last few versions are kept,
so undoing an edit encodes and measures nothing.

The narration needs only frame counts, known before rendering: `mixing_ahead` starts it on
another thread while the scenes render, and `mix` reuses that work when the renders come
out with the frames expected, as they do.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np

from lecture.build.failures import failure_message
from lecture.build.freshness import expected_frames
from lecture.build.narrate import Narrated
from lecture.build.signatures import Kept, signature, unless_fresh
from lecture.build.state import Build, Failure
from lecture.farm import scene_cache
from lecture.media.loudness import Loudness
from lecture.plan import PlannedScene
from lecture.qualities import Quality
from voiceover.atomic import write_json
from voiceover.audio_format import CEILING_DBTP, RATE_HZ, TARGET_LUFS
from voiceover.timeline import Timeline

GAIN_ATTEMPTS = 4  # limiting takes a little loudness away: the gain is corrected from the result


@dataclass(frozen=True)
class Narration:
    """The narration of every scene, limited with the lecture's gain: (wav, signature)."""

    limited: dict[str, tuple[Path, str]]
    encoded: dict[str, tuple[Path, str]]  # the chosen scenes' narration alone, as AAC: (m4a, signature)
    loudness: Loudness  # the lecture's, measured from its scenes' blocks when it was limited
    gain_db: float
    # The lecture's narration in stretches of whole AAC packets (`lecture.media.soundtrack`),
    # when every scene is narrated and lies on the packet grid; otherwise () and the lecture
    # is encoded whole.
    stretches: tuple = ()
    encoded_s: Mapping[str, float] = field(default_factory=dict)  # seconds of audio encoded now, by scene


@dataclass(frozen=True)
class MixAhead:
    """The narration started before the renders, from the frame counts expected."""

    expected: Mapping[str, Timeline]  # each narrated scene's timeline fitted to the frames expected
    job: Future | None  # the narration made from them (None: made after the renders, in turn)


@dataclass(frozen=True)
class Mixed:
    narration: Narration | None  # None when the narration failed
    fitted: Mapping[str, Timeline]  # each narrated scene's timeline fitted to its video's frames
    failed: tuple[Failure, ...]


def fitted_timeline(timeline: Timeline, record: scene_cache.CacheRecord | None, quality: Quality) -> Timeline:
    """The timeline lasting exactly as long as the video's whole frames, so audio, subtitles
    and chapters of scenes laid end to end stay on the video's clock."""
    frames = record.frames if record is not None and record.frames else expected_frames(timeline, quality)
    return replace(timeline, total_s=frames / quality.fps)


def fitted_timelines(
    build: Build, narrated: Narrated, records: Mapping[str, scene_cache.CacheRecord]
) -> dict[str, Timeline]:
    return {name: fitted_timeline(t, records.get(name), build.quality) for name, t in narrated.timelines.items()}


@contextmanager
def mixing_ahead(
    build: Build, narrated: Narrated, reused: Mapping[str, scene_cache.CacheRecord], background: bool
) -> Iterator[MixAhead]:
    """With `background`, the narration is mixed, limited and encoded on another thread
    while the caller renders; either way the thread is done when the block ends."""
    expected = fitted_timelines(build, narrated, reused)
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="narration")
    try:
        job = pool.submit(prepare_audio, build, expected) if background else None
        yield MixAhead(expected, job)
    finally:
        pool.shutdown(wait=True)


def mix(build: Build, narrated: Narrated, records: Mapping[str, scene_cache.CacheRecord], ahead: MixAhead) -> Mixed:
    """The narration for the videos as rendered (`records`: every scene up to date)."""
    fitted = fitted_timelines(build, narrated, records)
    try:
        audio = ahead.job.result() if ahead.job is not None else None
        if audio is None or any(fitted[n].total_s != ahead.expected[n].total_s for n in fitted):
            audio = narration(build, fitted)  # only what differs is redone
    except Exception as err:  # noqa: BLE001 - reported; the renders are kept
        return Mixed(None, fitted, (Failure("narración", failure_message("audio", err, build.work.audio)),))
    return Mixed(audio, fitted, ())


def prepare_audio(build: Build, fitted: Mapping[str, Timeline]) -> Narration:
    """All the narration work that needs no render: the scenes' audio, and the lecture's
    joined narration when every scene is narrated."""
    audio = narration(build, fitted)
    if all(s.name in fitted for s in build.plan):
        lecture_audio(build, audio, {n: round(t.total_s * RATE_HZ) for n, t in fitted.items()})
    return audio


def narration(build: Build, fitted: Mapping[str, Timeline]) -> Narration:
    """Each scene's track (fitted to its frames), the lecture's sticky gain, each scene
    limited with it, and the chosen scenes encoded for their own MP4s."""
    from lecture.media import soundtrack as st

    def write_track(timeline: Timeline, track: Path) -> None:
        from voiceover.track import write_scene_track  # pydub: imported only when a track is made

        write_scene_track(timeline, track)

    folder = build.work.audio
    names = [s.name for s in build.plan if s.name in fitted]
    if not names:
        raise ValueError("ninguna escena tiene narración")
    raw: dict[str, tuple[Path, str]] = {}
    energies: dict[str, np.ndarray] = {}
    for name in names:
        timeline = fitted[name]
        sig = signature(["track", scene_cache.timing_signature(timeline), _clip_stamp(timeline)])
        track = folder / f"{name}.wav"
        unless_fresh(track, sig, partial(write_track, timeline, track), Kept(build.work.versions, KEPT_VERSIONS))
        raw[name] = (track, sig)
        energies[name] = _measured(folder / f"{name}.energies.json", sig, track)["energies"]

    raw_lufs = st.integrated_lufs([energies[n] for n in names])
    state = st.load_json(folder / "gain.json") or {}
    loss = state.get("loss_db", 0.0)
    gain = state.get("gain_db")
    if gain is None or abs(raw_lufs + gain - loss - TARGET_LUFS) > st.LOUDNESS_TOLERANCE_LU:
        gain = round(TARGET_LUFS - raw_lufs + loss, 2)
    samples = {n: round(fitted[n].total_s * RATE_HZ) for n in names}
    # Every scene narrated and on the packet grid: the lecture is encoded in stretches, which
    # also give each scene's true peak, stretch by stretch (see `_stretches`).
    gridded = names == _names(build.plan) and all(n % st.AAC_FRAME == 0 for n in samples.values())
    for attempt in range(GAIN_ATTEMPTS):
        limited: dict[str, tuple[Path, str]] = {}
        measures = {}
        for name in names:
            track, sig = raw[name]
            lsig = signature(["limited", sig, gain, CEILING_DBTP, st.LIMITER_HEADROOM_DB])
            out = folder / f"{name}.limited.wav"
            unless_fresh(out, lsig, partial(st.limit, track, out, gain), Kept(build.work.versions, KEPT_VERSIONS))
            limited[name] = (out, lsig)
            measures[name] = _measured(folder / f"{name}.limited.json", lsig, out, peak=not gridded)
        lufs = st.integrated_lufs([measures[n]["energies"] for n in names])
        if abs(lufs - TARGET_LUFS) <= st.LOUDNESS_TOLERANCE_LU or attempt == GAIN_ATTEMPTS - 1:
            break
        gain = round(gain + TARGET_LUFS - lufs, 2)
    st.save_json(folder / "gain.json", {"gain_db": gain, "loss_db": round(raw_lufs + gain - lufs, 3)})
    encoded: dict[str, tuple[Path, str]] = {}
    encoded_s: dict[str, float] = {}
    stretches: tuple[st.Stretch, ...] = ()
    if gridded:
        found, peaks = _stretches(build, fitted, limited, samples)
        stretches = tuple(found)
        peak = max(peaks.values(), default=float("-inf"))
        store = folder / STRETCHES_FOLDER
        for done in st.encode_stretches(_scene_pcm(fitted, limited, samples, names), stretches, store):
            encoded_s[done.scene] = encoded_s.get(done.scene, 0.0) + (done.end - done.start) / RATE_HZ
        _remember(store, stretches)
        for name in names:
            if name in build.chosen_names:
                own = [s for s in stretches if s.scene == name]
                m4a = folder / f"{name}.m4a"
                # Its own samples only: a neighbour's edit changes the rolls of this scene's edge
                # stretches, hence their bits in the lecture, but not what this file decodes to.
                sig = signature(["scene-stretches", [s.own for s in own]])
                unless_fresh(
                    m4a, sig, partial(st.stretches_to_m4a, store, own, m4a), Kept(build.work.versions, KEPT_VERSIONS)
                )
                encoded[name] = (m4a, sig)
    else:  # a scene without narration or off the grid: each scene encoded whole
        peak = max((measures[n]["true_peak_dbtp"] for n in names), default=float("-inf"))
        for name in names:
            if name in build.chosen_names:
                wav, lsig = limited[name]
                m4a = folder / f"{name}.m4a"
                if unless_fresh(m4a, lsig, partial(st.encode_scene, wav, m4a)):
                    encoded_s[name] = samples[name] / RATE_HZ
                encoded[name] = (m4a, lsig)
    return Narration(limited, encoded, Loudness(lufs, peak), gain, stretches, encoded_s)


STRETCHES_FOLDER = "stretches"
KEPT_LECTURES = 4  # the stretches of this many recent lectures are kept: undoing an edit encodes nothing
KEPT_VERSIONS = 4  # measurements, tracks and narration kept per scene, by signature
KEPT_OUTPUTS = 2  # versions of a scene's MP4 and of the subtitles kept (in the workspace's versions/)
# Versions of the lecture's own files (narration, silent and narrated video): one, the one
# before the last edit, since each is as large as the lecture.
KEPT_LECTURE = 1


def _scene_pcm(
    fitted: Mapping[str, Timeline], limited: Mapping[str, tuple[Path, str]], samples: Mapping[str, int], names
) -> list:
    from lecture.media import soundtrack as st

    return [
        st.ScenePcm(n, limited[n][0], samples[n], st.stretch_cuts([b.start_s for b in fitted[n].beats], samples[n]))
        for n in names
    ]


def _stretches(build: Build, fitted, limited, samples) -> tuple[list, dict[str, float]]:
    """The lecture's stretches, and each scene's true peak; each scene's hashes and peaks
    read from its limited PCM once per version (the last few versions kept), the peaks of
    stretches an earlier version had alike taken as they were."""
    from lecture.media import soundtrack as st

    scenes = _scene_pcm(fitted, limited, samples, _names(build.plan))
    hashes, peaks = [], {}
    for scene in scenes:
        path = build.work.audio / f"{scene.name}.stretches.json"
        sig = signature(["stretch-hashes", limited[scene.name][1], scene.samples, list(scene.cuts)])
        kept = st.load_json(path) or {}
        versions = kept.get("versions", {}) if isinstance(kept.get("versions"), dict) else {}
        data = versions.get(sig)
        if data is None:
            known = {k: v for version in versions.values() for k, v in version.get("peaks", {}).items()}
            data = st.scene_hashes(scene, known)
            versions = {sig: data, **{k: v for k, v in versions.items() if k != sig}}
            write_json(path, {"versions": dict(list(versions.items())[:KEPT_VERSIONS])})
        hashes.append(data)
        peaks[scene.name] = data["true_peak_dbtp"]
    return st.lecture_stretches(scenes, hashes), peaks


def _remember(store: Path, stretches) -> None:
    """Keep the stretches of the last `KEPT_LECTURES` lectures, delete the others."""
    from lecture.media import soundtrack as st

    index = store / "recent.json"
    recent = (st.load_json(index) or {}).get("lectures", [])
    now = [s.digest for s in stretches]
    recent = [now] + [r for r in recent if r != now][: KEPT_LECTURES - 1]
    write_json(index, {"lectures": recent})
    st.prune_stretches(store, {d for r in recent for d in r})


def lecture_audio(build: Build, audio: Narration, video_samples: Mapping[str, int]) -> tuple[Path, str]:
    """The lecture's narration as one AAC stream: (m4a, signature). Its stretches joined
    when it has them (each scene starts on the packet grid, so no scene drifts at a join);
    otherwise the scenes' limited PCM, each fitted to its video's samples, joined and
    encoded once."""
    from lecture.media import soundtrack as st

    names = _names(build.plan)
    folder = build.work.audio
    lecture = folder / "lecture.m4a"
    if audio.stretches and all(
        sum(s.end - s.start for s in audio.stretches if s.scene == n) == video_samples[n] for n in names
    ):
        sig = signature(["lecture-stretches", [s.digest for s in audio.stretches]])
        store = folder / STRETCHES_FOLDER
        unless_fresh(
            lecture,
            sig,
            partial(st.stretches_to_m4a, store, list(audio.stretches), lecture),
            Kept(build.work.versions, KEPT_LECTURE),
        )
        return lecture, sig
    sig = signature(["lecture-pcm", [[audio.limited[n][1], video_samples[n]] for n in names]])

    def make() -> None:
        pcm = folder / "lecture.wav"
        try:
            st.join_pcm([(audio.limited[n][0], video_samples[n]) for n in names], pcm)
            st.encode_lecture(pcm, lecture)
        finally:
            pcm.unlink(missing_ok=True)  # as large as the lecture; the m4a is what is kept

    unless_fresh(lecture, sig, make)
    return lecture, sig


def _names(plan: tuple[PlannedScene, ...]) -> list[str]:
    return [s.name for s in plan]


def _clip_stamp(timeline: Timeline) -> list:
    stamps = []
    for beat in timeline.beats:
        for seg in beat.segments:
            if seg.clip:
                st = Path(seg.clip).stat()
                # Clips are named by a hash of what they say; size and mtime catch a
                # re-recorded take kept under the same name.
                stamps.append([Path(seg.clip).name, st.st_size, st.st_mtime_ns, seg.start_s])
    return stamps


def _measured(path: Path, sig: str, wav: Path, peak: bool = False) -> dict:
    """Block energies (and true peak) of `wav`, kept beside it for its last few versions
    (by signature): undoing an edit measures nothing again."""
    from lecture.media import soundtrack as st

    kept = st.load_json(path) or {}
    versions = kept.get("versions", {}) if isinstance(kept.get("versions"), dict) else {}
    data = versions.get(sig)
    if data is None or (peak and "true_peak_dbtp" not in data):
        data = {"energies": st.block_energies(wav).tolist()}
        if peak:
            data["true_peak_dbtp"] = st.true_peak_dbtp(wav)
        versions = {sig: data, **{k: v for k, v in versions.items() if k != sig}}
        write_json(path, {"versions": dict(list(versions.items())[:KEPT_VERSIONS])})
    return {**data, "energies": np.asarray(data["energies"], dtype=float)}
