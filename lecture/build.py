"""Build the lecture at one quality: narrate, render what changed, mix, mux, subtitle.

Layout of the outputs (see renders/README.md):
  renders/<quality>/lecture.mp4         the whole lecture with narration
  renders/<quality>/scenes/<scene>.mp4  each scene with its own narration
  renders/<quality>/lecture.es.srt      Spanish subtitles (SubRip)
  renders/<quality>/lecture.es.vtt      Spanish subtitles (WebVTT)
  renders/<quality>/chapters.txt        YouTube chapters
Intermediate artefacts (silent renders, their records and logs, audio) live in .cache/build/.

Order: narrate every scene (cheap when nothing changed), decide from the cache keys which
scenes to render, render them in parallel while another thread mixes, limits and encodes
the narration (it needs only frame counts, known in advance), then mux each scene and join
the lecture's video by copying streams, with its narration encoded once as a whole
(see `lecture.soundtrack`).

Safety: every file is written under a temporary name and renamed; each step after the
render leaves a stamp (`<file>.sig`, the hash of its inputs) written after its output, so
a build killed at any moment redoes exactly the steps it had not finished. One build runs
at a time per checkout (a lock in the cache folder); a second one stops with a message.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from pathlib import Path

import numpy as np
from filelock import FileLock, Timeout
from rich.console import Console

from lecture import cache, integrity
from lecture.chapters import SceneSpan, chapters_text, make_chapters, youtube_problems
from lecture.display import BuildDisplay
from lecture.mux import concat_videos, mux_copy
from lecture.plan import REPO_ROOT, PlannedScene, load_plan, select
from lecture.preflight import check_tools
from lecture.qualities import Quality, get_quality
from lecture.render import RenderResult, RenderUnit, read_log, render_unit
from voiceover.atomic import atomic_path, write_json, write_text
from voiceover.timeline import Timeline, build_timeline, take_damage_notices


def renders_dir() -> Path:
    return Path(os.environ.get("FFN_RENDERS_DIR", REPO_ROOT / "renders"))


def build_dir() -> Path:
    base = os.environ.get("FFN_CACHE_DIR")
    return (Path(base) if base else REPO_ROOT / ".cache") / "build"


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:
        return os.cpu_count() or 1


@dataclass(frozen=True)
class MeasuredLoudness:
    """The lecture narration's loudness, measured when it was normalised and kept beside it
    (`voiceover.mix` and its scipy take seconds to import; a build with nothing to do skips it)."""

    integrated_lufs: float  # LUFS, ITU-R BS.1770
    true_peak_dbtp: float  # dBTP, 4x oversampled


@dataclass
class BuildReport:
    quality: str
    rendered: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    lecture: Path | None = None
    loudness: MeasuredLoudness | None = None
    seconds: float = 0.0
    order: list[str] = field(default_factory=list)  # the scenes this build was asked for
    render_seconds: dict[str, float] = field(default_factory=dict)
    video_seconds: float = 0.0  # length of lecture.mp4 when made
    subtitles: tuple[Path, ...] = ()
    chapters: Path | None = None
    notes: list[str] = field(default_factory=list)
    voices: list[str] = field(default_factory=list)  # who spoke, one line per distinct voice

    @property
    def ok(self) -> bool:
        return not self.failed


class BuildLocked(RuntimeError):
    """Another build holds this checkout's lock."""


# -- the lock ------------------------------------------------------------------------------
@contextmanager
def build_lock(quality: Quality) -> Iterator[None]:
    """One build at a time per checkout: the cache and the renders are shared by all qualities.

    The lock is an OS file lock, so a killed build (SIGKILL included) releases it."""
    path = build_dir() / ".build.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    info = path.with_name(".build.lock.json")
    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise BuildLocked(_locked_message(info, path)) from None
    try:
        write_json(info, {"pid": os.getpid(), "quality": quality.name, "started": datetime.now().strftime("%H:%M:%S")})
        yield
    finally:
        lock.release()


def _locked_message(info: Path, path: Path) -> str:
    try:
        data = json.loads(info.read_text(encoding="utf-8"))
        who = f" (pid {data['pid']}, calidad {data['quality']}, empezó a las {data['started']})"
    except (OSError, ValueError, KeyError):
        who = ""
    return (
        f"otra compilación de ffn-video está en curso en esta copia del proyecto{who}; "
        f"espera a que termine y vuelve a intentarlo (cerrojo: {path})"
    )


