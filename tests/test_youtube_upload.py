"""The upload, offline: googleapiclient's own HttpMockSequence answers as YouTube would, on a
client built from the discovery document the library ships. Nothing here touches the network."""

from __future__ import annotations

import email.parser
import errno
import json
import os
import shutil
import stat
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from googleapiclient.http import HttpMockSequence
from test_youtube_media import (
    CHAPTERS,
    SETTINGS,
    copy_build_outputs,
    make_build_outputs,
    use_tmp_lecture,
)

from lecture.cli import main
from lecture.youtube import YoutubeError
from lecture.youtube.bundle import make_bundle
from lecture.youtube.bundle_paths import BundlePaths
from lecture.youtube.oauth import (
    CredentialsError,
    credentials,
    load_client_secrets,
    token_path,
    write_token,
)
from lecture.youtube.publish import PublishLocked, upload
from lecture.youtube.upload import PendingUpload, PublishError, Retry, build_service, publish_bundle, read_published

SESSION = "https://youtube.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id=abc"
CLIENT = {
    "installed": {
        "client_id": "123-abc.apps.googleusercontent.com",
        "client_secret": "s3cr3t",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
        "redirect_uris": ["http://localhost"],
    }
}


class ScriptedHttp(HttpMockSequence):
    """HttpMockSequence whose script may also hold exceptions, raised in turn (a dropped
    connection, Ctrl-C), and functions, called with the request for the answer when their
    turn comes (to look at the disk or the bytes sent mid-upload, or hold the upload there)."""

    def request(self, uri, method="GET", body=None, headers=None, redirections=1, connection_type=None):
        if self._iterable and isinstance(self._iterable[0], BaseException):
            self.request_sequence.append((uri, method, body, headers))
            raise self._iterable.pop(0)
        if self._iterable and callable(self._iterable[0]):
            self._iterable[0] = self._iterable[0](uri, method, body, headers)
        return super().request(uri, method, body, headers, redirections, connection_type)

    def calls(self) -> list[tuple[str, str]]:
        """(method, path) of each request, in order."""
        return [
            (method, uri.split("://", 1)[1].split("/", 1)[1].split("?")[0])
            for uri, method, _, _ in self.request_sequence
        ]


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any attempt to resolve a name or open a connection fails the test at once."""
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError(f"a test tried to use the network: {args[:2]}")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


def ok(body: dict | str = "", **headers) -> tuple[dict, str]:
    return {"status": "200", **headers}, body if isinstance(body, str) else json.dumps(body)


def error(status: int, reason: str, message: str) -> tuple[dict, str]:
    return {"status": str(status)}, json.dumps(
        {"error": {"code": status, "message": message, "errors": [{"reason": reason, "message": message}]}}
    )


FIRST_UPLOAD_TAIL = [
    ok({"id": "vid123", "snippet": {"title": "t"}}),  # the video's bytes, in one PUT
    ok({"id": "cap456"}),  # captions.insert
    ok({"kind": "youtube#thumbnailSetResponse"}),  # thumbnails.set
]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    template = tmp_path_factory.mktemp("template")
    make_build_outputs(template)
    return template


@pytest.fixture
def lecture(tmp_path, monkeypatch, outputs):
    copy_build_outputs(outputs, use_tmp_lecture(tmp_path, monkeypatch))
    secrets = tmp_path / "client_secret.json"
    secrets.write_text(json.dumps(CLIENT), encoding="utf-8")
    return tmp_path


@pytest.fixture(scope="module")
def made_bundle(tmp_path_factory, outputs) -> Path:
    """A bundle made once for the module from the fake build."""
    root = tmp_path_factory.mktemp("bundle")
    with pytest.MonkeyPatch.context() as mp:
        copy_build_outputs(outputs, use_tmp_lecture(root, mp))
        return make_bundle("preview").paths.folder


@pytest.fixture
def bundle(made_bundle, tmp_path) -> BundlePaths:
    return BundlePaths(Path(shutil.copytree(made_bundle, tmp_path / "youtube")))


@pytest.fixture
def sleeps() -> list[float]:
    return []


def publish(bundle, script, sleeps, **kwargs):
    http = ScriptedHttp(list(script))
    result = publish_bundle(
        build_service(http=http), bundle, retry=Retry(sleep=sleeps.append, rand=lambda: 0.0), **kwargs
    )
    assert not http._iterable, "unused answers left in the script"
    return result, http


def multipart(body, headers) -> tuple[dict, bytes]:
    """The JSON part and the media part of a multipart upload request."""
    raw = body if isinstance(body, bytes) else body.encode("utf-8")
    message = email.parser.BytesParser().parsebytes(f"Content-Type: {headers['content-type']}\r\n\r\n".encode() + raw)
    meta, media = message.get_payload()
    return json.loads(meta.get_payload()), media.get_payload(decode=True)


def test_first_publish_uploads_video_captions_and_thumbnail_with_the_bundles_metadata(bundle, sleeps):
    published, http = publish(bundle, [ok(location=SESSION), *FIRST_UPLOAD_TAIL], sleeps)
    assert published.video_id == "vid123" and published.action == "subido" and sleeps == []
    assert http.calls() == [
        ("POST", "upload/youtube/v3/videos"),
        ("PUT", "upload/youtube/v3/videos"),
        ("POST", "upload/youtube/v3/captions"),
        ("POST", "upload/youtube/v3/thumbnails/set"),
    ]
    (start_uri, _, start_body, start_headers), (put_uri, _, _, put_headers) = http.request_sequence[:2]
    assert "uploadType=resumable" in start_uri and "part=snippet%2Cstatus" in start_uri
    assert start_headers["X-Upload-Content-Type"] == "video/mp4"
    sent = json.loads(start_body)
    meta = json.loads(bundle.metadata.read_text(encoding="utf-8"))
    assert sent == {"snippet": meta["snippet"], "status": meta["status"]}
    assert sent["snippet"]["categoryId"] == "27" and sent["snippet"]["defaultLanguage"] == "es"
    assert sent["snippet"]["defaultAudioLanguage"] == "es"
    assert sent["status"] == {
        "privacyStatus": "private",
        "selfDeclaredMadeForKids": False,
        "containsSyntheticMedia": True,
    }
    assert (
        put_uri == SESSION
        and put_headers["Content-Range"] == f"bytes 0-{bundle.video.stat().st_size - 1}/{bundle.video.stat().st_size}"
    )

    caption_uri, _, caption_body, caption_headers = http.request_sequence[2]
    assert "part=snippet" in caption_uri
    snippet, track = multipart(caption_body, caption_headers)
    assert snippet == {"snippet": {"videoId": "vid123", "language": "es", "name": "Español", "isDraft": False}}
    assert track == bundle.captions.read_bytes()
    thumb_uri, _, thumb_body, _ = http.request_sequence[3]
    assert "videoId=vid123" in thumb_uri and thumb_body == bundle.thumbnail.read_bytes()

    record = json.loads(bundle.published.read_text(encoding="utf-8"))
    assert record["video_id"] == "vid123" and record["url"] == "https://youtu.be/vid123"
    assert record["caption_id"] == "cap456" and record["privacy_status"] == "private"


def test_a_503_is_retried_with_backoff_and_uploads_one_video(bundle, sleeps):
    script = [error(503, "backendError", "Backend Error"), ok(location=SESSION), *FIRST_UPLOAD_TAIL]
    published, http = publish(bundle, script, sleeps, privacy="unlisted")
    assert published.video_id == "vid123" and len(sleeps) == 1
    assert http.calls().count(("PUT", "upload/youtube/v3/videos")) == 1
    assert json.loads(http.request_sequence[1][2])["status"]["privacyStatus"] == "unlisted"


@pytest.mark.parametrize(
    "failure",
    [ConnectionResetError("conexión cortada"), error(502, "badGateway", "Bad Gateway")],
    ids=["conexión cortada", "502 a mitad de subida"],
)
def test_an_upload_cut_midway_resumes_from_the_bytes_youtube_has(bundle, sleeps, failure):
    size = bundle.video.stat().st_size
    script = [
        ok(location=SESSION),
        failure,
        ({"status": "308", "range": "bytes=0-999"}, ""),  # the status query: YouTube has 1000 bytes
        *FIRST_UPLOAD_TAIL,
    ]
    published, http = publish(bundle, script, sleeps)
    assert published.video_id == "vid123" and len(sleeps) == 1
    query, resume = http.request_sequence[2], http.request_sequence[3]
    assert query[3]["Content-Range"] == f"bytes */{size}"
    assert resume[3]["Content-Range"] == f"bytes 1000-{size - 1}/{size}"


def test_retries_back_off_exponentially_and_then_give_up_with_a_clear_error(bundle, sleeps):
    script = [error(503, "backendError", "Backend Error")] * Retry().attempts
    with pytest.raises(PublishError, match="respondió 503 8 veces al subir el vídeo"):
        publish(bundle, script, sleeps)
    assert sleeps == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
    assert not bundle.published.exists()


def test_an_exhausted_quota_says_to_try_tomorrow(bundle, sleeps):
    with pytest.raises(PublishError, match="cuota diaria"):
        publish(
            bundle,
            [error(403, "quotaExceeded", "The request cannot be completed because you have exceeded your quota.")],
            sleeps,
        )


def test_a_401_is_a_clear_error_about_credentials_and_records_nothing(bundle, sleeps):
    script = [error(401, "authError", "Invalid Credentials")]
    with pytest.raises(CredentialsError, match=r"rechazó las credenciales \(401\) al subir el vídeo") as err:
        publish(bundle, script, sleeps, credentials_hint="Borra el token y vuelve a publicar.")
    assert "Invalid Credentials" in str(err.value) and "Borra el token" in str(err.value)
    assert not bundle.published.exists() and sleeps == []


def test_publishing_again_updates_the_same_video_instead_of_uploading_another(bundle, sleeps):
    publish(bundle, [ok(location=SESSION), *FIRST_UPLOAD_TAIL], sleeps)
    meta = json.loads(bundle.metadata.read_text(encoding="utf-8"))
    meta["snippet"]["title"] = "Título corregido"
    bundle.metadata.write_text(json.dumps(meta), encoding="utf-8")

    script = [
        ok({"items": [{"id": "vid123", "status": {"privacyStatus": "public"}}]}),  # videos.list
        ok({"id": "vid123"}),  # videos.update
        ok({"items": [{"id": "cap456", "snippet": {"language": "es", "name": "Español"}}]}),  # captions.list
        ok({"id": "cap456"}),  # captions.update
        ok({}),
    ]  # thumbnails.set
    published, http = publish(bundle, script, sleeps)
    assert published.video_id == "vid123" and published.action == "actualizado"
    assert http.calls() == [
        ("GET", "youtube/v3/videos"),
        ("PUT", "youtube/v3/videos"),
        ("GET", "youtube/v3/captions"),
        ("PUT", "upload/youtube/v3/captions"),
        ("POST", "upload/youtube/v3/thumbnails/set"),
    ]
    update = json.loads(http.request_sequence[1][2])
    assert update["id"] == "vid123" and update["snippet"]["title"] == "Título corregido"
    assert update["status"]["privacyStatus"] == "public"  # kept as it is on YouTube
    caption, _ = multipart(http.request_sequence[3][2], http.request_sequence[3][3])
    assert caption["id"] == "cap456" and caption["snippet"]["videoId"] == "vid123"
    assert json.loads(bundle.published.read_text(encoding="utf-8"))["video_id"] == "vid123"


def test_republishing_puts_back_a_missing_caption_track_and_warns_of_a_changed_video_file(bundle, sleeps):
    publish(bundle, [ok(location=SESSION), *FIRST_UPLOAD_TAIL], sleeps)
    with open(bundle.video, "ab") as f:
        f.write(b"\0")  # a new build: the file on YouTube cannot be replaced
    script = [
        ok({"items": [{"id": "vid123", "status": {"privacyStatus": "private"}}]}),
        ok({"id": "vid123"}),
        ok({"items": []}),
        ok({"id": "cap789"}),
        ok({}),
    ]
    published, http = publish(bundle, script, sleeps)
    assert http.calls()[2:4] == [("GET", "youtube/v3/captions"), ("POST", "upload/youtube/v3/captions")]
    assert json.loads(bundle.published.read_text(encoding="utf-8"))["caption_id"] == "cap789"
    assert len(published.notes) == 1 and "borra published.json" in published.notes[0]


def test_a_video_deleted_on_youtube_is_reported_not_uploaded_again(bundle, sleeps):
    bundle.published.write_text(json.dumps({"video_id": "gone1"}), encoding="utf-8")
    with pytest.raises(PublishError, match="gone1 ya no está en YouTube") as err:
        publish(bundle, [ok({"items": []})], sleeps)
    assert str(bundle.published) in str(err.value)


# --- interrupted, resumed, never twice -----------------------------------------------------

CHUNK = 256 * 1024  # the test video (about 430 kB) goes up in two chunks


def incomplete(received: int) -> tuple[dict, str]:
    """YouTube's 308 to a chunk or a status query: it has bytes 0 to received - 1."""
    return {"status": "308", "range": f"bytes=0-{received - 1}"}, ""


