"""A damaged cache entry is discarded and rebuilt, with a notice naming it: one build after
any single fault (truncated, zeroed, stamp lost) gives a correct lecture."""

from __future__ import annotations

import pytest
from fixtures.build_support import fresh_copy, quiet_console
from fixtures.content_faults import CONTENT_FAULTS, damage, heard, prepare, problems
from fixtures.faults import FAULTS, inject, lecture_is_correct

from lecture.build.pipeline import build

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
def test_one_build_after_a_damaged_artefact_gives_a_correct_lecture(fault, tmp_path, monkeypatch):
    lecture = fresh_copy(tmp_path / "lecture").apply(monkeypatch)
    damaged = inject(lecture, fault)
    report = build("preview", jobs=2, console=quiet_console())
    assert report.ok, report.failed
    assert lecture_is_correct(lecture) == []
    if fault.damage != "delete_stamp" and fault.artefact not in ("clip",):
        assert any(str(damaged) in note for note in report.notes), report.notes


@pytest.mark.parametrize("fault", CONTENT_FAULTS, ids=lambda f: f.name)
def test_one_build_after_a_clip_zeroed_behind_its_header_names_it_and_sounds_as_before(fault, tmp_path, monkeypatch):
    """Size and time kept, samples zeroed: only the content seal sees it (espeak's segment
    clip, Kokoro's whole sentence, a recording's clip)."""
    lecture = prepare(tmp_path / "lecture", fault)
    for key, value in fault.env(lecture).items():
        monkeypatch.setenv(key, value)
    assert build("preview", jobs=2, console=quiet_console()).ok
    before = heard(lecture)
    damaged = damage(lecture, fault)
    report = build("preview", jobs=2, console=quiet_console())
    assert report.ok, report.failed
    assert problems(lecture, before, damaged, report.notes) == []
    if fault.engine == "kokoro":  # the sentence is named by its words too
        assert any("«Segunda prueba, un cuadrado.»" in note for note in report.notes), report.notes
