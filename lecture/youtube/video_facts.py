"""Facts about an MP4 that YouTube cares about, read with ffprobe and ffmpeg.

- `stream_facts`: container, codecs, profiles, pixel format, audio rate and channels.
- `gop_facts`: whether every GOP is closed. Read from the packets' order, codec-agnostic:
  a GOP is open when a frame that follows its keyframe in decoding order is shown before
  it (a leading picture, which may refer to the previous GOP). x264's own settings string
  (`open_gop=1`), when present, says so too.
- `loudness`: integrated loudness (BS.1770, gated) and true peak over all channels, from
  ffmpeg's ebur128 filter: streaming, so a 25-minute lecture is measured in seconds
  without holding its samples in memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lecture.media.ffmpeg import FfmpegError, probe, run_ffprobe
from lecture.media.loudness import Loudness, measure
from lecture.youtube import YoutubeError


@dataclass(frozen=True)
class StreamFacts:
    format_name: str  # ffprobe's, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
    duration_s: float
    video_codec: str | None  # "h264"
    video_profile: str | None  # "High"
    pix_fmt: str | None  # "yuv420p"
    width_px: int
    height_px: int
    audio_codec: str | None  # "aac"
    audio_profile: str | None  # "LC"
    sample_rate_hz: int
    channels: int

    @property
    def is_mp4(self) -> bool:
        return "mp4" in self.format_name.split(",")


def stream_facts(path: Path) -> StreamFacts:
    """The first video and first audio stream of `path`; an error naming it when ffprobe cannot read it."""
    try:
        info = probe(Path(path))
    except FfmpegError as err:
        raise YoutubeError(f"{path}: ffprobe no puede leerlo ({err})") from None
    video: dict[str, Any] = next((s for s in info.get("streams", []) if s.get("codec_type") == "video"), {})
    audio: dict[str, Any] = next((s for s in info.get("streams", []) if s.get("codec_type") == "audio"), {})
    fmt = info.get("format", {})
    return StreamFacts(
        format_name=fmt.get("format_name", ""),
        duration_s=float(fmt.get("duration") or 0.0),
        video_codec=video.get("codec_name"),
        video_profile=video.get("profile"),
        pix_fmt=video.get("pix_fmt"),
        width_px=int(video.get("width") or 0),
        height_px=int(video.get("height") or 0),
        audio_codec=audio.get("codec_name"),
        audio_profile=audio.get("profile"),
        sample_rate_hz=int(audio.get("sample_rate") or 0),
        channels=int(audio.get("channels") or 0),
    )


@dataclass(frozen=True)
class GopFacts:
    keyframes: int
    open_gops: int  # GOPs with a leading picture (shown before their keyframe)
    starts_with_keyframe: bool
    x264_open_gop: bool | None  # x264's own setting, when its settings string is in the stream

    @property
    def closed(self) -> bool:
        return self.starts_with_keyframe and self.open_gops == 0 and self.x264_open_gop is not True


def gop_facts(path: Path) -> GopFacts:
    """Keyframes and leading pictures of the first video stream (packets only, nothing decoded)."""
    args = ["-select_streams", "v:0", "-show_entries", "packet=pts,flags", "-of", "csv=p=0"]
    try:
        packets = run_ffprobe(args, path)
    except FfmpegError as err:
        raise YoutubeError(f"{path}: ffprobe no puede leer sus paquetes de vídeo ({err})") from None
    keyframes = open_gops = 0
    first_key = None
    key_pts = None
    gop_open = False
    for line in packets.splitlines():
        pts_text, _, flags = line.partition(",")
        if not pts_text or pts_text == "N/A":
            continue
        pts, is_key = int(pts_text), "K" in flags
        if first_key is None:
            first_key = is_key
        if is_key:
            keyframes += 1
            key_pts, gop_open = pts, False
        elif key_pts is not None and pts < key_pts and not gop_open:
            gop_open = True
            open_gops += 1
    return GopFacts(keyframes, open_gops, bool(first_key), _x264_open_gop(path))


_X264_OPEN_GOP = re.compile(rb"x264 - core \d+.{0,2000}?open_gop=(\d)", re.DOTALL)


def _x264_open_gop(path: Path, head_bytes: int = 4 << 20) -> bool | None:
    """x264's `open_gop` setting from the settings string it writes into the stream's
    first frame (within the first few MB of a fast-start file), or None."""
    with open(path, "rb") as f:
        head = f.read(head_bytes)
    m = _X264_OPEN_GOP.search(head)
    return None if m is None else m.group(1) != b"0"


def loudness(path: Path) -> Loudness:
    """Integrated loudness and true peak of the first audio stream of `path`."""
    try:
        return measure(path)
    except FfmpegError as err:
        raise YoutubeError(f"{path}: no se pudo medir la sonoridad ({err})") from None
