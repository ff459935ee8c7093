"""Faults injected into a built tiny lecture, and how many builds ended correct after them.

    .venv/bin/python benchmarks/bench_faults.py

For each fault of `tests/fixtures/faults.py` (an artefact truncated, zeroed, or its stamp
or record lost; a narration clip damaged), a private copy of the tiny two-scene lecture is
damaged, built once, and checked: every frame there, each scene's narration within 12 ms of
its own file and sounding as the undamaged lecture's, subtitles intact. Then the faults of
`tests/fixtures/content_faults.py`: a clip's samples zeroed behind an intact header with its
old time put back (espeak's segment clip, a sentence Kokoro spoke whole, a recording's
clip), each on its own tiny lecture built, damaged and built again, checked against what it
sounded like before and for the clip named in the notes. Last, a `published.json` left
`pending` by an upload cut midway: the next publish (offline, YouTube answered by
googleapiclient's HttpMockSequence) must ask the saved session how far it got, send the
rest and no second `videos.insert`. Prints one line per fault, the table (fault kind,
builds, correct) and what checking every clip's content seal costs on the whole lecture's
voice cache. Also run, with assertions, by tests/test_build_damage.py.
"""

from __future__ import annotations

import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_ROOT), str(REPO_ROOT / "tests")]

from fixtures.build_support import ENV_KEYS, fresh_copy, quiet_console  # noqa: E402 - needs the path above
from fixtures.content_faults import (  # noqa: E402
    CONTENT_FAULTS,
    damage,
    environment,
    heard,
    prepare,
    problems,
)
from fixtures.faults import FAULTS, inject, lecture_is_correct  # noqa: E402

SESSION = "https://youtube.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id=bench"


def artefact_faults(tmp: Path, tally: dict[str, list[int]]) -> None:
    from lecture.build.pipeline import build

    for fault in FAULTS:
        saved = {k: os.environ.get(k) for k in ENV_KEYS}
        lecture = fresh_copy(tmp / fault.name)
        os.environ.update(lecture.env())
        try:
            inject(lecture, fault)
            start = time.monotonic()
            report = build("preview", jobs=2, console=quiet_console())
            found = ([] if report.ok else [f"failed: {report.failed}"]) + lecture_is_correct(lecture)
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        _line(fault.name, fault.damage, found, time.monotonic() - start, tally)


def content_faults(tmp: Path, tally: dict[str, list[int]]) -> None:
    from lecture.build.pipeline import build

    for fault in CONTENT_FAULTS:
        lecture = prepare(tmp / fault.name, fault)
        with environment(fault.env(lecture)):
            first = build("preview", jobs=2, console=quiet_console())
            if not first.ok:
                _line(fault.name, "content", [f"the build before the damage failed: {first.failed}"], 0.0, tally)
                continue
            before = heard(lecture)
            damaged = damage(lecture, fault)
            start = time.monotonic()
            report = build("preview", jobs=2, console=quiet_console())
            found = ([] if report.ok else [f"failed: {report.failed}"]) + problems(
                lecture, before, damaged, report.notes
            )
        _line(fault.name, "content", found, time.monotonic() - start, tally)


