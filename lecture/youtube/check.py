"""`ffn-video check`: YouTube's rules, checked on an upload bundle.

Each rule is a named function of the bundle returning a `Verdict` (pass or fail, with a
Spanish message). `RULES` lists them in the order they are printed; a new rule is one more
function and one more entry (`narration_in_sync`, the last, is an example).

A rule may raise `YoutubeError` (a missing or unreadable file): that rule then fails with the
error's message and the others still run. The bundle's facts (ffprobe, loudness, metadata)
are read once and shared by every rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from pathlib import Path

from lecture.media.chapter_marks import MIN_CHAPTER_S, Chapter, youtube_problems
from lecture.media.ffmpeg import moov_before_mdat
from lecture.media.loudness import Loudness
from lecture.youtube import YoutubeError
from lecture.youtube.bundle_paths import BundlePaths
from lecture.youtube.channel import CATEGORY_EDUCATION, MAX_TAGS_CHARS, MAX_TITLE_CHARS, PRIVACY_STATUSES, tags_length
from lecture.youtube.metadata import ChapterMark, Metadata, load_metadata, parse_chapters
from lecture.youtube.thumbnail import MAX_BYTES as THUMBNAIL_MAX_BYTES
from lecture.youtube.thumbnail import SIZE_PX as THUMBNAIL_SIZE_PX
from lecture.youtube.video_facts import GopFacts, StreamFacts, gop_facts, loudness, stream_facts
from voiceover.audio_format import CEILING_DBTP as MAX_TRUE_PEAK_DBTP
from voiceover.audio_format import CHANNELS as AUDIO_CHANNELS
from voiceover.audio_format import RATE_HZ as AUDIO_RATE_HZ
from voiceover.audio_format import TARGET_LUFS

CHECK_TOLERANCE_LU = 1.0  # around the build's target: AAC and rounding move it a little
MAX_DESCRIPTION_BYTES = 5000


@dataclass(frozen=True)
class Verdict:
    ok: bool
    message: str  # Spanish, for the user


def passed(message: str) -> Verdict:
    return Verdict(True, message)


def failed(message: str) -> Verdict:
    return Verdict(False, message)


@dataclass(frozen=True)
class BundleUnderCheck:
    """A bundle's files and, read on first use and then kept, the facts the rules need."""

    paths: BundlePaths
    quality: str | None = None  # the build quality the bundle came from, when known

    def require(self, path: Path) -> Path:
        if not path.exists():
            raise YoutubeError(
                f"{path}: no existe; créalo con `ffn-video publish --dry-run"
                f"{f' --quality {self.quality}' if self.quality else ''}`"
            )
        return path

    @cached_property
    def streams(self) -> StreamFacts:
        return stream_facts(self.require(self.paths.video))

    @cached_property
    def gops(self) -> GopFacts:
        return gop_facts(self.require(self.paths.video))

    @cached_property
    def loudness(self) -> Loudness:
        return loudness(self.require(self.paths.video))

    @cached_property
    def metadata(self) -> Metadata:
        return load_metadata(self.paths.metadata)

    @cached_property
    def description_file(self) -> str:
        return self.require(self.paths.description).read_text(encoding="utf-8")

    @cached_property
    def chapters(self) -> list[ChapterMark]:
        return parse_chapters(self.metadata.description)


@dataclass(frozen=True)
class Rule:
    name: str  # Spanish, as printed
    check: Callable[[BundleUnderCheck], Verdict]


@dataclass(frozen=True)
class RuleResult:
    rule: str
    ok: bool
    message: str


# --- the rules ---------------------------------------------------------------------------


