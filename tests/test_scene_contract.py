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
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from lecture.plan import load_plan
from scenes.kit.contrast import contrast_problems
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
    visible_texts: dict  # beat -> every string shown in it (texts as written, formulas as TeX), from the log
    shown: dict  # beat -> the same, as this test finds it on screen (a check of the log)
    contrast_problems: tuple[str, ...] = ()  # texts under 4.5:1 against what is behind them


def _shown_strings(scene) -> list[str]:
    """Every text and formula on screen, found independently of the scene's own log: a text
    mobject counts when any of its drawn parts is visible (a MathTex holds its glyphs in
    submobjects; its own opacity says nothing). The beat's citation is left out."""
    from manim import MarkupText, MathTex, Tex, Text

    found: list[str] = []

    def walk(mob) -> None:
        if mob is getattr(scene, "_citation", None):
            return
        if isinstance(mob, (Text, MarkupText, MathTex, Tex)):
            parts = mob.family_members_with_points()
            if any(p.get_fill_opacity() > 0.05 or p.get_stroke_opacity() > 0.05 for p in parts):
                if isinstance(mob, (Text, MarkupText)):
                    text = getattr(mob, "original_text", None) or getattr(mob, "text", "")
                else:
                    text = getattr(mob, "tex_string", "")
                if text:
                    found.append(str(text))
            return
        for sub in mob.submobjects:
            walk(sub)

    for mob in scene.mobjects:
        walk(mob)
    return found


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
    from manim import config, tempconfig

    source = SCENES[script]
    spec = importlib.util.spec_from_file_location(f"_contract_{script}", source.path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    texts: list[str] = []
    shown: dict[str, list[str]] = {}
    low_contrast: list[str] = []

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
            seen = shown.setdefault(beat, [])
            for text in _shown_strings(scene):
                if text not in seen:
                    seen.append(text)
            background = scene.camera.background_color.to_rgb()
            for problem in contrast_problems(scene.mobjects, background, beat):
                if problem not in low_contrast:
                    low_contrast.append(problem)

        scene._check_layout = collect
        scene.render()
        expected = round(scene.timeline.total_s * scene.fps)
        log_path = os.environ.get("FFN_SCENE_LOG") or Path(config.media_dir) / "ffn_logs" / f"{source.class_name}.json"
        log = json.loads(Path(log_path).read_text(encoding="utf-8"))
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
            log.get("visible_texts", {}),
            shown,
            tuple(low_contrast),
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
def test_every_text_reads_at_4_5_to_1_against_what_is_behind_it(run, script):
    # WCAG 2.1 AA: each glyph against the background and the filled shapes drawn under it, at
    # the end state of every animation (scenes/kit/contrast.py says what counts as behind).
    assert run.contrast_problems == (), "\n".join(run.contrast_problems)


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_scene_lasts_its_timeline_to_the_frame(run, script):
    assert abs(run.frames - run.expected_frames) <= 1, (run.frames, run.expected_frames)


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_every_figure_on_screen_comes_from_a_number_the_scene_read(run, script):
    assert run.numbers_read, "a scene of this lecture shows computed numbers"
    assert unsourced_figures(run.texts, run.numbers_read) == []


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_no_visible_string_uses_a_retired_notation(run, script):
    # docs/notation.md: one notation for the whole lecture; `RETIRED` in scenes/kit/notation.py
    # says what each retired alternative is replaced by. The strings are the log's `visible_texts`.
    from scenes.kit.notation import notation_problems

    assert run.visible_texts, "the scene log records the strings each beat shows"
    # The log's strings, and any the log missed (test_the_log_records_every_text_... names those).
    strings = {beat: [*texts, *run.shown.get(beat, [])] for beat, texts in run.visible_texts.items()}
    strings.update({beat: texts for beat, texts in run.shown.items() if beat not in strings})
    problems = notation_problems(strings)
    assert not problems, f"scene {script}: visible strings in a retired notation:\n" + "\n".join(problems)


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_the_log_records_every_text_and_formula_the_scene_shows(run, script):
    # The notation check and the storyboard read the log's `visible_texts`: a string shown but
    # not logged (a formula, whose MathTex keeps its glyphs in submobjects) would escape both.
    missing = {
        beat: [t for t in texts if t not in run.visible_texts.get(beat, [])] for beat, texts in run.shown.items()
    }
    missing = {beat: texts for beat, texts in missing.items() if texts}
    assert not missing, f"scene {script}: shown but not in the log's visible_texts: {missing}"


@pytest.mark.parametrize(
    "bad, written",
    [
        ("nota = value", "value"),
        ("Key", "Key"),
        (r"\mathrm{ReLU}(x W_{in} + b_{in}) W_{out}", "W_{in"),
        (r"x \leftarrow x + \mathrm{Attn}(x)", "Attn}("),
        ("ReLU(xW_in + b_in)W_out + b", "W_in"),
        (r"(\mathrm{Swish}(x W_1) \otimes x W_3) W_2", r"\otimes"),
        ("Swish(xW₁) ⊗ xW₃", "⊗"),
        ("GPT-2 small: 3 072 neuronas por capa", "GPT-2 small"),
        ("unidad 93", "unidad 9"),
        ("K clave", "clave"),
        ("un vídeo", "vídeo"),
    ],
)
def test_the_notation_check_catches_a_retired_string_and_names_beat_string_and_replacement(bad, written):
    from scenes.kit.notation import notation_problems

    problems = notation_problems({"uno": ["llave kᵢ", bad]})
    assert len(problems) >= 1 and all(p.startswith("beat 'uno': ") for p in problems), problems
    assert repr(bad) in problems[0] and repr(written) in problems[0] and "en su lugar: " in problems[0]


def test_the_notation_helpers_write_nothing_the_check_retires():
    from scenes.kit import notation as n
    from scenes.kit.notation import notation_problems

    written = [
        n.key_label(),
        n.value_label(93),
        n.KEY_GLOSS,
        n.VALUE_GLOSS,
        n.neuron(93),
        n.w1(384, 1536),
        n.w2(1536, 384),
        n.w3(4096, 11008),
        n.matrix(2, transposed=True),
        n.ffn_tex("ReLU"),
        n.ffn_tex("GELU", biases=False),
        n.swiglu_tex(),
        n.ffn_sum_tex(),
        n.residual_ffn_tex(),
        n.residual_ffn_tex(None),
        n.residual_attention_tex(),
        n.residual_ffn_text(),
        n.residual_attention_text(),
        *n.MODEL_NAMES.values(),
        n.display_name("GPT-2 small"),
        *(word for pair in n.ATTENTION_NAMES for word in pair),
    ]
    assert notation_problems({"uno": written}) == []
    assert n.w1(384, 1536) == "W₁ (384 × 1\u202f536)" and n.neuron(93) == "neurona 93"
    assert n.display_name("GPT-2 small") == "GPT-2 pequeño"


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_numbers_the_scene_reads_are_listed_with_it_by_the_audit(run, script):
    from ffn_core.registry import all_numbers
    from lecture.review.audit import numbers_with_scenes

    planned = [s for s in load_plan() if s.script == script]
    if not planned:
        pytest.skip(f"{script} is not in lecture/plan.toml yet")
    listed = {row["key"]: row["scenes"] for row in numbers_with_scenes(planned, all_numbers())}
    read = [k for k, v in run.numbers_read.items() if not _is_dataset_read(v)]
    missing = [k for k in read if planned[0].name not in listed.get(k, [])]
    assert not missing, f"read by the scene but not attributed to it by the audit: {missing}"


def _is_dataset_read(logged) -> bool:
    """A dataset read is logged as its digest ("sha256:..."; see scenes/kit/datasets.py)."""
    from ffn_core.registry import DATASET_LOG_PREFIX

    return isinstance(logged, str) and logged.startswith(DATASET_LOG_PREFIX)


@pytest.mark.parametrize("run, script", [(s, s) for s in sorted(SCENES)], indirect=["run"])
def test_datasets_the_scene_reads_are_registered_and_listed_with_it_by_their_digest(run, script):
    from ffn_core.registry import dataset
    from lecture.review.listing import dataset_rows

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

    from ffn_core.registry import all_datasets, canonical_json
    from lecture.review.listing import audit_lines, audit_rows

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
    from ffn_core.registry import number
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
# Scenes read data only through the audited registry (`ffn_core.registry`: numbers and
# datasets, which `numbers --json` lists) and draw with pure shape functions
# (`ffn_core.shapes`). A solver imported directly would feed the screen unaudited.
ALLOWED_FFN_CORE = {"ffn_core.registry", "ffn_core.shapes"}
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
        "from ffn_core.registry import number\nfrom ffn_core import shapes, xor\n"
        "def f():\n    import ffn_core.approx\n",
        encoding="utf-8",
    )
    imported = [m for _, m in ffn_core_imports(probe)]
    assert imported == ["ffn_core.registry", "ffn_core.shapes", "ffn_core.xor", "ffn_core.approx"]
    assert [m for m in imported if m not in ALLOWED_FFN_CORE] == ["ffn_core.xor", "ffn_core.approx"]


