"""Beat clips of the classroom deck: cut at the beats' frames exactly, with their narration."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fixtures.classroom_lecture import own_renders

from lecture.classroom import clips as clips_module
from lecture.classroom.clips import ENCODE, cut, keyframes, write_clips
from lecture.classroom.lesson import ClassroomError, beat_spans, chapters
from lecture.layout import Outputs
from lecture.media.ffmpeg import framemd5, probe, run_ffmpeg
from lecture.plan import load_plan
from voiceover.timeline import BeatTiming, Timeline

pytestmark = pytest.mark.slow

SMALL = (160, 90)  # frames compared at this size, in grey: enough to tell one frame from the next


def decoded(video) -> np.ndarray:
    """Every frame of `video`, small and grey, as an array (frames, height, width)."""
    raw = run_ffmpeg(
        ["-i", str(video), "-map", "0:v:0", "-vf", f"scale={SMALL[0]}:{SMALL[1]}", "-f", "rawvideo"]
        + ["-pix_fmt", "gray", "-"],
        f"decoding {video}",
    )
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, SMALL[1], SMALL[0]).astype(float)


def is_nearest(frame: np.ndarray, scene: np.ndarray, index: int) -> bool:
    """Whether scene frame `index` is (one of) the nearest to `frame` among those within 3
    of it: a frame one too early or too late would be nearer where the picture moves."""
    window = range(max(index - 3, 0), min(index + 4, len(scene)))
    distances = {i: float(np.abs(scene[i] - frame).mean()) for i in window}
    return distances[index] <= min(distances.values())


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    env = own_renders(tmp_path_factory.mktemp("clips"))
    mp = pytest.MonkeyPatch()
    for key, value in env.items():
        mp.setenv(key, value)
    yield Outputs(Path(env["FFN_RENDERS_DIR"]) / "preview"), Path(env["FFN_CACHE_DIR"]) / "build" / "preview"
    mp.undo()


@pytest.fixture(scope="module")
def cut_lecture(lecture):
    outputs, work_root = lecture
    found = chapters(load_plan(), outputs, work_root)
    return found, write_clips(found, outputs.folder / "slides" / "clips")


def test_beats_are_the_frames_the_render_drew_for_them(cut_lecture):
    found, _ = cut_lecture
    assert [c.name for c in found] == ["tiny_c", "tiny_a"]
    tiny_c = found[0]
    assert [b.name for b in tiny_c.beats] == ["uno", "dos", "tres"]
    assert tiny_c.beats[0].start_frame == 0 and tiny_c.beats[-1].end_frame == tiny_c.frames
    for before, after in zip(tiny_c.beats, tiny_c.beats[1:]):
        assert before.end_frame == after.start_frame  # no frame lost or shown twice
    assert tiny_c.beats[1].text == "Ahora se mueve a la derecha."


def test_every_clip_starts_and_ends_on_its_beats_frames(cut_lecture):
    found, clips = cut_lecture
    by_slug = {c.beat.slug: c for c in clips}
    for chapter in found:
        scene = decoded(chapter.video)
        for beat in chapter.beats:
            clip = decoded(by_slug[beat.slug].path)
            assert len(clip) == beat.frames, beat.slug
            assert is_nearest(clip[0], scene, beat.start_frame), beat.slug
            assert is_nearest(clip[-1], scene, beat.end_frame - 1), beat.slug
            assert np.abs(clip[0] - scene[beat.start_frame]).mean() < 0.5
            assert np.abs(clip[-1] - scene[beat.end_frame - 1]).mean() < 0.5


def test_clips_are_stream_copies_bit_for_bit_where_a_keyframe_starts_the_beat(cut_lecture):
    found, clips = cut_lecture
    assert {c.how for c in clips} == {"copy"}  # a render puts a keyframe where every beat starts
    for chapter in found:
        scene = framemd5(chapter.video)
        for clip in (c for c in clips if c.beat.scene == chapter.name):
            assert framemd5(clip.path) == scene[clip.beat.start_frame : clip.beat.end_frame], clip.beat.slug


def test_each_clip_carries_the_narration_of_its_stretch(cut_lecture):
    _, clips = cut_lecture
    for clip in clips:
        streams = {s["codec_type"]: s for s in probe(clip.path)["streams"]}
        assert streams["audio"]["codec_name"] == "aac"
        assert float(streams["audio"]["duration"]) == pytest.approx(clip.beat.frames / clip.beat.fps, abs=0.03)


def test_without_a_keyframe_the_clip_is_encoded_again_on_the_same_frames(cut_lecture, tmp_path):
    found, _ = cut_lecture
    chapter = found[0]
    beat = chapter.beats[1]
    out = tmp_path / "dos.mp4"
    assert cut(chapter.video, beat, {}, out) == ENCODE
    scene, clip = decoded(chapter.video), decoded(out)
    assert len(clip) == beat.frames
    assert is_nearest(clip[0], scene, beat.start_frame) and is_nearest(clip[-1], scene, beat.end_frame - 1)
    # Beat "dos" moves from its first frame to its last: one frame off would be nearer its neighbour.
    for got, index, neighbours in ((clip[0], beat.start_frame, (-1, 1)), (clip[-1], beat.end_frame - 1, (-1, 1))):
        here = np.abs(got - scene[index]).mean()
        assert all(here < np.abs(got - scene[index + d]).mean() for d in neighbours)


def test_a_second_run_keeps_the_clips_and_a_changed_video_cuts_them_again(cut_lecture, monkeypatch):
    found, clips = cut_lecture
    folder = clips[0].path.parent
    again = write_clips(found, folder)
    assert {c.how for c in again} == {"kept"}
    stale = folder / "tiny_c-04-cuatro.mp4"  # a beat the script no longer has
    stale.write_bytes(b"")
    monkeypatch.setattr(clips_module, "CLIP_FORMAT", "clip-test")
    assert {c.how for c in write_clips(found[:1], folder)} == {"copy"}
    assert not stale.exists() and (folder / "tiny_a-01-uno.mp4").exists()  # another scene's clip stays
    record = json.loads((folder / "clips.json").read_text(encoding="utf-8"))
    assert "tiny_c-04-cuatro.mp4" not in record and "tiny_a-01-uno.mp4" in record


def test_keyframes_are_read_from_the_packets(cut_lecture):
    found, _ = cut_lecture
    chapter = found[0]
    at = keyframes(chapter.video, chapter.fps)
    assert {b.start_frame for b in chapter.beats} <= set(at)


def test_a_scene_without_render_is_named(lecture):
    outputs, work_root = lecture
    with pytest.raises(ClassroomError, match="sin render de: tiny_x"):
        chapters([*load_plan(), _planned("tiny_x")], outputs, work_root, {"tiny_x"})


def test_a_beat_without_frames_is_refused():
    timeline = Timeline(
        "s",
        "Título",
        (BeatTiming("uno", 0.0, 1.0, 0.0, {}, ()), BeatTiming("dos", 1.0, 0.01, 0.0, {}, ())),
        1.01,
        "s.toml",
    )
    assert [(b.start_frame, b.end_frame) for b in beat_spans("s", timeline, 15.0, 16)] == [(0, 15), (15, 16)]
    with pytest.raises(ClassroomError, match="el beat 'dos' no tiene fotogramas"):
        beat_spans("s", timeline, 15.0, 15)


def _planned(name: str):
    from dataclasses import replace

    return replace(load_plan()[0], name=name)
