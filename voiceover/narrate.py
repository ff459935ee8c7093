"""`ffn-video narrate [SCENE ...]`: synthesise the narration that is missing and print
each scene's duration and beat count.

Scene names come from the lecture plan (`lecture/plan.toml`, or the file `FFN_PLAN` names,
as for the build), read here as data: voiceover never imports `lecture`, the arrows
point from the build to the narration. A scene's narration is
`voiceover/script/es/<script>.toml` unless its plan entry gives `script_path` (relative to
the repository root, or absolute). Options override the
`FFN_VOICE_ENGINE`, `FFN_VOICE`, `FFN_VOICE_SPEED`, `FFN_PIPER_MODEL` and
`FFN_RECORDINGS_DIR` environment variables for this run (see `voiceover.engines`).

`--report SCENE` also prints every bookmark of the scene: its time in the scene and, where a
one-take recording narrates it (`voiceover.takes`), its time in the recording and the
alignment's confidence (1 = the path costs no more there than is typical for the scene).
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from voiceover.engines import DEFAULT_ENGINE, ENGINE_NAMES, Engine, EngineError, identity, resolve_engine
from voiceover.paths import REPO_ROOT, plan_file
from voiceover.script import ScriptError, declared_script
from voiceover.timeline import Timeline


class PlanError(ValueError):
    """The plan file is missing, malformed, or does not list a scene asked for."""


@dataclass(frozen=True)
class PlannedNarration:
    scene: str  # the scene's name in the plan
    script: str  # its narration's name (the timeline is stored under it)
    script_path: Path | None  # explicit narration file, or None for the default folder


def plan_scripts(path: Path | None = None) -> list[PlannedNarration]:
    """The narration of every planned scene, in order."""
    path = Path(path) if path else plan_file()
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlanError(f"{path}: the lecture plan does not exist") from None
    except tomllib.TOMLDecodeError as err:
        raise PlanError(f"{path}: TOML syntax error: {err}") from None
    scenes = []
    for i, entry in enumerate(data.get("scene", []), start=1):
        script = entry.get("script")
        if script is None and isinstance(entry.get("module"), str) and isinstance(entry.get("class"), str):
            module = REPO_ROOT / entry["module"]
            # The narration name is written once, in the scene's class (see lecture.plan).
            script = declared_script(module, entry["class"]) if module.exists() else None
        if not isinstance(entry.get("name"), str) or not isinstance(script, str):
            raise PlanError(
                f"{path}: [[scene]] #{i} needs `name`, and `script` or a `module` and `class` "
                f'whose class declares `script = "..."`'
            )
        explicit = REPO_ROOT / entry["script_path"] if "script_path" in entry else None
        scenes.append(PlannedNarration(entry["name"], script, explicit))
    if not scenes:
        raise PlanError(f"{path}: the plan lists no [[scene]]")
    return scenes


def select_scenes(plan: list[PlannedNarration], wanted: list[str], path: Path) -> list[PlannedNarration]:
    if not wanted:
        return plan
    known = [entry.scene for entry in plan]
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise PlanError(
            f"{path}: no scene named {', '.join(repr(u) for u in unknown)} (the plan has: {', '.join(known)})"
        )
    return [entry for entry in plan if entry.scene in wanted]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ffn-video narrate",
        description="Sintetiza la narración que falta e imprime la duración y el número de beats de cada escena.",
    )
    p.add_argument("scenes", nargs="*", metavar="SCENE", help="escenas del plan (por defecto, todas)")
    p.add_argument(
        "--engine",
        choices=ENGINE_NAMES,
        help=f"motor de voz (por defecto FFN_VOICE_ENGINE o {DEFAULT_ENGINE}); espeak para borradores rápidos",
    )
    p.add_argument(
        "--voice",
        help="voz de Kokoro (ef_dora, em_alex, em_santa), de espeak-ng (es-419) o número de hablante de Piper",
    )
    p.add_argument("--speed", metavar="VEL", help="velocidad: palabras por minuto, o para Kokoro un factor (0.9)")
    p.add_argument(
        "--recordings",
        type=Path,
        metavar="DIR",
        help="carpeta de grabaciones (por defecto FFN_RECORDINGS_DIR o voiceover/recordings)",
    )
    p.add_argument("--piper-model", type=Path, metavar="PATH", help="modelo de voz Piper local (.onnx)")
    p.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="ESCENA",
        help="imprime cada marcador de la escena: su tiempo y, si la narra una toma grabada, "
        "su tiempo en la grabación y la confianza del alineamiento (repetible)",
    )
    return p


def narrate_main(argv: list[str]) -> int:
    """Run the command; 0 on success, 2 on any input error (printed to stderr)."""
    from voiceover.script import load_script
    from voiceover.timing import NarrationStats, build_timeline

    try:
        args = parser().parse_args(argv)
    except SystemExit as stop:  # argparse already printed its message
        return 0 if stop.code == 0 else 2
    try:
        choice = resolve_engine(args.engine, args.voice, args.speed, args.piper_model)
        if choice.notice:
            print(choice.notice, file=sys.stderr)
        if args.recordings is not None and not args.recordings.is_dir():
            raise PlanError(f"{args.recordings}: the recordings folder does not exist")
        plan = plan_file()
        scenes = select_scenes(plan_scripts(plan), list(dict.fromkeys(args.scenes + args.report)), plan)
        engine = choice.engine
        print(f"voz: {engine.name} {_describe(engine)}", file=sys.stderr)
        total_s = 0.0
        for entry in scenes:
            stats = NarrationStats()
            start = time.monotonic()
            script = load_script(entry.script, entry.script_path)
            timeline = build_timeline(
                entry.script, engine=engine, script=script, recordings=args.recordings, stats=stats
            )
            total_s += timeline.total_s
            print(
                f"{entry.scene}\t{timeline.total_s:.2f} s\t{len(timeline.beats)} beats\t"
                f"(sintetizados {stats.synthesized}, de caché {stats.cached}, grabados {stats.recorded}; "
                f"{time.monotonic() - start:.1f} s)"
            )
            if entry.scene in args.report:
                print(bookmark_lines(timeline))
        if len(scenes) > 1:
            print(f"total\t{total_s:.2f} s\t{len(scenes)} escenas")
    except (ScriptError, EngineError, PlanError, ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


def bookmark_lines(timeline: Timeline) -> str:
    """The `--report` table of one scene's bookmarks."""
    from voiceover.takes import bookmark_report

    take = timeline.voice.get("take")
    where = f"toma {take['path']}" if isinstance(take, dict) else "sin toma grabada: tiempos de la síntesis"
    lines = [f"  marcadores de {timeline.scene} ({where})", "  beat\tmarcador\tescena\tgrabación\tconfianza"]
    for beat, name, at, take_s, confidence in bookmark_report(timeline):
        recorded = f"{take_s:.3f} s" if take_s is not None else "-"
        trust = (
            f"{confidence:.2f}" + (" (revisar)" if confidence < LOW_CONFIDENCE else "")
            if confidence is not None
            else "-"
        )
        lines.append(f"  {beat}\t{name}\t{at:.3f} s\t{recorded}\t{trust}")
    return "\n".join(lines)


LOW_CONFIDENCE = 0.6  # below this, the report asks the lecturer to look at the bookmark


def _describe(engine: Engine) -> str:
    settings = {**engine.settings(), **{k: v for k, v in identity(engine).items() if k == "model_sha256" and v}}
    shown = {
        k: v
        for k, v in settings.items()
        if k in ("voice", "speed_wpm", "speed", "lang", "model", "model_sha256", "speaker", "length_scale")
    }
    if shown.get("model_sha256"):
        shown["model_sha256"] = str(shown["model_sha256"])[:12]
    return ", ".join(f"{k}={v}" for k, v in shown.items())


if __name__ == "__main__":
    sys.exit(narrate_main(sys.argv[1:]))
