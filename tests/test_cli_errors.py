"""Every expected failure of a command ends as one line in Spanish and a documented exit
status (`lecture.exit_status`), never a traceback; a bug still shows its traceback."""

from __future__ import annotations

import errno
import socket
import threading
from contextlib import nullcontext
from types import SimpleNamespace

import pytest
from fixtures.build_support import write_tiny_lecture

from lecture import exit_status
from lecture.cli import main, parser

ENGLISH = ("No space left", "Permission denied", "Traceback", "No such file", "Not a directory", "Errno")


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """The tiny plan, unbuilt: every failure below happens before anything renders."""
    return write_tiny_lecture(tmp_path / "lecture").apply(monkeypatch)


def fails(capsys, argv: list[str], status: int, *spanish: str) -> str:
    """Run `ffn-video ARGV`: it exits with `status`, printing one line that holds `spanish`."""
    assert main(argv) == status
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    line = lines[0]
    for words in spanish:
        assert words in line, line
    assert not any(english in line for english in ENGLISH), line
    return line


def raising(error: BaseException):
    def fail(*args, **kwargs):
        raise error

    return fail


def test_the_statuses_are_documented_in_the_help():
    help_text = " ".join(parser().format_help().split())
    for status in ("0 hecho", "1 terminó con fallos", "3 otra compilación", "4 el disco", "5 la red", "130"):
        assert status in help_text


def test_input_errors_and_refusals_exit_2_on_one_line(tiny, monkeypatch, capsys):
    """A plan that cannot be read, a script error (its message on two lines), a missing
    program, a voice engine that fails: each one line, status 2."""
    from lecture.build.preflight import MissingTools
    from voiceover.engines import EngineError
    from voiceover.script import ScriptError

    good_plan = tiny.plan.read_text(encoding="utf-8")
    tiny.plan.write_text("[[scene]\nname = ", encoding="utf-8")
    fails(capsys, ["scenes"], exit_status.REFUSED, "error:", str(tiny.plan))
    tiny.plan.write_text(good_plan, encoding="utf-8")
    monkeypatch.setattr(
        "lecture.build.pipeline.narrate", raising(ScriptError("tiny_a.toml, línea 3: falta el texto\ndel beat"))
    )
    fails(capsys, ["build"], exit_status.REFUSED, "error: tiny_a.toml, línea 3: falta el texto · del beat")
    monkeypatch.setattr("lecture.build.pipeline.narrate", raising(EngineError("Kokoro no arrancó")))
    fails(capsys, ["build"], exit_status.REFUSED, "Kokoro no arrancó")
    monkeypatch.setattr("lecture.build.pipeline.check_tools", raising(MissingTools("faltan programas: ffmpeg")))
    fails(capsys, ["build"], exit_status.REFUSED, "faltan programas: ffmpeg")


