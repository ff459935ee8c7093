"""`ffn-video`: build the lecture, narrate it, and audit its numbers."""
from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ffn-video", description="Clase en vídeo sobre la capa feed-forward.")
    sub = parser.add_subparsers(dest="command", required=True)

    p_build = sub.add_parser("build", help="render the lecture (only what changed)")
    p_build.add_argument("--quality", default="preview", help="preview, 1080p or 4k")
    p_build.add_argument("--only", nargs="+", metavar="SCENE", help="render only these scenes")
    p_build.add_argument("--jobs", type=int, default=None, help="parallel scene renders (default: cores)")

    p_narrate = sub.add_parser("narrate", help="synthesise missing narration and print durations")
    p_narrate.add_argument("scenes", nargs="*", metavar="SCENE")

    p_numbers = sub.add_parser("numbers", help="every number the lecture shows or says")
    p_numbers.add_argument("--json", action="store_true", help="print as a JSON list")

    args = parser.parse_args(argv)
    console = Console(stderr=True)
    try:
        if args.command == "build":
            return _build(args, console)
        if args.command == "narrate":
            return _narrate(args, console)
        if args.command == "numbers":
            return _numbers(args)
    except (ValueError, RuntimeError) as err:
        console.print(f"[red]error:[/] {err}")
        return 2
    return 1


def _build(args, console: Console) -> int:
    from lecture.build import build

    report = build(args.quality, only=args.only, jobs=args.jobs, console=console)
    console.print(f"renderizadas: {', '.join(report.rendered) or 'ninguna'}; "
                  f"de caché: {', '.join(report.cached) or 'ninguna'}; {report.seconds:.1f} s")
    if report.loudness:
        console.print(f"narración: {report.loudness.integrated_lufs:.1f} LUFS, "
                      f"pico real {report.loudness.true_peak_dbtp:.1f} dBTP")
    if report.failed:
        for name, error in report.failed.items():
            console.print(f"[red]escena '{name}' falló:[/] {error}")
        return 1
    if report.lecture:
        print(report.lecture)
    return 0


def _narrate(args, console: Console) -> int:
    from lecture.plan import load_plan, select
    from voiceover.timeline import build_timeline

    for scene in select(load_plan(), args.scenes or None):
        timeline = build_timeline(scene.script)
        print(f"{scene.name}\t{timeline.total_s:.2f} s\t{len(timeline.beats)} beats")
    return 0


def _numbers(args) -> int:
    from ffn_core.numbers import all_numbers
    from lecture.audit import numbers_with_scenes
    from lecture.build import build_dir
    from lecture.plan import load_plan

    rows = numbers_with_scenes(load_plan(), all_numbers(), build_dir())
    if args.json:
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
        print()
    else:
        for row in rows:
            scenes = ",".join(row["scenes"]) or "-"
            print(f"{row['key']}\t{row['value']}\t{row['unit']}\t{scenes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
