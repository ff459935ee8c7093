"""The upload: a checked bundle sent to YouTube through the Data API v3.

First publish: `videos.insert` as a resumable upload. The session's address is written to
published.json as `pending` before the first byte goes out, and a publish that finds it
asks YouTube how much of the file it has (a `PUT` with `Content-Range: bytes */N`): it
sends the rest on that same session, or takes the video YouTube already made of it. A
kill, Ctrl-C or a full disk therefore never leads to a second video (two publishes at once
are kept apart by the lock in `lecture.youtube.publish`). Within a run, 5xx answers, rate
limits (429, 403 rateLimitExceeded) and dropped connections are retried with exponential
backoff. The video id replaces the pending session as soon as YouTube returns it; then
`captions.insert` for the Spanish track and `thumbnails.set` (which YouTube refuses with a
403 for channels that are not verified: a notice, not a failure). Publishing again updates
that video instead: `videos.update` (title, description, tags, flags; the privacy stays as
it is on YouTube unless one is asked for), the caption track replaced (`captions.update`,
or inserted when it is gone) and the thumbnail set again. YouTube does not let a video's
file be replaced: when video.mp4 has changed since it was uploaded, a note says so.

`service` is any `googleapiclient.discovery.Resource` for youtube v3; tests pass one built
on `HttpMockSequence`.
"""

from __future__ import annotations

import errno
import http.client
import json
import random
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import httplib2
from google.auth.exceptions import RefreshError, TransportError
from googleapiclient.errors import HttpError, ResumableUploadError
from googleapiclient.http import MediaFileUpload

from lecture.youtube import YoutubeError
from lecture.youtube.bundle_paths import BundlePaths
from lecture.youtube.metadata import Metadata, load_metadata
from lecture.youtube.oauth import CredentialsError
from voiceover.atomic import sha256_file, write_json

RETRIABLE_STATUS = frozenset({500, 502, 503, 504})
TOO_MANY_REQUESTS = 429
RATE_LIMIT_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded"})  # 403s that mean "wait"
SESSION_GONE = frozenset({404, 410})  # an upload session YouTube no longer has
RETRIABLE_ERRORS = (
    httplib2.HttpLib2Error,
    http.client.HTTPException,
    ConnectionError,
    TimeoutError,
    ssl.SSLError,
    TransportError,
)
CHUNK_BYTES = 16 * 1024 * 1024  # a multiple of 256 KiB, as resumable uploads require
UPLOAD_STEP = "subir el vídeo"
THUMBNAIL_STEP = "poner la miniatura"

T = TypeVar("T")


class PublishError(YoutubeError):
    """YouTube refused a request, or retries ran out."""


class ThumbnailRefused(PublishError):
    """YouTube would not take the thumbnail (a channel that is not verified): the video stands."""


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


