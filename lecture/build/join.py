"""Step 6, join: the lecture from every scene's render, once all are up to date and nothing
failed. The video is joined by copying streams; the narration is the lecture's own track,
joined from its stretches (`mix.lecture_audio`); then scenes.json, the subtitles and the
chapters."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lecture.build.failures import failure_message
from lecture.build.mix import KEPT_LECTURE, KEPT_OUTPUTS, Mixed, lecture_audio
from lecture.build.signatures import Kept, signature, unless_fresh
from lecture.build.state import Build, BuildProgress, Failure
from lecture.farm import scene_cache
from lecture.media.chapter_marks import SceneSpan, chapters_text, make_chapters, youtube_problems
from lecture.media.mp4_join import write_mp4
from voiceover.atomic import write_json, write_text
from voiceover.audio_format import RATE_HZ
from voiceover.timeline import Timeline


@dataclass(frozen=True)
class Joined:
    """What the join made; when a part failed, the parts made before it."""

    lecture: Path | None = None
    video_seconds: float = 0.0  # length of lecture.mp4
    subtitles: tuple[Path, ...] = ()
    chapters: Path | None = None
    notes: tuple[str, ...] = ()
    failed: tuple[Failure, ...] = ()
    remade: bool = False  # lecture.mp4 was made again


def join(
    build: Build,
    records: Mapping[str, scene_cache.CacheRecord],
    mixed: Mixed,
    anything_failed: bool,
    display: BuildProgress,
) -> Joined:
    """`records`: every scene up to date; `anything_failed`: whether an earlier step failed."""
    missing = [s.name for s in build.plan if s.name not in records]
    if anything_failed:
        return Joined(notes=("lecture.mp4 no se actualizó porque algo falló",))
    if missing:
        return Joined(
            notes=(
                f"lecture.mp4 no se actualizó: sin render al día de {', '.join(missing)} "
                f"(ffn-video build --quality {build.quality.name} las renderiza)",
            )
        )
    display.step("uniendo la clase")
    names = [s.name for s in build.plan]
    ordered = [mixed.fitted[n] for n in names]
    lecture: Path | None = None
    video_seconds = 0.0
    subtitles: tuple[Path, ...] = ()
    chapters: Path | None = None
    notes: list[str] = []
    remade = False
    try:
        lecture, remade = lecture_video(build, names, records, mixed)
        write_manifest(build, names, records)
        video_seconds = sum(t.total_s for t in ordered)
        subtitles = write_subtitles(build, ordered)
        chapters, chapter_notes, text = chapters_of(build, names, ordered)
        notes.extend(chapter_notes)
        write_text(chapters, text)
    except Exception as err:  # noqa: BLE001 - reported, exit status non-zero
        failure = Failure("clase", failure_message("lecture.mp4", err, build.outputs.folder))
        return Joined(lecture, video_seconds, subtitles, chapters, tuple(notes), (failure,))
    return Joined(lecture, video_seconds, subtitles, chapters, tuple(notes), remade=remade)


def lecture_video(
    build: Build, names: list[str], records: Mapping[str, scene_cache.CacheRecord], mixed: Mixed
) -> tuple[Path, bool]:
    """lecture.mp4: the scenes' silent videos joined with the lecture's narration, in one
    pass; and whether it was made again."""
    videos = [records[n].video_path(build.work.scene(n)) for n in names]
    video_sig = signature(["silent", [records[n].key for n in names]])
    if mixed.narration is None:
        raise RuntimeError("la narración de la clase falló: no hay audio que unir")
    narration, audio_sig = lecture_audio(
        build, mixed.narration, {n: round(records[n].duration_s * RATE_HZ) for n in names}
    )
    # Builds before the one-pass join wrote the silent lecture first: no longer read.
    (build.work.folder / "lecture.silent.mp4").unlink(missing_ok=True)
    lecture = build.outputs.lecture
    remade = unless_fresh(
        lecture,
        signature([video_sig, audio_sig]),
        lambda: write_mp4(videos, narration, lecture, "scene videos"),
        Kept(build.work.versions, KEPT_LECTURE),
    )
    return lecture, remade


def write_manifest(build: Build, names: list[str], records: Mapping[str, scene_cache.CacheRecord]) -> None:
    """Which scene files the lecture is made of, in order: what `ffn-video check` compares
    the lecture's (or the YouTube video's) narration with, scene by scene."""
    scenes = [
        {"name": n, "file": build.outputs.scene_entry(n), "frames": records[n].frames, "fps": records[n].fps}
        for n in names
    ]
    write_json(build.outputs.scenes_manifest, {"scenes": scenes})


def write_subtitles(build: Build, ordered: list[Timeline]) -> tuple[Path, Path]:
    """SubRip and WebVTT, remade only when a text or a time changed."""
    from voiceover.atomic import write_text
    from voiceover.subtitles import cues, srt_text, vtt_text

    text_sig = signature(
        [
            "subtitles",
            [
                [t.total_s, [[b.start_s, [[s.text, s.start_s, s.duration_s] for s in b.segments]] for b in t.beats]]
                for t in ordered
            ],
        ]
    )
    srt_path, vtt_path = build.outputs.srt, build.outputs.vtt
    made: list[list] = []  # the cues, worked out once for both formats and only if one is stale

    def lecture_cues() -> list:
        if not made:
            made.append(cues(ordered))
        return made[0]

    versions = Kept(build.work.versions, KEPT_OUTPUTS)
    unless_fresh(srt_path, text_sig, lambda: write_text(srt_path, srt_text(lecture_cues())), versions)  # atomic
    unless_fresh(vtt_path, text_sig, lambda: write_text(vtt_path, vtt_text(lecture_cues())), versions)
    return srt_path, vtt_path


def chapters_of(build: Build, names: list[str], ordered: list[Timeline]) -> tuple[Path, list[str], str]:
    """chapters.txt's path, the notes about its chapters, and its text."""
    spans, clock = [], 0.0
    for name, timeline in zip(names, ordered):
        spans.append(SceneSpan(name, timeline.title, clock, timeline.total_s))
        clock += timeline.total_s
    chapters, merges = make_chapters(spans)
    notes = [f"capítulos: {m}" for m in merges] + [f"capítulos: {p}" for p in youtube_problems(chapters, clock)]
    return build.outputs.chapters, notes, chapters_text(chapters, clock)
