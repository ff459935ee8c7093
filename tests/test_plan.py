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


# --- names that become file names, and modules that are code ----------------------------


def _named(tmp_path, name: str) -> object:
    path = tmp_path / "plan.toml"
    path.write_text(
        '# un plan\n\n[[scene]]\nname = "tiny_a"\nmodule = "tests/fixtures/tiny_scenes.py"\nclass = "TinyA"\n\n'
        f'[[scene]]\nclass = "TinyB"\nname = "{name}"\nmodule = "tests/fixtures/tiny_scenes.py"\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("name", ["../x", "a/b", "Tiny", "con espacio", "ñandú", ".oculto", ""])
def test_a_scene_name_that_is_not_a_plain_file_name_is_refused_naming_the_plan_line_and_the_rule(tmp_path, name):
    plan = _named(tmp_path, name)
    with pytest.raises(ValueError) as err:
        load_plan(plan)
    message = str(err.value)
    assert message.startswith(f"{plan}:10: escena n.º 2"), message  # the line of `name = ...`
    assert "^[a-z0-9_]+$" in message and repr(name) in message


@pytest.mark.parametrize("name", ["lecture", "scenes", "audio", "chapters", "youtube", "slides", "handout", "gallery"])
def test_a_scene_named_as_one_of_the_lectures_own_outputs_is_refused(tmp_path, name):
    plan = _named(tmp_path, name)
    with pytest.raises(ValueError, match=rf"^{plan}:10: .*«{name}» está reservado"):
        load_plan(plan)


def test_the_reserved_names_cover_every_file_and_folder_the_build_writes_beside_the_scenes(tmp_path):
    from lecture.layout import RESERVED_NAMES, Outputs, Workspace

    outputs, work = Outputs(tmp_path / "out"), Workspace(tmp_path / "work")
    stems = {p.name.split(".")[0] for p in (outputs.lecture, outputs.scenes_manifest, outputs.srt, outputs.chapters)}
    stems |= {outputs.scenes.name, work.audio.name, work.versions.name}
    assert stems <= RESERVED_NAMES


def test_a_script_name_that_is_not_a_plain_file_name_is_refused_naming_its_line(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_text(
        f'[[scene]]\nname = "a"\nmodule = "{FIXTURE_SCENES}"\nclass = "TinyB"\nscript = "../../etc/x"\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=rf"^{path}:5: .*script = '../../etc/x' no vale"):
        load_plan(path)


def test_a_module_outside_the_repository_is_refused_as_code_the_plan_would_run(tmp_path, monkeypatch):
    monkeypatch.delenv("FFN_PLAN", raising=False)
    outside = tmp_path / "tiny_scenes.py"
    outside.write_text(FIXTURE_SCENES.read_text(encoding="utf-8"), encoding="utf-8")
    for written in (str(outside), "../" * 12 + str(outside).lstrip("/")):
        path = tmp_path / "plan.toml"
        path.write_text(f'[[scene]]\nname = "a"\nmodule = "{written}"\nclass = "TinyB"\n', encoding="utf-8")
        with pytest.raises(ValueError, match=rf"^{path}:3: .*fuera del repositorio.*FFN_PLAN"):
            load_plan(path)


def test_a_module_beside_the_plan_ffn_plan_names_is_accepted_and_one_elsewhere_is_not(tmp_path, monkeypatch):
    lecture = tmp_path / "mi_clase"
    lecture.mkdir()
    (lecture / "escenas.py").write_text(FIXTURE_SCENES.read_text(encoding="utf-8"), encoding="utf-8")
    plan = lecture / "plan.toml"
    plan.write_text(f'[[scene]]\nname = "a"\nmodule = "{lecture / "escenas.py"}"\nclass = "TinyB"\n', encoding="utf-8")
    monkeypatch.setenv("FFN_PLAN", str(plan))
    (scene,) = load_plan()
    assert scene.module == lecture / "escenas.py"
    elsewhere = tmp_path / "otro"
    elsewhere.mkdir()
    (elsewhere / "escenas.py").write_text(FIXTURE_SCENES.read_text(encoding="utf-8"), encoding="utf-8")
    plan.write_text(
        f'[[scene]]\nname = "a"\nmodule = "{elsewhere / "escenas.py"}"\nclass = "TinyB"\n', encoding="utf-8"
    )
    with pytest.raises(ValueError, match="fuera del repositorio"):
        load_plan()
    # The same plan, not named by FFN_PLAN, does not vouch for a module beside it either.
    monkeypatch.setenv("FFN_PLAN", str(tmp_path / "otro_plan.toml"))
    plan.write_text(f'[[scene]]\nname = "a"\nmodule = "{lecture / "escenas.py"}"\nclass = "TinyB"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="fuera del repositorio"):
        load_plan(plan)


def test_a_plan_that_is_not_utf8_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "plan.toml"
    path.write_bytes('[[scene]]\nname = "a"\n# canción\n'.encode("latin-1"))
    with pytest.raises(ValueError, match=rf"^{path}: el plan no está en UTF-8"):
        load_plan(path)
