"""A checkout whose path holds a `'` (a folder named o'brien) still joins its videos: the
concat demuxer's list quotes each path as ffmpeg reads it (`lecture.media.ffmpeg.concat_line`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lecture.media import ffmpeg
from lecture.media.ffmpeg import FfmpegError, concat_line, concat_streams, run_ffmpeg, run_ffprobe


def _tiny_mp4(path: Path, colour: str) -> Path:
    run_ffmpeg(
        [
            "-f",
            "lavfi",
            "-i",
            f"color=c={colour}:s=64x64:r=10:d=0.5",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            str(path),
        ],
        f"making {path.name}",
    )
    return path


def _frames(path: Path) -> int:
    out = run_ffprobe(
        ["-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0"], path
    )
    return int(out.strip())


@pytest.fixture
def obrien(tmp_path) -> Path:
    folder = tmp_path / "o'brien" / "ffn-video" / "renders"
    folder.mkdir(parents=True)
    return folder


def test_a_line_of_the_concat_list_escapes_a_quote_as_the_demuxer_reads_it():
    assert concat_line(Path("/home/o'brien/a.mp4")) == "file '/home/o'\\''brien/a.mp4'\n"
    assert concat_line(Path("/x/it's 'quoted'.mp4")) == "file '/x/it'\\''s '\\''quoted'\\''.mp4'\n"
    assert concat_line(Path("/plain/a b.mp4")) == "file '/plain/a b.mp4'\n"


def test_videos_under_a_folder_named_o_brien_join_with_every_frame(obrien):
    parts = [_tiny_mp4(obrien / "it's a.mp4", "red"), _tiny_mp4(obrien / "b.mp4", "blue")]
    out = concat_streams(parts, obrien / "joined.mp4", "test videos")
    assert _frames(out) == sum(_frames(p) for p in parts) == 10


def test_the_unescaped_list_of_before_breaks_that_join(obrien, monkeypatch):
    """The test above would catch the old form: `file '{path}'` with the quote left as is."""
    parts = [_tiny_mp4(obrien / "a.mp4", "red"), _tiny_mp4(obrien / "b.mp4", "blue")]
    monkeypatch.setattr(ffmpeg, "concat_line", lambda p: f"file '{Path(p).resolve()}'\n")
    with pytest.raises(FfmpegError):
        concat_streams(parts, obrien / "joined.mp4", "test videos")
