"""Build the lecture at one quality: narrate, render what changed, mix, mux.

Layout of the outputs (see renders/README.md):
  renders/<quality>/lecture.mp4         the whole lecture with narration
  renders/<quality>/scenes/<scene>.mp4  each scene with its own narration
Intermediate artefacts (silent renders, scene records, audio) live in .cache/build/.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock, Timeout
from rich.console import Console

from lecture import cache
from lecture.mux import concat_videos, mux
from lecture.plan import REPO_ROOT, PlannedScene, load_plan, select
from lecture.qualities import Quality, get_quality
from lecture.render import RenderResult, RenderUnit, read_log, render_unit
from voiceover.atomic import write_text
from voiceover.mix import Loudness, concat_wavs, measure, normalize, write_scene_track
from voiceover.timeline import Timeline, build_timeline, timeline_path


def renders_dir() -> Path:
    return Path(os.environ.get("FFN_RENDERS_DIR", REPO_ROOT / "renders"))


def build_dir() -> Path:
    base = os.environ.get("FFN_CACHE_DIR")
    return (Path(base) if base else REPO_ROOT / ".cache") / "build"


@dataclass
class BuildReport:
    quality: str
    rendered: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    lecture: Path | None = None
    loudness: Loudness | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed


class BuildLocked(RuntimeError):
    pass


def build(quality_name: str = "preview", only: list[str] | None = None, jobs: int | None = None,
          executor: Executor | None = None, console: Console | None = None) -> BuildReport:
    console = console or Console(stderr=True)
    quality = get_quality(quality_name)
    out_dir = renders_dir() / quality.name
    out_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(out_dir / ".build.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise BuildLocked(f"another ffn-video build is already running for quality '{quality.name}' "
                          f"(lock: {out_dir / '.build.lock'}); wait for it to finish") from None
    try:
        return _build_locked(quality, only, jobs, executor, console, out_dir)
    finally:
        lock.release()


def _build_locked(quality: Quality, only, jobs, executor, console, out_dir: Path) -> BuildReport:
    start = time.monotonic()
    plan = load_plan()
    chosen = select(plan, only)
    report = BuildReport(quality.name)

    timelines: dict[str, Timeline] = {}
    for scene in plan:
        timelines[scene.name] = build_timeline(scene.script)
        console.print(f"[dim]narración[/] {scene.name}: {timelines[scene.name].total_s:.1f} s")

    from ffn_core.numbers import number

    current = lambda key: number(key).value  # noqa: E731
    units: list[RenderUnit] = []
    keys: dict[str, str] = {}
    for scene in chosen:
        work = build_dir() / quality.name / scene.name
        key = cache.scene_key(scene, timelines[scene.name], quality)
        keys[scene.name] = key
        if cache.is_fresh(cache.load_record(work), key, current):
            report.cached.append(scene.name)
            console.print(f"[green]caché[/] {scene.name}")
            continue
        units.append(_unit(scene, quality, timelines[scene.name], work, key))

    if units:
        own_pool = executor is None
        pool = executor or ProcessPoolExecutor(max_workers=jobs or os.cpu_count() or 1)
        try:
            for unit in units:
                console.print(f"[yellow]renderizando[/] {unit.scene}")
            for unit, result in zip(units, pool.map(render_unit, units)):
                _record(result, unit, keys, report, console)
        finally:
            if own_pool:
                pool.shutdown()

    audio = build_dir() / "audio"
    signatures: dict[str, str] = {}
    for scene in plan:
        sig = _signature(["track", cache.timing_signature(timelines[scene.name]),
                          [s.clip for b in timelines[scene.name].beats for s in b.segments]])
        signatures[scene.name] = sig
        track = audio / f"{scene.name}.wav"
        _unless_fresh(track, sig, lambda: write_scene_track(timelines[scene.name], track))
        record = cache.load_record(build_dir() / quality.name / scene.name)
        if scene not in chosen or scene.name in report.failed or record is None:
            continue
        norm = audio / f"{scene.name}.norm.wav"
        _unless_fresh(norm, sig, lambda: normalize(track, norm))
        out = out_dir / "scenes" / f"{scene.name}.mp4"
        _unless_fresh(out, _signature([record.video, sig]), lambda: mux(Path(record.video), norm, out))

    if report.ok:
        records = [cache.load_record(build_dir() / quality.name / s.name) for s in plan]
        if all(r is not None for r in records):
            videos = [Path(r.video) for r in records]
            lecture_sig = _signature([[str(v) for v in videos], [signatures[s.name] for s in plan]])
            silent = build_dir() / quality.name / "lecture.silent.mp4"
            _unless_fresh(silent, lecture_sig, lambda: concat_videos(videos, silent))
            raw, norm = audio / "lecture.wav", audio / "lecture.norm.wav"
            audio_sig = _signature([signatures[s.name] for s in plan])
            _unless_fresh(raw, audio_sig, lambda: concat_wavs([audio / f"{s.name}.wav" for s in plan], raw))
            _unless_fresh(norm, audio_sig, lambda: normalize(raw, norm))
            report.loudness = measure(norm)
            lecture = out_dir / "lecture.mp4"
            _unless_fresh(lecture, lecture_sig, lambda: mux(silent, norm, lecture))
            report.lecture = lecture
    report.seconds = time.monotonic() - start
    return report


def _unit(scene: PlannedScene, quality: Quality, timeline: Timeline, work: Path, key: str) -> RenderUnit:
    return RenderUnit(
        scene=scene.name, module=str(scene.module), class_name=scene.class_name,
        width_px=quality.width_px, height_px=quality.height_px, fps=quality.fps,
        timeline_json=str(timeline_path(timeline.scene)), media_dir=str(work / "media"),
        output=str(work / f"{key}.mp4"), log=str(work / f"{key}.log.json"))


def _record(result: RenderResult, unit: RenderUnit, keys, report: BuildReport, console: Console) -> None:
    if not result.ok:
        report.failed[unit.scene] = result.error
        console.print(f"[red]falló[/] {unit.scene}:\n{result.error}")
        return
    log = read_log(result.log)
    work = Path(unit.output).parent
    cache.save_record(work, cache.CacheRecord(keys[unit.scene], result.output, log["numbers_read"]))
    report.rendered.append(unit.scene)
    console.print(f"[green]listo[/] {unit.scene} ({result.seconds:.1f} s)")


def _signature(parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:20]


def _unless_fresh(output: Path, signature: str, make) -> None:
    """Run `make` unless `output` exists and was made from inputs with this signature.

    The stamp is written after the output, so an interrupted step is redone next time."""
    stamp = output.with_name(output.name + ".sig")
    if output.exists() and stamp.exists() and stamp.read_text(encoding="utf-8") == signature:
        return
    stamp.unlink(missing_ok=True)
    make()
    write_text(stamp, signature)