@dataclass(frozen=True)
class PendingUpload:
    """A `videos.insert` under way: YouTube's resumable session, saved before the first byte
    so that any later run can ask how far it got instead of uploading a second video."""

    session_uri: str
    video_sha256: str  # the file being sent: a changed video.mp4 cannot go on this session
    size_bytes: int  # the total announced to the session, which the status query repeats
    started_at: str

    def record(self) -> dict:
        return {
            "pending": {
                "session_uri": self.session_uri,
                "video_sha256": self.video_sha256,
                "size_bytes": self.size_bytes,
                "started_at": self.started_at,
            }
        }


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
    token_refused: Callable[[RefreshError], CredentialsError] | None = None,
) -> Published:
    """Upload the bundle, finish the upload published.json has pending, or update the video
    it was uploaded as. The caller keeps other publishes of this bundle out (see
    `lecture.youtube.publish.publish_lock`). `token_refused` turns Google's refusal to
    refresh the token into the error to raise (by default, one ending in `credentials_hint`)."""
    metadata = load_metadata(paths.metadata)
    found = read_published(paths.published)
    api = _Api(retry or Retry(), credentials_hint, log, token_refused)
    video_sha = sha256_file(paths.video)
    notes: list[str] = []
    if isinstance(found, dict):
        record = found
        video_id = record["video_id"]
        listed = api.execute(service.videos().list(part="status", id=video_id), "buscar el vídeo publicado")
        items = listed.get("items") or []
        if not items:
            raise PublishError(
                f"{paths.published}: el vídeo {video_id} ya no está en YouTube (¿se borró?); "
                f"borra {paths.published.name} para subirlo como vídeo nuevo"
            )
        privacy_status = privacy or items[0].get("status", {}).get("privacyStatus") or metadata.status["privacyStatus"]
        body = {"id": video_id, **metadata.body(privacy_status)}
        api.execute(service.videos().update(part="snippet,status", body=body), "actualizar el vídeo")
        action = "actualizado"
    else:
        body = metadata.body(privacy)
        answer, sent_sha = _upload_video(service, api, paths, body, video_sha, found, chunk_bytes)
        video_id = answer["id"]
        record = {
            "video_id": video_id,
            "url": f"https://youtu.be/{video_id}",
            "uploaded_at": _now(),
            "video_sha256": sent_sha,
        }
        log(f"YouTube recibió el vídeo: {record['url']} (id {video_id})")  # on screen before any write can fail
        _save(
            paths.published,
            record,
            lambda reason: (
                f"el vídeo ya está en YouTube: {record['url']} (id {video_id}), pero no se pudo anotar en "
                f"{paths.published} ({reason}). Ese archivo guarda aún la sesión de subida: libera espacio y "
                f"vuelve a publicar, que recupera el id preguntándoselo a YouTube, sin subir otro vídeo"
            ),
        )
        action = "subido"
        privacy_status = answer.get("status", {}).get("privacyStatus") or body["status"]["privacyStatus"]
    if record.get("video_sha256") not in (None, video_sha):
        notes.append(
            f"{paths.video.name} cambió desde que se subió, pero YouTube no deja reemplazar el "
            f"archivo de un vídeo: para publicar el nuevo, borra {paths.published.name} y vuelve "
            f"a publicar"
        )

    record["caption_id"] = _captions(
        service, api, video_id, metadata, paths, updating=action == "actualizado", known_id=record.get("caption_id")
    )
    try:
        api.execute(
            service.thumbnails().set(
                videoId=video_id,
                media_body=MediaFileUpload(str(paths.thumbnail), mimetype="image/png", resumable=False),
            ),
            THUMBNAIL_STEP,
        )
    except ThumbnailRefused as refused:
        notes.append(str(refused))
    record.update({"privacy_status": privacy_status, "title": metadata.title, "published_at": _now()})
    _save(
        paths.published,
        record,
        lambda reason: (
            f"el vídeo {record['url']} (id {video_id}) está publicado, pero no se pudo anotar el resultado en "
            f"{paths.published} ({reason}); el id ya estaba anotado: libera espacio y vuelve a publicar "
            f"(actualiza ese mismo vídeo)"
        ),
    )
    return Published(video_id, action, record["url"], tuple(notes))


