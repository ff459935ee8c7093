"""The scene kit: palette, type scale, narrated-scene clock and reusable mobjects."""

from scenes.kit import palette, typography  # noqa: F401
from scenes.kit.narrated import NarratedScene  # noqa: F401