def container_and_codecs(bundle: BundleUnderCheck) -> Verdict:
    s = bundle.streams
    found = (
        f"{'MP4' if s.is_mp4 else s.format_name}, vídeo {s.video_codec} {s.video_profile} {s.pix_fmt}, "
        f"audio {s.audio_codec} {s.audio_profile}"
    )
    problems = []
    if not s.is_mp4:
        problems.append("el contenedor no es MP4")
    if s.video_codec != "h264" or s.video_profile != "High":
        problems.append("el vídeo debe ser H.264 perfil High")
    if s.pix_fmt != "yuv420p":
        problems.append("el formato de píxel debe ser yuv420p")
    if s.audio_codec != "aac" or s.audio_profile != "LC":
        problems.append("el audio debe ser AAC-LC")
    return failed(f"{'; '.join(problems)} ({found})") if problems else passed(found)


def closed_gops(bundle: BundleUnderCheck) -> Verdict:
    g = bundle.gops
    if g.closed:
        return passed(f"{g.keyframes} GOP, todos cerrados")
    if not g.starts_with_keyframe:
        return failed("el vídeo no empieza por un fotograma clave")
    what = f"{g.open_gops} de {g.keyframes} GOP abiertos" if g.open_gops else "x264 codificó con open_gop=1"
    return failed(f"{what}: YouTube pide GOP cerrados (recodifica sin open-gop)")


def fast_start(bundle: BundleUnderCheck) -> Verdict:
    if moov_before_mdat(bundle.require(bundle.paths.video)):
        return passed("el índice (moov) va delante de los datos (mdat)")
    return failed("el índice (moov) va detrás de los datos: remultiplexa con -movflags +faststart")


def audio_rate(bundle: BundleUnderCheck) -> Verdict:
    s = bundle.streams
    found = f"{s.sample_rate_hz} Hz, {s.channels} canales"
    if s.sample_rate_hz == AUDIO_RATE_HZ and s.channels == AUDIO_CHANNELS:
        return passed(found)
    return failed(f"{found}: YouTube recomienda {AUDIO_RATE_HZ} Hz estéreo")


def integrated_loudness(bundle: BundleUnderCheck) -> Verdict:
    lufs = bundle.loudness.integrated_lufs
    found = f"{lufs:.1f} LUFS integrados"
    if math.isfinite(lufs) and abs(lufs - TARGET_LUFS) <= CHECK_TOLERANCE_LU:
        return passed(found)
    return failed(f"{found}: debe estar a ±{CHECK_TOLERANCE_LU:g} LU de {TARGET_LUFS:g} LUFS")


def true_peak(bundle: BundleUnderCheck) -> Verdict:
    peak = bundle.loudness.true_peak_dbtp
    found = f"{peak:.1f} dBTP"
    if peak <= MAX_TRUE_PEAK_DBTP:
        return passed(found)
    return failed(f"{found}: debe quedar por debajo de {MAX_TRUE_PEAK_DBTP:g} dBTP")


def chapters(bundle: BundleUnderCheck) -> Verdict:
    marks = bundle.chapters
    problems = youtube_problems([Chapter(m.start_s, m.title, ()) for m in marks], bundle.streams.duration_s)
    if any(b.start_s <= a.start_s for a, b in pairwise(marks)):
        problems.append("los capítulos no van en orden creciente")
    if problems:
        return failed("; ".join(problems) + f" (en la descripción de {bundle.paths.metadata.name})")
    return passed(f"{len(marks)} capítulos, el primero en 0:00, todos de {MIN_CHAPTER_S} s o más")


def captions(bundle: BundleUnderCheck) -> Verdict:
    import srt

    path = bundle.require(bundle.paths.captions)
    try:
        subtitles = list(srt.parse(path.read_text(encoding="utf-8")))
    except (srt.SRTParseError, UnicodeDecodeError, ValueError) as err:
        return failed(f"{path.name} no es un SRT válido: {err}")
    if not subtitles:
        return failed(f"{path.name} no tiene ningún subtítulo")
    empty = [s.index for s in subtitles if not s.content.strip()]
    if empty:
        return failed(f"{path.name}: subtítulos sin texto: {empty[:5]}")
    end_s = max(s.end.total_seconds() for s in subtitles)
    duration = bundle.streams.duration_s
    if end_s > duration + 1.0:
        return failed(f"{path.name}: el último subtítulo acaba en {end_s:.1f} s y el vídeo dura {duration:.1f} s")
    return passed(f"{path.name}: {len(subtitles)} subtítulos")


