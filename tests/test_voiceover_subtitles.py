"""Subtitles: SRT and WebVTT that parse with `srt` and `webvtt-py`, keep 42 characters a
line, 2 lines a cue, 1-7 s a cue, never cross a scene cut, and lose no word."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import srt
import webvtt

from voiceover.subtitles import cues, wrap, write_srt, write_vtt
from voiceover.timeline import BeatTiming, Segment, Timeline

# The rules the subtitles must keep, pinned here rather than read from the module they test
# (common broadcast practice for a 16:9 frame, and YouTube's readable minimum and maximum).
MAX_LINE_CHARS, MAX_LINES = 42, 2
MIN_CUE_S, MAX_CUE_S = 1.0, 7.0

LONG = (
    "Cada bloque de un transformer tiene dos mitades: la atención, que decide qué mirar, "
    "y la capa feed-forward, que guarda el 66,8 % de los pesos y trabaja en silencio, "
    "palabra por palabra, sin mirar a sus vecinas"
)
A, B = LONG.rindex(" ", 0, 60), LONG.rindex(" ", 0, 150)  # bookmarks fall between words


def beat(name: str, start: float, parts: list[tuple[str, float]], pause: float) -> BeatTiming:
    """A beat whose segments (text, seconds) follow each other from `start`."""
    segments, clock = [], start
    for text, seconds in parts:
        segments.append(Segment(text, text, clock, seconds, ""))
        clock += seconds
    marks = {f"m{i}": s.start_s + s.duration_s for i, s in enumerate(segments[:-1])}
    return BeatTiming(name, start, clock - start, pause, marks, tuple(segments))


def scene(name: str, beats_spec: list[tuple[list[tuple[str, float]], float]]) -> Timeline:
    beats, clock = [], 0.0
    for i, (parts, pause) in enumerate(beats_spec):
        b = beat(f"b{i}", clock, parts, pause)
        beats.append(b)
        clock = b.end_s
    return Timeline(name, name, tuple(beats), clock, f"{name}.toml")


@pytest.fixture
def lecture() -> list[Timeline]:
    return [
        # A long sentence cut by bookmarks, and one of 6 738 415 616 pesos (narrow spaces).
        scene(
            "uno",
            [
                ([(LONG[:A], 4.0), (LONG[A + 1 : B], 6.5), (LONG[B + 1 :], 3.0)], 0.6),
                ([("Son 6\u202f738\u202f415\u202f616 pesos en total.", 3.2)], 0.4),
            ],
        ),
        # Very short segments and beats: "Sí." lasts 0.3 s; a scene ends right after speech.
        scene(
            "dos",
            [
                ([("Sí.", 0.3)], 0.2),
                ([("Y no.", 0.4), ("Nada más.", 0.5)], 0.0),
                ([("Muy bien, sigamos con lo que importa de verdad.", 2.4)], 0.0),
            ],
        ),
        # One segment spoken slowly for 20 s, and a lone word held for 9 s.
        scene("tres", [([(LONG, 20.0)], 1.0), ([("Fin.", 9.0)], 0.5)]),
    ]


def scene_bounds(timelines):
    bounds, clock = [], 0.0
    for t in timelines:
        bounds.append((clock, clock + t.total_s))
        clock += t.total_s
    return bounds


def test_cues_keep_the_limits_and_never_cross_a_scene_cut(lecture):
    found = cues(lecture)
    bounds = scene_bounds(lecture)
    for cue in found:
        assert 1 <= len(cue.lines) <= MAX_LINES, cue
        assert all(0 < len(line) <= MAX_LINE_CHARS for line in cue.lines), cue
        assert MIN_CUE_S - 1e-9 <= cue.end_s - cue.start_s <= MAX_CUE_S + 1e-9, cue
        assert any(lo - 1e-9 <= cue.start_s and cue.end_s <= hi + 1e-9 for lo, hi in bounds), cue
    for a, b in zip(found, found[1:]):
        assert a.end_s <= b.start_s + 1e-9, (a, b)


def test_no_word_is_lost_or_reordered(lecture):
    said = " ".join(s.text for t in lecture for b in t.beats for s in b.segments)
    shown = " ".join(" ".join(c.lines) for c in cues(lecture))
    assert shown.split(" ") == said.split(" ")


def test_a_number_with_narrow_spaces_is_never_broken_across_lines(lecture):
    lines = [line for c in cues(lecture) for line in c.lines]
    assert any("6\u202f738\u202f415\u202f616" in line for line in lines)


def test_scenes_are_laid_end_to_end(lecture):
    found = cues(lecture)
    second_scene_start = lecture[0].total_s
    first_of_second = next(c for c in found if "Sí." in c.lines[0])
    assert first_of_second.start_s == pytest.approx(second_scene_start, abs=0.001)


def test_cue_times_follow_the_measured_segment_boundaries():
    # Too long for one cue (8 s): the break falls on the bookmark, at its measured time.
    timeline = scene("uno", [([("Primera parte de la frase,", 4.5), ("y la segunda parte termina aquí.", 3.5)], 0.5)])
    found = cues([timeline])
    assert [c.lines for c in found] == [("Primera parte de la frase,",), ("y la segunda parte termina aquí.",)]
    assert found[0].end_s == pytest.approx(4.5, abs=0.001) and found[1].start_s == pytest.approx(4.5, abs=0.001)


def test_srt_and_vtt_parse_with_their_libraries_and_match_the_cues(lecture, tmp_path):
    found = cues(lecture)
    srt_path = write_srt(lecture, tmp_path / "clase.es.srt")
    vtt_path = write_vtt(lecture, tmp_path / "clase.es.vtt")
    parsed = list(srt.parse(srt_path.read_text(encoding="utf-8")))
    assert [p.content.split("\n") for p in parsed] == [list(c.lines) for c in found]
    assert [p.start for p in parsed] == [timedelta(milliseconds=round(c.start_s * 1000)) for c in found]
    vtt = webvtt.read(str(vtt_path))
    assert [c.text.split("\n") for c in vtt.captions] == [list(c.lines) for c in found]
    assert [seconds(c.start) for c in vtt.captions] == pytest.approx([c.start_s for c in found], abs=0.001)
    assert [seconds(c.end) for c in vtt.captions] == pytest.approx([c.end_s for c in found], abs=0.001)
    assert vtt_path.read_text(encoding="utf-8").startswith("WEBVTT\n")


def seconds(stamp: str) -> float:
    h, m, s = stamp.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def test_wrap_balances_lines_and_refuses_what_cannot_fit():
    assert wrap(["hola", "mundo"]) == ("hola mundo",)
    lines = wrap(LONG[:80].split(" "))
    assert len(lines) == 2 and all(len(line) <= MAX_LINE_CHARS for line in lines)
    assert wrap(LONG.split(" ")) is None
    # A break after punctuation wins over a slightly better balance.
    assert wrap("La atención, la que decide qué mirar, se lleva casi toda la fama.".split(" "))[0].endswith(",")


def test_the_real_iceberg_narration_makes_valid_subtitles(tmp_path, monkeypatch):
    """The shipped script, timed by its cached or fresh espeak-ng timeline."""
    from voiceover.engines.espeak import EspeakEngine
    from voiceover.timing import build_timeline

    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "no_recordings"))
    timeline = build_timeline("iceberg", engine=EspeakEngine())
    found = cues([timeline, timeline])
    text = " ".join(" ".join(c.lines) for c in found)
    assert "66,8\u00a0%" in text and "{" not in text and not re.search(r"\s{2}", text)
    for cue in found:
        assert MIN_CUE_S <= cue.end_s - cue.start_s <= MAX_CUE_S
        assert all(len(line) <= MAX_LINE_CHARS for line in cue.lines) and len(cue.lines) <= MAX_LINES
        cut = round(timeline.total_s, 3)  # cues count whole milliseconds
        assert cue.end_s <= cut or cue.start_s >= cut
