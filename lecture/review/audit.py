"""Which scene shows or says which number: for `ffn-video numbers --json`.

A number is attributed to a scene when the scene's narration script reads it through a
`{clave:formato}` field, when the scene's source asks `self.number(...)` for it (f-string
keys are matched as patterns), when the source puts a model's badge on screen
(`model_badge(self, "minilm")` reads the keys `scenes.kit.badges.BADGE_NUMBERS` lists), or
when a rendered scene's log says it read it. Each row also says the number's kind
(computed, published, quoted) and, for the last two, its citation.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

from lecture.plan import REPO_ROOT, PlannedScene

NUMBER_CALL_RE = re.compile(r"number\(\s*(f?)([\"'])(.+?)\2")
BADGE_CALL_RE = re.compile(r"model_badge\(\s*[\w.]+\s*,\s*([\"'])(\w+)\1")
BADGES_SOURCE = REPO_ROOT / "scenes" / "kit" / "badges.py"


@functools.cache
def badge_numbers(source: Path = BADGES_SOURCE) -> dict[str, tuple[str, ...]]:
    """`BADGE_NUMBERS` of scenes/kit/badges.py, read from its source (no manim import)."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value_node = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value_node = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "BADGE_NUMBERS" for t in targets):
            value = ast.literal_eval(value_node)
            return {str(k): tuple(v) for k, v in value.items()}
    raise ValueError(f"{source}: no BADGE_NUMBERS literal")


def scene_key_patterns(scene: PlannedScene) -> list[re.Pattern]:
    patterns = []
    for is_f, _, text in NUMBER_CALL_RE.findall(scene.module.read_text(encoding="utf-8")):
        if is_f:
            parts = re.split(r"\{[^{}]*\}", text)
            patterns.append(re.compile("^" + "[^.]+".join(re.escape(p) for p in parts) + "$"))
        else:
            patterns.append(re.compile("^" + re.escape(text) + "$"))
    return patterns


def badge_keys(scene: PlannedScene) -> set[str]:
    """The registry keys of the model badges `scene`'s source puts on screen."""
    table = badge_numbers()
    models = {m for _, m in BADGE_CALL_RE.findall(scene.module.read_text(encoding="utf-8"))}
    unknown = models - set(table)
    if unknown:
        raise ValueError(f"{scene.module}: model_badge for unknown models {sorted(unknown)} (badges: {sorted(table)})")
    return {key for m in models for key in table[m]}


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
    """Every registry number as {key, value, unit, source, kind, citation, scenes}."""
    usage: dict[str, list[str]] = {}
    for scene in plan:
        patterns = scene_key_patterns(scene)
        used = script_keys(scene) | badge_keys(scene)
        if build_root is not None:
            for q in build_root.glob(f"*/{scene.name}"):
                used |= logged_keys(q)
        for num in all_numbers:
            if num.key in used or any(p.match(num.key) for p in patterns):
                usage.setdefault(num.key, []).append(scene.name)
    return [
        {
            "key": n.key,
            "value": _plain(n.value),
            "unit": n.unit,
            "source": n.source,
            "kind": n.kind,
            "citation": n.citation,
            "scenes": usage.get(n.key, []),
        }
        for n in all_numbers
    ]


def _plain(value):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
