"""Outputs kept by version (issue 24): undoing an edit puts back what was made before
instead of making it again, and a damaged version is never put back."""

from __future__ import annotations

from pathlib import Path

from lecture.build.signatures import Kept, unless_fresh
from voiceover import seals


def _maker(path: Path, made: list[str], text: str):
    def make() -> None:
        made.append(text)
        path.write_text(text, encoding="utf-8")

    return make


def test_undoing_an_edit_puts_the_earlier_output_back_without_making_it(tmp_path):
    out, made = tmp_path / "scene.wav", []
    assert unless_fresh(out, "a", _maker(out, made, "primera"), Kept(tmp_path / "versions", 2))
    assert unless_fresh(out, "b", _maker(out, made, "segunda"), Kept(tmp_path / "versions", 2))
    assert unless_fresh(
        out, "a", _maker(out, made, "primera"), Kept(tmp_path / "versions", 2)
    )  # put back: changed, not made
    assert made == ["primera", "segunda"] and out.read_text(encoding="utf-8") == "primera"
    assert not unless_fresh(out, "a", _maker(out, made, "primera"), Kept(tmp_path / "versions", 2))  # and it is fresh
    assert unless_fresh(
        out, "b", _maker(out, made, "segunda"), Kept(tmp_path / "versions", 2)
    )  # the edit again: kept too
    assert made == ["primera", "segunda"] and out.read_text(encoding="utf-8") == "segunda"


def test_only_the_last_versions_are_kept(tmp_path):
    out, made = tmp_path / "scene.wav", []
    for sig in "abcde":
        unless_fresh(out, sig, _maker(out, made, sig), Kept(tmp_path / "versions", 2))
    kept = sorted(p.name for p in (tmp_path / "versions").iterdir())
    assert kept == ["scene.wav.c", "scene.wav.c.sig", "scene.wav.d", "scene.wav.d.sig"]
    unless_fresh(out, "a", _maker(out, made, "a"), Kept(tmp_path / "versions", 2))
    assert made == list("abcde") + ["a"]  # forgotten: made again


def test_a_damaged_version_is_made_again_and_named(tmp_path):
    out, made = tmp_path / "scene.wav", []
    unless_fresh(out, "a", _maker(out, made, "primera"), Kept(tmp_path / "versions", 2))
    unless_fresh(out, "b", _maker(out, made, "segunda"), Kept(tmp_path / "versions", 2))
    version = tmp_path / "versions" / "scene.wav.a"
    version.write_text("pximera", encoding="utf-8")  # same size, other bytes
    seals.take_notices()
    assert unless_fresh(out, "a", _maker(out, made, "primera"), Kept(tmp_path / "versions", 2))
    assert out.read_text(encoding="utf-8") == "primera" and made[-1] == "primera"
    assert any("scene.wav.a" in n for n in seals.take_notices())
    assert not version.exists()


def test_versions_can_be_kept_in_another_folder_and_are_not_hashed_again(tmp_path, monkeypatch):
    out, made, aside = tmp_path / "renders" / "lecture.mp4", [], tmp_path / "cache" / "versions"
    out.parent.mkdir()
    unless_fresh(out, "a", _maker(out, made, "primera"), Kept(aside, 1))
    unless_fresh(out, "b", _maker(out, made, "segunda"), Kept(aside, 1))
    assert (aside / "lecture.mp4.a").exists() and not (out.parent / "versions").exists()
    hashed = []
    real = seals.sha256_file
    monkeypatch.setattr(seals, "sha256_file", lambda p: hashed.append(p) or real(p))
    assert unless_fresh(out, "a", _maker(out, made, "primera"), Kept(aside, 1))
    assert not unless_fresh(out, "a", _maker(out, made, "primera"), Kept(aside, 1))
    assert made == ["primera", "segunda"] and out.read_text(encoding="utf-8") == "primera"
    assert [p for p in hashed if "primera" in Path(p).read_text(encoding="utf-8")] == []


def test_without_keep_nothing_is_kept_aside(tmp_path):
    out, made = tmp_path / "lecture.mp4", []
    unless_fresh(out, "a", _maker(out, made, "a"))
    unless_fresh(out, "b", _maker(out, made, "b"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lecture.mp4", "lecture.mp4.sig"]