def pending_session(bundle) -> dict:
    return json.loads(bundle.published.read_text(encoding="utf-8"))["pending"]


def test_an_upload_interrupted_after_the_first_chunk_resumes_on_its_saved_session_without_a_new_insert(bundle, sleeps):
    size = bundle.video.stat().st_size
    assert CHUNK < size < 2 * CHUNK

    def first_chunk(*request):
        # The session is on disk before the first byte of the video leaves.
        assert pending_session(bundle)["session_uri"] == SESSION
        return incomplete(CHUNK)

    interrupted = ScriptedHttp([ok(location=SESSION), first_chunk, KeyboardInterrupt()])
    with pytest.raises(KeyboardInterrupt):
        publish_bundle(build_service(http=interrupted), bundle, retry=Retry(sleep=sleeps.append), chunk_bytes=CHUNK)
    assert read_published(bundle.published) == PendingUpload(
        SESSION, pending_session(bundle)["video_sha256"], size, pending_session(bundle)["started_at"]
    )

    sent = []

    def last_chunk(uri, method, body, headers):
        sent.append(body.read())
        return FIRST_UPLOAD_TAIL[0]

    script = [incomplete(CHUNK), last_chunk, *FIRST_UPLOAD_TAIL[1:]]
    published, http = publish(bundle, script, sleeps, chunk_bytes=CHUNK)
    assert published.video_id == "vid123" and published.action == "subido"
    assert ("POST", "upload/youtube/v3/videos") not in http.calls()
    (query_uri, query_method, _, query), (rest_uri, _, _, rest) = http.request_sequence[:2]
    assert (query_uri, query_method, query["Content-Range"]) == (SESSION, "PUT", f"bytes */{size}")
    assert rest_uri == SESSION and rest["Content-Range"] == f"bytes {CHUNK}-{size - 1}/{size}"
    assert sent == [bundle.video.read_bytes()[CHUNK:]]
    record = json.loads(bundle.published.read_text(encoding="utf-8"))
    assert record["video_id"] == "vid123" and "pending" not in record and record["caption_id"] == "cap456"


