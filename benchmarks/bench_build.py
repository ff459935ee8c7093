"""Speed of the build, measured in one run at preview quality on the whole lecture.

    .venv/bin/python benchmarks/bench_build.py [--keep]
    .venv/bin/python benchmarks/bench_build.py --quality 1080p --only ESCENA [...] --workers N [--chunk-s S]

Works on a temporary copy of the repository (sources, narration scripts, and the
narration and `ffn_core` caches; never the build cache or the renders), so the figures
start from nothing rendered and the lecturer's files are never edited. Prints:

- a full build with `--jobs 1` and with `--jobs 2`, and the speed-up (target >= 1.6x);
- a rebuild with nothing changed (target < 3 s, the whole command included);
- a rebuild after editing the text of one beat of one scene (target: no more than that
  scene's own render time plus 10 s);
- render time over video time with 2 jobs (target <= 1.0).

Takes several minutes: two full renders of the lecture.

With `--workers N` it measures instead the publishing render of the scenes named by `--only`
(all of them when omitted) at `--quality`, side by side in one run: each scene rendered
unsplit in one manim process, one scene after another; then all of them cut into chunks
(`lecture.farm.cuts`; `--chunk-s` sets the target length) rendered on a local Dask cluster of
N worker processes; the two alternate `--repeat` times (default 3), because the CPU
seconds of one render vary by 10 to 30 % between runs on a shared machine. It prints, for
each repetition and as medians, the wall time and the CPU seconds of the manim processes;
the speed-up; the chunking overhead (chunked CPU seconds over the unsplit ones just
before, median; target <= 1.15), and within it what chunking adds by construction (each
process's start and skipped construct(), measured in the same runs up to each process's
first drawn frame) and how the drawn frames, the same work either way, compared; whether
the joined scenes decode to the unsplit frames; what a minute of lecture costs to render
at this quality on this machine; and, when the machine has fewer cores than N, the wall
time predicted for N workers with one core each from the CPU seconds of every chunk
(longest first onto the least-loaded worker) beside the one measured, and its speed-up
(target >= 6x with 16 workers for the whole lecture at 1080p).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
COPIED_CACHES = ("voiceover", "ffn_core")
SKIPPED = {".git", ".venv", ".cache", "renders", "__pycache__", ".pytest_cache"}
EDIT = " Sin duda."


def copy_repo(dest: Path) -> Path:
    """The repository's sources and its narration and ffn_core caches, under `dest`."""
    shutil.copytree(REPO_ROOT, dest, ignore=lambda d, names: [n for n in names if n in SKIPPED])
    for name in COPIED_CACHES:
        if (REPO_ROOT / ".cache" / name).is_dir():
            shutil.copytree(REPO_ROOT / ".cache" / name, dest / ".cache" / name)
    return dest


def run(repo: Path, *args: str) -> float:
    """Wall time of `python -m lecture.cli ARGS` run inside `repo` (its own modules)."""
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "lecture.cli", *args], cwd=repo, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"ffn-video {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return seconds


def clean_build(repo: Path) -> None:
    shutil.rmtree(repo / ".cache" / "build", ignore_errors=True)
    shutil.rmtree(repo / "renders", ignore_errors=True)


def plan(repo: Path) -> list[dict]:
    return tomllib.loads((repo / "lecture" / "plan.toml").read_text(encoding="utf-8"))["scene"]


def script_file(repo: Path, entry: dict) -> Path:
    return (
        repo / entry["script_path"]
        if "script_path" in entry
        else repo / "voiceover" / "script" / "es" / f"{entry['script']}.toml"
    )


def edit_one_beat(repo: Path) -> tuple[str, str]:
    """Append a short sentence to one beat's text, in the copy; (scene, beat) edited."""
    for entry in plan(repo):
        path = script_file(repo, entry)
        raw = path.read_text(encoding="utf-8")
        for beat in tomllib.loads(raw)["beat"]:
            text = beat["text"].rstrip()
            if text and raw.count(text) == 1 and "{" not in text[-20:]:
                path.write_text(raw.replace(text, text + EDIT), encoding="utf-8")
                return entry["name"], beat["name"]
    sys.exit("no beat's text could be edited in place")


def last_render_s(repo: Path, scene: str) -> float:
    records = sorted(
        (repo / ".cache" / "build" / "preview" / scene).glob("*.record.json"), key=lambda p: p.stat().st_mtime
    )
    return json.loads(records[-1].read_text(encoding="utf-8"))["render_s"]


def video_s(path: Path) -> float:
    proc = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(proc.stdout)


def verdict(ok: bool) -> str:
    return "cumple" if ok else "NO cumple"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy and print its path")
    parser.add_argument("--workers", type=int, help="measure unsplit against chunked on N Dask workers")
    parser.add_argument("--quality", default="1080p", help="quality of the chunked measure (default 1080p)")
    parser.add_argument("--only", nargs="+", metavar="ESCENA", help="scenes of the chunked measure (default: all)")
    parser.add_argument("--chunk-s", type=float, help="target chunk length (default: the build's own choice)")
    parser.add_argument("--repeat", type=int, default=3, help="alternate unsplit and chunked this many times")
    args = parser.parse_args()
    if args.workers is not None:
        from bench_chunks import bench_chunks

        return bench_chunks(args.quality, args.only, args.workers, args.chunk_s, args.keep, args.repeat)
    tmp = Path(tempfile.mkdtemp(prefix="ffn-bench-"))
    try:
        repo = copy_repo(tmp / "repo")
        run(repo, "narrate")  # narration is not what is measured: make sure it is all there
        scenes = plan(repo)

        clean_build(repo)
        full_1 = run(repo, "build", "--quality", "preview", "--jobs", "1")
        clean_build(repo)
        full_2 = run(repo, "build", "--quality", "preview", "--jobs", "2")
        lecture_s = video_s(repo / "renders" / "preview" / "lecture.mp4")
        unchanged = run(repo, "build", "--quality", "preview", "--jobs", "2")
        scene, beat = edit_one_beat(repo)
        edited = run(repo, "build", "--quality", "preview", "--jobs", "2")
        own = last_render_s(repo, scene)

        speedup = full_1 / full_2
        ratio = full_2 / lecture_s
        print(f"clase: {len(scenes)} escenas, {lecture_s:.1f} s de vídeo (preview, 854x480, 15 fps)")
        print(f"compilación completa, --jobs 1: {full_1:7.1f} s")
        print(
            f"compilación completa, --jobs 2: {full_2:7.1f} s   aceleración {speedup:.2f}x "
            f"(objetivo >= 1.6x): {verdict(speedup >= 1.6)}"
        )
        print(f"recompilación sin cambios:      {unchanged:7.1f} s   (objetivo < 3 s): {verdict(unchanged < 3)}")
        print(
            f"tras editar el beat «{beat}» de «{scene}»: {edited:.1f} s; render propio de la escena "
            f"{own:.1f} s; diferencia {edited - own:+.1f} s (objetivo <= +10 s): {verdict(edited <= own + 10)}"
        )
        print(f"tiempo de render / tiempo de vídeo, --jobs 2: {ratio:.2f} (objetivo <= 1.0): {verdict(ratio <= 1.0)}")
        if args.keep:
            print(f"copia conservada en {tmp}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
