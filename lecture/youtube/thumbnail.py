"""The thumbnail: one frame of the lecture, 1280x720, with the title in large Spanish type
on a dark band along the bottom (DejaVu Sans Bold has á é í ó ú ñ ¿ ¡)."""

from __future__ import annotations

import io
import tempfile
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from lecture.media.ffmpeg import run_ffmpeg
from lecture.youtube import YoutubeError
from voiceover.atomic import atomic_path

SIZE_PX = (1280, 720)
MAX_BYTES = 2 * 1024 * 1024
FONT_PATH = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
MARGIN_PX = 56  # left and right of the title
BAND_PAD_PX = 40  # above and below it, inside the band
MAX_FONT_PX = 96
MIN_FONT_PX = 48
MAX_LINES = 2
BAND_RGB = (8, 10, 20)
ACCENT_RGB = (236, 178, 72)  # a thin rule between the frame and the title
ACCENT_PX = 6
TEXT_RGB = (255, 255, 255)
BLANK_CONTRAST = 24  # grey levels between a frame's darkest and brightest pixel below which it is empty


class TitleTooLong(YoutubeError):
    """The thumbnail's title does not fit in large type."""


def grab_frame(video: Path, at_s: float, out_png: Path) -> None:
    """The frame shown at `at_s` seconds, as a PNG."""
    run_ffmpeg(
        [
            "-ss",
            f"{max(at_s, 0.0):.3f}",
            "-i",
            str(video),
            "-frames:v",
            "1",
            "-f",
            "image2",
            "-c:v",
            "png",
            str(out_png),
        ],
        f"taking a frame at {at_s:.1f} s from {video.name}",
        YoutubeError,
    )


def compose(frame: Image.Image, title: str) -> Image.Image:
    """A 1280x720 card: the title on a dark band along the bottom, and above it the whole
    frame, scaled to fit (never stretched nor cropped) on the frame's own background colour."""
    frame = frame.convert("RGB")
    font, lines = _fit(title, SIZE_PX[0] - 2 * MARGIN_PX)
    line_h = round(font.size * 1.18)
    band_h = line_h * len(lines) + 2 * BAND_PAD_PX
    free_w, free_h = SIZE_PX[0], SIZE_PX[1] - band_h

    canvas = Image.new("RGB", SIZE_PX, frame.getpixel((0, 0)))
    scale = min(free_w / frame.width, free_h / frame.height)
    shown = frame.resize((round(frame.width * scale), round(frame.height * scale)), Image.Resampling.LANCZOS)
    canvas.paste(shown, ((free_w - shown.width) // 2, (free_h - shown.height) // 2))

    draw = ImageDraw.Draw(canvas)
    band_top = SIZE_PX[1] - band_h
    draw.rectangle((0, band_top, SIZE_PX[0], SIZE_PX[1]), fill=BAND_RGB)
    draw.rectangle((0, band_top, SIZE_PX[0], band_top + ACCENT_PX), fill=ACCENT_RGB)
    y = band_top + (band_h - line_h * len(lines)) // 2
    for line in lines:
        draw.text((MARGIN_PX, y), line, font=font, fill=TEXT_RGB)
        y += line_h
    return canvas


def _fit(title: str, width_px: int) -> tuple[ImageFont.FreeTypeFont, list[str]]:
    """The largest font size at which the title wraps into at most MAX_LINES lines; an
    error when it does not fit even at MIN_FONT_PX."""
    if not FONT_PATH.exists():
        raise YoutubeError(f"{FONT_PATH}: falta la fuente DejaVu Sans Bold (paquete fonts-dejavu-core)")
    for size in range(MAX_FONT_PX, MIN_FONT_PX - 1, -4):
        font = ImageFont.truetype(str(FONT_PATH), size)
        lines = _wrap(title, font, width_px)
        if len(lines) <= MAX_LINES and all(font.getlength(line) <= width_px for line in lines):
            return font, lines
    raise TitleTooLong(
        f"el texto de la miniatura «{title}» no cabe en {MAX_LINES} líneas ni a {MIN_FONT_PX} px: "
        f"acórtalo («thumbnail_title» en youtube.toml)"
    )


def _wrap(text: str, font: ImageFont.FreeTypeFont, width_px: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and font.getlength(f"{lines[-1]} {word}") <= width_px:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes under YouTube's 2 MB: full colour when it fits, else a 256-colour palette."""
    for candidate in (image, image.quantize(colors=256, method=Image.Quantize.MEDIANCUT)):
        buffer = io.BytesIO()
        candidate.save(buffer, format="PNG", optimize=True)
        if buffer.tell() < MAX_BYTES:
            return buffer.getvalue()
    raise YoutubeError(f"la miniatura ocupa {buffer.tell()} bytes aun con paleta; YouTube admite menos de 2 MB")


@dataclass(frozen=True)
class Thumbnail:
    path: Path
    blank_frame: bool  # the frame chosen shows (almost) nothing: worth choosing another


def make_thumbnail(video: Path, at_s: float, title: str, out: Path) -> Thumbnail:
    """Render the thumbnail of `video` at `at_s` seconds into `out` (PNG, atomically)."""
    with tempfile.TemporaryDirectory(prefix="ffn-thumb-") as tmp:
        still = Path(tmp) / "frame.png"
        grab_frame(Path(video), at_s, still)
        if not still.exists():
            raise YoutubeError(f"{video}: no hay fotograma en {at_s:.1f} s para la miniatura")
        with Image.open(still) as frame:
            darkest, brightest = frame.convert("L").getextrema()
            if isinstance(darkest, tuple) or isinstance(brightest, tuple):  # narrows Pillow's multi-band type
                raise TypeError("a one-band (L) image has one (lowest, highest) pair")
            data = encode_png(compose(frame, title))
    with atomic_path(Path(out)) as part:
        part.write_bytes(data)
    return Thumbnail(Path(out), blank_frame=brightest - darkest < BLANK_CONTRAST)
