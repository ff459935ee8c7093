"""The upload: a checked bundle sent to YouTube through the Data API v3.

First publish: `videos.insert` as a resumable upload (retried with exponential backoff on
5xx answers and dropped connections; the library resumes from the last byte YouTube has),
then `captions.insert` for the Spanish track and `thumbnails.set`. The video id is written
to published.json as soon as YouTube returns it, so a failure later never leads to a
duplicate. Publishing again updates that video instead: `videos.update` (title,
description, tags, flags; the privacy stays as it is on YouTube unless one is asked for),
the caption track replaced (`captions.update`, or inserted when it is gone) and the
thumbnail set again. YouTube does not let a video's file be replaced: when video.mp4 has
changed since it was uploaded, a note says so.

`service` is any `googleapiclient.discovery.Resource` for youtube v3; tests pass one built
on `HttpMockSequence`.
"""

from __future__ import annotations

import http.client
import json
import random
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httplib2
from google.auth.exceptions import RefreshError
from googleapiclient.errors import HttpError
from googleapiclient.http import MediaFileUpload

from lecture.youtube import YoutubeError
from lecture.youtube.bundle_paths import BundlePaths
from lecture.youtube.metadata import Metadata, load_metadata
from lecture.youtube.oauth import CredentialsError
from voiceover.atomic import sha256_file, write_json

RETRIABLE_STATUS = frozenset({500, 502, 503, 504})
RETRIABLE_ERRORS = (httplib2.HttpLib2Error, http.client.HTTPException, ConnectionError, TimeoutError, ssl.SSLError)
CHUNK_BYTES = 16 * 1024 * 1024  # a multiple of 256 KiB, as resumable uploads require


class PublishError(YoutubeError):
    """YouTube refused a request, or retries ran out."""


@dataclass(frozen=True)
class Retry:
    """Exponential backoff with jitter: attempt n waits up to base_s * 2**n (capped)."""

    attempts: int = 8
    base_s: float = 1.0
    max_s: float = 64.0
    sleep: Callable[[float], None] = time.sleep
    rand: Callable[[], float] = random.random

    def wait(self, attempt: int) -> None:
        self.sleep(min(self.max_s, self.base_s * 2**attempt) * (0.5 + self.rand() / 2))


@dataclass(frozen=True)
class Published:
    video_id: str
    action: str  # "subido" or "actualizado"
    url: str
    notes: tuple[str, ...] = field(default_factory=tuple)


def build_service(creds=None, http=None):
    """A youtube v3 client from the discovery document shipped with googleapiclient (no
    download); with `http` (a mock in tests) instead of credentials."""
    from googleapiclient.discovery import build

    return build("youtube", "v3", credentials=creds, http=http, static_discovery=True, cache_discovery=False)


def publish_bundle(
    service,
    paths: BundlePaths,
    privacy: str | None = None,
    retry: Retry | None = None,
    credentials_hint: str = "",
    log: Callable[[str], None] = lambda _: None,
    chunk_bytes: int = CHUNK_BYTES,
) -> Published:
    """Upload the bundle, or update the video it was uploaded as (see published.json)."""
    metadata = load_metadata(paths.metadata)
    record = read_published(paths.published)
    api = _Api(retry or Retry(), credentials_hint, log)
    video_sha = sha256_file(paths.video)
    notes: list[str] = []
    if record is None:
        body = metadata.body(privacy)
        media = MediaFileUpload(str(paths.video), mimetype="video/mp4", chunksize=chunk_bytes, resumable=True)
        request = service.videos().insert(part="snippet,status", body=body, media_body=media)
        answer = api.resumable(request, "subir el vídeo")
        video_id = answer.get("id") if isinstance(answer, dict) else None
        if not video_id:
            raise PublishError(f"YouTube no devolvió el id del vídeo subido ({paths.video}): {answer!r:.300}")
        record = {
            "video_id": video_id,
            "url": f"https://youtu.be/{video_id}",
            "uploaded_at": _now(),
            "video_sha256": video_sha,
        }
        write_json(paths.published, record)  # at once: a later failure must not cause a second upload
        action = "subido"
        privacy_status = body["status"]["privacyStatus"]
    else:
        video_id = record["video_id"]
        found = api.execute(service.videos().list(part="status", id=video_id), "buscar el vídeo publicado")
        items = found.get("items") or []
        if not items:
            raise PublishError(
                f"{paths.published}: el vídeo {video_id} ya no está en YouTube (¿se borró?); "
                f"borra {paths.published.name} para subirlo como vídeo nuevo"
            )
        privacy_status = privacy or items[0].get("status", {}).get("privacyStatus") or metadata.status["privacyStatus"]
        body = {"id": video_id, **metadata.body(privacy_status)}
        api.execute(service.videos().update(part="snippet,status", body=body), "actualizar el vídeo")
        action = "actualizado"
        if record.get("video_sha256") not in (None, video_sha):
            notes.append(
                f"{paths.video.name} cambió desde que se subió, pero YouTube no deja reemplazar el "
                f"archivo de un vídeo: para publicar el nuevo, borra {paths.published.name} y vuelve "
                f"a publicar"
            )

    record["caption_id"] = _captions(
        service, api, video_id, metadata, paths, updating=action == "actualizado", known_id=record.get("caption_id")
    )
    api.execute(
        service.thumbnails().set(
            videoId=video_id, media_body=MediaFileUpload(str(paths.thumbnail), mimetype="image/png", resumable=False)
        ),
        "poner la miniatura",
    )
    record.update({"privacy_status": privacy_status, "title": metadata.title, "published_at": _now()})
    write_json(paths.published, record)
    return Published(video_id, action, record["url"], tuple(notes))


