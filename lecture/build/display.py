"""What a lecturer sees while the lecture builds: each scene's state, with frame progress
while it renders, and a summary at the end.

On a terminal the states are live rich progress bars; elsewhere (a log, CI, a pipe) each
change of state is one printed line, so the record stays readable.
"""

from __future__ import annotations

import threading

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from lecture.build.report import BuildReport

STATES = {
    "waiting": "[dim]en cola[/]",
    "cached": "[green]de caché[/]",
    "rendering": "[yellow]renderizando[/]",
    "done": "[green]listo[/]",
    "failed": "[red]falló[/]",
    "stale": "[dim]sin render al día[/]",
}


class BuildDisplay:
    """Scene states for one build. Safe to call from render threads."""

    def __init__(self, console: Console):
        self.console = console
        self.live = console.is_terminal
        self.progress = Progress(
            TextColumn("{task.fields[scene]:<16}"),
            TextColumn("{task.fields[state]:<24}"),
            BarColumn(bar_width=30),
            TextColumn("{task.fields[frames]}"),
            TimeElapsedColumn(),
            console=console,
            disable=not self.live,
        )
        self.tasks: dict[str, TaskID] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> BuildDisplay:
        self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.stop()

    def _set(self, scene: str, state: str, line: str | None = None, **fields) -> None:
        with self._lock:
            if scene not in self.tasks:
                self.tasks[scene] = self.progress.add_task(
                    "", total=None, scene=scene, state="", frames="", start=False
                )
            task = self.tasks[scene]
            if state == "rendering":
                self.progress.start_task(task)
            self.progress.update(task, state=STATES[state], **fields)
            if state in ("cached", "done", "failed", "stale"):
                self.progress.stop_task(task)
        if not self.live and line is not None:
            self.console.print(line, highlight=False, soft_wrap=True)

    def cached(self, scene: str) -> None:
        self._set(scene, "cached", f"[green]de caché[/]  {scene}", total=1, completed=1)

    def stale(self, scene: str) -> None:
        self._set(scene, "stale", f"[dim]sin render al día[/]  {scene} (no se pidió)")

    def waiting(self, scene: str, frames: int) -> None:
        self._set(
            scene, "waiting", None, total=frames or None, completed=0, frames=f"0/{frames} fotogramas" if frames else ""
        )

    def rendering(self, scene: str) -> None:
        self._set(scene, "rendering", f"[yellow]renderizando[/]  {scene}")

    def frames(self, scene: str, done: int, total: int) -> None:
        with self._lock:
            task = self.tasks.get(scene)
            if task is not None:
                self.progress.update(task, total=total, completed=done, frames=f"{done}/{total} fotogramas")

    def done(self, scene: str, seconds: float) -> None:
        self._set(scene, "done", f"[green]listo[/]  {scene} ({seconds:.1f} s)")

    def failed(self, scene: str, error: str) -> None:
        first = error.strip().splitlines()[0] if error.strip() else "error"
        self._set(scene, "failed", f"[red]falló[/]  {escape(scene)}: {escape(first)}")

    def step(self, message: str) -> None:
        """A build step after the renders (mixing, muxing)."""
        if not self.live:
            self.console.print(f"[dim]{message}[/]", highlight=False)

    def callback(self, scene: str):
        """A render progress callback for `scene`: marks it rendering on first use."""
        started = False

        def report(done: int, total: int) -> None:
            nonlocal started
            if not started:
                started = True
                self.rendering(scene)
            self.frames(scene, done, total)

        return report


def print_summary(report: BuildReport, console: Console) -> None:
    """What was rendered, what came from the cache, what failed, and the time it took."""
    table = Table(title=f"Compilación {report.quality}", title_justify="left", show_edge=False)
    table.add_column("escena")
    table.add_column("estado")
    table.add_column("render", justify="right")
    for name in report.order:
        if name in report.failed:
            table.add_row(name, "[red]falló[/]", "")
        elif name in report.rendered:
            table.add_row(name, "[yellow]renderizada[/]", f"{report.render_seconds.get(name, 0.0):.1f} s")
        elif name in report.cached:
            table.add_row(name, "[green]de caché[/]", "")
    console.print(table)
    console.print(
        f"renderizadas: {len(report.rendered)}; de caché: {len(report.cached)}; "
        f"fallidas: {len(report.failed)}; tiempo total: {report.seconds:.1f} s",
        highlight=False,
    )
    if report.loudness:
        console.print(
            f"narración: {report.loudness.integrated_lufs:.1f} LUFS, "
            f"pico real {report.loudness.true_peak_dbtp:.1f} dBTP",
            highlight=False,
        )
    for voice in report.voices:
        console.print(f"voz: {escape(voice)}", highlight=False, soft_wrap=True)
    # soft_wrap: paths and tracebacks stay whole lines, whatever the terminal's width.
    for note in report.notes:
        console.print(f"[yellow]aviso:[/] {escape(note)}", highlight=False, soft_wrap=True)
    for name, error in report.failed.items():
        console.print(f"[red]«{escape(name)}» falló:[/]", highlight=False)
        console.print(error, markup=False, highlight=False, soft_wrap=True)
