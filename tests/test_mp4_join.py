"""The lecture's MP4 written by copying bytes is ffmpeg's join, packet for packet: the same
packets (bytes, timestamps, durations, key frames) and the same streams and duration as
ffprobe reads them, with the index at the front; inputs of another shape go to ffmpeg."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from lecture.media import mp4_join
from lecture.media.ffmpeg import AAC_ARGS, concat_mux, mux_copy, run_ffmpeg, run_ffprobe

FPS = 15
# The scenes' shape as the build renders them: H.264 with B-frames at 15 fps (a 1/15360
# time base), its parameter sets with every key frame (ffmpeg's concat demuxer inserts them
# where they are missing), lengths that are not whole milliseconds, each its own bit rate.
SCENE_FRAMES = (17, 23, 9)


def _scene(path: Path, frames: int, pattern: str, size: str = "64x48") -> Path:
    run_ffmpeg(
        [
            "-f",
            "lavfi",
            "-i",
            f"{pattern}=size={size}:rate={FPS}",
            "-frames:v",
            str(frames),
            "-c:v",
            "libx264",
            "-bf",
            "2",
            "-x264-params",
            "repeat-headers=1",
            "-pix_fmt",
            "yuv420p",
            "-video_track_timescale",
            "15360",
            "-an",
            "-f",
            "mp4",
            str(path),
        ],
        "making a test scene",
    )
    return path


def _narration(path: Path, seconds: float) -> Path:
    run_ffmpeg(
        ["-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}", *AAC_ARGS, "-f", "mp4", str(path)],
        "making a test narration",
    )
    return path


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[list[Path], Path]:
    folder = tmp_path_factory.mktemp("mp4_join")
    patterns = ("testsrc", "smptebars", "rgbtestsrc")
    scenes = [_scene(folder / f"s{i}.mp4", n, p) for i, (n, p) in enumerate(zip(SCENE_FRAMES, patterns))]
    return scenes, _narration(folder / "narration.m4a", sum(SCENE_FRAMES) / FPS)


def packets(path: Path) -> str:
    """Every packet of every stream: stream, dts, pts, duration, size, MD5 of its bytes."""
    return run_ffmpeg(["-i", str(path), "-map", "0", "-c", "copy", "-f", "framemd5", "-"], "listing packets").decode()


def streams(path: Path) -> list[str]:
    """ffprobe's view of the streams and the format, less what names or sizes the file."""
    flat = run_ffprobe(["-show_streams", "-show_format", "-of", "flat"], path)
    return [line for line in flat.splitlines() if not any(k in line for k in ("filename", "size=", "bit_rate"))]


def top_boxes(path: Path) -> list[bytes]:
    kinds, data = [], path.read_bytes()
    off = 0
    while off < len(data):
        size, kind = struct.unpack_from(">I4s", data, off)
        if size == 1:
            (size,) = struct.unpack_from(">Q", data, off + 8)
        kinds.append(kind)
        off += size
    return kinds


def test_scenes_joined_by_copying_bytes_are_ffmpegs_join_packet_for_packet(inputs, tmp_path):
    scenes, narration = inputs
    ours = mp4_join.join(scenes, narration, tmp_path / "ours.mp4")
    theirs = concat_mux(scenes, narration, tmp_path / "ffmpeg.mp4", "test scenes")
    assert packets(ours) == packets(theirs)
    assert streams(ours) == streams(theirs)
    assert top_boxes(ours) == [b"ftyp", b"moov", b"mdat"]  # the index first: YouTube's fast start


def test_one_scene_with_its_narration_is_ffmpegs_mux(inputs, tmp_path):
    scenes, _ = inputs
    narration = _narration(tmp_path / "own.m4a", SCENE_FRAMES[1] / FPS)
    ours = mp4_join.join([scenes[1]], narration, tmp_path / "ours.mp4")
    theirs = mux_copy(scenes[1], narration, tmp_path / "ffmpeg.mp4")
    assert packets(ours) == packets(theirs)
    # ffmpeg also copies the scene's own tags (manim's comment) into a single scene's MP4.
    assert [s for s in streams(ours) if ".tags." not in s] == [s for s in streams(theirs) if ".tags." not in s]


def test_64_bit_offsets_hold_the_same_packets(inputs, tmp_path, monkeypatch):
    scenes, narration = inputs
    monkeypatch.setattr(mp4_join, "WIDE_FROM", 0)  # as if past 4 GiB
    ours = mp4_join.join(scenes, narration, tmp_path / "wide.mp4")
    assert b"co64" in ours.read_bytes()[:20_000]
    assert packets(ours) == packets(concat_mux(scenes, narration, tmp_path / "ffmpeg.mp4", "test scenes"))


def test_scenes_encoded_differently_are_left_to_ffmpeg(inputs, tmp_path):
    scenes, narration = inputs
    other = _scene(tmp_path / "wide.mp4", 12, "testsrc", size="96x48")
    with pytest.raises(mp4_join.NotJoinable, match="no se codificó como"):
        mp4_join.join([scenes[0], other], narration, tmp_path / "ours.mp4")
    written = mp4_join.write_mp4([scenes[0], other], narration, tmp_path / "written.mp4", "test scenes")
    assert packets(written) == packets(concat_mux([scenes[0], other], narration, tmp_path / "ffmpeg.mp4", "t"))


def test_a_truncated_scene_is_refused_and_nothing_is_left_at_the_output(inputs, tmp_path):
    scenes, narration = inputs
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(scenes[0].read_bytes()[:-100])  # its moov's end lost
    out = tmp_path / "ours.mp4"
    with pytest.raises(mp4_join.NotJoinable):
        mp4_join.join([cut, scenes[1]], narration, out)
    assert not out.exists()
