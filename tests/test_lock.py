"""The lock of the verified environment (constraints.txt) covers what the project needs."""

from __future__ import annotations

from importlib import metadata

import pytest

from lecture.constraints import LOCK_PATH, canonical, closure, declared, read_lock


def test_the_lock_pins_every_package_the_project_needs_at_its_installed_version():
    # setup.sh installs with the lock, so a verified environment and its lock agree exactly;
    # a dependency added to pyproject.toml without refreshing the lock fails here, by name.
    locked = read_lock(LOCK_PATH)
    needed = closure()
    missing = sorted(p.name for p in needed if p.name not in locked)
    assert not missing, f"constraints.txt lacks {missing}: run .venv/bin/python -m lecture.constraints"
    drifted = {p.name: (locked[p.name], p.version) for p in needed if locked[p.name] != p.version}
    assert not drifted, f"installed versions differ from constraints.txt (locked, installed): {drifted}"


def test_every_declared_requirement_is_in_the_lock():
    locked = read_lock(LOCK_PATH)
    for text in declared():
        name = text.split(";")[0].split("[")[0]
        for op in ("==", ">=", "<=", "~=", ">", "<"):
            name = name.split(op)[0]
        assert canonical(name.strip()) in locked, text


def test_closure_follows_requirements_of_requirements():
    # srt has no dependencies; google-auth-httplib2 needs google-auth and httplib2.
    assert [p.name for p in closure(["srt>=3"])] == ["srt"]
    names = {p.name for p in closure(["google-auth-httplib2"])}
    assert {"google-auth-httplib2", "google-auth", "httplib2"} <= names
    assert all(p.version == metadata.version(p.name) for p in closure(["srt>=3"]))


def test_torch_is_locked_without_its_local_build_label():
    # "2.13.0+cpu" would not exist on an index elsewhere; "==2.13.0" still takes the CPU wheel here.
    assert read_lock(LOCK_PATH)["torch"] == "2.13.0"


def test_a_malformed_lock_line_is_named_with_file_and_line(tmp_path):
    bad = tmp_path / "constraints.txt"
    bad.write_text("# header\nnumpy==2.0.0\nrich>=13\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"constraints\.txt:3"):
        read_lock(bad)
