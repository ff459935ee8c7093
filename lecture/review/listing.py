"""Listings: `ffn-video scenes` (the plan's scenes with their narration and render state) and
the rows of `ffn-video numbers` (every audited number and dataset, with the scenes using it).

A scene is `fresh` at a quality when a render under its current cache key exists (a build
would take it from the cache), `stale` when only renders of older inputs exist, and
`none` when it was never rendered there.

A dataset is attributed to a scene when the scene's source reads it (`read_dataset(self,
"key")` or `self.dataset("key")`, f-string keys matched as patterns) or when a rendered
scene's log says it read it. Its row carries the SHA-256 of its canonical content, so a
reviewer sees exactly what a scene drew without reading it all.
"""

from __future__ import annotations

import re
from pathlib import Path

from lecture.farm import scene_cache
from lecture.farm.cuts import on_audio_grid
from lecture.plan import PlannedScene
from lecture.qualities import QUALITIES
from voiceover.timeline import Timeline
from voiceover.timing import build_timeline

STATE_ES = {"fresh": "al día", "stale": "desfasada", "none": "no"}


def render_state(scene: PlannedScene, timeline: Timeline, work_root: Path, current, digest: str) -> dict[str, str]:
    states = {}
    for name, quality in QUALITIES.items():
        work = work_root / name / scene.name
        key = scene_cache.scene_key(scene, on_audio_grid(timeline, quality), quality)  # as the build renders it
        if scene_cache.is_fresh(scene_cache.load_record(work, key), key, current, work, digest):
            states[name] = "fresh"
        elif any(work.glob("*.record.json")):
            states[name] = "stale"
        else:
            states[name] = "none"
    return states


def scene_rows(plan: tuple[PlannedScene, ...], work_root: Path) -> list[dict]:
    """One row per scene: name, title, narration length, beats, render state per quality.
    Narration still missing is synthesised (its length is what the row reports)."""
    from ffn_core.registry import logged_value

    def current(key: str):
        return logged_value(key)  # a number's value, a dataset's digest: what the render's record kept

    digest = scene_cache.numbers_digest()
    rows = []
    for scene in plan:
        row: dict[str, object] = {
            "name": scene.name,
            "class": scene.class_name,
            "module": str(scene.module),
            "script": scene.script,
        }
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


# -- `ffn-video numbers`: numbers and datasets ------------------------------------------------
DATASET_CALL_RE = re.compile(r"\b(?:read_)?dataset\(\s*(?:self\s*,\s*)?(f?)([\"'])(.+?)\2")


def dataset_key_patterns(scene: PlannedScene) -> list[re.Pattern]:
    """The dataset keys `scene`'s source asks for, as patterns (an f-string's fields match one key part)."""
    patterns = []
    for is_f, _, text in DATASET_CALL_RE.findall(scene.module.read_text(encoding="utf-8")):
        parts = re.split(r"\{[^{}]*\}", text) if is_f else [text]
        patterns.append(re.compile("^" + "[^.]+".join(re.escape(p) for p in parts) + "$"))
    return patterns


def dataset_rows(plan, datasets, build_root: Path | None = None) -> list[dict]:
    """Every registry dataset as {kind, key, description, shape, sha256, source, scenes}."""
    from lecture.review.audit import logged_keys

    usage: dict[str, list[str]] = {}
    for scene in plan:
        patterns = dataset_key_patterns(scene)
        logged: set[str] = set()
        if build_root is not None:
            for q in build_root.glob(f"*/{scene.name}"):
                logged |= logged_keys(q)
        for found in datasets:
            if found.key in logged or any(p.match(found.key) for p in patterns):
                usage.setdefault(found.key, []).append(scene.name)
    return [
        {
            "kind": "dataset",
            "key": d.key,
            "description": d.description,
            "shape": d.shape,
            "sha256": d.digest,
            "source": d.source,
            "scenes": usage.get(d.key, []),
        }
        for d in datasets
    ]


def audit_rows(plan, build_root: Path | None = None) -> list[dict]:
    """The rows `ffn-video numbers --json` prints: every number (key, value, unit, source,
    kind: "computed" | "published" | "quoted", citation, scenes) and after them every
    dataset (see `dataset_rows`), each marked "kind": "dataset"."""
    from ffn_core.registry import all_datasets, all_numbers
    from lecture.review.audit import numbers_with_scenes

    return [*numbers_with_scenes(plan, all_numbers(), build_root), *dataset_rows(plan, all_datasets(), build_root)]


def audit_lines(rows: list[dict]) -> list[str]:
    """`ffn-video numbers` without --json: one tab-separated line per number or dataset."""
    lines = []
    for row in rows:
        scenes = ",".join(row["scenes"]) or "-"
        if row.get("kind") == "dataset":
            lines.append(f"{row['key']}\tsha256:{row['sha256'][:16]}\t{row['shape']}\t{scenes}")
        else:
            kind = row.get("kind", "computed")
            said = kind if kind == "computed" else f"{kind} ({row.get('citation', '')})"
            lines.append(f"{row['key']}\t{row['value']}\t{row['unit']}\t{said}\t{scenes}")
    return lines