# -- the build -----------------------------------------------------------------------------
def build(
    quality_name: str = "preview",
    only: list[str] | None = None,
    jobs: int | None = None,
    executor: Executor | None = None,
    console: Console | None = None,
    plan_path: Path | None = None,
) -> BuildReport:
    """Bring `renders/<quality>/` up to date with the plan; render only what changed.

    `executor` runs the renders (default: `jobs` threads, each driving its own manim
    process); any `concurrent.futures.Executor` works, e.g. a Dask or Ray one."""
    console = console or Console(stderr=True)
    quality = get_quality(quality_name)
    check_tools()  # before any work: a missing program is named now, not after the renders
    plan = load_plan(plan_path)
    chosen = select(plan, only)
    if jobs is not None and jobs < 1:
        raise ValueError(f"--jobs must be at least 1 (got {jobs})")
    with build_lock(quality):
        return _build_locked(quality, plan, chosen, jobs, executor, console)


def _build_locked(
    quality: Quality,
    plan: tuple[PlannedScene, ...],
    chosen: tuple[PlannedScene, ...],
    jobs: int | None,
    executor: Executor | None,
    console: Console,
) -> BuildReport:
    start = time.monotonic()
    integrity.take_notices()  # only this build's findings are reported
    take_damage_notices()
    out_dir = renders_dir() / quality.name
    work_root = build_dir() / quality.name
    _clean_leftovers([out_dir, work_root])
    report = BuildReport(quality.name, order=[s.name for s in chosen])
    chosen_names = {s.name for s in chosen}

    from ffn_core.numbers import number

    def current(key: str):
        return number(key).value

    digest = cache.numbers_digest()
    fresh: dict[str, cache.CacheRecord] = {}
    units: list[tuple[RenderUnit, str]] = []
    timelines: dict[str, Timeline] = {}
    with BuildDisplay(console) as display:
        for scene in plan:
            try:
                timelines[scene.name] = build_timeline(scene.script, script=scene.load_script())
            except Exception as err:  # noqa: BLE001 - one scene's narration must not stop the others
                if scene.name in chosen_names:
                    message = _failure("narración", err, _voice_cache())
                    report.failed[scene.name] = message
                    display.failed(scene.name, message)
        from lecture.display import describe_voice

        report.voices = list(
            dict.fromkeys(describe_voice(timelines[s.name].voice) for s in chosen if s.name in timelines)
        )
        for scene in plan:
            if scene.name not in timelines:
                continue
            work = work_root / scene.name
            key = cache.scene_key(scene, timelines[scene.name], quality)
            record = cache.load_record(work, key)
            if cache.is_fresh(record, key, current, work, digest):
                fresh[scene.name] = record
                cache.touch(work, key)
                if scene.name in chosen_names:
                    report.cached.append(scene.name)
                    display.cached(scene.name)
            elif scene.name in chosen_names:
                unit = _unit(scene, quality, timelines[scene.name], work, key)
                units.append((unit, key))
                display.waiting(scene.name, unit.expected_frames)
        # The narration needs only the frame counts, known before rendering: with more than
        # one job it is mixed, limited and encoded on another thread while the scenes render
        # (with one job everything runs in turn).
        expected = {name: _fitted(timelines[name], fresh.get(name), quality) for name in timelines}
        background = (jobs or default_jobs()) > 1 or executor is not None
        audio_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="narration")
        audio_job = audio_pool.submit(_prepare_audio, plan, expected, work_root, chosen_names) if background else None
        try:
            if units:
                # Longest first: the last scene to start should be a short one.
                units.sort(key=lambda u: u[0].expected_frames, reverse=True)
                for unit, key, result in _render_all(units, jobs, executor, display):
                    record = _record(result, unit, key, digest, plan, timelines, quality, report, display)
                    if record is not None:
                        fresh[unit.scene] = record
            for scene in chosen:
                if scene.name in fresh:
                    cache.prune(work_root / scene.name)
            fitted = {name: _fitted(timelines[name], fresh.get(name), quality) for name in timelines}
            try:
                audio = audio_job.result() if audio_job is not None else None
                if audio is None or any(fitted[n].total_s != expected[n].total_s for n in fitted):
                    audio = _narration(plan, fitted, work_root, chosen_names)  # only what differs is redone
            except Exception as err:  # noqa: BLE001 - reported; the renders are kept
                report.failed["narración"] = _failure("audio", err, work_root / "audio")
                audio = None
        finally:
            audio_pool.shutdown(wait=True)
        if audio is not None:
            report.loudness = audio.loudness
            for scene in chosen:
                if scene.name in fresh and scene.name not in report.failed:
                    try:
                        if _scene_video(scene.name, fresh[scene.name], work_root, audio.encoded[scene.name], out_dir):
                            display.step(f"narración mezclada en scenes/{scene.name}.mp4")
                    except Exception as err:  # noqa: BLE001 - reported with the scene's name
                        report.failed[scene.name] = _failure("mux", err, out_dir / "scenes")
                        display.failed(scene.name, report.failed[scene.name])

        missing = [s.name for s in plan if s.name not in fresh]
        if report.failed:
            report.notes.append("lecture.mp4 no se actualizó porque algo falló")
        elif missing:
            report.notes.append(
                f"lecture.mp4 no se actualizó: sin render al día de {', '.join(missing)} "
                f"(ffn-video build --quality {quality.name} las renderiza)"
            )
        else:
            display.step("uniendo la clase")
            try:
                _lecture(plan, fresh, fitted, audio, work_root, out_dir, report)
            except Exception as err:  # noqa: BLE001 - reported, exit status non-zero
                report.failed["clase"] = _failure("lecture.mp4", err, out_dir)
    report.notes.extend(integrity.take_notices())
    report.notes.extend(take_damage_notices())
    report.seconds = time.monotonic() - start
    return report