def _thumbnail_image(bundle: BundleUnderCheck):
    from PIL import Image, UnidentifiedImageError

    path = bundle.require(bundle.paths.thumbnail)
    try:
        with Image.open(path) as image:
            return image.format, image.size
    except UnidentifiedImageError:
        raise YoutubeError(f"{path}: no es una imagen") from None


def thumbnail_size(bundle: BundleUnderCheck) -> Verdict:
    fmt, (w, h) = _thumbnail_image(bundle)
    found = f"{fmt} de {w}x{h}"
    if fmt not in ("PNG", "JPEG"):
        return failed(f"{found}: YouTube acepta PNG o JPEG")
    if (w, h) != THUMBNAIL_SIZE_PX:
        return failed(f"{found}: debe medir {THUMBNAIL_SIZE_PX[0]}x{THUMBNAIL_SIZE_PX[1]}")
    return passed(found)


def thumbnail_weight(bundle: BundleUnderCheck) -> Verdict:
    size = bundle.require(bundle.paths.thumbnail).stat().st_size
    found = f"{size / 1024:.0f} KiB"
    if size < THUMBNAIL_MAX_BYTES:
        return passed(found)
    return failed(f"{found}: YouTube admite menos de 2 MB")


def title(bundle: BundleUnderCheck) -> Verdict:
    text = bundle.metadata.title
    if not text.strip():
        return failed(f"{bundle.paths.metadata.name}: el título está vacío")
    if len(text) > MAX_TITLE_CHARS:
        return failed(f"{len(text)} caracteres; YouTube admite {MAX_TITLE_CHARS} como máximo")
    if "<" in text or ">" in text:
        return failed("lleva «<» o «>», que YouTube rechaza")
    return passed(f"{len(text)} caracteres: «{text}»")


def description(bundle: BundleUnderCheck) -> Verdict:
    text = bundle.metadata.description
    size = len(text.encode("utf-8"))
    if size > MAX_DESCRIPTION_BYTES:
        return failed(f"{size} bytes; YouTube admite {MAX_DESCRIPTION_BYTES} como máximo")
    if "<" in text or ">" in text:
        return failed("lleva «<» o «>», que YouTube rechaza")
    if text != bundle.description_file:
        return failed(
            f"{bundle.paths.description.name} y {bundle.paths.metadata.name} no coinciden: "
            f"rehaz el paquete con `ffn-video publish --dry-run`"
        )
    return passed(f"{size} bytes")


def tags(bundle: BundleUnderCheck) -> Verdict:
    values = bundle.metadata.snippet.get("tags", [])
    if not isinstance(values, list) or not all(isinstance(t, str) for t in values):
        return failed("«tags» debe ser una lista de textos")
    if any("<" in t or ">" in t for t in values):
        return failed("una etiqueta lleva «<» o «>»")
    length = tags_length(values)
    if length > MAX_TAGS_CHARS:
        return failed(f"{length} caracteres; YouTube admite {MAX_TAGS_CHARS}")
    return passed(f"{len(values)} etiquetas, {length} caracteres")


