"""The contract every narrated scene keeps with its script, the registry and the plan.

Scenes are found, not listed: every `scenes/*.py` that defines a `NarratedScene` subclass
is run once with animations skipped (no frames are drawn; seconds a scene), and the run
must play every beat of its script in order, wait for every bookmark and for no other,
last its timeline's frames, read only registered numbers that `numbers --json` lists with
the scene, and write no figure on screen that did not come from those numbers. A new scene
is covered the moment its file exists. Timing and layout of real frames are checked by the
preview build (tests/test_foundation_build.py).
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from lecture.plan import load_plan
from scenes.kit.figures import unsourced_figures
from voiceover.script import load_script

REPO = Path(__file__).resolve().parent.parent
CLASS_RE = re.compile(
    r"^class (\w+)\(NarratedScene\):\s*\n(?:\s+\"\"\".*?\"\"\"\s*\n)?\s+script = \"(\w+)\"", re.MULTILINE | re.DOTALL
)


@dataclass(frozen=True)
class SceneSource:
    path: Path
    class_name: str
    script: str


@dataclass(frozen=True)
class SkippedRun:
    """What a scene did when run with its animations skipped."""

    beats: tuple[str, ...]
    fired: dict
    numbers_read: dict
    texts: tuple[str, ...]  # every text shown at the end of any animation
    frames: int
    expected_frames: int
    fps: float
    bookmark_times: dict  # bookmark -> narrated time (s)
    layout_problems: tuple[str, ...]


def _discover() -> dict[str, SceneSource]:
    found = {}
    for path in sorted((REPO / "scenes").glob("*.py")):
        for class_name, script in CLASS_RE.findall(path.read_text(encoding="utf-8")):
            found[script] = SceneSource(path, class_name, script)
    return found


SCENES = _discover()
_RUNS: dict[str, SkippedRun] = {}


def skipped_run(script: str, tmp_root: Path) -> SkippedRun:
    """Run the scene's construct() with every animation skipped (cached per session)."""
    if script in _RUNS:
        return _RUNS[script]
    from manim import tempconfig

    source = SCENES[script]
    spec = importlib.util.spec_from_file_location(f"_contract_{script}", source.path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    texts: list[str] = []

    with tempconfig(
        {
            "dry_run": True,
            "quality": "low_quality",
            "media_dir": str(tmp_root / script),
            "disable_caching": True,
            "progress_bar": "none",
            "verbosity": "WARNING",
        }
    ):
        scene = getattr(module, source.class_name)()
        scene.renderer._original_skipping_status = True  # every play() skips: no frame is drawn
        scene.renderer.skip_animations = True

        check_layout = scene._check_layout

        def collect(beat: str) -> None:
            check_layout(beat)  # frame edges, overlaps and text size, on the end state of each play
            for mob in scene._visible_family():
                text = getattr(mob, "original_text", None) or getattr(mob, "text", None)
                if text and type(mob).__name__ in ("Text", "MarkupText", "Paragraph"):
                    texts.append(str(text))

        scene._check_layout = collect
        scene.render()
        expected = round(scene.timeline.total_s * scene.fps)
        run = SkippedRun(
            tuple(scene._beat_names),
            dict(scene.fired),
            dict(scene.numbers_read),
            tuple(dict.fromkeys(texts)),
            scene.frames,
            expected,
            scene.fps,
            scene.timeline.bookmark_times(),
            tuple(scene.layout_problems),
        )
    _RUNS[script] = run
    return run


@pytest.fixture
def run(request, tmp_path_factory):
    return skipped_run(request.param, tmp_path_factory.getbasetemp() / "contract")


def test_every_scene_module_is_found():
    assert len(SCENES) >= 7, sorted(SCENES)


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_scene_plays_every_beat_of_its_script_in_order(run, script):
    assert list(run.beats) == [b.name for b in load_script(script).beats]


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_scene_waits_for_every_bookmark_of_its_script(run, script):
    # Waiting for a bookmark the script lacks raises at once, naming it (TimelineError).
    marks = {m for b in load_script(script).beats for m in b.bookmarks}
    assert set(run.fired) == marks


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_every_bookmark_fires_within_one_frame_of_its_narrated_time(run, script):
    # A bookmark the scene cannot reach in time (at a beat's very start, or right after a
    # long animation) fires late; the frame counting here is the render's.
    late = {
        m: round(run.fired[m] - t, 3)
        for m, t in run.bookmark_times.items()
        if m in run.fired and abs(run.fired[m] - t) > 1 / run.fps + 1e-9
    }
    assert not late, f"bookmarks off their narrated time by more than a frame (s): {late}"


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_no_text_leaves_the_frame_overlaps_or_is_under_20_px(run, script):
    assert run.layout_problems == ()


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_scene_lasts_its_timeline_to_the_frame(run, script):
    assert abs(run.frames - run.expected_frames) <= 1, (run.frames, run.expected_frames)


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_every_figure_on_screen_comes_from_a_number_the_scene_read(run, script):
    assert run.numbers_read, "a scene of this lecture shows computed numbers"
    assert unsourced_figures(run.texts, run.numbers_read) == []


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_numbers_the_scene_reads_are_listed_with_it_by_the_audit(run, script):
    from ffn_core.numbers import all_numbers
    from lecture.audit import numbers_with_scenes

    planned = [s for s in load_plan() if s.script == script]
    if not planned:
        pytest.skip(f"{script} is not in lecture/plan.toml yet")
    listed = {row["key"]: row["scenes"] for row in numbers_with_scenes(planned, all_numbers())}
    read = [k for k, v in run.numbers_read.items() if not _is_dataset_read(v)]
    missing = [k for k in read if planned[0].name not in listed.get(k, [])]
    assert not missing, f"read by the scene but not attributed to it by the audit: {missing}"


def _is_dataset_read(logged) -> bool:
    """A dataset read is logged as its digest ("sha256:..."; see scenes/kit/datasets.py)."""
    from ffn_core.numbers import DATASET_LOG_PREFIX

    return isinstance(logged, str) and logged.startswith(DATASET_LOG_PREFIX)


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_datasets_the_scene_reads_are_registered_and_listed_with_it_by_their_digest(run, script):
    from ffn_core.numbers import dataset
    from lecture.listing import dataset_rows

    read = {k: v for k, v in run.numbers_read.items() if _is_dataset_read(v)}
    for key, logged in read.items():
        assert logged == dataset(key).logged, f"{key}: the scene logged {logged}, the registry holds another digest"
    planned = [s for s in load_plan() if s.script == script]
    if not planned or not read:
        return
    rows = {row["key"]: row for row in dataset_rows(planned, [dataset(k) for k in read])}
    missing = [k for k in read if planned[0].name not in rows[k]["scenes"]]
    assert not missing, f"datasets read by the scene but not attributed to it by `numbers --json`: {missing}"
    assert all(rows[k]["sha256"] == read[k].removeprefix("sha256:") for k in read)


def test_numbers_json_lists_every_dataset_with_its_shape_source_and_sha256_after_the_numbers():
    import hashlib

    from ffn_core.numbers import all_datasets, canonical_json
    from lecture.listing import audit_lines, audit_rows

    rows = audit_rows(load_plan())
    kinds = [row.get("kind", "number") for row in rows]
    assert kinds == sorted(kinds, key=lambda k: k == "dataset"), "numbers first, then datasets"
    datasets = {row["key"]: row for row in rows if row.get("kind") == "dataset"}
    assert set(datasets) == {d.key for d in all_datasets()}
    for d in all_datasets():
        row = datasets[d.key]
        assert row["sha256"] == hashlib.sha256(canonical_json(d.value).encode()).hexdigest()
        assert row["source"] == d.source and row["shape"].startswith(type(d.value).__name__ + "(")
    assert datasets["xor.solution"]["scenes"] == ["xor"]  # found in the scene's source
    assert any(line.startswith("xor.solution\tsha256:") for line in audit_lines(rows))


@pytest.mark.parametrize("script", sorted(SCENES))
def test_narration_speaks_computed_numbers_and_no_typed_digit(script):
    from ffn_core.numbers import number
    from voiceover.spoken import render

    loaded = load_script(script)
    assert loaded.fields(), "the narration should speak at least one computed number"
    for beat in loaded.beats:
        for segment in beat.segments:
            spoken, written = render(segment, lambda key: number(key).value)
            assert "{" not in spoken and "{" not in written
            typed = re.sub(r"\{[^{}]*\}", "", segment)
            assert not re.search(r"\d", typed), f"beat {beat.name}: a digit typed into the narration: {segment!r}"


@pytest.mark.parametrize("script", sorted(SCENES))
def test_narration_has_text_for_at_least_45_seconds(script):
    # About 15 characters a second is brisk Spanish narration; less text cannot fill 45 s.
    chars = sum(len(b.text) for b in load_script(script).beats)
    assert chars >= 45 * 15, chars


def test_plan_names_each_scene_class_with_the_script_that_class_declares():
    by_class = {(s.path.resolve(), s.class_name): s.script for s in SCENES.values()}
    for planned in load_plan():
        key = (planned.module.resolve(), planned.class_name)
        assert key in by_class, f"plan scene {planned.name}: no NarratedScene {planned.class_name} in {planned.module}"
        assert by_class[key] == planned.script, (
            f"plan scene {planned.name}: the plan says script {planned.script!r}, "
            f"class {planned.class_name} declares {by_class[key]!r}"
        )


def test_a_scaled_clock_time_keeps_its_aim_and_a_shifted_one_fails():
    from scenes.kit.narrated import ClockTime

    until = ClockTime(4.0, 10.0, "marca")  # now is 6 s; the bookmark at 10 s
    part = 0.25 * until
    assert isinstance(part, ClockTime) and part == 1.0 and part.target_s == 7.0 and part.bookmark is None
    assert (until / 2).target_s == 8.0
    with pytest.raises(TypeError, match="loses the frame"):
        until + 0.5
    with pytest.raises(TypeError, match="loses the frame"):
        1.0 - until


def test_a_scaled_clock_time_played_after_the_clock_moved_is_refused():
    from manim import tempconfig

    from scenes.kit.narrated import ClockTime, NarratedScene, TimelineError

    class Late(NarratedScene):
        script = "x"

    with tempconfig({"dry_run": True, "progress_bar": "none", "verbosity": "WARNING"}):
        scene = Late.__new__(Late)
        scene.frames, scene.fps = 30, 15.0  # the clock is at 2 s
        stale = 0.5 * ClockTime(4.0, 4.0)  # asked for at 0 s
        with pytest.raises(TimelineError, match="scaled clock time asked for at 0.00 s is played at 2.00 s"):
            scene._refuse_stale(stale)
        scene._refuse_stale(0.5 * ClockTime(2.0, 4.0))  # asked for now: fine


# -- what scenes may import from ffn_core ----------------------------------------------------
# Scenes read data only through the audited registry (`ffn_core.numbers`: numbers and
# datasets, which `numbers --json` lists) and draw with pure shape functions
# (`ffn_core.shapes`). A solver imported directly would feed the screen unaudited.
ALLOWED_FFN_CORE = {"ffn_core.numbers", "ffn_core.shapes"}
SCENE_SOURCES = sorted([*(REPO / "scenes").glob("*.py"), *(REPO / "scenes" / "kit").glob("*.py")])


def ffn_core_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every `ffn_core` module `path` imports, lazy imports included;
    `from ffn_core import x` counts as `ffn_core.x`."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            module = node.module or ""
            names = [f"{module}.{alias.name}" for alias in node.names] if module == "ffn_core" else [module]
        else:
            continue
        found += [(node.lineno, name) for name in names if name.split(".")[0] == "ffn_core"]
    return found


def test_the_import_rule_sees_lazy_and_package_imports(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from ffn_core.numbers import number\nfrom ffn_core import shapes, xor\ndef f():\n    import ffn_core.approx\n",
        encoding="utf-8",
    )
    imported = [m for _, m in ffn_core_imports(probe)]
    assert imported == ["ffn_core.numbers", "ffn_core.shapes", "ffn_core.xor", "ffn_core.approx"]
    assert [m for m in imported if m not in ALLOWED_FFN_CORE] == ["ffn_core.xor", "ffn_core.approx"]


@pytest.mark.parametrize("path", SCENE_SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_scenes_import_from_ffn_core_only_the_registry_and_shapes(path):
    bad = [f"{path.relative_to(REPO)}:{line}: {m}" for line, m in ffn_core_imports(path) if m not in ALLOWED_FFN_CORE]
    assert not bad, (
        "a scene reads data through ffn_core.numbers (number / dataset) and draws with ffn_core.shapes; "
        f"these import ffn_core directly: {bad}"
    )