def _render_all(
    units: list[tuple[RenderUnit, str]], jobs: int | None, executor: Executor | None, display: BuildDisplay
) -> Iterator[tuple[RenderUnit, str, RenderResult]]:
    """Run the units on `executor` (or our own threads), yielding results as they finish."""
    own = executor is None
    pool = executor or ThreadPoolExecutor(
        max_workers=min(jobs or default_jobs(), len(units)), thread_name_prefix="render"
    )
    # Progress callbacks can only reach this process's display from threads of it.
    local = isinstance(pool, ThreadPoolExecutor)
    futures: dict[Future, tuple[RenderUnit, str]] = {}
    try:
        for unit, key in units:
            if local:
                fut = pool.submit(render_unit, unit, display.callback(unit.scene))
            else:
                fut = pool.submit(render_unit, unit)
                display.rendering(unit.scene)
            futures[fut] = (unit, key)
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for fut in finished:
                unit, key = futures[fut]
                try:
                    result = fut.result()
                except Exception as err:  # noqa: BLE001 - an executor's failure, not manim's
                    result = RenderResult(unit.scene, False, "", "", 0.0, f"{type(err).__name__}: {err}")
                yield unit, key, result
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)


def _unit(scene: PlannedScene, quality: Quality, timeline: Timeline, work: Path, key: str) -> RenderUnit:
    # The unit reads its own copy of the timeline, so a narration edit during the render
    # (watch mode) cannot reach a render already keyed on the old timing.
    timeline_copy = work / f"{key}.timeline.json"
    write_json(timeline_copy, timeline.to_json())
    return RenderUnit(
        scene=scene.name,
        module=str(scene.module),
        class_name=scene.class_name,
        width_px=quality.width_px,
        height_px=quality.height_px,
        fps=quality.fps,
        timeline_json=str(timeline_copy),
        media_dir=str(work / "media"),
        output=str(work / f"{key}.mp4"),
        log=str(work / f"{key}.log.json"),
        expected_frames=round(timeline.total_s * quality.fps),
    )


