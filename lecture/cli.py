"""`ffn-video`: build the lecture, watch it while editing, list its scenes, narrate it,
audit its numbers, and publish it on YouTube."""

from __future__ import annotations

import argparse
import json
import os
import sys

from rich.console import Console
from rich.markup import escape

from lecture import exit_status
from lecture.qualities import QUALITIES


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ffn-video", description="Clase en vídeo sobre la capa feed-forward.", epilog=exit_status.STATUSES_HELP
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p_build = sub.add_parser("build", help="renderiza la clase (solo lo que cambió)")
    p_build.add_argument(
        "--quality",
        default="preview",
        choices=list(QUALITIES),
        help="preview (854x480, 15 fps), 1080p (60 fps) o 4k (60 fps)",
    )
    p_build.add_argument("--only", nargs="+", metavar="ESCENA", help="renderiza solo estas escenas")
    p_build.add_argument("--jobs", type=int, default=None, help="renders en paralelo (por defecto, los núcleos)")
    p_build.add_argument(
        "--scheduler",
        metavar="DIRECCIÓN",
        default=None,
        help="renderiza en un clúster de Dask: tls://SERVIDOR:PUERTO (con --tls-ca/--tls-cert/--tls-key), o "
        "local:N para N procesos trabajadores aquí (por defecto, $FFN_DASK_SCHEDULER; sin él, --jobs procesos "
        "de esta máquina)",
    )
    p_build.add_argument(
        "--tls-ca", metavar="ARCHIVO", help="la autoridad (CA, PEM) que firmó los certificados del clúster"
    )
    p_build.add_argument(
        "--tls-cert", metavar="ARCHIVO", help="el certificado (PEM) de esta máquina para el clúster, firmado por esa CA"
    )
    p_build.add_argument("--tls-key", metavar="ARCHIVO", help="la clave privada de --tls-cert (si no va dentro)")
    p_build.add_argument(
        "--insecure",
        action="store_true",
        help="acepta un planificador tcp:// sin cifrar ni autenticar: solo en una red de plena confianza",
    )
    p_build.add_argument(
        "--chunk-s",
        type=float,
        default=None,
        metavar="S",
        help="longitud objetivo, en segundos de vídeo, de los trozos en que se parte cada escena "
        "(por defecto se elige según las escenas y los trabajadores)",
    )

    p_watch = sub.add_parser("watch", help="recompila en calidad preview cada vez que cambia una escena o su guion")
    p_watch.add_argument("--quality", default="preview", choices=list(QUALITIES))
    p_watch.add_argument("--jobs", type=int, default=None)
    p_watch.add_argument("--interval", type=float, default=0.5, metavar="S", help="segundos entre miradas")

    p_scenes = sub.add_parser("scenes", help="las escenas del plan: narración, beats y si están renderizadas")
    p_scenes.add_argument("--json", action="store_true", help="como lista JSON")

    sub.add_parser("narrate", help="sintetiza la narración que falta e imprime duraciones", add_help=False)

    p_script = sub.add_parser("script", help="el guion para leerlo en voz alta y grabarlo de una toma")
    p_script.add_argument("scenes", nargs="*", metavar="ESCENA", help="solo estas escenas (por defecto, todas)")
    p_script.add_argument("--out", metavar="ARCHIVO", default=None, help="escribe el texto ahí en vez de imprimirlo")

    p_story = sub.add_parser("storyboard", help="una página con un fotograma en cada marca y fin de beat")
    p_story.add_argument("--quality", default="preview", choices=list(QUALITIES))
    p_story.add_argument("--only", nargs="+", metavar="ESCENA", help="solo estas escenas")
    p_story.add_argument(
        "--check",
        action="store_true",
        help="termina con estado 1 si algún fotograma queda escaso (casi vacío, dibujo bajo o texto pequeño)",
    )

    p_slides = sub.add_parser("slides", help="diapositivas para dar la clase en vivo: una por beat, con su clip")
    p_slides.add_argument("--quality", default="preview", choices=list(QUALITIES))
    p_slides.add_argument("--only", nargs="+", metavar="ESCENA", help="solo estas escenas")
    p_slides.add_argument(
        "--format",
        default="html",
        choices=["html", "pptx"],
        help="html: reveal.js, se abre sin red desde la carpeta (por defecto); pptx: PowerPoint",
    )

    p_handout = sub.add_parser("handout", help="apuntes en PDF para los estudiantes: fotogramas, texto, números")
    p_handout.add_argument("--quality", default="preview", choices=list(QUALITIES))

    p_gallery = sub.add_parser("gallery", help="una lámina con cada dibujo de scenes/kit/ y su nombre")
    p_gallery.add_argument("--quality", default="preview", choices=list(QUALITIES))

    p_numbers = sub.add_parser("numbers", help="cada número que la clase muestra o dice")
    p_numbers.add_argument("--json", action="store_true", help="como lista JSON")

    p_publish = sub.add_parser("publish", help="prepara el paquete para YouTube (--dry-run) o lo sube (--upload)")
    p_publish.add_argument(
        "--quality",
        default="1080p",
        choices=list(QUALITIES),
        help="la compilación de la que sale el paquete (por defecto, 1080p)",
    )
    mode = p_publish.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--dry-run", action="store_true", help="escribe renders/<calidad>/youtube/ y lo comprueba, sin enviar nada"
    )
    mode.add_argument("--upload", action="store_true", help="sube el vídeo, o actualiza el ya publicado")
    p_publish.add_argument(
        "--client-secrets",
        metavar="ARCHIVO",
        help="JSON de un cliente OAuth de tipo «App de escritorio» (con --upload)",
    )
    p_publish.add_argument(
        "--privacy",
        choices=["private", "unlisted", "public"],
        default=None,
        help="privacidad (por defecto: private al subir; la actual al actualizar)",
    )

    p_check = sub.add_parser("check", help="comprueba el paquete de YouTube regla por regla")
    p_check.add_argument("--quality", default="1080p", choices=list(QUALITIES))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; every expected failure ends as one Spanish line on stderr and a status
    (`lecture.exit_status`); anything else is a bug and keeps its traceback."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else ""
    console = Console(stderr=True)
    try:
        return _dispatch(argv, console)
    except BrokenPipeError:
        # The reader of our output left (`ffn-video script | head`): nothing failed.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python flushes stdout again at exit
        return 0
    except KeyboardInterrupt:
        return _fail(console, exit_status.Failure(exit_status.INTERRUPTED, exit_status.interrupted_line(command)))
    except Exception as err:  # noqa: BLE001 - sorted below; what is not expected is raised again
        failure = _expected_failure(err)
        if failure is None:
            raise
        return _fail(console, failure)