def _upload_video(
    service, api: _Api, paths: BundlePaths, body: dict, video_sha: str, pending: PendingUpload | None, chunk_bytes: int
) -> tuple[dict, str]:
    """The video resource YouTube made of video.mp4, and the SHA-256 of the file it was made
    from: the pending session finished, or continued from the bytes YouTube has, or a new
    session opened (and saved as pending before the first byte)."""
    size = paths.video.stat().st_size
    media = MediaFileUpload(str(paths.video), mimetype="video/mp4", chunksize=chunk_bytes, resumable=True)
    request = service.videos().insert(part="snippet,status", body=body, media_body=media)
    answer: dict | None = None
    sent_sha = video_sha
    if pending is not None:
        state = api.call(lambda: _session_state(request, pending, paths.published), UPLOAD_STEP)
        if isinstance(state, dict):
            answer, sent_sha = state, pending.video_sha256
            api.log(f"{UPLOAD_STEP}: la subida anotada en {paths.published.name} ya había terminado")
        elif (pending.video_sha256, pending.size_bytes) == (video_sha, size):
            request.resumable_uri, request.resumable_progress = pending.session_uri, state
            api.log(f"{UPLOAD_STEP}: se retoma la subida anotada en {paths.published.name} ({_share(state, size)})")
        else:
            # An unfinished session never becomes a video, so leaving it is safe.
            api.log(f"{UPLOAD_STEP}: {paths.video.name} cambió desde que empezó la subida a medias; se sube el nuevo")
    if answer is None:
        if request.resumable_uri is None:
            session = api.call(lambda: _open_session(request), UPLOAD_STEP)
            _save(
                paths.published,
                PendingUpload(session, video_sha, size, _now()).record(),
                lambda reason: (
                    f"no se pudo anotar la sesión de subida en {paths.published} ({reason}); no se envió "
                    f"ningún byte del vídeo: libera espacio y vuelve a publicar"
                ),
            )
            request.resumable_uri = session
        answer = api.resumable(request, UPLOAD_STEP)
    if not isinstance(answer, dict) or not answer.get("id"):
        raise PublishError(f"YouTube no devolvió el id del vídeo subido ({paths.video}): {answer!r:.300}")
    return answer, sent_sha


def _open_session(request) -> str:
    """Start the resumable upload (the request's metadata, no media): the session's address.
    The library would send the first chunk in the same call, before it could be saved."""
    headers = {
        **request.headers,
        "X-Upload-Content-Type": request.resumable.mimetype(),
        "X-Upload-Content-Length": str(request.resumable.size()),
        "content-length": str(request.body_size),
    }
    resp, content = request.http.request(request.uri, method=request.method, body=request.body, headers=headers)
    if resp.status == 200 and "location" in resp:
        location: str = resp["location"]
        return location
    raise ResumableUploadError(resp, content)


def _session_state(request, pending: PendingUpload, published: Path) -> dict | int:
    """Where the saved session stands: the video resource when the upload has finished, else
    how many bytes YouTube has (the resumable protocol's status query)."""
    resp, content = request.http.request(
        pending.session_uri,
        "PUT",
        headers={"Content-Range": f"bytes */{pending.size_bytes}", "content-length": "0"},
    )
    if resp.status in (200, 201):
        done: dict = request.postproc(resp, content)
        return done
    if resp.status == 308:
        received = resp.get("range")  # "bytes=0-N"; absent when YouTube has nothing yet
        return int(received.rsplit("-", 1)[1]) + 1 if received else 0
    if resp.status in SESSION_GONE:
        raise PublishError(
            f"{published}: YouTube ya no tiene la subida a medias anotada ahí ({resp.status}; las sesiones "
            f"caducan a la semana) y no dice si llegó a terminar. Mira en YouTube Studio si el vídeo está: "
            f'si está, escribe su id en {published.name} como {{"video_id": "…"}}; si no, borra '
            f"{published.name} y vuelve a publicar"
        )
    raise HttpError(resp, content, uri=pending.session_uri)


def _share(received: int, size: int) -> str:
    return f"YouTube ya tiene {received / 2**20:.1f} de {size / 2**20:.1f} MB"