def _record(
    result: RenderResult,
    unit: RenderUnit,
    key: str,
    digest: str,
    plan,
    timelines,
    quality: Quality,
    report: BuildReport,
    display: BuildDisplay,
) -> cache.CacheRecord | None:
    if not result.ok:
        error = result.error
        if _is_disk_full(error) or _nearly_full(Path(unit.output).parent):
            error = _disk_full_message("render", Path(unit.output).parent)
        report.failed[unit.scene] = error
        display.failed(unit.scene, error)
        return None
    scene = next(s for s in plan if s.name == unit.scene)
    if cache.scene_key(scene, timelines[unit.scene], quality) != key:
        error = f"{scene.module}: the scene's sources changed while it rendered; the render is discarded (build again)"
        report.failed[unit.scene] = error
        display.failed(unit.scene, error)
        return None
    log = read_log(result.log)
    work = Path(unit.output).parent
    record = cache.CacheRecord(
        key=key,
        video=Path(result.output).name,
        numbers_read=log["numbers_read"],
        log=Path(result.log).name,
        frames=int(log["frames"]),
        fps=float(log["fps"]),
        numbers_digest=digest,
        render_s=result.seconds,
        extra={"video_seal": integrity.seal(Path(result.output)).to_json()},
    )
    cache.save_record(work, record)
    report.rendered.append(unit.scene)
    report.render_seconds[unit.scene] = result.seconds
    display.done(unit.scene, result.seconds)
    return record


_RATE_HZ = 48_000  # the narration's sample rate (lecture.soundtrack.RATE_HZ, without importing it)


def _fitted(timeline: Timeline, record: cache.CacheRecord | None, quality: Quality) -> Timeline:
    """The timeline lasting exactly as long as the video's whole frames, so audio, subtitles
    and chapters of scenes laid end to end stay on the video's clock."""
    frames = record.frames if record is not None and record.frames else round(timeline.total_s * quality.fps)
    return replace(timeline, total_s=frames / quality.fps)


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


@dataclass(frozen=True)
class Narration:
    """The narration of every scene, limited with the lecture's gain: (wav, signature)."""

    limited: dict[str, tuple[Path, str]]
    encoded: dict[str, tuple[Path, str]]  # the chosen scenes' narration alone, as AAC: (m4a, signature)
    loudness: MeasuredLoudness
    gain_db: float


def _narration(plan, fitted: dict[str, Timeline], work_root: Path, chosen: set[str]) -> Narration:
    """Each scene's track (fitted to its frames), the lecture's sticky gain, each scene
    limited with it, and the chosen scenes encoded for their own MP4s; only what changed
    is made again (see `lecture.soundtrack`)."""
    from lecture import soundtrack as st

    def write_track(timeline: Timeline, track: Path) -> None:
        from voiceover.mix import write_scene_track  # scipy: seconds to import, only when needed

        write_scene_track(timeline, track)

    folder = work_root / "audio"
    names = [s.name for s in plan if s.name in fitted]
    if not names:
        raise ValueError("no scene has narration")
    raw: dict[str, tuple[Path, str]] = {}
    energies: dict[str, np.ndarray] = {}
    for name in names:
        timeline = fitted[name]
        sig = _signature(["track", cache.timing_signature(timeline), _clip_stamp(timeline)])
        track = folder / f"{name}.wav"
        _unless_fresh(track, sig, partial(write_track, timeline, track))
        raw[name] = (track, sig)
        energies[name] = _measured(folder / f"{name}.energies.json", sig, track)["energies"]

    raw_lufs = st.integrated_lufs([energies[n] for n in names])
    state = st.load_json(folder / "gain.json") or {}
    loss = state.get("loss_db", 0.0)
    gain = state.get("gain_db")
    if gain is None or abs(raw_lufs + gain - loss - st.TARGET_LUFS) > st.LOUDNESS_TOLERANCE_LU:
        gain = round(st.TARGET_LUFS - raw_lufs + loss, 2)
    for attempt in range(4):  # limiting takes a little loudness away: correct the gain from the result
        limited: dict[str, tuple[Path, str]] = {}
        measures = {}
        for name in names:
            track, sig = raw[name]
            lsig = _signature(["limited", sig, gain, st.CEILING_DBTP, st.LIMITER_HEADROOM_DB])
            out = folder / f"{name}.limited.wav"
            _unless_fresh(out, lsig, partial(st.limit, track, out, gain))
            limited[name] = (out, lsig)
            measures[name] = _measured(folder / f"{name}.limited.json", lsig, out, peak=True)
        lufs = st.integrated_lufs([measures[n]["energies"] for n in names])
        if abs(lufs - st.TARGET_LUFS) <= st.LOUDNESS_TOLERANCE_LU or attempt == 3:
            break
        gain = round(gain + st.TARGET_LUFS - lufs, 2)
    st.save_json(folder / "gain.json", {"gain_db": gain, "loss_db": round(raw_lufs + gain - lufs, 3)})
    peak = max((measures[n]["true_peak_dbtp"] for n in names), default=float("-inf"))
    encoded = {}
    for name in names:
        if name in chosen:
            wav, lsig = limited[name]
            m4a = folder / f"{name}.m4a"
            _unless_fresh(m4a, lsig, partial(st.encode_scene, wav, m4a))
            encoded[name] = (m4a, lsig)
    return Narration(limited, encoded, MeasuredLoudness(lufs, peak), gain)


