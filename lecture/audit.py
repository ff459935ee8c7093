"""Which scene shows or says which number: for `ffn-video numbers --json`.

A number is attributed to a scene when the scene's narration script reads it through a
`{clave:formato}` field, when the scene's source asks `self.number(...)` for it (f-string
keys are matched as patterns), or when a rendered scene's log says it read it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from lecture.plan import PlannedScene

NUMBER_CALL_RE = re.compile(r"number\(\s*(f?)([\"'])(.+?)\2")


def scene_key_patterns(scene: PlannedScene) -> list[re.Pattern]:
    patterns = []
    for is_f, _, text in NUMBER_CALL_RE.findall(scene.module.read_text(encoding="utf-8")):
        if is_f:
            parts = re.split(r"\{[^{}]*\}", text)
            patterns.append(re.compile("^" + "[^.]+".join(re.escape(p) for p in parts) + "$"))
        else:
            patterns.append(re.compile("^" + re.escape(text) + "$"))
    return patterns


def script_keys(scene: PlannedScene) -> set[str]:
    return {field.partition(":")[0] for field in scene.load_script().fields()}


def logged_keys(log_dir: Path) -> set[str]:
    keys: set[str] = set()
    for log in log_dir.glob("*.log.json"):
        try:
            keys |= set(json.loads(log.read_text(encoding="utf-8")).get("numbers_read", {}))
        except (OSError, ValueError):
            continue
    return keys


def numbers_with_scenes(plan, all_numbers, build_root: Path | None = None) -> list[dict]:
    """Every registry number as {key, value, unit, source, scenes}."""
    usage: dict[str, list[str]] = {}
    for scene in plan:
        patterns = scene_key_patterns(scene)
        used = script_keys(scene)
        if build_root is not None:
            for q in build_root.glob(f"*/{scene.name}"):
                used |= logged_keys(q)
        for num in all_numbers:
            if num.key in used or any(p.match(num.key) for p in patterns):
                usage.setdefault(num.key, []).append(scene.name)
    return [
        {"key": n.key, "value": _plain(n.value), "unit": n.unit, "source": n.source, "scenes": usage.get(n.key, [])}
        for n in all_numbers
    ]


def _plain(value):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
