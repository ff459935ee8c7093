"""A measured loudness, and the meter that reads it from any media file.

`Loudness` is the one type for a loudness: the build's (measured from the scenes' blocks,
`lecture.media.soundtrack`), the YouTube check's (read from the bundle's video) and the
tests'. `measure` is ffmpeg's EBU R128 meter (ITU-R BS.1770, gated; true peak at 4x
oversampling, the highest over all channels): streaming, so a 25-minute lecture is measured
in seconds without holding its samples in memory, and independent of the build's own meter.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from lecture.media.ffmpeg import FfmpegError, run_ffmpeg


@dataclass(frozen=True)
class Loudness:
    integrated_lufs: float  # LUFS, gated (ITU-R BS.1770)
    true_peak_dbtp: float  # dBTP, 4x oversampled, the highest over all channels


# The running values ebur128 attaches to every frame it passes; the last frame's are the whole stream's.
_INTEGRATED = re.compile(rb"^lavfi\.r128\.I=(\S+)$", re.MULTILINE)
_TRUE_PEAK = re.compile(rb"^lavfi\.r128\.true_peak=(\S+)$", re.MULTILINE)


def measure(path: Path) -> Loudness:
    """Integrated loudness and true peak of the first audio stream of `path`."""
    meter = "ebur128=peak=true:metadata=1,ametadata=mode=print:file=-"
    out = run_ffmpeg(
        ["-nostats", "-i", str(path), "-map", "0:a:0", "-af", meter, "-f", "null", "-"],
        f"measuring the loudness of {path}",
    )
    integrated, peaks = _INTEGRATED.findall(out), _TRUE_PEAK.findall(out)
    if not integrated or not peaks:
        raise FfmpegError(f"ffmpeg measured no loudness in {path}: it has no audio")
    peak = float(peaks[-1])  # linear
    return Loudness(float(integrated[-1]), 20 * math.log10(peak) if peak > 0 else float("-inf"))