def _prepare_audio(plan, fitted: dict[str, Timeline], work_root: Path, chosen: set[str]) -> Narration:
    """All the narration work that needs no render: the scenes' audio, and the lecture's
    joined narration when every scene is narrated (reused as is when the renders come out
    with the frame counts expected, as they do)."""
    audio = _narration(plan, fitted, work_root, chosen)
    if all(s.name in fitted for s in plan):
        _lecture_audio(plan, audio, {n: round(t.total_s * _RATE_HZ) for n, t in fitted.items()}, work_root)
    return audio


def _lecture_audio(plan, audio: Narration, video_samples: dict[str, int], work_root: Path) -> tuple[Path, str]:
    """The lecture's narration as one AAC stream: the scenes' limited PCM, each fitted to its
    video's samples, joined and encoded once, so no scene drifts at a join: (m4a, signature)."""
    from lecture import soundtrack as st

    names = [s.name for s in plan]
    folder = work_root / "audio"
    narration = folder / "lecture.m4a"
    sig = _signature(["lecture-pcm", [[audio.limited[n][1], video_samples[n]] for n in names]])

    def make() -> None:
        pcm = folder / "lecture.wav"
        try:
            st.join_pcm([(audio.limited[n][0], video_samples[n]) for n in names], pcm)
            st.encode_lecture(pcm, narration)
        finally:
            pcm.unlink(missing_ok=True)  # as large as the lecture; the m4a is what is kept

    _unless_fresh(narration, sig, make)
    return narration, sig


def _measured(path: Path, sig: str, wav: Path, peak: bool = False) -> dict:
    """Block energies (and true peak) of `wav`, kept beside it while its signature holds."""
    from lecture import soundtrack as st

    data = st.load_json(path)
    if data is None or data.get("sig") != sig:
        data = {"sig": sig, "energies": st.block_energies(wav).tolist()}
        if peak:
            data["true_peak_dbtp"] = st.true_peak_dbtp(wav)
        write_json(path, data)
    data["energies"] = np.asarray(data["energies"], dtype=float)
    return data


def _scene_video(
    name: str, record: cache.CacheRecord, work_root: Path, encoded: tuple[Path, str], out_dir: Path
) -> bool:
    """The scene's own MP4: its video and its narration (at the lecture's loudness), both
    copied as encoded; True when remade."""
    m4a, sig = encoded
    video = record.video_path(work_root / name)
    out = out_dir / "scenes" / f"{name}.mp4"
    return _unless_fresh(out, _signature([record.key, sig]), lambda: mux_copy(video, m4a, out))