def youtube_settings(bundle: BundleUnderCheck) -> Verdict:
    m = bundle.metadata
    snippet, status, caption = m.snippet, m.status, m.caption
    problems = []
    if snippet.get("categoryId") != CATEGORY_EDUCATION:
        problems.append(f"categoría {snippet.get('categoryId')!r}, no Educación ({CATEGORY_EDUCATION})")
    language = snippet.get("defaultLanguage")
    if not language or snippet.get("defaultAudioLanguage") != language or caption.get("language") != language:
        problems.append("el idioma del vídeo, el del audio y el de los subtítulos deben ser el mismo")
    if status.get("privacyStatus") not in PRIVACY_STATUSES:
        problems.append(f"privacidad {status.get('privacyStatus')!r} (válidas: {', '.join(PRIVACY_STATUSES)})")
    for key in ("selfDeclaredMadeForKids", "containsSyntheticMedia"):
        if not isinstance(status.get(key), bool):
            problems.append(f"falta «{key}» (true o false)")
    if not str(caption.get("name", "")).strip():
        problems.append("la pista de subtítulos no tiene nombre")
    if problems:
        return failed("; ".join(problems))
    return passed(
        f"Educación, idioma {language}, {status['privacyStatus']}, "
        f"{'voz sintética' if status['containsSyntheticMedia'] else 'voz grabada'}, "
        f"{'para niños' if status['selfDeclaredMadeForKids'] else 'no dirigido a niños'}"
    )


def narration_in_sync(bundle: BundleUnderCheck) -> Verdict:
    """Every scene's narration in the video within 12 ms of its own scene file, and the
    audio as long as the video within 25 ms (see `lecture.media.sync_check`)."""
    import json

    from lecture.media.sync_check import SyncCheckError, measure

    manifest = bundle.paths.folder.parent / "scenes.json"
    build_hint = f"`ffn-video build{f' --quality {bundle.quality}' if bundle.quality else ''}`"
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))["scenes"]
    except (OSError, ValueError, KeyError):
        return failed(f"{manifest}: falta o no se lee la lista de escenas; la escribe {build_hint}")
    scenes = [(e["name"], manifest.parent / e["file"]) for e in entries]
    missing = [str(path) for _, path in scenes if not path.exists()]
    if missing:
        return failed(f"faltan los vídeos de escena {', '.join(missing)}; los hace {build_hint}")
    try:
        report = measure(bundle.require(bundle.paths.video), scenes)
    except SyncCheckError as err:
        return failed(str(err))
    worst = max(report.offsets, key=lambda o: abs(o.offset_ms))
    summary = (
        f"peor desfase {worst.offset_ms:+.1f} ms ({worst.scene}); audio y vídeo difieren {report.length_gap_ms:.1f} ms"
    )
    return passed(summary) if report.ok else failed(summary + " (máximo 12 ms y 25 ms)")


RULES: tuple[Rule, ...] = (
    Rule("contenedor y códecs", container_and_codecs),
    Rule("GOP cerrado", closed_gops),
    Rule("inicio rápido", fast_start),
    Rule("audio", audio_rate),
    Rule("sonoridad", integrated_loudness),
    Rule("pico real", true_peak),
    Rule("capítulos", chapters),
    Rule("subtítulos", captions),
    Rule("miniatura: tamaño", thumbnail_size),
    Rule("miniatura: peso", thumbnail_weight),
    Rule("título", title),
    Rule("descripción", description),
    Rule("etiquetas", tags),
    Rule("ajustes de YouTube", youtube_settings),
    Rule("sincronía", narration_in_sync),
)


def check_bundle(paths: BundlePaths, rules: Sequence[Rule] = RULES, quality: str | None = None) -> list[RuleResult]:
    """Every rule's result, in order; a rule whose input is missing or unreadable fails."""
    if not paths.folder.is_dir():
        raise YoutubeError(
            f"{paths.folder}: no hay paquete de YouTube; créalo con `ffn-video publish --dry-run"
            f"{f' --quality {quality}' if quality else ''}`"
        )
    bundle = BundleUnderCheck(paths, quality)
    results = []
    for rule in rules:
        try:
            verdict = rule.check(bundle)
        except YoutubeError as err:
            verdict = failed(str(err))
        results.append(RuleResult(rule.name, verdict.ok, verdict.message))
    return results


def format_results(results: Sequence[RuleResult]) -> list[str]:
    """One line per rule: `pasa  nombre: mensaje` or `FALLA nombre: mensaje`."""
    return [f"{'pasa ' if r.ok else 'FALLA'}  {r.rule}: {r.message}" for r in results]