@pytest.fixture
def full_disk(monkeypatch):
    """Call it to fill the disk: from then on every write of published.json fails with
    ENOSPC (the atomic writer's temporary file cannot be written); call it with False to
    free the space."""
    full = {"on": False}
    real = Path.write_text

    def write_text(self, *args, **kwargs):
        if full["on"] and self.name.startswith(".published."):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)

    def fill(on: bool = True):
        full["on"] = on

    return fill


def test_a_disk_full_when_the_video_is_up_keeps_its_id_recoverable_and_the_next_publish_recovers_it(
    bundle, sleeps, full_disk
):
    def uploaded(*request):
        full_disk()
        return FIRST_UPLOAD_TAIL[0]

    with pytest.raises(PublishError) as err:
        publish(bundle, [ok(location=SESSION), uploaded], sleeps)
    message = str(err.value)
    assert "https://youtu.be/vid123" in message and "disco lleno" in message and str(bundle.published) in message
    assert "sin subir otro vídeo" in message
    assert pending_session(bundle)["session_uri"] == SESSION  # the record before stayed whole
    assert [p.name for p in bundle.folder.glob("*.part")] == []

    full_disk(False)
    done = ok({"id": "vid123", "status": {"privacyStatus": "private"}})  # the status query: the upload had finished
    published, http = publish(bundle, [done, *FIRST_UPLOAD_TAIL[1:]], sleeps)
    assert published.video_id == "vid123"
    assert http.calls()[0] == ("PUT", "upload/youtube/v3/videos") and http.request_sequence[0][0] == SESSION
    assert ("POST", "upload/youtube/v3/videos") not in http.calls()
    assert json.loads(bundle.published.read_text(encoding="utf-8"))["video_id"] == "vid123"