def _dispatch(argv: list[str], console: Console) -> int:
    if argv[:1] == ["narrate"]:  # its options belong to voiceover's own parser
        from voiceover.narrate import narrate_main

        return narrate_main(argv[1:])
    args = parser().parse_args(argv)
    if args.command == "build":
        return _build(args, console)
    if args.command == "watch":
        return _watch(args, console)
    if args.command == "scenes":
        return _scenes(args)
    if args.command == "numbers":
        return _numbers(args)
    if args.command == "script":
        return _script(args)
    if args.command == "storyboard":
        return _storyboard(args)
    if args.command == "slides":
        return _slides(args, console)
    if args.command == "handout":
        return _handout(args, console)
    if args.command == "gallery":
        return _gallery(args, console)
    if args.command == "publish":
        return _publish(args, console)
    if args.command == "check":
        return _check(args)
    return 1


def _script(args) -> int:
    from pathlib import Path

    from lecture.plan import load_plan, select
    from voiceover.atomic import write_text
    from voiceover.reading_copy import HEADER, reading_copy
    from voiceover.timing import default_lookup

    chosen = select(load_plan(), args.scenes or None)
    text = "\n\n".join([HEADER, *(reading_copy(s.load_script(), default_lookup) for s in chosen)])
    if args.out:
        write_text(Path(args.out), text + "\n")
        print(f"guion de {len(chosen)} escena(s) en {args.out}")
    else:
        print(text)
    return 0


