"""The narration's audio format and loudness targets, defined once for the whole project.

Every clip, track and encoded file is PCM at `RATE_HZ`; the lecture is normalised to
`TARGET_LUFS` integrated with true peak under `CEILING_DBTP` (YouTube's and EBU R128's
streaming practice). `lecture` reads these too, so a check and the file it checks agree.
"""

from __future__ import annotations

RATE_HZ = 48_000  # every narration file, clip to lecture, PCM and AAC alike
SAMPLE_WIDTH_BYTES = 2  # 16-bit PCM throughout
CHANNELS = 2  # delivered as dual-mono stereo: YouTube's recommended layout
TARGET_LUFS = -16.0  # integrated loudness (ITU-R BS.1770)
CEILING_DBTP = -1.0  # true peak, measured at 4x oversampling
OVERSAMPLING = 4  # the limiter and the peak meter both look between samples at this factor


def limiter_chain(gain_db: float, limit_linear: float) -> str:
    """ffmpeg filters: a gain, then `alimiter` at 4x the rate (so it catches the peaks between
    samples) as a true-peak limiter, back at the delivery rate. Gain alone cannot reach both
    the loudness target and the ceiling with espeak-ng's 0 dBFS peaks."""
    return (
        f"volume={gain_db:.3f}dB,aresample={OVERSAMPLING * RATE_HZ},"
        f"alimiter=limit={limit_linear:.4f}:level=false:attack=1:release=60,aresample={RATE_HZ}"
    )
