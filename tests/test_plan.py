"""The plan: a scene's narration name is written once, in its class."""

from __future__ import annotations

import pytest

from lecture.plan import REPO_ROOT, load_plan

FIXTURE_SCENES = REPO_ROOT / "tests" / "fixtures" / "tiny_scenes.py"


def _plan(tmp_path, entry: str):
    path = tmp_path / "plan.toml"
    path.write_text(f'[[scene]]\nname = "a"\nmodule = "{FIXTURE_SCENES}"\n{entry}\n', encoding="utf-8")
    return path


def test_the_script_comes_from_the_class_when_the_plan_omits_it(tmp_path):
    (scene,) = load_plan(_plan(tmp_path, 'class = "TinyB"'))
    assert scene.script == "tiny_b"


def test_a_plan_that_disagrees_with_the_class_is_refused_naming_both(tmp_path):
    with pytest.raises(ValueError, match=r"el plan dice script «tiny_a» pero la clase TinyB .* declara «tiny_b»"):
        load_plan(_plan(tmp_path, 'class = "TinyB"\nscript = "tiny_a"'))


def test_the_lectures_plan_names_no_script_twice():
    text = (REPO_ROOT / "lecture" / "plan.toml").read_text(encoding="utf-8")
    assert not any(line.startswith("script") for line in text.splitlines())
    assert len(load_plan()) >= 17


def test_narrate_reads_the_same_scripts_from_the_plan_as_the_build():
    from voiceover.narrate import plan_scripts

    assert [(n.scene, n.script) for n in plan_scripts()] == [(s.name, s.script) for s in load_plan()]
