"""The publishing render unsplit against chunked over N Dask workers, side by side in one run.

Run through `benchmarks/bench_build.py --quality 1080p --only ESCENA --workers N` (see its
docstring for what is printed). Renders go to a temporary folder; the narration comes from
the usual voice cache (synthesised there first when missing, as a build would).

The CPU seconds of one and the same render vary by 10 to 30 % from one run to the next on
a shared machine (measured here: 114 to 151 s for one scene), more than the overhead to
be measured. So the two renders alternate, `--repeat` times (unsplit, chunked, unsplit,
...), each chunked run is compared with the unsplit run just before it, and the verdict
is on the median of those ratios. What chunking adds by construction is also measured
inside the same runs, apart from that noise: each manim process records the CPU seconds
it spent before its first drawn frame (its start and the skipped part of `construct()`);
the frames after that are the same work split or not.
"""

from __future__ import annotations

import heapq
import os
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from rich.console import Console

from lecture.build.display import BuildDisplay
from lecture.farm.chunk import ChunkUnit, render_chunk
from lecture.farm.cluster import dask_executor, parse_scheduler
from lecture.farm.cuts import total_frames
from lecture.farm.jobs import ChunkPolicy, SceneJob, run_chunked
from lecture.farm.launcher import RenderUnit
from lecture.farm.runners import RemoteRunner
from lecture.farm.scene_cache import scene_key
from lecture.media.ffmpeg import framemd5
from lecture.plan import load_plan, select
from lecture.qualities import get_quality
from voiceover.atomic import write_json
from voiceover.timing import build_timeline

OVERHEAD_TARGET = 1.15
SPEEDUP_TARGET_16 = 6.0


@dataclass(frozen=True)
class Run:
    """One render of the measured scenes, split or not: seconds of wall time and of CPU."""

    wall_s: float
    cpu_s: float
    cpu_to_first_s: float  # of cpu_s, before each process's first drawn frame (start, skipped construct())
    chunk_cpu_s: tuple[float, ...] = ()  # each chunk's CPU seconds (chunked runs)

    @property
    def drawing_cpu_s(self) -> float:
        return self.cpu_s - self.cpu_to_first_s


def predicted_wall_s(costs_s: list[float], workers: int) -> float:
    """Wall time of `costs_s` on `workers` single-core workers: longest first onto the
    least-loaded worker (LPT)."""
    loads = [0.0] * max(workers, 1)
    heapq.heapify(loads)
    for cost in sorted(costs_s, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + cost)
    return max(loads)


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def verdict(ok: bool) -> str:
    return "cumple" if ok else "NO cumple"