def _lecture(plan, fresh, fitted, audio: Narration, work_root: Path, out_dir: Path, report: BuildReport) -> None:
    from lecture import soundtrack as st

    names = [s.name for s in plan]
    videos = [fresh[n].video_path(work_root / n) for n in names]
    video_sig = _signature(["silent", [fresh[n].key for n in names]])
    silent = work_root / "lecture.silent.mp4"
    _unless_fresh(silent, video_sig, lambda: concat_videos(videos, silent))

    narration, audio_sig = _lecture_audio(
        plan, audio, {n: round(fresh[n].duration_s * st.RATE_HZ) for n in names}, work_root
    )

    lecture = out_dir / "lecture.mp4"
    _unless_fresh(lecture, _signature([video_sig, audio_sig]), lambda: mux_copy(silent, narration, lecture))
    report.lecture = lecture
    # Which scene files the lecture is made of, in order: what `ffn-video check` compares
    # the lecture's (or the YouTube video's) narration with, scene by scene.
    write_json(
        out_dir / "scenes.json",
        {
            "scenes": [
                {"name": n, "file": f"scenes/{n}.mp4", "frames": fresh[n].frames, "fps": fresh[n].fps} for n in names
            ]
        },
    )
    report.video_seconds = sum(fitted[n].total_s for n in names)

    from voiceover.subtitles import write_srt, write_vtt

    ordered = [fitted[n] for n in names]
    text_sig = _signature(
        [
            "subtitles",
            [
                [t.total_s, [[b.start_s, [[s.text, s.start_s, s.duration_s] for s in b.segments]] for b in t.beats]]
                for t in ordered
            ],
        ]
    )
    srt_path, vtt_path = out_dir / "lecture.es.srt", out_dir / "lecture.es.vtt"
    _unless_fresh(srt_path, text_sig, lambda: _atomic(srt_path, lambda tmp: write_srt(ordered, tmp)))
    _unless_fresh(vtt_path, text_sig, lambda: _atomic(vtt_path, lambda tmp: write_vtt(ordered, tmp)))
    report.subtitles = (srt_path, vtt_path)

    spans, clock = [], 0.0
    for n, t in zip(names, ordered):
        spans.append(SceneSpan(n, t.title, clock, t.total_s))
        clock += t.total_s
    chapters, merges = make_chapters(spans)
    report.notes.extend(f"capítulos: {m}" for m in merges)
    report.notes.extend(f"capítulos: {p}" for p in youtube_problems(chapters, clock))
    report.chapters = out_dir / "chapters.txt"
    write_text(report.chapters, chapters_text(chapters, clock))


def _atomic(target: Path, write) -> None:
    with atomic_path(target) as tmp:
        write(tmp)


# -- failures ------------------------------------------------------------------------------
DISK_FULL_SIGNS = ("No space left on device", "File too large", "Disk quota exceeded")


def _is_disk_full(err) -> bool:
    import errno

    seen = err
    while isinstance(seen, BaseException):
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
            return True
        seen = seen.__cause__ or seen.__context__
    return any(sign in str(err) for sign in DISK_FULL_SIGNS)


def _disk_full_message(step: str, folder: Path) -> str:
    return (
        f"{step}: disco lleno al escribir en {folder}. Libera espacio y vuelve a compilar: "
        f"lo ya terminado se conserva y no se repite, y la lecture.mp4 anterior sigue intacta."
    )


def _failure(step: str, err: BaseException, folder: Path) -> str:
    """The report's line for a failed step: a full disk is said as such, with the folder
    (seen in the error, or in the folder's free space when a tool failed without saying)."""
    if _is_disk_full(err) or _nearly_full(folder):
        return _disk_full_message(step, folder)
    return f"{step}: {err}"


def _nearly_full(folder: Path, margin_bytes: int = 1 << 20) -> bool:
    import shutil

    try:
        return shutil.disk_usage(folder).free < margin_bytes
    except OSError:
        return False


def _voice_cache() -> Path:
    from voiceover.paths import cache_dir

    return cache_dir()


def _clean_leftovers(roots: list[Path]) -> None:
    """Remove what a killed build left half-made: temporary files and manim media folders.
    Safe because the caller holds the lock: no live build owns them."""
    for root in roots:
        if not root.exists():
            continue
        for part in root.rglob("*.part"):
            part.unlink(missing_ok=True)
        for media in root.glob("*/media/run-*"):
            _rmtree(media)


def _rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _signature(parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:20]


def _unless_fresh(output: Path, signature: str, make) -> bool:
    """Run `make` unless `output` exists, was made from inputs with this signature and is
    intact (its seal holds); True when it ran. The stamp is written after the output, so
    an interrupted step is redone next time, and a damaged output is made again."""
    stamp = output.with_name(output.name + ".sig")
    recorded = _read_stamp(stamp)
    if output.exists() and recorded.get("sig") == signature:
        if integrity.intact(output, integrity.Seal.from_json(recorded.get("seal"))):
            return False
        integrity.damaged(output)
    stamp.unlink(missing_ok=True)
    make()
    write_json(stamp, {"sig": signature, "seal": integrity.seal(output).to_json()})
    return True


def _read_stamp(stamp: Path) -> dict:
    try:
        data = json.loads(stamp.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}
