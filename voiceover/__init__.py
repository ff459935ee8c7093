"""Spanish narration: scripts, speech engines, clips, timelines, each scene's track and subtitles.

Knows nothing of manim: scenes ask it for a `Timeline`, the build asks it for audio.
"""