def bench_chunks(
    quality_name: str, only: list[str] | None, workers: int, chunk_s: float | None, keep: bool, repeat: int = 3
) -> int:
    if repeat < 1:
        raise SystemExit(f"--repeat must be at least 1 (got {repeat})")
    quality = get_quality(quality_name)
    scenes = select(load_plan(), only)
    timelines = {s.name: build_timeline(s.script, script=s.load_script()) for s in scenes}
    video_s = sum(total_frames(timelines[s.name], quality.fps) for s in scenes) / quality.fps
    tmp = Path(tempfile.mkdtemp(prefix="ffn-bench-chunks-"))
    console = Console(stderr=True)
    try:

        def job(scene, tag: str) -> SceneJob:
            work = tmp / tag / scene.name
            work.mkdir(parents=True, exist_ok=True)
            key = scene_key(scene, timelines[scene.name], quality)
            timeline_copy = work / f"{key}.timeline.json"
            write_json(timeline_copy, timelines[scene.name].to_json())
            unit = RenderUnit(
                scene.name, str(scene.module), scene.class_name, quality.width_px, quality.height_px, quality.fps,
                str(timeline_copy), str(work / "media"), str(work / f"{key}.mp4"), str(work / f"{key}.log.json"),
                total_frames(timelines[scene.name], quality.fps),
            )  # fmt: skip
            return SceneJob(unit, key)

        def unsplit(rep: int) -> tuple[Run, dict[str, Path]] | None:
            """Each scene whole, in one manim process, one after another."""
            wall = cpu = first = 0.0
            videos = {}
            for scene in scenes:
                u = job(scene, f"unsplit-{rep}").unit
                result = render_chunk(
                    ChunkUnit(
                        u.scene, 0, 1, u.module, u.class_name, u.width_px, u.height_px, u.fps, 0, None,
                        u.timeline_json, u.media_dir, u.output, u.log, expected_frames=u.expected_frames,
                    )
                )  # fmt: skip
                if not result.ok:
                    print(f"«{scene.name}» falló sin trocear:\n{result.error}")
                    return None
                wall, cpu, first = wall + result.seconds, cpu + result.cpu_s, first + result.cpu_to_first_s
                videos[scene.name] = Path(result.output)
            return Run(wall, cpu, first), videos

        def chunked(rep: int, executor) -> tuple[Run, dict[str, Path], int] | None:
            """Every scene cut into chunks, on the cluster."""
            jobs = [job(s, f"chunked-{rep}") for s in scenes]
            start = time.monotonic()
            with BuildDisplay(console) as display:
                results = list(
                    run_chunked(
                        jobs, executor, display, scenes={s.name: s for s in scenes}, timelines=timelines,
                        quality=quality, policy=ChunkPolicy(workers, chunk_s), numbers_digest="bench",
                    )
                )  # fmt: skip
            wall = time.monotonic() - start
            costs, first, videos = [], 0.0, {}
            for scene_job, result, outcomes in results:
                if not result.ok:
                    print(f"«{scene_job.unit.scene}» falló troceada:\n{result.error}")
                    return None
                videos[scene_job.unit.scene] = Path(result.output)
                for o in outcomes:
                    costs.append(o.cpu_s)
                    first += o.cpu_to_first_s
                    print(
                        f"    trozo {o.index + 1}/{o.count} de {o.scene}: fotogramas {o.start_frame}-{o.end_frame}, "
                        f"{o.seconds:6.1f} s de pared, {o.cpu_s:6.1f} s de CPU, {o.cpu_to_first_s:5.1f} de ellos "
                        f"antes de su primer fotograma ({o.worker})"
                    )
            return Run(wall, sum(costs), first, tuple(costs)), videos, len(costs)

        print(
            f"{len(scenes)} escena(s) ({', '.join(s.name for s in scenes)}), {video_s:.1f} s de vídeo a "
            f"{quality.name} ({quality.width_px}x{quality.height_px}, {quality.fps} fps); {cores()} núcleos; "
            f"{workers} trabajadores de Dask; {repeat} repeticion(es) alternas",
            flush=True,
        )
        started = time.monotonic()
        pairs: list[tuple[Run, Run]] = []
        same = True
        n_chunks = 0
        with dask_executor(parse_scheduler(f"local:{workers}")) as cluster:
            cluster_s = time.monotonic() - started
            for rep in range(repeat):
                whole = unsplit(rep)
                if whole is None:
                    return 1
                cut = chunked(rep, RemoteRunner(cluster.executor))
                if cut is None:
                    return 1
                (u, u_videos), (c, c_videos, n_chunks) = whole, cut
                same &= all(framemd5(c_videos[name]) == framemd5(video) for name, video in u_videos.items())
                pairs.append((u, c))
                print(
                    f"  repetición {rep + 1}: sin trocear {u.wall_s:6.1f} s de pared, {u.cpu_s:6.1f} s de CPU; "
                    f"troceada {c.wall_s:6.1f} s de pared, {c.cpu_s:6.1f} s de CPU; "
                    f"sobrecoste {c.cpu_s / u.cpu_s:.3f}",
                    flush=True,
                )
                shutil.rmtree(tmp / f"unsplit-{rep}", ignore_errors=True)
                shutil.rmtree(tmp / f"chunked-{rep}", ignore_errors=True)
        report(pairs, n_chunks, cluster_s, same, quality.name, workers, video_s)
        if keep:
            print(f"copia conservada en {tmp} (sin los renders, borrados tras cada repetición)")
        return 0 if same else 1
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