def test_a_disk_full_at_the_final_write_of_published_json_leaves_the_id_there(bundle, sleeps, full_disk):
    def thumbnail_set(*request):
        full_disk()
        return FIRST_UPLOAD_TAIL[2]

    with pytest.raises(PublishError, match="vid123.*disco lleno.*el id ya estaba anotado"):
        publish(bundle, [ok(location=SESSION), *FIRST_UPLOAD_TAIL[:2], thumbnail_set], sleeps)
    found = read_published(bundle.published)
    assert isinstance(found, dict) and found["video_id"] == "vid123"


def test_a_saved_session_youtube_no_longer_has_is_not_replaced_by_a_new_upload(bundle, sleeps):
    bundle.published.write_text(
        json.dumps({"pending": {"session_uri": SESSION, "video_sha256": "x", "size_bytes": 9, "started_at": "t"}}),
        encoding="utf-8",
    )
    with pytest.raises(PublishError, match="ya no tiene la subida a medias") as err:
        publish(bundle, [error(404, "notFound", "Not Found")], sleeps)
    assert "YouTube Studio" in str(err.value) and str(bundle.published) in str(err.value)


def test_an_unfinished_session_for_an_older_video_file_is_left_and_the_new_file_uploaded(bundle, sleeps):
    bundle.published.write_text(
        json.dumps(
            {"pending": {"session_uri": SESSION + "old", "video_sha256": "0" * 64, "size_bytes": 9, "started_at": "t"}}
        ),
        encoding="utf-8",
    )
    published, http = publish(bundle, [incomplete(5), ok(location=SESSION), *FIRST_UPLOAD_TAIL], sleeps)
    assert published.video_id == "vid123" and published.notes == ()
    assert http.request_sequence[0][3]["Content-Range"] == "bytes */9"
    assert http.calls()[1] == ("POST", "upload/youtube/v3/videos")


