"""Render the fixture scene TinyC whole and as a tail chunk, again and again, and print where
the frames differ: a hunt for the rare frame-identity failures seen under load.

    .venv/bin/python benchmarks/repeat_chunks.py [RUNS] [--dest DIR]

Each run renders, in a fresh folder, the whole scene (mobject cache cold), its tail from the
second beat with the cache warm, and the same tail with the cache emptied, and prints the
indices (within the tail) where the tail renders differ from each other and from the whole
one's frames. Run several at once to load the machine: the failures seen so far (a whole
render differing from frame 72 on, by a few levels in a few dozen pixels) came only then.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_ROOT / "tests"), str(REPO_ROOT)]

from test_build_chunks import FPS, ChunkScene  # noqa: E402 - the tests' own fixture scene

from lecture.farm import mobject_cache  # noqa: E402
from lecture.farm.chunk import ChunkUnit, render_chunk  # noqa: E402
from lecture.farm.cuts import first_frame_of  # noqa: E402
from lecture.media.ffmpeg import framemd5  # noqa: E402


class _Env:
    """What `ChunkScene` asks of pytest's monkeypatch: setting a variable."""

    def setenv(self, name: str, value: str) -> None:
        os.environ[name] = value


def differing(a: list[str], b: list[str]) -> list[int | str]:
    out: list[int | str] = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    return out + ([f"{len(a)} frames against {len(b)}"] if len(a) != len(b) else [])


def run(folder: Path) -> str:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    scene = ChunkScene(folder, _Env())
    timeline = scene.timeline()
    timeline_json = scene.job(timeline, "x").unit.timeline_json
    second = first_frame_of(timeline.beats[1], FPS)

    def chunk(start: int, name: str) -> ChunkUnit:
        return ChunkUnit(
            "tiny_c", 1, 2, str(scene.scene.module), "TinyC", 854, 480, FPS, start, None, timeline_json,
            str(folder / "media"), str(folder / f"{name}.mp4"), str(folder / f"{name}.log.json"),
        )  # fmt: skip

    whole, warm = render_chunk(chunk(0, "whole")), render_chunk(chunk(second, "warm"))
    for entry in (folder / "cache" / "build" / "svg" / mobject_cache.FOLDER).glob("*.pickle"):
        entry.unlink()
    cold = render_chunk(chunk(second, "cold"))
    if not (whole.ok and warm.ok and cold.ok):
        return f"a render failed: {whole.error or warm.error or cold.error}"
    tail = framemd5(Path(whole.output))[warm.first_frame :]
    w, c = framemd5(Path(warm.output)), framemd5(Path(cold.output))
    return (
        f"tail from frame {warm.first_frame}: warm/cold {differing(w, c)[:5]}, "
        f"cold/whole {differing(c, tail)[:5]}, warm/whole {differing(w, tail)[:5]}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=int, nargs="?", default=6)
    parser.add_argument("--dest", type=Path, default=Path("/tmp/repeat_chunks"))
    args = parser.parse_args()
    for i in range(args.runs):
        print(f"{i}: {run(args.dest / f'{os.getpid()}-{i}')}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