def report(
    pairs: list[tuple[Run, Run]],
    n_chunks: int,
    cluster_s: float,
    same: bool,
    quality: str,
    workers: int,
    video_s: float,
) -> None:
    def med(values) -> float:
        return statistics.median(list(values))

    unsplit_wall, unsplit_cpu = med(u.wall_s for u, _ in pairs), med(u.cpu_s for u, _ in pairs)
    chunked_wall, chunked_cpu = med(c.wall_s for _, c in pairs), med(c.cpu_s for _, c in pairs)
    ratios = [c.cpu_s / u.cpu_s for u, c in pairs]
    overhead = med(ratios)
    # By construction: the CPU seconds spent before the first drawn frame, beyond the unsplit render's own.
    fixed = med((u.cpu_s + c.cpu_to_first_s - u.cpu_to_first_s) / u.cpu_s for u, c in pairs)
    drawing = med(c.drawing_cpu_s / u.drawing_cpu_s for u, c in pairs)
    lo, hi = min(u.cpu_s for u, _ in pairs), max(u.cpu_s for u, _ in pairs)
    minutes = video_s / 60
    print(f"mediana de {len(pairs)} repetición(es):")
    print(f"sin trocear, 1 proceso:        {unsplit_wall:7.1f} s de pared, {unsplit_cpu:7.1f} s de CPU")
    print(
        f"troceada, {workers} trabajadores:   {chunked_wall:7.1f} s de pared, {chunked_cpu:7.1f} s de CPU "
        f"({n_chunks} trozos; arrancar el clúster: {cluster_s:.1f} s, aparte)"
    )
    print(f"aceleración medida: {med(u.wall_s / c.wall_s for u, c in pairs):.2f}x")
    print(
        f"sobrecoste de trocear (CPU troceada / CPU sin trocear, mediana de {', '.join(f'{r:.3f}' for r in ratios)}): "
        f"{overhead:.3f} (objetivo <= {OVERHEAD_TARGET}): {verdict(overhead <= OVERHEAD_TARGET)}"
    )
    print(
        f"  de ello, lo que trocear añade por construcción (arrancar manim y saltar lo anterior en cada trozo, medido "
        f"en cada proceso hasta su primer fotograma): {fixed:.3f}; los fotogramas dibujados, el mismo trabajo "
        f"troceado o no, costaron {drawing:.3f} veces lo mismo sin trocear (ruido de la máquina y núcleos "
        f"compartidos: la CPU del mismo render sin trocear fue de {lo:.1f} a {hi:.1f} s entre repeticiones)"
    )
    print(f"fotogramas de las escenas unidas idénticos a los sin trocear: {'sí' if same else 'NO'}")
    print(
        f"coste de un minuto de clase a {quality} en {cores()} núcleos ({date.today().isoformat()}): "
        f"{unsplit_wall / minutes / 60:.2f} min de pared sin trocear, {chunked_wall / minutes / 60:.2f} min "
        f"troceada en {workers} trabajadores; {unsplit_cpu / minutes / 60:.2f} min de CPU"
    )
    if cores() < workers:
        predicted = med(predicted_wall_s(list(c.chunk_cpu_s), workers) for _, c in pairs)
        print(
            f"previsto con {workers} trabajadores de un núcleo cada uno (CPU de cada trozo, el más largo primero "
            f"al menos cargado): {predicted:.1f} s de pared (medido aquí, con {cores()} núcleos: "
            f"{chunked_wall:.1f} s); aceleración prevista {unsplit_wall / predicted:.2f}x"
            + (f" (objetivo >= {SPEEDUP_TARGET_16}x con 16 para toda la clase)" if workers >= 16 else "")
        )