def test_ctrl_c_during_an_upload_says_to_publish_again_and_the_next_publish_resumes(lecture, monkeypatch, capsys):
    size_at = {}

    def first_byte(*request):
        size_at["size"] = (lecture / "renders/preview/youtube/video.mp4").stat().st_size
        raise KeyboardInterrupt

    sessions = iter([ScriptedHttp([ok(location=SESSION), first_byte])])
    https: list[ScriptedHttp] = []

    def service(creds):
        https.append(next(sessions))
        return build_service(http=https[-1])

    monkeypatch.setattr("lecture.youtube.publish.credentials", lambda path: None)
    monkeypatch.setattr("lecture.youtube.publish.build_service", service)
    command = ["publish", "--upload", "--quality", "preview", "--client-secrets", str(lecture / "client_secret.json")]
    assert main(command) == 130
    assert "vuelve a publicar para retomar la subida" in capsys.readouterr().err

    size = size_at["size"]
    sessions = iter([ScriptedHttp([incomplete(1000), *FIRST_UPLOAD_TAIL])])
    assert main(command) == 0
    assert "vídeo subido: https://youtu.be/vid123" in capsys.readouterr().out
    assert https[-1].calls()[:2] == [("PUT", "upload/youtube/v3/videos")] * 2
    assert https[-1].request_sequence[1][3]["Content-Range"] == f"bytes 1000-{size - 1}/{size}"


