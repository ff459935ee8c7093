"""Step 2, plan: which scenes' renders are up to date (from their cache keys and the numbers
they read) and which must be rendered, as render units ready for any executor.

Every scene is rendered to a whole number of AAC packets of narration (its timeline's total
rounded up to `lecture.media.soundtrack.grid_frames`, at most 0.53 s of its last frame held
longer), so every scene starts on the narration's packet grid and the lecture's narration is
joined from stretches encoded apart (see `lecture.media.soundtrack`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from lecture.build.narrate import Narrated
from lecture.build.state import Build, BuildProgress
from lecture.farm import scene_cache
from lecture.farm.cuts import on_audio_grid
from lecture.farm.jobs import SceneJob
from lecture.farm.launcher import RenderUnit
from lecture.qualities import Quality
from voiceover.atomic import write_json
from voiceover.timeline import Timeline


@dataclass(frozen=True)
class RenderPlan:
    reused: Mapping[str, scene_cache.CacheRecord]  # every narrated scene whose render is up to date (read only)
    cached: tuple[str, ...]  # the chosen among them, in the plan's order
    to_render: tuple[SceneJob, ...]  # the chosen scenes out of date, longest first
    numbers_digest: str  # `scene_cache.numbers_digest()` as this build saw it
    timelines: Mapping[str, Timeline] = field(default_factory=dict)  # every narrated scene's, as rendered (on the grid)


def plan(build: Build, narrated: Narrated, display: BuildProgress) -> RenderPlan:
    from ffn_core.registry import logged_value

    def current(key: str) -> object:
        return logged_value(key)  # a number's value, a dataset's digest: what a render's record kept

    digest = scene_cache.numbers_digest()
    reused: dict[str, scene_cache.CacheRecord] = {}
    cached: list[str] = []
    to_render: list[SceneJob] = []
    timelines = {n: on_audio_grid(t, build.quality) for n, t in narrated.timelines.items()}
    for scene in build.plan:
        if scene.name not in timelines:
            continue
        timeline = timelines[scene.name]
        work = build.work.scene(scene.name)
        key = scene_cache.scene_key(scene, timeline, build.quality)
        record = scene_cache.load_record(work, key)
        if scene_cache.is_fresh(record, key, current, work, digest):
            reused[scene.name] = record
            scene_cache.touch(work, key)
            if scene.name in build.chosen_names:
                cached.append(scene.name)
                display.cached(scene.name)
        elif scene.name in build.chosen_names:
            unit = render_unit_for(build, scene.name, timeline, key)
            to_render.append(SceneJob(unit, key))
            display.waiting(scene.name, unit.expected_frames)
    # Longest first: the last scene to start should be a short one.
    to_render.sort(key=lambda job: job.unit.expected_frames, reverse=True)
    return RenderPlan(reused, tuple(cached), tuple(to_render), digest, timelines)


def render_unit_for(build: Build, name: str, timeline: Timeline, key: str) -> RenderUnit:
    """The unit that renders scene `name` under `key`. It reads its own copy of the timeline,
    so a narration edit during the render (watch mode) cannot reach a render already keyed
    on the old timing."""
    scene = build.scene(name)
    work = build.work.scene(name)
    quality = build.quality
    timeline_copy = work / f"{key}.timeline.json"
    write_json(timeline_copy, timeline.to_json())
    return RenderUnit(
        scene=name,
        module=str(scene.module),
        class_name=scene.class_name,
        width_px=quality.width_px,
        height_px=quality.height_px,
        fps=quality.fps,
        timeline_json=str(timeline_copy),
        media_dir=str(build.work.media(name)),
        output=str(work / f"{key}.mp4"),
        log=str(work / f"{key}.log.json"),
        expected_frames=expected_frames(timeline, quality),
    )


def expected_frames(timeline: Timeline, quality: Quality) -> int:
    """The whole frames a scene's render makes from its timeline: its narration's length in
    frames, rounded up to whole AAC packets of narration (`on_audio_grid`)."""
    return round(on_audio_grid(timeline, quality).total_s * quality.fps)
