"""`ffn-video publish` end to end: bundle, check, then (with --upload) authorise and upload.

Everything that can be wrong locally is found before the first request: the client
secrets, the build's outputs, the settings (a title too long names youtube.toml), and every
rule of `ffn-video check` on the bundle. An upload holds the bundle's lock from the bundle
to the last request: a second publish of the same bundle meanwhile is refused, naming the
lock and the process that holds it.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from filelock import FileLock, Timeout

from lecture.youtube import YoutubeError
from lecture.youtube.bundle import BundleReport, make_bundle
from lecture.youtube.bundle_paths import BundlePaths, bundle_paths
from lecture.youtube.check import RuleResult, check_bundle
from lecture.youtube.oauth import credentials, load_client_secrets, refresh_refused, token_path
from lecture.youtube.upload import Published, Retry, build_service, publish_bundle
from voiceover.atomic import write_json


class PublishLocked(YoutubeError):
    """Another publish of this bundle is under way."""


def dry_run(quality: str, privacy: str | None = None) -> tuple[BundleReport, list[RuleResult]]:
    """Write the bundle and check it; nothing is sent (not while an upload reads the bundle)."""
    with publish_lock(bundle_paths(quality)):
        report = make_bundle(quality, privacy)
        return report, check_bundle(report.paths, quality=quality)


def upload(
    quality: str,
    client_secrets: Path | None,
    privacy: str | None = None,
    service=None,
    retry: Retry | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> tuple[BundleReport, Published]:
    """Bundle, check, then upload (or finish the upload pending, or update the video in
    published.json). `service` is a ready youtube client (tests); without it the OAuth flow
    runs."""
    load_client_secrets(client_secrets)
    with publish_lock(bundle_paths(quality)):
        report = make_bundle(quality, privacy)
        failures = [r for r in check_bundle(report.paths, quality=quality) if not r.ok]
        if failures:
            listed = "\n".join(f"  - {r.rule}: {r.message}" for r in failures)
            raise YoutubeError(
                f"{report.paths.folder}: el paquete no cumple las reglas de YouTube; no se sube nada:\n"
                f"{listed}\n(detalles: `ffn-video check --quality {quality}`)"
            )
        if service is None:
            assert client_secrets is not None, "load_client_secrets above raises when it is missing"
            service = build_service(credentials(Path(client_secrets)))
        token = token_path()
        hint = (
            f"Borra {token} y vuelve a publicar para autorizar de nuevo; "
            f"si sigue fallando, revisa {client_secrets} y que la API de YouTube esté habilitada en su proyecto"
        )
        return report, publish_bundle(
            service,
            report.paths,
            privacy,
            retry=retry or Retry(),
            credentials_hint=hint,
            log=log,
            token_refused=lambda err: refresh_refused(token, err),
        )


@contextmanager
def publish_lock(paths: BundlePaths) -> Iterator[None]:
    """One publish at a time per bundle. An OS file lock, so a killed publish (SIGKILL
    included) releases it; what it left pending in published.json the next one resumes."""
    paths.folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(paths.lock))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise PublishLocked(_locked_message(paths)) from None
    try:
        try:
            write_json(
                paths.lock_owner,
                {"pid": os.getpid(), "host": socket.gethostname(), "started": datetime.now().strftime("%H:%M:%S")},
            )
        except OSError:
            pass  # the lock holds without it; only a refused publish's message names less
        yield
    finally:
        lock.release()


def _locked_message(paths: BundlePaths) -> str:
    try:
        data = json.loads(paths.lock_owner.read_text(encoding="utf-8"))
        who = f" (proceso {data['pid']} en {data['host']}, empezó a las {data['started']})"
    except (OSError, ValueError, KeyError):
        who = ""
    return (
        f"otra publicación de {paths.folder} está en curso{who}; dos a la vez subirían dos vídeos. "
        f"Espera a que termine y vuelve a intentarlo (cerrojo: {paths.lock})"
    )