def pending_upload(tmp: Path, tally: dict[str, list[int]]) -> None:
    """published.json left `pending` after the first chunk: one more publish finishes that
    upload on its session (no new insert) and records the video."""
    import pytest
    from googleapiclient.http import HttpMockSequence
    from test_youtube_media import make_build_outputs, use_tmp_lecture

    from lecture.youtube.bundle import make_bundle
    from lecture.youtube.upload import PendingUpload, Retry, build_service, publish_bundle, read_published
    from voiceover.atomic import sha256_file

    start = time.monotonic()
    found: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        make_build_outputs(use_tmp_lecture(tmp / "upload", mp))
        paths = make_bundle("preview").paths
        size = paths.video.stat().st_size
        half = size // 2
        pending = PendingUpload(SESSION, sha256_file(paths.video), size, "2024-01-01T00:00:00Z")
        paths.published.write_text(json.dumps(pending.record()), encoding="utf-8")
        http = HttpMockSequence(
            [
                ({"status": "308", "range": f"bytes=0-{half - 1}"}, ""),  # the status query: half is there
                ({"status": "200"}, json.dumps({"id": "vid123", "snippet": {"title": "t"}})),  # the rest
                ({"status": "200"}, json.dumps({"id": "cap456"})),  # captions.insert
                ({"status": "200"}, json.dumps({"kind": "youtube#thumbnailSetResponse"})),  # thumbnails.set
            ]
        )
        try:
            published = publish_bundle(build_service(http=http), paths, retry=Retry(sleep=lambda _: None))
            calls = [(m, u.split("?")[0]) for u, m, _, _ in http.request_sequence]
            if ("POST", "https://youtube.googleapis.com/upload/youtube/v3/videos") in calls:
                found.append("a second videos.insert was sent")
            if http.request_sequence[0][0] != SESSION or "*/" not in str(http.request_sequence[0][3]):
                found.append("the saved session was not asked how far it got")
            record = read_published(paths.published)
            if published.video_id != "vid123" or not isinstance(record, dict) or "pending" in record:
                found.append(f"published.json does not record the video: {record}")
        except Exception as err:  # noqa: BLE001 - any failure is the finding
            found.append(f"{type(err).__name__}: {err}")
    _line("published-pending", "upload", found, time.monotonic() - start, tally)


def _line(name: str, kind: str, found: list[str], seconds: float, tally: dict[str, list[int]]) -> None:
    tally[kind][0] += 1
    tally[kind][1] += not found
    print(f"{name:28s} {'correcta' if not found else 'MAL: ' + '; '.join(found)}  ({seconds:.1f} s)", flush=True)


def seal_cost() -> str:
    """What checking every cached clip's content seal costs (the whole lecture's voice cache)."""
    from voiceover import seals
    from voiceover.paths import clips_dir

    clips = sorted((REPO_ROOT / ".cache" / "voiceover" / "clips").glob("*.wav")) or sorted(clips_dir().glob("*.wav"))
    if not clips:
        return "costo de los sellos: no hay clips en la caché de voz para medirlo"
    sealed = [(c, seals.seal(c)) for c in clips]
    seals.take_notices()  # a new build: no verdict kept
    start = time.perf_counter()
    intact = sum(seals.intact(c, s) for c, s in sealed)
    seconds = time.perf_counter() - start
    megabytes = sum(s.size for _, s in sealed) / 1e6
    return (
        f"costo de los sellos: {len(clips)} clips ({megabytes:.0f} MB) comprobados por contenido en "
        f"{seconds:.2f} s ({megabytes / max(seconds, 1e-9):.0f} MB/s); {intact} intactos"
    )


def main() -> int:
    os.environ.setdefault("FFN_VOICE_ENGINE", "espeak")
    tally: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    only = set(sys.argv[1:])  # kinds to run (truncate, zero, delete_stamp, content, upload); all by default
    with tempfile.TemporaryDirectory(prefix="ffn-faults-") as tmp:
        if not only or only & {"truncate", "zero", "delete_stamp"}:
            artefact_faults(Path(tmp), tally)
        if not only or "content" in only:
            content_faults(Path(tmp), tally)
        if not only or "upload" in only:
            pending_upload(Path(tmp), tally)
    print(f"\n{'fallo':14s} {'compilaciones':>13s} {'correctas':>9s}")
    for kind, (builds, correct) in tally.items():
        print(f"{kind:14s} {builds:13d} {correct:9d}")
    injected = sum(n for n, _ in tally.values())
    correct = sum(ok for _, ok in tally.values())
    print(f"{'total':14s} {injected:13d} {correct:9d}   (upload: publicaciones en vez de compilaciones)")
    print(seal_cost())
    return 0 if correct == injected else 1


if __name__ == "__main__":
    sys.exit(main())
