"""`ffn-video publish --dry-run`: the upload bundle, renders/<quality>/youtube/, made from a
build's outputs (lecture.mp4, lecture.es.srt, chapters.txt) and `youtube.toml`.

  video.mp4        the lecture: H.264 High yuv420p with closed GOPs, AAC-LC 48 kHz stereo,
                   index at the front. A copy of lecture.mp4, which the build already makes
                   that way; a stream that is not is re-encoded (only that stream).
  captions.es.srt  the Spanish subtitles
  thumbnail.png    1280x720, a chosen frame with the title in large type
  description.txt  summary, chapters, the note on the numbers
  metadata.json    the request body for YouTube and the caption track

Every file is written under a temporary name and renamed.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from lecture.media.ffmpeg import AAC_ARGS, moov_before_mdat, run_ffmpeg
from lecture.youtube import YoutubeError
from lecture.youtube.bundle_paths import BuildOutputs, BundlePaths, build_outputs, bundle_paths
from lecture.youtube.channel import YoutubeSettings, load_settings
from lecture.youtube.metadata import description_text, metadata_document, read_chapters
from lecture.youtube.thumbnail import TitleTooLong, make_thumbnail
from lecture.youtube.video_facts import StreamFacts, gop_facts, stream_facts
from voiceover.atomic import atomic_path, write_json, write_text
from voiceover.audio_format import CHANNELS, RATE_HZ


@dataclass(frozen=True)
class BundleReport:
    paths: BundlePaths
    video_action: str  # "copiado", "al día" or "recodificado (...)"
    notes: tuple[str, ...] = field(default_factory=tuple)


def make_bundle(quality: str, privacy: str | None = None, settings: YoutubeSettings | None = None) -> BundleReport:
    """Write the bundle for the build at `quality`; `privacy` overrides the settings'."""
    outputs = build_outputs(quality)
    outputs.require()
    settings = settings or load_settings()
    return write_bundle(outputs, bundle_paths(quality), settings, privacy)


def write_bundle(
    outputs: BuildOutputs, paths: BundlePaths, settings: YoutubeSettings, privacy: str | None = None
) -> BundleReport:
    outputs.require()
    notes: list[str] = []
    description = description_text(settings, read_chapters(outputs.chapters))
    facts = stream_facts(outputs.lecture)
    video_action = _video(outputs.lecture, facts, paths.video)
    copy_atomic(outputs.subtitles, paths.captions)
    at_s = settings.thumbnail_at_s
    if at_s >= facts.duration_s - 0.1:
        at_s = facts.duration_s / 2
        notes.append(
            f"miniatura: el segundo {settings.thumbnail_at_s:g} de {settings.path.name} queda fuera "
            f"del vídeo ({facts.duration_s:.1f} s); se usa el segundo {at_s:.1f}"
        )
    try:
        thumbnail = make_thumbnail(paths.video, at_s, settings.thumbnail_title, paths.thumbnail)
    except TitleTooLong as err:
        raise YoutubeError(f"{settings.path}: {err}") from None
    if thumbnail.blank_frame:
        notes.append(
            f"miniatura: el fotograma del segundo {at_s:.1f} está casi vacío; elige otro con "
            f"«thumbnail_at_s» en {settings.path}"
        )
    write_text(paths.description, description)
    write_json(paths.metadata, metadata_document(settings, description, privacy or settings.privacy))
    return BundleReport(paths, video_action, tuple(notes))


def _video(source: Path, facts: StreamFacts, target: Path) -> str:
    """Copy `source` to `target`, or re-encode what YouTube would not take as it is."""
    redo_video = []
    if facts.video_codec != "h264" or facts.video_profile != "High":
        redo_video.append(f"vídeo {facts.video_codec} {facts.video_profile}")
    if facts.pix_fmt != "yuv420p":
        redo_video.append(f"píxeles {facts.pix_fmt}")
    if not redo_video and not gop_facts(source).closed:
        redo_video.append("GOP abiertos")
    redo_audio = (
        facts.audio_codec != "aac"
        or facts.audio_profile != "LC"
        or facts.sample_rate_hz != RATE_HZ
        or facts.channels != CHANNELS
    )
    if facts.audio_codec is None:
        raise YoutubeError(f"{source}: no tiene pista de audio")
    if not redo_video and not redo_audio and moov_before_mdat(source):
        if _same_copy(source, target):
            return "al día"
        with atomic_path(target) as part:
            shutil.copyfile(source, part)
            shutil.copystat(source, part)  # same mtime: the next run sees the copy is current
        return "copiado"
    video_args = (
        [
            "-c:v",
            "libx264",
            "-profile:v",
            "high",
            "-pix_fmt",
            "yuv420p",
            "-crf",
            "18",
            "-preset",
            "medium",
            "-x264-params",
            "open-gop=0",
        ]
        if redo_video
        else ["-c:v", "copy"]
    )
    audio_args = list(AAC_ARGS) if redo_audio else ["-c:a", "copy"]
    with atomic_path(target) as part:
        run_ffmpeg(
            [
                "-i",
                str(source),
                "-map",
                "0:v:0",
                "-map",
                "0:a:0",
                *video_args,
                *audio_args,
                "-movflags",
                "+faststart",
                "-f",
                "mp4",
                str(part),
            ],
            f"preparing {target.name} from {source}",
            YoutubeError,
        )
    why = redo_video + (["audio"] if redo_audio else [])
    return f"recodificado ({', '.join(why)})" if why else "remultiplexado (índice delante)"


def _same_copy(source: Path, target: Path) -> bool:
    if not target.exists():
        return False
    a, b = os.stat(source), os.stat(target)
    return a.st_size == b.st_size and a.st_mtime_ns == b.st_mtime_ns


def copy_atomic(source: Path, target: Path) -> None:
    with atomic_path(target) as part:
        shutil.copyfile(source, part)
