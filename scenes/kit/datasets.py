"""Datasets read by a scene, recorded like the numbers it reads.

`read_dataset(self, "xor.solution")` is to a rich result what `self.number("xor.n_points")`
is to a figure: the value comes from `ffn_core.registry` (the audited registry, which
`ffn-video numbers --json` lists with a SHA-256 of each dataset) and the read lands in the
scene's `numbers_read`, as `"sha256:<digest>"`. So the scene's log, the storyboard and the
build's cache record see it: a render is reused only while every dataset it drew has the
same digest (`ffn_core.registry.logged_value`).

Figures written on screen still come from `self.number`: a digest accounts for no figure.
"""

from __future__ import annotations

from ffn_core.registry import dataset


def read_dataset(scene, key: str):
    """The value of the audited dataset `key`, recorded in `scene.numbers_read` by digest."""
    found = dataset(key)
    scene.numbers_read[key] = found.logged
    return found.value