def _captions(
    service, api: _Api, video_id: str, metadata: Metadata, paths: BundlePaths, updating: bool, known_id: str | None
) -> str | None:
    """Insert the Spanish track, or replace it when the video already has it (the one
    recorded, else one with the same language and name); its id (None if YouTube gave none)."""
    language, name = metadata.caption["language"], metadata.caption["name"]
    snippet = {"videoId": video_id, "language": language, "name": name, "isDraft": False}
    existing = None
    if updating:
        listed = api.execute(service.captions().list(part="snippet", videoId=video_id), "buscar los subtítulos")
        tracks = listed.get("items") or []
        existing = next((t["id"] for t in tracks if t.get("id") == known_id), None) or next(
            (
                t["id"]
                for t in tracks
                if t.get("snippet", {}).get("language") == language and t.get("snippet", {}).get("name") == name
            ),
            None,
        )
    media = MediaFileUpload(str(paths.captions), mimetype="application/octet-stream", resumable=False)
    if existing:
        answer = api.execute(
            service.captions().update(part="snippet", body={"id": existing, "snippet": snippet}, media_body=media),
            "actualizar los subtítulos",
        )
    else:
        answer = api.execute(
            service.captions().insert(part="snippet", body={"snippet": snippet}, media_body=media),
            "subir los subtítulos",
        )
    caption_id: str | None = answer.get("id", existing)
    return caption_id


@dataclass(frozen=True)
class _Api:
    """Requests with retries, and YouTube's refusals turned into errors for people."""

    retry: Retry
    credentials_hint: str
    log: Callable[[str], None]

    def execute(self, request, what: str) -> dict:
        for attempt in range(self.retry.attempts):
            try:
                return request.execute()
            except RefreshError as err:
                raise self._refused(err, what) from None
            except HttpError as err:
                self._retry_or_raise(err, what, attempt)
            except RETRIABLE_ERRORS as err:
                self._dropped(err, what, attempt)
        raise AssertionError("unreachable")

    def resumable(self, request, what: str) -> dict:
        response, attempt = None, 0
        while response is None:
            try:
                status, response = request.next_chunk()
                attempt = 0
                if status is not None:
                    self.log(f"{what}: {status.progress() * 100:.0f} %")
            except RefreshError as err:
                raise self._refused(err, what) from None
            except HttpError as err:
                self._retry_or_raise(err, what, attempt)
                attempt += 1
            except RETRIABLE_ERRORS as err:
                self._dropped(err, what, attempt)
                attempt += 1
        return response

    def _refused(self, err: RefreshError, what: str) -> CredentialsError:
        return CredentialsError(f"Google no renovó el permiso al {what} ({err}); {self.credentials_hint}".strip())

    def _retry_or_raise(self, err: HttpError, what: str, attempt: int) -> None:
        status = err.resp.status
        if status not in RETRIABLE_STATUS:
            raise explain(err, what, self.credentials_hint) from None
        if attempt + 1 >= self.retry.attempts:
            raise PublishError(
                f"YouTube respondió {status} {self.retry.attempts} veces al {what}; "
                f"prueba más tarde (volver a publicar retoma donde quedó)"
            ) from None
        self.log(f"{what}: YouTube respondió {status}; reintento {attempt + 1}")
        self.retry.wait(attempt)

    def _dropped(self, err: Exception, what: str, attempt: int) -> None:
        if attempt + 1 >= self.retry.attempts:
            raise PublishError(
                f"la conexión se cortó {self.retry.attempts} veces al {what} ({err}); revisa la red y vuelve a publicar"
            ) from None
        self.log(f"{what}: conexión cortada ({type(err).__name__}); reintento {attempt + 1}")
        self.retry.wait(attempt)


def explain(err: HttpError, what: str, credentials_hint: str = "") -> PublishError | CredentialsError:
    """A Spanish error for YouTube's answer, with what to do."""
    status = err.resp.status
    reason = _reason(err)
    if status == 401:
        return CredentialsError(
            f"YouTube rechazó las credenciales (401) al {what}: {reason}. {credentials_hint}".strip()
        )
    if status == 403 and "quota" in reason.lower():
        return PublishError(
            f"se agotó la cuota diaria de la API de YouTube al {what} ({reason}); vuelve a intentarlo mañana"
        )
    if status == 403 and what == "poner la miniatura":
        return PublishError(
            f"YouTube no deja poner la miniatura ({reason}): el canal debe estar verificado "
            f"para usar miniaturas propias"
        )
    if status == 403:
        return CredentialsError(f"YouTube denegó el permiso (403) al {what}: {reason}. {credentials_hint}".strip())
    return PublishError(f"YouTube respondió {status} al {what}: {reason}")


def _reason(err: HttpError) -> str:
    try:
        error = json.loads(err.content.decode("utf-8")).get("error", {})
        details = error.get("errors") or [{}]
        return ": ".join(x for x in (details[0].get("reason"), error.get("message")) if x) or str(err.resp.reason)
    except (ValueError, AttributeError, UnicodeDecodeError):
        return str(getattr(err.resp, "reason", "") or err)


def read_published(path: Path) -> dict | None:
    """published.json: the YouTube video this bundle became (None before the first upload)."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise YoutubeError(
            f"{path}: no es JSON válido ({err}); arréglalo o bórralo (borrarlo sube un vídeo nuevo)"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("video_id"), str) or not data["video_id"]:
        raise YoutubeError(f"{path}: falta «video_id»; arréglalo o bórralo (borrarlo sube un vídeo nuevo)")
    return data


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
