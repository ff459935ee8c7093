"""`ffn-video watch`: rebuild at preview quality whenever a scene, its narration or the
plan changes.

Watching is polling: every half second the modification time and size of each file that
can change the lecture are compared with the last look (the plan, every scene's source
and the repository modules it imports, `ffn_core`, the narration scripts and the
lecturer's recordings). Polling needs no extra dependency and works the same on every
filesystem. A change is acted on once the files have stopped changing for a moment (an
editor saving in several writes triggers one build). The build itself is the ordinary
incremental one: only the scenes whose cache key changed are narrated and rendered again
(from the first beat that changed), only the narration's stretches whose samples changed
are encoded again, then `lecture.mp4` is refreshed. After each rebuild `watch` says what it
redid, how long the build took, and how long after the file was saved `lecture.mp4` was
refreshed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from lecture.build.display import print_summary
from lecture.build.lock import BuildLocked
from lecture.build.pipeline import BuildReport, build
from lecture.farm import warm_start
from lecture.farm.scene_cache import scene_sources
from lecture.plan import REPO_ROOT, load_plan, plan_path

Snapshot = dict[Path, tuple[int, int] | None]


def watched_files(plan_file: Path | None = None) -> list[Path]:
    """Every file whose change can change the lecture (recomputed each time: an edit can
    add an import or a scene)."""
    from voiceover.paths import script_path
    from voiceover.recordings import recordings_dir

    plan_file = Path(plan_file) if plan_file else plan_path()
    files: set[Path] = {plan_file.resolve()}
    files.update(p.resolve() for p in (REPO_ROOT / "ffn_core").rglob("*.py"))
    try:
        plan = load_plan(plan_file)
    except ValueError:
        return sorted(files)  # a plan being edited; its own change is what we wait for
    for scene in plan:
        files.add((scene.script_path or script_path(scene.script)).resolve())
        try:
            files.update(scene_sources(scene.module))
        except (OSError, SyntaxError):
            files.add(scene.module.resolve())  # half-written source: watch the file itself
    recordings = recordings_dir()
    if recordings.is_dir():
        files.update(p.resolve() for p in recordings.rglob("*") if p.is_file())
    return sorted(files)


def snapshot(files: list[Path]) -> Snapshot:
    state: Snapshot = {}
    for path in files:
        try:
            st = path.stat()
            state[path] = (st.st_mtime_ns, st.st_size)
        except OSError:
            state[path] = None
    return state


def changed(before: Snapshot, after: Snapshot) -> list[Path]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def watch(
    quality: str = "preview",
    interval_s: float = 0.5,
    settle_s: float = 0.3,
    max_cycles: int | None = None,
    initial_build: bool = True,
    jobs: int | None = None,
    console: Console | None = None,
    plan_file: Path | None = None,
    build_fn: Callable[..., BuildReport] = build,
) -> BuildReport | None:
    """Build, then rebuild after each change, until interrupted or after `max_cycles`
    rebuilds; returns the last build's report."""
    console = console or Console(stderr=True)
    # One manim process kept waiting, manim imported, for the next edit's first chunk.
    with warm_start.for_local_renders(standing=1):
        return _watch(quality, interval_s, settle_s, max_cycles, initial_build, jobs, console, plan_file, build_fn)


def _watch(
    quality: str,
    interval_s: float,
    settle_s: float,
    max_cycles: int | None,
    initial_build: bool,
    jobs: int | None,
    console: Console,
    plan_file: Path | None,
    build_fn: Callable[..., BuildReport],
) -> BuildReport | None:
    last: BuildReport | None = None
    files = watched_files(plan_file)
    # A build is compared against the files as they were when it started, never as they
    # are after it: an edit saved while a build runs is then a change, built next.
    state = snapshot(files)
    if initial_build:
        last = _build_once(build_fn, quality, jobs, console, plan_file) or last
        files, state = _rewatch(plan_file, state)
    console.print(f"[bold]vigilando[/] {len(files)} archivos (Ctrl+C para salir)", highlight=False)
    cycles = 0
    try:
        while max_cycles is None or cycles < max_cycles:
            time.sleep(interval_s)
            now = snapshot(files)
            if now == state:
                continue
            while True:  # wait for the editor to finish writing
                time.sleep(settle_s)
                later = snapshot(files)
                if later == now:
                    break
                now = later
            diff = changed(state, now)
            shown = ", ".join(_rel(p) for p in diff[:5]) + (" ..." if len(diff) > 5 else "")
            console.print(f"[bold]cambió[/] {shown}", highlight=False)
            saved = saved_at(diff)
            state = now  # what this build reads; later edits stay changes
            report = _build_once(build_fn, quality, jobs, console, plan_file)
            if report is not None:
                tell_redone(report, console, time.time() - saved if saved is not None else None)
            last = report or last
            cycles += 1
            files, state = _rewatch(plan_file, state)
    except KeyboardInterrupt:
        console.print("fin de la vigilancia")
    return last


def _rewatch(plan_file, state: Snapshot) -> tuple[list[Path], Snapshot]:
    """The files to watch after a build (an edit can add an import or a scene), keeping the
    pre-build snapshot of those already watched; files new to the watch start from now."""
    files = watched_files(plan_file)
    fresh = [p for p in files if p not in state]
    merged = {p: state[p] for p in files if p in state}
    merged.update(snapshot(fresh))
    return files, merged


def _build_once(build_fn, quality, jobs, console: Console, plan_file) -> BuildReport | None:
    try:
        report = build_fn(quality, jobs=jobs, console=console, plan_path=plan_file)
    except BuildLocked as err:
        console.print(f"[red]{escape(str(err))}[/]", highlight=False, soft_wrap=True)
        return None
    except (ValueError, RuntimeError) as err:  # a plan or script being edited; wait for the fix
        console.print(f"[red]error:[/] {escape(str(err))}", highlight=False, soft_wrap=True)
        return None
    print_summary(report, console)
    return report


def saved_at(paths: list[Path]) -> float | None:
    """When the latest of `paths` was written (the epoch's seconds), None if all are gone."""
    times = []
    for path in paths:
        try:
            times.append(path.stat().st_mtime)
        except OSError:
            pass
    return max(times) if times else None


def tell_redone(report: BuildReport, console: Console, since_save_s: float | None) -> None:
    """What the rebuild redid, how long it took, and the time from the save to lecture.mp4."""
    for line in report.redone or ["nada que rehacer"]:
        console.print(f"  rehecho: {escape(line)}", highlight=False, soft_wrap=True)
    line = f"[bold]recompilado en {report.seconds:.1f} s[/]"
    if report.lecture_remade and since_save_s is not None:
        line += f"; lecture.mp4 al día {since_save_s:.1f} s después de guardar"
    elif report.lecture is not None and not report.lecture_remade:
        line += "; lecture.mp4 no cambió"
    console.print(line, highlight=False)


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)