def test_two_publishes_of_one_bundle_at_once_one_is_refused_naming_the_lock_and_the_process(lecture):
    reached, release = threading.Event(), threading.Event()

    def whole_file(*request):
        reached.set()
        assert release.wait(60), "the test never let the first upload go on"
        return FIRST_UPLOAD_TAIL[0]

    first_http = ScriptedHttp([ok(location=SESSION), whole_file, *FIRST_UPLOAD_TAIL[1:]])
    secrets = lecture / "client_secret.json"
    outcome: dict = {}

    def first_publish():
        try:
            outcome["first"] = upload("preview", secrets, service=build_service(http=first_http), retry=Retry())
        except BaseException as err:  # reported by the assertions below
            outcome["first"] = err

    thread = threading.Thread(target=first_publish)
    thread.start()
    second_http = ScriptedHttp([])
    try:
        assert reached.wait(120), f"the first publish did not reach the upload: {outcome}"
        with pytest.raises(PublishLocked) as refused:
            upload("preview", secrets, service=build_service(http=second_http), retry=Retry())
    finally:
        release.set()
        thread.join(120)
    message = str(refused.value)
    assert str(lecture / "renders/preview/youtube/.publish.lock") in message
    assert f"proceso {os.getpid()}" in message and "otra publicación" in message
    assert second_http.request_sequence == []
    _, published = outcome["first"]
    assert published.video_id == "vid123" and first_http.calls().count(("POST", "upload/youtube/v3/videos")) == 1


# --- rate limits and refusals ---------------------------------------------------------------


@pytest.mark.parametrize(
    "script",
    [
        [error(429, "rateLimitExceeded", "Too Many Requests"), ok(location=SESSION), *FIRST_UPLOAD_TAIL],
        [
            ok(location=SESSION),
            FIRST_UPLOAD_TAIL[0],
            error(403, "rateLimitExceeded", "The request cannot be completed: too many requests."),
            *FIRST_UPLOAD_TAIL[1:],
        ],
        [
            ok(location=SESSION),
            error(403, "userRateLimitExceeded", "User Rate Limit Exceeded"),
            incomplete(1000),
            *FIRST_UPLOAD_TAIL,
        ],
    ],
    ids=["429 al abrir la subida", "403 rateLimitExceeded en los subtítulos", "403 userRateLimitExceeded a mitad"],
)
def test_a_rate_limit_is_waited_out_with_backoff_not_blamed_on_the_token(bundle, sleeps, script):
    published, _ = publish(bundle, script, sleeps, credentials_hint="Borra el token y vuelve a publicar.")
    assert published.video_id == "vid123" and sleeps == [0.5]  # one wait, then the request again
    assert json.loads(bundle.published.read_text(encoding="utf-8"))["caption_id"] == "cap456"


def test_a_rate_limit_that_lasts_gives_up_saying_to_try_later_not_to_delete_the_token(bundle, sleeps):
    script = [error(403, "userRateLimitExceeded", "User Rate Limit Exceeded")] * Retry().attempts
    with pytest.raises(PublishError, match=r"respondió 403 \(userRateLimitExceeded\) 8 veces") as err:
        publish(bundle, script, sleeps, credentials_hint="Borra el token y vuelve a publicar.")
    assert "prueba más tarde" in str(err.value) and "token" not in str(err.value)
    assert sleeps == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0]


def test_a_thumbnail_refused_for_an_unverified_channel_is_a_notice_and_the_publish_succeeds(
    lecture, monkeypatch, capsys
):
    refusal = error(
        403, "forbidden", "The authenticated user doesn't have permissions to upload and set custom video thumbnails."
    )
    http = ScriptedHttp([ok(location=SESSION), *FIRST_UPLOAD_TAIL[:2], refusal])
    monkeypatch.setattr("lecture.youtube.publish.credentials", lambda path: None)
    monkeypatch.setattr("lecture.youtube.publish.build_service", lambda creds: build_service(http=http))
    command = ["publish", "--upload", "--quality", "preview", "--client-secrets", str(lecture / "client_secret.json")]
    assert main(command) == 0
    out, err = capsys.readouterr()
    assert "vídeo subido: https://youtu.be/vid123" in out
    assert "aviso: YouTube no dejó poner la miniatura" in err and "canales verificados" in err
    record = json.loads((lecture / "renders/preview/youtube/published.json").read_text())
    assert record["video_id"] == "vid123" and record["caption_id"] == "cap456" and "published_at" in record


# --- bad input: a clear error, naming the file, before any request -----------------------


def _upload_with(lecture, secrets, script=()):
    http = ScriptedHttp(list(script))
    try:
        upload("preview", secrets, service=build_service(http=http), retry=Retry(sleep=lambda s: None))
    finally:
        assert http.request_sequence == [], "a request was sent before the input was checked"


