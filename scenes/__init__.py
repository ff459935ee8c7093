"""Manim scenes of the lecture, one module per scene; shared drawing lives in `scenes.kit`."""
