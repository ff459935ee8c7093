"""The layout's rules, read from the sources: the import graph is one-way, every `FFN_*`
variable is read in one module, ffmpeg is started from one door per layer, no two
modules of `lecture/` share a name, and scenes read their timing only through their beats.

Read with `ast`, not by importing: a rule broken by a module that fails to import is still
named."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("lecture", "scenes", "voiceover", "ffn_core")
# Lower layers never import higher ones: lecture -> scenes -> voiceover -> ffn_core.
LAYER = {name: i for i, name in enumerate(reversed(PACKAGES))}
# Inside lecture: the build uses the farm, the media tools and the review pages, never the other way.
LECTURE_ABOVE = {"build": {"farm", "media", "review"}}
SETTINGS_MODULES = {"ffn_core/settings.py", "scenes/kit/protocol.py"}
FFMPEG_DOORS = {"lecture/media/ffmpeg.py", "voiceover/decode.py"}
# The one reader of a scene's timeline: every read is noted as a timing fact, which is what
# lets an edit reuse an earlier render's frames up to the first fact that changed.
TIMELINE_READER = "scenes/kit/narrated.py"


def sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py") if ".cache" not in p.parts)


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def test_the_import_graph_points_down_only():
    upward = []
    for path in sources():
        own = rel(path).split("/")[0]
        for line, module in imports(path):
            top = module.split(".")[0]
            if top in LAYER and LAYER[top] > LAYER[own]:
                upward.append(f"{rel(path)}:{line} imports {module}")
    assert not upward, "\n".join(upward)


def test_inside_lecture_the_build_depends_on_farm_media_and_review_never_the_reverse():
    backward = []
    for path in (REPO / "lecture").rglob("*.py"):
        parts = rel(path).split("/")
        if len(parts) < 3:
            continue
        own = parts[1]
        for line, module in imports(path):
            names = module.split(".")
            if names[0] == "lecture" and len(names) > 1 and own in LECTURE_ABOVE.get(names[1], set()):
                backward.append(f"{rel(path)}:{line} imports {module}")
    assert not backward, "\n".join(backward)


def _string_constants(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_every_ffn_variable_is_read_in_its_one_home():
    """A string that is exactly a variable's name is how code reads one; messages that
    mention a variable hold more than its name."""
    readers = []
    for path in sources():
        if rel(path) in SETTINGS_MODULES:
            continue
        for line, text in _string_constants(path):
            if text.startswith("FFN_") and text.replace("_", "").isalnum() and text.isupper():
                readers.append(f"{rel(path)}:{line} names {text}")
    assert not readers, "\n".join(readers)


def test_ffmpeg_and_ffprobe_start_from_one_door_per_layer():
    starters = []
    for path in sources():
        if rel(path) in FFMPEG_DOORS:
            continue
        for line, text in _string_constants(path):
            if text in ("ffmpeg", "ffprobe"):
                starters.append(f"{rel(path)}:{line} runs {text}")
    assert not starters, "\n".join(starters)


def test_no_two_modules_of_lecture_share_a_name():
    names = Counter(p.name for p in (REPO / "lecture").rglob("*.py") if p.name != "__init__.py")
    assert not [n for n, count in names.items() if count > 1]


def test_scenes_read_their_timing_only_through_the_narrated_scene():
    readers = []
    for path in sorted((REPO / "scenes").rglob("*.py")):
        if rel(path) in (TIMELINE_READER, "scenes/kit/protocol.py"):  # protocol: the timeline file's path
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("timeline", "timing", "timing_facts"):
                readers.append(f"{rel(path)}:{node.lineno} reads .{node.attr}")
    assert not readers, "\n".join(readers)


@pytest.mark.parametrize("door", sorted(FFMPEG_DOORS | SETTINGS_MODULES | {TIMELINE_READER}))
def test_the_homes_exist(door):
    assert (REPO / door).is_file()
