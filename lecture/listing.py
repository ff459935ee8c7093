"""`ffn-video scenes`: the plan's scenes with their narration and render state.

A scene is `fresh` at a quality when a render under its current cache key exists (a build
would take it from the cache), `stale` when only renders of older inputs exist, and
`none` when it was never rendered there.
"""

from __future__ import annotations

from pathlib import Path

from lecture import cache
from lecture.plan import PlannedScene
from lecture.qualities import QUALITIES
from voiceover.timeline import Timeline, build_timeline

STATE_ES = {"fresh": "al día", "stale": "desfasada", "none": "no"}


def render_state(scene: PlannedScene, timeline: Timeline, work_root: Path, current, digest: str) -> dict[str, str]:
    states = {}
    for name, quality in QUALITIES.items():
        work = work_root / name / scene.name
        key = cache.scene_key(scene, timeline, quality)
        if cache.is_fresh(cache.load_record(work, key), key, current, work, digest):
            states[name] = "fresh"
        elif any(work.glob("*.record.json")):
            states[name] = "stale"
        else:
            states[name] = "none"
    return states


def scene_rows(plan: tuple[PlannedScene, ...], work_root: Path) -> list[dict]:
    """One row per scene: name, title, narration length, beats, render state per quality.
    Narration still missing is synthesised (its length is what the row reports)."""
    from ffn_core.numbers import number

    def current(key: str):
        return number(key).value

    digest = cache.numbers_digest()
    rows = []
    for scene in plan:
        row = {"name": scene.name, "class": scene.class_name, "module": str(scene.module), "script": scene.script}
        try:
            timeline = build_timeline(scene.script, script=scene.load_script())
        except Exception as err:  # noqa: BLE001 - listed with its error, the others still listed
            row.update(title=None, narration_s=None, beats=None, rendered=None, error=str(err))
            rows.append(row)
            continue
        row.update(
            title=timeline.title,
            narration_s=round(timeline.total_s, 3),
            beats=len(timeline.beats),
            rendered=render_state(scene, timeline, work_root, current, digest),
        )
        rows.append(row)
    return rows


def format_rows(rows: list[dict]) -> list[str]:
    lines = [f"{'escena':<16} {'duración':>9} {'beats':>5}  " + "  ".join(f"{q:<9}" for q in QUALITIES) + "  título"]
    for row in rows:
        if row.get("error"):
            lines.append(f"{row['name']:<16} error: {row['error']}")
            continue
        states = "  ".join(f"{STATE_ES[row['rendered'][q]]:<9}" for q in QUALITIES)
        lines.append(f"{row['name']:<16} {row['narration_s']:>7.1f} s {row['beats']:>5}  {states}  {row['title']}")
    return lines
