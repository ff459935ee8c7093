"""A damaged cache entry is discarded and rebuilt, with a notice naming it: one build after
any single fault (truncated, zeroed, stamp lost) gives a correct lecture."""

from __future__ import annotations

import pytest
from fixtures.build_support import fresh_copy, quiet_console
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
