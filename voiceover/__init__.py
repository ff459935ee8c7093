"""Spanish narration: scripts, speech engines, timelines, the narration mix and subtitles.

Knows nothing of manim: scenes ask it for a `Timeline`, the build asks it for audio.
"""
