"""ffmpeg steps: join silent scene videos without re-encoding, and mux in the narration
as AAC-LC 48 kHz stereo with the moov atom at the front (fast start for YouTube)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

from lecture.audio_format import AAC_ARGS
from voiceover.atomic import atomic_path


class MuxError(RuntimeError):
    pass


def run_ffmpeg(args: list[str], what: str, error: type[Exception] = MuxError) -> None:
    """ffmpeg, quiet unless it fails; the error says what it was doing and ffmpeg's last words."""
    proc = subprocess.run(
        ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *args], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise error(f"ffmpeg failed while {what}: {proc.stderr.strip()[-800:]}")


_ffmpeg = run_ffmpeg


def concat_streams(paths: Sequence[Path], out: Path, what: str) -> Path:
    """Stream-copy concatenation (ffmpeg's concat demuxer): nothing is encoded again."""
    with atomic_path(out) as tmp:
        listing = tmp.with_suffix(".txt")
        listing.write_text("".join(f"file '{Path(p).resolve()}'\n" for p in paths), encoding="utf-8")
        try:
            _ffmpeg(
                ["-f", "concat", "-safe", "0", "-i", str(listing), "-c", "copy", "-f", "mp4", str(tmp)],
                f"joining {len(paths)} {what}",
            )
        finally:
            listing.unlink(missing_ok=True)
    return out


def concat_videos(videos: list[Path], out: Path) -> Path:
    return concat_streams(videos, out, "scene videos")


def mux(video: Path, audio_wav: Path, out: Path) -> Path:
    """Video stream copied as is; narration encoded once to AAC-LC (`lecture.audio_format`)."""
    with atomic_path(out) as tmp:
        _ffmpeg(
            [
                "-i",
                str(video),
                "-i",
                str(audio_wav),
                "-map",
                "0:v:0",
                "-map",
                "1:a:0",
                "-c:v",
                "copy",
                *AAC_ARGS,
                "-movflags",
                "+faststart",
                "-f",
                "mp4",
                str(tmp),
            ],
            f"muxing {Path(video).name} with {Path(audio_wav).name}",
        )
    return out


def mux_copy(video: Path, audio: Path, out: Path) -> Path:
    """Video and already-encoded audio put together as they are, index at the front."""
    with atomic_path(out) as tmp:
        _ffmpeg(
            [
                "-i",
                str(video),
                "-i",
                str(audio),
                "-map",
                "0:v:0",
                "-map",
                "1:a:0",
                "-c",
                "copy",
                "-movflags",
                "+faststart",
                "-f",
                "mp4",
                str(tmp),
            ],
            f"muxing {Path(video).name} with {Path(audio).name}",
        )
    return out


def probe(path: Path) -> dict:
    """ffprobe's view of a file: streams and format, as a dict."""
    proc = subprocess.run(
        ["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", str(path)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise MuxError(f"ffprobe cannot read {path}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def moov_before_mdat(path: Path) -> bool:
    """True when the MP4's index (moov) precedes its media data (mdat): fast start."""
    with open(path, "rb") as f:
        pos = 0
        while True:
            head = f.read(8)
            if len(head) < 8:
                return False
            size, kind = int.from_bytes(head[:4], "big"), head[4:8]
            if kind == b"moov":
                return True
            if kind == b"mdat":
                return False
            if size == 1:
                size = int.from_bytes(f.read(8), "big")
            elif size == 0:
                return False
            pos += size
            f.seek(pos)


def framemd5(video: Path) -> list[str]:
    """One MD5 per decoded video frame (ffmpeg's framemd5 muxer), without the header: two
    videos with equal lists show the same pictures, whatever their containers."""
    out = subprocess.run(
        ["ffmpeg", "-nostdin", "-v", "error", "-i", str(video), "-map", "0:v:0", "-f", "framemd5", "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line.rsplit(",", 1)[-1].strip() for line in out.splitlines() if line and not line.startswith("#")]