def _save(path: Path, record: dict, failed: Callable[[str], str]) -> None:
    """Write published.json atomically (the previous record stays whole if this fails); an
    OSError becomes a PublishError whose message `failed` writes from the reason."""
    try:
        write_json(path, record)
    except OSError as err:
        reason = "disco lleno" if err.errno == errno.ENOSPC else (err.strerror or str(err))
        raise PublishError(failed(reason)) from None


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
    token_refused: Callable[[RefreshError], CredentialsError] | None = None

    def call(self, send: Callable[[], T], what: str) -> T:
        """`send()`, again after a wait while YouTube answers 5xx or "slow down" or the
        connection drops; every other refusal raised as a Spanish error."""
        for attempt in range(self.retry.attempts):
            try:
                return send()
            except RefreshError as err:
                raise self._refused(err, what) from None
            except HttpError as err:
                self._retry_or_raise(err, what, attempt)
            except RETRIABLE_ERRORS as err:
                self._dropped(err, what, attempt)
        raise AssertionError("unreachable: the last attempt raises")

    def execute(self, request, what: str) -> dict:
        answer: dict = self.call(request.execute, what)
        return answer

    def resumable(self, request, what: str) -> Any:
        """The chunks from `request.resumable_progress` on; YouTube's final answer. A chunk
        that fails is retried from the bytes YouTube has (the library asks it)."""
        response = None
        while response is None:
            status, response = self.call(request.next_chunk, what)
            if status is not None:
                self.log(f"{what}: {status.progress() * 100:.0f} %")
        return response

    def _refused(self, err: RefreshError, what: str) -> CredentialsError:
        if self.token_refused is not None:
            return self.token_refused(err)
        return CredentialsError(f"Google no renovó el permiso al {what} ({err}); {self.credentials_hint}".strip())

    def _retry_or_raise(self, err: HttpError, what: str, attempt: int) -> None:
        status = err.resp.status
        code, _ = _reason_parts(err)
        slow_down = status == TOO_MANY_REQUESTS or (status == 403 and code in RATE_LIMIT_REASONS)
        if not slow_down and status not in RETRIABLE_STATUS:
            raise explain(err, what, self.credentials_hint) from None
        answered = f"{status} ({code})" if slow_down and code else str(status)
        if attempt + 1 >= self.retry.attempts:
            raise PublishError(
                f"YouTube respondió {answered} {self.retry.attempts} veces al {what}; "
                f"prueba más tarde (volver a publicar retoma donde quedó)"
            ) from None
        self.log(f"{what}: YouTube respondió {answered}; reintento {attempt + 1}")
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
    if status == 403 and what == THUMBNAIL_STEP:
        return ThumbnailRefused(
            f"YouTube no dejó poner la miniatura ({reason}): solo los canales verificados pueden usar "
            f"miniaturas propias. El vídeo queda publicado con una miniatura que elige YouTube; verifica el "
            f"canal en https://www.youtube.com/verify y vuelve a publicar para ponerla"
        )
    if status == 403:
        return CredentialsError(f"YouTube denegó el permiso (403) al {what}: {reason}. {credentials_hint}".strip())
    return PublishError(f"YouTube respondió {status} al {what}: {reason}")


def _reason_parts(err: HttpError) -> tuple[str, str]:
    """YouTube's reason code (e.g. "rateLimitExceeded") and message, "" when absent."""
    try:
        error = json.loads(err.content.decode("utf-8")).get("error", {})
        details = (error.get("errors") or [{}])[0]
        return str(details.get("reason") or ""), str(error.get("message") or "")
    except (ValueError, AttributeError, UnicodeDecodeError):
        return "", ""


def _reason(err: HttpError) -> str:
    parts = _reason_parts(err)
    return ": ".join(x for x in parts if x) or str(getattr(err.resp, "reason", "") or err)


def read_published(path: Path) -> dict | PendingUpload | None:
    """published.json: the YouTube video this bundle became (a dict with its `video_id`), or
    the upload session under way, or None before the first upload."""
    if not path.exists():
        return None
    fix = "arréglalo o bórralo (borrarlo sube un vídeo nuevo: mira antes en YouTube Studio si ya está)"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise YoutubeError(f"{path}: no es JSON válido ({err}); {fix}") from None
    if isinstance(data, dict) and isinstance(data.get("pending"), dict) and "video_id" not in data:
        pending = data["pending"]
        try:
            found = PendingUpload(
                str(pending["session_uri"]),
                str(pending["video_sha256"]),
                int(pending["size_bytes"]),
                str(pending["started_at"]),
            )
        except (KeyError, TypeError, ValueError):
            raise YoutubeError(f"{path}: la subida a medias («pending») está incompleta; {fix}") from None
        if not found.session_uri.startswith("https://"):
            raise YoutubeError(f"{path}: «session_uri» no es una dirección https de YouTube; {fix}")
        return found
    if not isinstance(data, dict) or not isinstance(data.get("video_id"), str) or not data["video_id"]:
        raise YoutubeError(f"{path}: falta «video_id»; {fix}")
    return data


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
