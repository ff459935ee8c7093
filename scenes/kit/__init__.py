"""The scene kit: palette, type scale, the narrated-scene clock (`narrated`) and reusable mobjects.

Importing the package imports nothing else: the build reads `scenes.kit.protocol` without manim."""