@pytest.mark.parametrize(
    "content, complaint",
    [
        (None, "no existe el archivo de secretos"),
        ("{ no es json", "no es un JSON válido"),
        (json.dumps({"web": CLIENT["installed"]}), "«Aplicación web»"),
        (json.dumps({"installed": {"client_id": "x"}}), "le faltan client_secret, auth_uri, token_uri"),
    ],
)
def test_bad_client_secrets_are_refused_naming_the_file(lecture, content, complaint):
    secrets = lecture / "secretos.json"
    if content is not None:
        secrets.write_text(content, encoding="utf-8")
    with pytest.raises(CredentialsError, match=complaint) as err:
        _upload_with(lecture, secrets)
    assert str(secrets) in str(err.value)


def test_a_bundle_that_fails_the_check_is_not_uploaded(lecture):
    (lecture / "renders/preview/chapters.txt").write_text(CHAPTERS.splitlines()[0] + "\n", encoding="utf-8")
    with pytest.raises(YoutubeError, match="no cumple las reglas de YouTube") as err:
        _upload_with(lecture, lecture / "client_secret.json")
    assert "capítulos: YouTube pide al menos 3 capítulos" in str(err.value)
    assert "ffn-video check --quality preview" in str(err.value)


def test_a_title_too_long_is_refused_before_any_request(lecture):
    (lecture / "youtube.toml").write_text(
        SETTINGS.replace('title = "La capa', f'title = "{"y" * 80} La capa'), encoding="utf-8"
    )
    with pytest.raises(YoutubeError, match="el título tiene 131 caracteres") as err:
        _upload_with(lecture, lecture / "client_secret.json")
    assert str(lecture / "youtube.toml") in str(err.value)


def test_upload_without_client_secrets_says_where_to_get_them(lecture, capsys):
    assert main(["publish", "--upload", "--quality", "preview"]) == 2
    assert "--client-secrets" in capsys.readouterr().err
    assert main(["publish", "--upload", "--quality", "preview", "--client-secrets", str(lecture / "nada.json")]) == 2
    assert "nada.json" in capsys.readouterr().err.replace("\n", "")


def test_upload_through_the_cli_records_the_video(lecture, monkeypatch, capsys):
    http = ScriptedHttp([ok(location=SESSION), *FIRST_UPLOAD_TAIL])
    monkeypatch.setattr("lecture.youtube.publish.credentials", lambda path: None)
    monkeypatch.setattr("lecture.youtube.publish.build_service", lambda creds: build_service(http=http))
    assert (
        main(["publish", "--upload", "--quality", "preview", "--client-secrets", str(lecture / "client_secret.json")])
        == 0
    )
    assert "vídeo subido: https://youtu.be/vid123" in capsys.readouterr().out
    assert json.loads((lecture / "renders/preview/youtube/published.json").read_text())["video_id"] == "vid123"


# --- the token ----------------------------------------------------------------------------


def _fake_consent(token: str):
    """Stands for the browser consent: credentials valid for an hour (a stored token without
    an expiry is read back as expired, and refreshing it would need the network)."""
    from google.oauth2.credentials import Credentials

    calls = []

    def flow(config):
        calls.append(config["installed"]["client_id"])
        c = config["installed"]
        return Credentials(
            token=token,
            refresh_token="1//refresh",
            client_id=c["client_id"],
            client_secret=c["client_secret"],
            token_uri=c["token_uri"],
            expiry=datetime.now(UTC).replace(tzinfo=None) + timedelta(hours=1),
        )

    return flow, calls


def test_the_token_is_stored_private_in_the_config_folder_and_reused(lecture, capsys):
    flow, calls = _fake_consent("ya29.very-secret-token")
    creds = credentials(lecture / "client_secret.json", flow=flow)
    path = token_path()
    assert path == lecture / "config" / "ffn-video" / "youtube-token.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and creds.token == "ya29.very-secret-token"
    again = credentials(lecture / "client_secret.json", flow=flow)
    assert again.token == "ya29.very-secret-token" and calls == [CLIENT["installed"]["client_id"]]
    captured = capsys.readouterr()
    assert "very-secret" not in captured.out + captured.err


