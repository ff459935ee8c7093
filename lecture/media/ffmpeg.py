"""The one door to ffmpeg and ffprobe: every process of either that `lecture` starts, starts here.

Besides the two runners: stream-copy joins, the mux of a video with its encoded narration
(AAC-LC 48 kHz stereo, index at the front for YouTube's fast start), probes and frame MD5s.
(`voiceover.decode` is the voice package's own door: the import graph keeps `voiceover`
below `lecture`.)
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

from voiceover.atomic import atomic_path
from voiceover.audio_format import CHANNELS, RATE_HZ

FFMPEG, FFPROBE = "ffmpeg", "ffprobe"  # the programs, and Debian's package for both
FFMPEG_PACKAGE = "ffmpeg"
AAC_BITRATE = "192k"
# ffmpeg's output options for the narration as AAC-LC (the codec YouTube asks for).
AAC_ARGS = ("-c:a", "aac", "-profile:a", "aac_low", "-b:a", AAC_BITRATE, "-ar", str(RATE_HZ), "-ac", str(CHANNELS))


class FfmpegError(RuntimeError):
    """ffmpeg or ffprobe failed; the message says what it was doing."""


def run_ffmpeg(args: Sequence[str], what: str, error: type[Exception] = FfmpegError) -> bytes:
    """ffmpeg, quiet unless it fails; its standard output. The error says what it was doing
    and ffmpeg's last words."""
    proc = subprocess.run([FFMPEG, "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *args], capture_output=True)
    if proc.returncode != 0:
        raise error(f"ffmpeg failed while {what}: {proc.stderr.decode(errors='replace').strip()[-800:]}")
    return proc.stdout


def run_ffprobe(args: Sequence[str], path: Path, error: type[Exception] = FfmpegError) -> str:
    """ffprobe on `path` with `args`; its standard output, or an error naming the file."""
    proc = subprocess.run([FFPROBE, "-v", "error", *args, str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise error(f"ffprobe cannot read {path}: {proc.stderr.strip()[-400:]}")
    return proc.stdout


def concat_line(path: Path) -> str:
    """One entry of a concat demuxer list. Inside single quotes only `'` is special: it
    closes the quote, is written escaped, and the quote reopens (a folder named o'brien)."""
    quoted = str(Path(path).resolve()).replace("'", "'\\''")
    return f"file '{quoted}'\n"


def concat_streams(paths: Sequence[Path], out: Path, what: str) -> Path:
    """Stream-copy concatenation (ffmpeg's concat demuxer): nothing is encoded again."""
    return _concat(paths, out, what)


def concat_mux(videos: Sequence[Path], audio: Path, out: Path, what: str) -> Path:
    """Videos joined by stream copy and already-encoded audio put with them, in one pass:
    nothing encoded again, no joined silent video written first, index at the front."""
    return _concat(videos, out, f"{what} with {Path(audio).name}", audio)


def _concat(videos: Sequence[Path], out: Path, what: str, audio: Path | None = None) -> Path:
    with atomic_path(out) as tmp:
        listing = tmp.with_suffix(".txt")
        listing.write_text("".join(concat_line(p) for p in videos), encoding="utf-8")
        args = ["-f", "concat", "-safe", "0", "-i", str(listing)]
        if audio is not None:
            args += ["-i", str(audio), "-map", "0:v:0", "-map", "1:a:0"]
        args += ["-c", "copy"] + (["-movflags", "+faststart"] if audio is not None else [])
        try:
            run_ffmpeg([*args, "-f", "mp4", str(tmp)], f"joining {len(videos)} {what}")
        finally:
            listing.unlink(missing_ok=True)
    return out


def mux_copy(video: Path, audio: Path, out: Path) -> Path:
    """Video and already-encoded audio put together as they are, index at the front."""
    with atomic_path(out) as tmp:
        run_ffmpeg(
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
    return json.loads(run_ffprobe(["-show_streams", "-show_format", "-of", "json"], path))


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
    out = run_ffmpeg(
        ["-i", str(video), "-map", "0:v:0", "-f", "framemd5", "-"], f"hashing the frames of {video}"
    ).decode()
    return [line.rsplit(",", 1)[-1].strip() for line in out.splitlines() if line and not line.startswith("#")]


def count_packets(video: Path) -> int:
    """Video frames in `video`, counted from its packets (one per frame; nothing decoded)."""
    args = ["-count_packets", "-select_streams", "v:0", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0"]
    return int(run_ffprobe(args, video).strip())


# -- the narration in stretches, and a render's first frames (issue 24) -------------------
def encode_adts_each(pairs: Sequence[tuple[Path, Path]], what: str) -> list[Path]:
    """Each `(wav, out)`: the WAV as AAC-LC in a raw ADTS stream, whole packets, the
    encoder's priming packet first, nothing trimmed (the caller picks the packets it keeps).
    All in one ffmpeg process, every output with an encoder of its own started afresh, so
    each holds the bytes a process of its own would write (a process costs about 0.1 s)."""
    args: list[str] = []
    for wav, _ in pairs:
        args += ["-i", str(wav)]
    for i, (_, out) in enumerate(pairs):
        args += ["-map", f"{i}:a:0", *AAC_ARGS, "-f", "adts", str(out)]
    run_ffmpeg(args, what)
    return [out for _, out in pairs]


def wrap_adts(adts: Path, out: Path, priming_samples: int = 1024) -> Path:
    """An ADTS narration whose first `priming_samples` only prime the decoder, as AAC in
    MP4, packets copied: the priming declared in the edit list (kept when the stream is
    copied again), so players start on the first real sample."""
    offset = f"-{priming_samples / RATE_HZ:.9f}"  # ffmpeg rounds it back to whole samples
    with atomic_path(out) as tmp:
        run_ffmpeg(
            ["-itsoffset", offset, "-i", str(adts), "-map", "0:a:0", "-c", "copy", "-f", "mp4", str(tmp)],
            f"wrapping {Path(adts).name} in MP4",
        )
    return out


def copy_first_frames(video: Path, frames: int, out: Path) -> Path:
    """The first `frames` frames of `video`, copied as encoded. Exact when a closed group of
    pictures starts at frame `frames` (manim starts one at every animation)."""
    with atomic_path(out) as tmp:
        run_ffmpeg(
            ["-i", str(video), "-map", "0:v:0", "-c", "copy", "-frames:v", str(frames), "-f", "mp4", str(tmp)],
            f"copying the first {frames} frames of {Path(video).name}",
        )
    return out