def _expected_failure(err: Exception) -> exit_status.Failure | None:
    """The line and status for a failure the commands expect; None for a bug."""
    from lecture.build.lock import BuildLocked

    locks: tuple[type[Exception], ...] = (BuildLocked,)
    try:  # the YouTube client libraries are optional for every other command
        from lecture.youtube.publish import PublishLocked

        locks += (PublishLocked,)
    except ImportError:
        pass
    if isinstance(err, locks):
        return exit_status.Failure(exit_status.LOCKED, exit_status.one_line(str(err)))
    if isinstance(err, OSError):
        if exit_status.is_network(err):
            return exit_status.Failure(exit_status.NETWORK, exit_status.network_line(err))
        return exit_status.Failure(exit_status.FILE_SYSTEM, exit_status.file_system_line(err))
    if isinstance(err, (ValueError, RuntimeError)):  # plan, script, settings, a tool or service that refused
        return exit_status.Failure(exit_status.REFUSED, "error: " + exit_status.one_line(str(err)))
    return None


def _fail(console: Console, failure: exit_status.Failure) -> int:
    color = "yellow" if failure.status in (exit_status.LOCKED, exit_status.INTERRUPTED) else "red"
    console.print(f"[{color}]{escape(failure.line)}[/]", highlight=False, soft_wrap=True)
    return failure.status


def _build(args, console: Console) -> int:
    from lecture.build.display import print_summary
    from lecture.farm.cluster import INSECURE_MEANING, configured_scheduler

    # Resolved here, before anything else: a refused address is never dialled, and an
    # accepted insecure one is announced before the build starts.
    scheduler = configured_scheduler(args.scheduler, args.tls_ca, args.tls_cert, args.tls_key, args.insecure)
    if scheduler is not None and scheduler.is_plain:
        console.print(
            f"[yellow]{escape(INSECURE_MEANING.format(address=scheduler.address))}[/]", highlight=False, soft_wrap=True
        )
    from contextlib import nullcontext

    from lecture.build.lock import build_lock
    from lecture.farm import warm_start
    from lecture.qualities import get_quality

    # A manim process for the first chunk starts now, before this process imports the build:
    # it imports manim on the other core meanwhile (renders on a cluster need none). One lock
    # across the quick answer and the build: no second build slips in between.
    with warm_start.for_local_renders() if scheduler is None else nullcontext(), build_lock(get_quality(args.quality)):
        report = _unchanged_build(args, console)
        if report is None:
            from lecture.build.pipeline import build

            report = build(
                args.quality, only=args.only, jobs=args.jobs, console=console, scheduler=scheduler, chunk_s=args.chunk_s
            )
    print_summary(report, console)
    if report.failed:
        return 1
    if report.lecture:
        print(report.lecture)
    return 0


def _unchanged_build(args, console: Console):
    """The last build's summary when nothing has changed since it (`lecture.build.unchanged`),
    under the build lock like any build (the caller's, held on into the build); None: build."""
    import time

    from lecture.build import unchanged
    from lecture.build.lock import build_lock
    from lecture.build.report import BuildReport
    from lecture.qualities import get_quality

    start = time.monotonic()
    quality = get_quality(args.quality)
    if not unchanged.stamp_path(quality.name).exists():  # no build stamped: nothing to ask
        return None
    with build_lock(quality):
        summary = unchanged.unchanged_summary(unchanged.Request(args.quality, tuple(args.only or ())))
    if summary is None:
        return None
    console.print(
        f"[dim]nada ha cambiado desde la compilación que acabó a las {summary['ended']}: "
        "todo está al día y no se rehace nada[/]",
        highlight=False,
    )
    return BuildReport.unchanged(summary, time.monotonic() - start)


def _watch(args, console: Console) -> int:
    from lecture.build.watch import watch

    watch(args.quality, interval_s=args.interval, jobs=args.jobs, console=console)
    return 0


def _scenes(args) -> int:
    from lecture.layout import build_dir
    from lecture.plan import load_plan
    from lecture.review.listing import format_rows, scene_rows

    rows = scene_rows(load_plan(), build_dir())
    if args.json:
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
        print()
    else:
        print("\n".join(format_rows(rows)))
    return 1 if any(r.get("error") for r in rows) else 0


