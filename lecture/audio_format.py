"""The narration's audio format, defined once: every file the build writes and every check
that reads one back agree on it."""

from __future__ import annotations

from voiceover.audio_format import CHANNELS, RATE_HZ

__all__ = ["AAC_ARGS", "AAC_BITRATE", "CHANNELS", "RATE_HZ"]
AAC_BITRATE = "192k"
# ffmpeg's output options for the narration as AAC-LC (the codec YouTube asks for).
AAC_ARGS = ("-c:a", "aac", "-profile:a", "aac_low", "-b:a", AAC_BITRATE, "-ar", str(RATE_HZ), "-ac", str(CHANNELS))