def test_a_lock_file_that_cannot_be_made_is_a_file_system_error(tiny, monkeypatch, tmp_path, capsys):
    """A real OSError from the build lock: the cache root lies under a file, not a folder."""
    blocker = tmp_path / "no_es_carpeta"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("FFN_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr("lecture.build.pipeline.check_tools", lambda: None)
    line = fails(capsys, ["build"], exit_status.FILE_SYSTEM, "error de archivo:", str(blocker))
    assert "carpeta" in line or "ya existe" in line


def test_a_full_disk_while_taking_the_lock_names_the_file_and_what_to_do(tiny, monkeypatch, capsys):
    full = OSError(errno.ENOSPC, "No space left on device", str(tiny.cache / "build" / ".build.lock.json"))
    monkeypatch.setattr("lecture.build.pipeline.build_lock", raising(full))
    fails(
        capsys, ["build"], exit_status.FILE_SYSTEM, ".build.lock.json", "no queda espacio en el disco", "libera espacio"
    )
    monkeypatch.setattr("lecture.build.pipeline.build_lock", raising(ZeroDivisionError("un error de programación")))
    with pytest.raises(ZeroDivisionError):  # a bug in the same place keeps its traceback
        main(["build"])


def test_no_permission_while_checking_freshness_is_a_file_system_error(tiny, monkeypatch, capsys):
    denied = PermissionError(errno.EACCES, "Permission denied", str(tiny.cache / "build" / "preview" / "tiny_a"))
    monkeypatch.setattr("lecture.build.pipeline.narrate", lambda build, display: None)
    monkeypatch.setattr("lecture.build.pipeline.plan", raising(denied))
    fails(capsys, ["build"], exit_status.FILE_SYSTEM, "tiny_a", "permiso denegado", "revisa los permisos")


def test_a_read_only_disk_while_keeping_a_render_is_a_file_system_error(tiny, monkeypatch, capsys):
    """`render` keeps each finished scene (its record written last); an OSError there ends the build."""
    read_only = OSError(errno.EROFS, "Read-only file system", str(tiny.cache / "build" / "preview" / "tiny_a"))
    monkeypatch.setattr("lecture.build.pipeline.narrate", lambda build, display: None)
    monkeypatch.setattr("lecture.build.pipeline.plan", lambda *args: SimpleNamespace(reused={}, to_render=()))
    monkeypatch.setattr("lecture.build.pipeline.mixing_ahead", lambda *args: nullcontext(None))
    monkeypatch.setattr("lecture.build.pipeline.render", raising(read_only))
    fails(capsys, ["build"], exit_status.FILE_SYSTEM, "tiny_a", "solo lectura", "FFN_RENDERS_DIR")


def test_another_build_or_publish_running_exits_3(tiny, monkeypatch, capsys):
    from lecture.build.lock import build_lock
    from lecture.qualities import get_quality
    from lecture.youtube.bundle_paths import bundle_paths
    from lecture.youtube.publish import publish_lock

    monkeypatch.setattr("lecture.build.pipeline.check_tools", lambda: None)
    held, release = threading.Event(), threading.Event()

    def other_build() -> None:  # in its own thread: the lock is held on only by its own thread
        with build_lock(get_quality("preview")):
            held.set()
            release.wait(timeout=60)

    holder = threading.Thread(target=other_build)
    holder.start()
    try:
        assert held.wait(timeout=10)
        fails(capsys, ["build"], exit_status.LOCKED, "otra compilación de ffn-video está en curso")
    finally:
        release.set()
        holder.join()
    with build_lock(get_quality("preview")), build_lock(get_quality("preview")):
        pass  # taken again by the thread that holds it: held on, not refused
    with publish_lock(bundle_paths("preview")):
        line = fails(capsys, ["publish", "--dry-run", "--quality", "preview"], exit_status.LOCKED)
    assert "publica" in line or "paquete" in line


def test_youtube_refusals_and_network_failures(tiny, monkeypatch, capsys, tmp_path):
    from lecture.youtube.oauth import CredentialsError

    secrets = tmp_path / "client_secret.json"
    command = ["publish", "--upload", "--quality", "preview", "--client-secrets", str(secrets)]
    monkeypatch.setattr("lecture.youtube.publish.upload", raising(CredentialsError("el permiso de YouTube caducó")))
    fails(capsys, command, exit_status.REFUSED, "el permiso de YouTube caducó")
    monkeypatch.setattr(
        "lecture.youtube.publish.upload", raising(socket.gaierror(-3, "Temporary failure in name resolution"))
    )
    fails(capsys, command, exit_status.NETWORK, "error de red", "no se encuentra el servidor", "comprueba la conexión")
    monkeypatch.setattr(
        "lecture.youtube.publish.upload", raising(ConnectionResetError(errno.ECONNRESET, "Connection reset"))
    )
    fails(capsys, command, exit_status.NETWORK, "la otra parte cortó la conexión")


def test_ctrl_c_exits_130_saying_what_is_kept(tiny, monkeypatch, capsys):
    monkeypatch.setattr("lecture.build.pipeline._build_locked", raising(KeyboardInterrupt()))
    fails(capsys, ["build"], exit_status.INTERRUPTED, "ffn-video build: interrumpido", "se conserva")
    monkeypatch.setattr("voiceover.narrate.narrate_main", raising(KeyboardInterrupt()))
    fails(capsys, ["narrate"], exit_status.INTERRUPTED, "ffn-video narrate: interrumpido")
