"""Step 5, mux: each chosen scene's own MP4, its silent video and its narration (at the
lecture's loudness) both copied as encoded, remade only when either changed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lecture.build.failures import failure_message
from lecture.build.mix import KEPT_OUTPUTS, Mixed
from lecture.build.signatures import Kept, signature, unless_fresh
from lecture.build.state import Build, BuildProgress, Failure
from lecture.farm import scene_cache
from lecture.media.mp4_join import write_mp4


@dataclass(frozen=True)
class Muxed:
    failed: tuple[Failure, ...]
    remade: tuple[str, ...] = ()  # the scenes whose own MP4 was made again


def mux(
    build: Build,
    records: Mapping[str, scene_cache.CacheRecord],
    mixed: Mixed,
    failed_before: frozenset[str],
    display: BuildProgress,
) -> Muxed:
    """`records`: every scene up to date; `failed_before`: the names that already failed."""
    if mixed.narration is None:
        return Muxed(())
    failed: list[Failure] = []
    remade: list[str] = []
    for scene in build.chosen:
        if scene.name not in records or scene.name in failed_before:
            continue
        try:
            if scene_video(build, scene.name, records[scene.name], mixed.narration.encoded[scene.name]):
                display.step(f"narración mezclada en scenes/{scene.name}.mp4")
                remade.append(scene.name)
        except Exception as err:  # noqa: BLE001 - reported with the scene's name
            failed.append(Failure(scene.name, failure_message("mux", err, build.outputs.scenes)))
            display.failed(scene.name, failed[-1].message)
    return Muxed(tuple(failed), tuple(remade))


def scene_video(build: Build, name: str, record: scene_cache.CacheRecord, encoded: tuple[Path, str]) -> bool:
    """The scene's own MP4; True when remade."""
    m4a, sig = encoded
    video = record.video_path(build.work.scene(name))
    out = build.outputs.scene(name)
    return unless_fresh(
        out,
        signature([record.key, sig]),
        lambda: write_mp4([video], m4a, out, f"{name}.mp4"),
        Kept(build.work.versions, KEPT_OUTPUTS),
    )
