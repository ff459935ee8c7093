"""Render one scene at one quality into a silent MP4: a pure function from inputs to a file.

`render_unit` takes a picklable `RenderUnit` and returns a `RenderResult`, so any
`concurrent.futures.Executor` (a local process pool, or a Dask or Ray executor) can run it.
Each unit uses its own manim media directory: manim's TeX cache is not safe to share
between processes.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from lecture.plan import REPO_ROOT


@dataclass(frozen=True)
class RenderUnit:
    scene: str
    module: str          # path of the scene's source file
    class_name: str
    width_px: int
    height_px: int
    fps: int
    timeline_json: str   # the timeline the scene must follow
    media_dir: str       # this unit's own manim media directory
    output: str          # where the silent MP4 lands (written atomically)
    log: str             # where the scene's log lands (bookmarks fired, numbers read, layout)


@dataclass(frozen=True)
class RenderResult:
    scene: str
    ok: bool
    output: str
    log: str
    seconds: float
    error: str = ""


class RenderError(RuntimeError):
    pass


def render_unit(unit: RenderUnit) -> RenderResult:
    start = time.monotonic()
    media = Path(unit.media_dir)
    videos = media / "videos"
    shutil.rmtree(videos, ignore_errors=True)  # a killed earlier run may have left partials
    media.mkdir(parents=True, exist_ok=True)
    tmp_log = Path(unit.log + ".part")
    env = dict(os.environ, FFN_TIMELINE=unit.timeline_json, FFN_SCENE_LOG=str(tmp_log),
               PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "manim", "render", "--media_dir", str(media),
           "--resolution", f"{unit.width_px},{unit.height_px}", "--frame_rate", str(unit.fps),
           "--disable_caching", "--progress_bar", "none", "--verbosity", "WARNING",
           unit.module, unit.class_name]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        return RenderResult(unit.scene, False, "", "", time.monotonic() - start,
                            _last_error(proc.stderr or proc.stdout))
    found = [p for p in videos.rglob(f"{unit.class_name}.mp4") if "partial_movie_files" not in p.parts]
    if len(found) != 1 or not tmp_log.exists():
        return RenderResult(unit.scene, False, "", "", time.monotonic() - start,
                            f"manim finished but left {len(found)} videos and "
                            f"{'a' if tmp_log.exists() else 'no'} scene log under {videos}")
    out = Path(unit.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = out.with_name(out.name + ".part")
    shutil.move(str(found[0]), tmp_out)
    os.replace(tmp_out, out)
    os.replace(tmp_log, unit.log)
    shutil.rmtree(videos, ignore_errors=True)
    return RenderResult(unit.scene, True, str(out), unit.log, time.monotonic() - start)


def _last_error(text: str) -> str:
    """The useful end of a manim traceback (rich boxes stripped)."""
    lines = [ln.strip(" │╭╮╰╯─") for ln in text.strip().splitlines()]
    lines = [ln for ln in lines if ln.strip()]
    return "\n".join(lines[-12:])


def read_log(path: str | Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
