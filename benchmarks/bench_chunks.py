"""The publishing render unsplit against chunked over N Dask workers, side by side in one run.

Run through `benchmarks/bench_build.py --quality 1080p --only ESCENA --workers N` (see its
docstring for what is printed). Renders go to a temporary folder; the narration comes from
the usual voice cache (synthesised there first when missing, as a build would).
"""

from __future__ import annotations

import heapq
import os
import shutil
import tempfile
import time
from datetime import date
from pathlib import Path

from rich.console import Console

from lecture.cache import scene_key
from lecture.chunk_render import ChunkUnit, render_chunk
from lecture.chunked import ChunkPolicy, SceneJob, run_chunked
from lecture.chunks import total_frames
from lecture.dask_cluster import dask_executor, parse_scheduler
from lecture.display import BuildDisplay
from lecture.mux import framemd5
from lecture.plan import load_plan, select
from lecture.qualities import get_quality
from lecture.render import RenderUnit
from voiceover.atomic import write_json
from voiceover.timeline import build_timeline

OVERHEAD_TARGET = 1.15
SPEEDUP_TARGET_16 = 6.0


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


def bench_chunks(quality_name: str, only: list[str] | None, workers: int, chunk_s: float | None, keep: bool) -> int:
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

        print(
            f"{len(scenes)} escena(s) ({', '.join(s.name for s in scenes)}), {video_s:.1f} s de vídeo a "
            f"{quality.name} ({quality.width_px}x{quality.height_px}, {quality.fps} fps); {cores()} núcleos; "
            f"{workers} trabajadores de Dask",
            flush=True,
        )
        # Unsplit: each scene whole, in one manim process, one after another.
        unsplit_wall, unsplit_cpu, unsplit_videos = 0.0, 0.0, {}
        for scene in scenes:
            u = job(scene, "unsplit").unit
            result = render_chunk(
                ChunkUnit(
                    u.scene, 0, 1, u.module, u.class_name, u.width_px, u.height_px, u.fps, 0, None,
                    u.timeline_json, u.media_dir, u.output, u.log, expected_frames=u.expected_frames,
                )
            )  # fmt: skip
            if not result.ok:
                print(f"«{scene.name}» falló sin trocear:\n{result.error}")
                return 1
            unsplit_wall += result.seconds
            unsplit_cpu += result.cpu_s
            unsplit_videos[scene.name] = Path(result.output)
            print(f"  sin trocear  {scene.name}: {result.seconds:7.1f} s de pared, {result.cpu_s:7.1f} s de CPU")

        # Chunked: every scene's chunks on a local Dask cluster of `workers` processes.
        started = time.monotonic()
        with dask_executor(parse_scheduler(f"local:{workers}")) as run:
            cluster_s = time.monotonic() - started
            jobs = [job(s, "chunked") for s in scenes]
            start = time.monotonic()
            with BuildDisplay(console) as display:
                results = list(
                    run_chunked(
                        jobs, run.executor, display, scenes={s.name: s for s in scenes}, timelines=timelines,
                        quality=quality, policy=ChunkPolicy(workers, chunk_s), numbers_digest="bench",
                    )
                )  # fmt: skip
            chunked_wall = time.monotonic() - start
        chunk_costs, same = [], True
        for scene_job, result, outcomes in results:
            if not result.ok:
                print(f"«{scene_job.unit.scene}» falló troceada:\n{result.error}")
                return 1
            for o in outcomes:
                chunk_costs.append(o.cpu_s)
                print(
                    f"  trozo {o.index + 1}/{o.count} de {o.scene}: fotogramas {o.start_frame}-{o.end_frame}, "
                    f"{o.seconds:6.1f} s de pared, {o.cpu_s:6.1f} s de CPU ({o.worker})"
                )
            same &= framemd5(Path(result.output)) == framemd5(unsplit_videos[scene_job.unit.scene])
        chunked_cpu = sum(chunk_costs)

        # What chunking itself costs, apart from the cores being shared: every chunk but the
        # first starts a manim process and runs construct() up to its range with nothing drawn.
        # Measured one at a time, by running each such chunk with an empty range.
        fixed_cpu = 0.0
        for scene_job, _, outcomes in results:
            u = scene_job.unit
            for o in outcomes[1:]:
                probe = render_chunk(
                    ChunkUnit(
                        u.scene, o.index, o.count, u.module, u.class_name, u.width_px, u.height_px, u.fps,
                        o.start_frame, o.start_frame, u.timeline_json, u.media_dir, str(tmp / "probe.mp4"),
                        str(tmp / "probe.log.json"),
                    )
                )  # fmt: skip
                fixed_cpu += probe.cpu_s

        speedup = unsplit_wall / chunked_wall
        overhead = chunked_cpu / unsplit_cpu
        minutes = video_s / 60
        print(f"sin trocear, 1 proceso:        {unsplit_wall:7.1f} s de pared, {unsplit_cpu:7.1f} s de CPU")
        print(
            f"troceada, {workers} trabajadores:   {chunked_wall:7.1f} s de pared, {chunked_cpu:7.1f} s de CPU "
            f"({len(chunk_costs)} trozos; arrancar el clúster: {cluster_s:.1f} s, aparte)"
        )
        print(f"aceleración medida: {speedup:.2f}x")
        print(
            f"sobrecoste de trocear (CPU troceada / CPU sin trocear): {overhead:.3f} "
            f"(objetivo <= {OVERHEAD_TARGET}): {'cumple' if overhead <= OVERHEAD_TARGET else 'NO cumple'}"
        )
        fixed = (unsplit_cpu + fixed_cpu) / unsplit_cpu
        print(
            f"  de ello, coste propio de trocear (arrancar manim y saltar lo anterior en cada trozo salvo el primero, "
            f"medido aparte, uno a uno): {fixed_cpu:.1f} s de CPU; (sin trocear + ese coste) / sin trocear = "
            f"{fixed:.3f}: {'cumple' if fixed <= OVERHEAD_TARGET else 'NO cumple'}; el resto "
            f"({(overhead - fixed) * unsplit_cpu:.1f} s de CPU) no es ni el arranque ni el salto, y aparece también "
            f"con un solo trabajador (trozos uno tras otro): está sin explicar"
        )
        print(f"fotogramas de las escenas unidas idénticos a los sin trocear: {'sí' if same else 'NO'}")
        print(
            f"coste de un minuto de clase a {quality.name} en {cores()} núcleos ({date.today().isoformat()}): "
            f"{unsplit_wall / minutes / 60:.2f} min de pared sin trocear, {chunked_wall / minutes / 60:.2f} min "
            f"troceada en {workers} trabajadores; {unsplit_cpu / minutes / 60:.2f} min de CPU"
        )
        if cores() < workers:
            predicted = predicted_wall_s(chunk_costs, workers)
            print(
                f"previsto con {workers} trabajadores de un núcleo cada uno (CPU de cada trozo, el más largo primero "
                f"al menos cargado): {predicted:.1f} s de pared (medido aquí, con {cores()} núcleos: "
                f"{chunked_wall:.1f} s); aceleración prevista {unsplit_wall / predicted:.2f}x"
                + (f" (objetivo >= {SPEEDUP_TARGET_16}x con 16 para toda la clase)" if workers >= 16 else "")
            )
        if keep:
            print(f"renders conservados en {tmp}")
        return 0 if same else 1
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