def _storyboard(args) -> int:
    from lecture.layout import build_dir, renders_dir
    from lecture.plan import load_plan, select
    from lecture.review.storyboard import write_storyboard

    plan = load_plan()
    only = {s.name for s in select(plan, args.only)} if args.only else None
    board = write_storyboard(plan, renders_dir() / args.quality, build_dir() / args.quality, args.quality, only)
    print(board.page)
    if not args.check:
        return 0
    for still in board.flagged:
        print(
            f"{still.scene}, beat '{still.beat}', {still.label} ({still.scene_s:.2f} s, {still.still.name}): "
            + "; ".join(still.problems),
            file=sys.stderr,
        )
    if board.flagged:
        print(f"{len(board.flagged)} fotogramas escasos; se ven en rojo en {board.page}", file=sys.stderr)
        return exit_status.FAILURES
    return exit_status.DONE


def _slides(args, console: Console) -> int:
    from lecture.classroom.slides import make_slides
    from lecture.plan import load_plan, select

    plan = load_plan()
    only = {s.name for s in select(plan, args.only)} if args.only else None
    report = make_slides(plan, args.quality, only, args.format)
    console.print(escape(report.line()), highlight=False, soft_wrap=True)
    print(report.path)
    return 0


def _handout(args, console: Console) -> int:
    from lecture.classroom.handout import make_handout
    from lecture.plan import load_plan

    report = make_handout(load_plan(), args.quality)
    console.print(f"{report.pages} páginas, {report.stills} fotogramas, en {report.seconds:.1f} s", highlight=False)
    print(report.path)
    return 0


def _gallery(args, console: Console) -> int:
    from lecture.layout import build_dir, renders_dir
    from lecture.review.gallery import write_gallery

    page, sheets = write_gallery(renders_dir() / args.quality / "gallery", args.quality, build_dir() / "gallery")
    for sheet in sheets:
        for problem in sheet.problems:
            console.print(f"aviso: {sheet.image.name}: {escape(problem)}", highlight=False, soft_wrap=True)
    print(page)
    return 0


def _numbers(args) -> int:
    from lecture.layout import build_dir
    from lecture.plan import load_plan
    from lecture.review.listing import audit_lines, audit_rows

    rows = audit_rows(load_plan(), build_dir())
    if args.json:
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
        print()
    else:
        print("\n".join(audit_lines(rows)))
    return 0


def _publish(args, console: Console) -> int:
    from lecture.youtube.check import format_results
    from lecture.youtube.publish import dry_run, upload

    if args.dry_run:
        if args.client_secrets:
            console.print("aviso: --client-secrets solo se usa con --upload", highlight=False)
        report, results = dry_run(args.quality, args.privacy)
        for note in report.notes:
            console.print(f"aviso: {escape(note)}", highlight=False, soft_wrap=True)
        print(f"paquete: {report.paths.folder} (vídeo {report.video_action})")
        print("\n".join(format_results(results)))
        return 0 if all(r.ok for r in results) else 1
    try:
        report, published = upload(
            args.quality,
            args.client_secrets,
            args.privacy,
            log=lambda line: console.print(escape(line), highlight=False),
        )
    except KeyboardInterrupt:
        # The session is saved as pending in published.json before the first byte.
        console.print(
            "publicación interrumpida: vuelve a publicar para retomar la subida donde quedó, sin subir otro vídeo",
            highlight=False,
            soft_wrap=True,
        )
        return 130
    for note in (*report.notes, *published.notes):
        console.print(f"aviso: {escape(note)}", highlight=False, soft_wrap=True)
    print(f"vídeo {published.action}: {published.url} (anotado en {report.paths.published})")
    return 0


def _check(args) -> int:
    from lecture.youtube.bundle_paths import bundle_paths
    from lecture.youtube.check import check_bundle, format_results

    results = check_bundle(bundle_paths(args.quality), quality=args.quality)
    print("\n".join(format_results(results)))
    failed = sum(not r.ok for r in results)
    print(f"{len(results) - failed} de {len(results)} reglas cumplidas")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
