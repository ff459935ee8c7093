"""YouTube chapters: first at 0:00, at least three, each at least 10 s; short scenes merge."""

from __future__ import annotations

from lecture.media.chapter_marks import SceneSpan, chapters_text, make_chapters, timestamp, youtube_problems


def _spans(*durations: float) -> list[SceneSpan]:
    spans, clock = [], 0.0
    for i, d in enumerate(durations):
        spans.append(SceneSpan(f"s{i}", f"Título {i}", clock, d))
        clock += d
    return spans


def test_one_chapter_per_scene_from_its_start():
    chapters, notes = make_chapters(_spans(30.0, 42.5, 20.0))
    assert [(c.start_s, c.title) for c in chapters] == [(0, "Título 0"), (30, "Título 1"), (72, "Título 2")]
    assert notes == []
    assert youtube_problems(chapters, 92.5) == []
    assert chapters_text(chapters, 92.5) == "0:00 Título 0\n0:30 Título 1\n1:12 Título 2\n"


def test_a_short_scene_joins_the_previous_chapter_and_says_so():
    chapters, notes = make_chapters(_spans(30.0, 5.0, 40.0, 20.0))
    assert [(c.start_s, c.scenes) for c in chapters] == [(0, ("s0", "s1")), (35, ("s2",)), (75, ("s3",))]
    assert len(notes) == 1 and "s1" in notes[0] and "Título 0" in notes[0]


def test_a_short_first_scene_absorbs_the_next_so_the_first_chapter_stays_at_zero():
    chapters, notes = make_chapters(_spans(4.0, 30.0, 30.0, 30.0))
    assert [(c.start_s, c.title, c.scenes) for c in chapters] == [
        (0, "Título 0", ("s0", "s1")),
        (34, "Título 2", ("s2",)),
        (64, "Título 3", ("s3",)),
    ]
    assert len(notes) == 1


def test_a_short_last_scene_joins_the_one_before():
    chapters, _ = make_chapters(_spans(30.0, 30.0, 30.0, 6.0))
    assert [c.scenes for c in chapters] == [("s0",), ("s1",), ("s2", "s3")]


def test_lengths_are_measured_between_whole_second_timestamps():
    # Starts 0, 10.4 and 20.2 s are written 0:00, 0:10 and 0:20: the second lasts 10 s.
    chapters, notes = make_chapters(_spans(10.4, 9.8, 15.0))
    assert [c.start_s for c in chapters] == [0, 10, 20] and notes == []
    # 10.6 + 9.3: the third starts at 19.9 -> 0:19, so the second lasts 9 s and merges.
    chapters, notes = make_chapters(_spans(10.6, 9.3, 15.0))
    assert [c.scenes for c in chapters] == [("s0", "s1"), ("s2",)] and len(notes) == 1


def test_youtube_problems_name_what_fails():
    chapters, _ = make_chapters(_spans(30.0, 30.0))
    problems = youtube_problems(chapters, 60.0)
    assert len(problems) == 1 and "al menos 3" in problems[0]
    assert youtube_problems([], 0.0)


def test_timestamps_use_hours_once_the_video_reaches_one():
    assert timestamp(65) == "1:05"
    assert timestamp(3725, with_hours=True) == "1:02:05"
    chapters, _ = make_chapters(_spans(1800.0, 1800.0, 60.0))
    assert chapters_text(chapters, 3660.0).splitlines() == ["0:00:00 Título 0", "0:30:00 Título 1", "1:00:00 Título 2"]