@pytest.mark.parametrize("path", SCENE_SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_scenes_import_from_ffn_core_only_the_registry_and_shapes(path):
    bad = [f"{path.relative_to(REPO)}:{line}: {m}" for line, m in ffn_core_imports(path) if m not in ALLOWED_FFN_CORE]
    assert not bad, (
        "a scene reads data through ffn_core.registry (number / dataset) and draws with ffn_core.shapes; "
        f"these import ffn_core directly: {bad}"
    )


def test_the_contrast_check_sees_a_text_on_a_filled_shape_and_not_beside_it():
    from manim import RIGHT, Rectangle, VGroup

    from scenes.kit import palette
    from scenes.kit import typography as ty
    from scenes.kit.contrast import contrast_ratio, over, text_contrasts

    background = palette.BACKGROUND.to_rgb()
    # The title card's old label: dark type inside a 90 % blue bar; and white type on it.
    bar = Rectangle(width=4, height=1, stroke_width=0, fill_color=palette.FFN, fill_opacity=0.9)
    dark, light = ty.body("dentro", color=palette.BACKGROUND), ty.body("dentro", color=palette.INK)
    beside = ty.body("fuera", color=palette.MUTED).next_to(bar, RIGHT, buff=1)
    found = {c.text + c.text_hex: c for c in text_contrasts([VGroup(bar, dark), light, beside], background)}
    blue = over(palette.FFN.to_rgb(), 0.9, background)
    assert found["dentro#0F1420"].behind_hex == "#3A98C4" and found["dentro#0F1420"].ratio > 4.5
    assert found["dentro#ECEFF4"].ratio == pytest.approx(contrast_ratio(palette.INK.to_rgb(), blue))
    assert found["dentro#ECEFF4"].ratio < 4.5  # INK on that blue reads at 2.8:1
    assert found["fuera#8A93A6"].behind_hex == "#0F1420"  # beside the bar: the background
    # A text drawn before the bar sits under it, not on it: it is not on the bar's colour.
    under = ty.body("debajo", color=palette.INK)
    (c,) = [c for c in text_contrasts([under, bar], background) if c.text == "debajo"]
    assert c.behind_hex == "#0F1420"
    # Drawing order follows z-index, as manim's camera does: printed on the card, not under it.
    card = Rectangle(width=4, height=1, stroke_width=0, fill_color=palette.INACTIVE, fill_opacity=1).set_z_index(2)
    (c,) = text_contrasts([ty.body("encima", color=palette.INK).set_z_index(3), card], background)
    assert c.behind_hex == "#3A4150"
    # A dimmed text (under full opacity) is an inactive item, or a fade: not checked.
    assert text_contrasts([bar, ty.body("tenue", color=palette.INK).set_opacity(0.3)], background) == []