def test_a_token_for_another_client_is_not_used(lecture):
    flow, calls = _fake_consent("ya29.first")
    credentials(lecture / "client_secret.json", flow=flow)
    other = dict(CLIENT["installed"], client_id="999-other.apps.googleusercontent.com")
    (lecture / "other.json").write_text(json.dumps({"installed": other}), encoding="utf-8")
    credentials(lecture / "other.json", flow=flow)
    assert calls == [CLIENT["installed"]["client_id"], "999-other.apps.googleusercontent.com"]


def test_write_token_replaces_the_file_atomically_with_mode_0600(tmp_path):
    path = tmp_path / "cfg" / "token.json"
    write_token(path, "{}")
    os.chmod(path, 0o644)
    write_token(path, '{"token": "x"}')
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_text() == '{"token": "x"}'
    assert [p.name for p in path.parent.iterdir()] == ["token.json"]
    assert load_client_secrets  # imported for the bad-input tests above


class TokenEndpoint:
    """Google's token endpoint, as google-auth's transport interface sees it."""

    def __init__(self, status: int, answer: dict):
        self.status, self.answer, self.bodies = status, answer, []

    def __call__(self, url, method="GET", body=None, headers=None, timeout=None, **kwargs):
        self.bodies.append(body)
        data = json.dumps(self.answer).encode()
        return SimpleNamespace(status=self.status, headers={"content-type": "application/json"}, data=data)


REVOKED = {"error": "invalid_grant", "error_description": "Token has been expired or revoked."}


def _expire(path: Path) -> None:
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["expiry"] = "2001-01-01T00:00:00Z"
    write_token(path, json.dumps(stored))


def test_an_expired_token_is_refreshed_and_a_revoked_one_asks_to_authorise_again(lecture):
    flow, calls = _fake_consent("ya29.first")
    secrets = lecture / "client_secret.json"
    credentials(secrets, flow=flow)
    path = token_path()

    _expire(path)
    google = TokenEndpoint(200, {"access_token": "ya29.fresh", "expires_in": 3600, "token_type": "Bearer"})
    fresh = credentials(secrets, flow=flow, transport=google)
    assert fresh.token == "ya29.fresh" and fresh.valid and calls == [CLIENT["installed"]["client_id"]]
    assert b"grant_type=refresh_token" in google.bodies[0] and b"refresh_token=1%2F%2Frefresh" in google.bodies[0]
    assert json.loads(path.read_text(encoding="utf-8"))["token"] == "ya29.fresh"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    _expire(path)
    with pytest.raises(CredentialsError, match="vuelve a ejecutar `ffn-video publish --upload") as err:
        credentials(secrets, flow=flow, transport=TokenEndpoint(400, REVOKED))
    assert "invalid_grant" in str(err.value) and str(path) in str(err.value)
    assert len(calls) == 1, "the consent page must not open on its own"
    assert not path.exists()  # so the next publish asks for consent
    credentials(secrets, flow=flow)
    assert len(calls) == 2


def test_a_token_revoked_during_the_upload_asks_to_authorise_again_and_keeps_the_pending_session(lecture):
    from google_auth_httplib2 import AuthorizedHttp

    flow, _ = _fake_consent("ya29.first")
    creds = credentials(lecture / "client_secret.json", flow=flow)
    revoked = ({"status": "400", "content-type": "application/json"}, json.dumps(REVOKED))
    http = ScriptedHttp([ok(location=SESSION), error(401, "authError", "Invalid Credentials"), revoked])
    with pytest.raises(CredentialsError, match="vuelve a ejecutar `ffn-video publish --upload") as err:
        upload(
            "preview",
            lecture / "client_secret.json",
            service=build_service(http=AuthorizedHttp(creds, http=http)),
            retry=Retry(sleep=lambda s: None),
        )
    assert "invalid_grant" in str(err.value) and "Borra" not in str(err.value)
    assert http.calls() == [
        ("POST", "upload/youtube/v3/videos"),
        ("PUT", "upload/youtube/v3/videos"),
        ("POST", "token"),
    ]
    assert http.request_sequence[0][3]["authorization"] == "Bearer ya29.first"
    assert not token_path().exists()
    assert pending_session(BundlePaths(lecture / "renders/preview/youtube"))["session_uri"] == SESSION
