"""Render one chunk of a scene in its own manim process, and join a scene's chunks.

`render_chunk(ChunkUnit) -> ChunkResult` is a pure function from its inputs to one file,
and runs anywhere the repository, the virtual
environment and the cache are at the same paths (a Dask worker included: see
`lecture.farm.cluster`). Every attempt has its own manim media folder; the video lands by
rename, so the output path holds a complete chunk or nothing. The chunks are joined by
copying streams: manim writes each animation as its own closed group of pictures and
joins them by copying too, so a chunk holds byte for byte the encoded animations an unsplit
render holds, and the joined scene decodes to the same frames.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lecture.farm.cuts import RenderedRange
from lecture.farm.launcher import ATTEMPT_PREFIX, Progress, last_error, read_log, run_manim
from lecture.plan import REPO_ROOT
from scenes.kit.protocol import CHUNK_INFO_FILE, ChildRequest, ChunkInfo


@dataclass(frozen=True)
class ChunkUnit:
    scene: str
    index: int  # the chunk's place in its scene (0-based)
    count: int  # chunks in the scene
    module: str  # path of the scene's source file
    class_name: str
    width_px: int
    height_px: int
    fps: int
    start_frame: int  # animations starting at or after this frame are drawn...
    end_frame: int | None  # ...and before this one (None: to the scene's end)
    timeline_json: str  # the timeline the scene must follow (the build's own copy)
    media_dir: str  # base of this chunk's manim media folders (one per attempt)
    output: str  # where the chunk's silent MP4 lands (by rename)
    log: str  # where the scene's log, as this chunk's run saw it, lands
    python: str = sys.executable  # the virtual environment's interpreter
    repo: str = str(REPO_ROOT)
    expected_frames: int = 0  # planned frames (for progress only)
    svg_cache: str = ""  # manim's SVGs of formulas, shared by every render ("": none)

    @property
    def label(self) -> str:
        return f"{self.scene} [{self.index + 1}/{self.count}]"


@dataclass(frozen=True)
class ChunkResult:
    scene: str
    index: int
    ok: bool
    output: str  # "" for an empty chunk (no animation started inside its range)
    log: str
    seconds: float  # wall time
    cpu_s: float = 0.0  # CPU time of the manim process and its children
    cpu_to_first_s: float = 0.0  # of which before its first drawn frame (start, skipped construct())
    first_frame: int | None = None
    end_frame: int = 0
    frames_written: int = 0
    error: str = ""
    worker: str = ""  # where it ran: a Dask worker's address, or this host's name
    task: str = ""  # the Dask task's key, when it ran on Dask

    @property
    def range(self) -> RenderedRange:
        return RenderedRange(self.first_frame, self.end_frame, self.frames_written)


# Set by Dask's nanny in every worker (`distributed.nanny.pre-spawn-environ`) for numpy tasks;
# manim under MALLOC_TRIM_THRESHOLD_=65536 returns its frame buffers to the system after every
# frame and pays for it in CPU. A chunk renders in the environment a local render has.
DASK_WORKER_ENV = frozenset({"MALLOC_TRIM_THRESHOLD_", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"})


def chunk_base_env(repo: str) -> dict[str, str]:
    """The environment of every chunk's manim process from this one, before the chunk's own
    variables (`ChildRequest.env`) are added: what a warm start is started in
    (`lecture.farm.warm_start`)."""
    return dict(
        {k: v for k, v in os.environ.items() if k not in DASK_WORKER_ENV},
        **ChildRequest(parent_pid=os.getpid()).env(),
        COLUMNS="160",  # tracebacks not cut at 80 columns
        PYTHONPATH=repo + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )


def render_chunk(unit: ChunkUnit, progress: Progress | None = None) -> ChunkResult:
    start = time.monotonic()
    attempt = Path(unit.media_dir) / f"{ATTEMPT_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    attempt.mkdir(parents=True, exist_ok=True)
    if unit.svg_cache:
        seed_svgs(Path(unit.svg_cache), attempt)
    tmp_log, tmp_info = attempt / "scene.log.json", attempt / CHUNK_INFO_FILE
    request = ChildRequest(
        timeline=Path(unit.timeline_json),
        scene_log=tmp_log,
        chunk_frames=(unit.start_frame, unit.end_frame),
        chunk_info=tmp_info,
        parent_pid=os.getpid(),
    )
    env = dict(chunk_base_env(unit.repo), **request.env())
    cmd = [
        unit.python,
        "-m",
        "lecture.farm.manim_entry",
        "render",
        "--media_dir",
        str(attempt),
        "--resolution",
        f"{unit.width_px},{unit.height_px}",
        "--frame_rate",
        str(unit.fps),
        "--disable_caching",
        "--progress_bar",
        "display",
        "--verbosity",
        "WARNING",
        unit.module,
        unit.class_name,
    ]

    def failed(error: str) -> ChunkResult:
        return ChunkResult(unit.scene, unit.index, False, "", "", time.monotonic() - start, error=error)

    try:
        returncode, output = run_manim(cmd, env, unit.expected_frames, progress)
        if returncode != 0:
            return failed(last_error(output) or f"manim exited with status {returncode}")
        if unit.svg_cache:
            keep_svgs(attempt, Path(unit.svg_cache))
        if not tmp_log.exists() or not tmp_info.exists():
            return failed(f"manim finished but left no scene log or chunk record under {attempt}")
        info = ChunkInfo.read(tmp_info)
        frames = int(read_log(tmp_log)["frames"])
        end = info.past_frame if info.past_frame is not None else frames
        videos = (attempt / "videos").rglob(f"{unit.class_name}.mp4")
        found = [p for p in videos if "partial_movie_files" not in p.parts]
        written, out = 0, ""
        if info.first_frame is not None:
            if len(found) != 1:
                return failed(f"manim finished but left {len(found)} videos under {attempt}")
            written = count_frames(found[0])
            out = _land(found[0], Path(unit.output))
        _land(tmp_log, Path(unit.log))
        if progress is not None and unit.expected_frames:
            progress(unit.expected_frames, unit.expected_frames)
        return ChunkResult(
            unit.scene,
            unit.index,
            True,
            out,
            unit.log,
            time.monotonic() - start,
            cpu_s=info.cpu_s,
            cpu_to_first_s=info.cpu_to_first_s or 0.0,
            first_frame=info.first_frame,
            end_frame=int(end),
            frames_written=written,
        )
    finally:
        shutil.rmtree(attempt, ignore_errors=True)


# manim's tex_dir under its media folder: one SVG per formula, named by the hash of its
# expression and LaTeX template, never written again once made. (Texts are not shared: Pango
# is quick, and manim rewrites a text's SVG in place each time it reads it.)
SVG_FOLDERS = ("Tex",)


def seed_svgs(shared: Path, attempt: Path) -> None:
    """Give a manim attempt the formulas' SVGs earlier renders made, so that LaTeX runs only
    for a formula no render has shown yet (the chunk after an edit skips through every
    formula before it). Each attempt reads its own links to whole files: a render never
    reads a file another one is still writing."""
    for folder in SVG_FOLDERS:
        kept = shared / folder
        if not kept.is_dir():
            continue
        mine = attempt / folder
        mine.mkdir(parents=True, exist_ok=True)
        for svg in kept.glob("*.svg"):
            try:
                os.link(svg, mine / svg.name)
            except OSError:  # another filesystem, or no hard links there
                shutil.copyfile(svg, mine / svg.name)


def keep_svgs(attempt: Path, shared: Path) -> None:
    """Add the SVGs a finished attempt made to the shared ones, each whole or not at all."""
    for folder in SVG_FOLDERS:
        made = attempt / folder
        if not made.is_dir():
            continue
        kept = shared / folder
        kept.mkdir(parents=True, exist_ok=True)
        for svg in made.glob("*.svg"):
            if not (kept / svg.name).exists():
                _land_copy(svg, kept / svg.name)


def _land_copy(src: Path, dest: Path) -> None:
    tmp = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:8]}.part")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)


def _land(src: Path, dest: Path) -> str:
    """Move `src` to `dest` by rename on dest's filesystem: `dest` is whole or absent."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:8]}.part")
    shutil.move(str(src), tmp)
    os.replace(tmp, dest)
    return str(dest)


def count_frames(video: Path) -> int:
    """Video frames in `video`, counted from its packets (one per frame; nothing decoded)."""
    from lecture.media.ffmpeg import count_packets

    return count_packets(video)


def join_chunks(videos: Sequence[Path], out: Path) -> Path:
    """The scene's video from its chunks' videos, in order, streams copied (atomic)."""
    if len(videos) == 1:
        with_tmp = out.with_name(f".{out.name}.{uuid.uuid4().hex[:8]}.part")
        shutil.copyfile(videos[0], with_tmp)
        os.replace(with_tmp, out)
        return out
    from lecture.media.ffmpeg import concat_streams

    return concat_streams(list(videos), out, "chunks of a scene")
