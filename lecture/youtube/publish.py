"""`ffn-video publish` end to end: bundle, check, then (with --upload) authorise and upload.

Everything that can be wrong locally is found before the first request: the client
secrets, the build's outputs, the settings (a title too long names youtube.toml), and every
rule of `ffn-video check` on the bundle.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lecture.youtube import YoutubeError
from lecture.youtube.bundle import BundleReport, make_bundle
from lecture.youtube.check import RuleResult, check_bundle
from lecture.youtube.oauth import credentials, load_client_secrets, token_path
from lecture.youtube.upload import Published, Retry, build_service, publish_bundle


def dry_run(quality: str, privacy: str | None = None) -> tuple[BundleReport, list[RuleResult]]:
    """Write the bundle and check it; nothing is sent."""
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
    """Bundle, check, then upload (or update the video in published.json). `service` is a
    ready youtube client (tests); without it the OAuth flow runs."""
    load_client_secrets(client_secrets)
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
    hint = (
        f"Borra {token_path()} y vuelve a publicar para autorizar de nuevo; "
        f"si sigue fallando, revisa {client_secrets} y que la API de YouTube esté habilitada en su proyecto"
    )
    return report, publish_bundle(
        service, report.paths, privacy, retry=retry or Retry(), credentials_hint=hint, log=log
    )
