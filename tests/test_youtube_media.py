"""Facts read from an MP4 for YouTube (codecs, closed GOPs, loudness), on tiny synthetic media;
also the helpers the other YouTube tests use to make a fake build's outputs in seconds."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lecture.youtube.video_facts import gop_facts, loudness, stream_facts

DURATION_S = 32  # room for three chapters of at least 10 s
TONE_GAIN_DB = 2.06  # lavfi's sine is 1/8 full scale: 997 Hz on both channels at -16 LUFS


def ffmpeg(*args: str) -> None:
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", *args], check=True)


def make_video(
    out: Path,
    *,
    duration_s: float = DURATION_S,
    gain_db: float = TONE_GAIN_DB,
    audio: str | None = None,
    video_args: tuple[str, ...] = (),
    audio_args: tuple[str, ...] = (),
    faststart: bool = True,
) -> Path:
    """testsrc at 128x72, 5 fps, and a 997 Hz tone (or the lavfi `audio` source given), as
    H.264 High yuv420p + AAC-LC 48 kHz stereo unless `video_args`/`audio_args` say otherwise."""
    # The tone carries a faint seeded noise (22 dB under it: loudness moves by under 0.1 LU),
    # so the narration-sync check can match scenes without a periodic signal's ambiguity.
    source = audio or (
        f"sine=frequency=997:sample_rate=48000:duration={duration_s}[t];"
        f"anoisesrc=color=pink:seed=7:amplitude=0.01:sample_rate=48000:duration={duration_s}[n];"
        f"[t][n]amix=inputs=2:normalize=0"
    )
    ffmpeg(
        "-f",
        "lavfi",
        "-i",
        f"testsrc=size=128x72:rate=5:duration={duration_s}",
        "-f",
        "lavfi",
        "-i",
        source,
        "-af",
        f"pan=stereo|c0=c0|c1=c0,volume={gain_db}dB",
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-profile:v",
        "high",
        "-pix_fmt",
        "yuv420p",
        "-g",
        "25",
        *video_args,
        "-c:a",
        "aac",
        "-b:a",
        "96k",
        "-ar",
        "48000",
        *audio_args,
        *(["-movflags", "+faststart"] if faststart else []),
        "-shortest",
        str(out),
    )
    return out


SRT = """1
00:00:00,500 --> 00:00:04,000
Empecemos por el mapa: ¿qué hace la capa?

2
00:00:10,500 --> 00:00:14,000
La mitad famosa es la más pequeña.

3
00:00:21,000 --> 00:00:25,000
¡Una recta no basta!
"""

CHAPTERS = (
    "0:00 Panorama: qué hace la capa feed-forward\n0:10 La mitad famosa es la más pequeña\n"
    "0:20 XOR: lo que una recta no puede\n"
)

SETTINGS = """
title = "La capa feed-forward, explicada con números reales"
thumbnail_title = "¿Qué hace la capa feed-forward?"
thumbnail_at_s = 5.0
summary = "Una clase sobre la capa feed-forward de los transformers."
tags = ["transformer", "feed-forward", "redes neuronales"]

[youtube]
synthetic_media = true
"""


def make_build_outputs(renders: Path, quality: str = "preview", chapters: str = CHAPTERS, **video) -> Path:
    """renders/<quality>/ as `ffn-video build` leaves it: lecture.mp4, lecture.es.srt, chapters.txt."""
    folder = renders / quality
    folder.mkdir(parents=True, exist_ok=True)
    make_video(folder / "lecture.mp4", **video)
    (folder / "lecture.es.srt").write_text(SRT, encoding="utf-8")
    (folder / "chapters.txt").write_text(chapters, encoding="utf-8")
    write_scenes(folder)
    return folder


SCENE_STARTS_S = (0, 10, 20)


def write_scenes(folder: Path) -> None:
    """scenes/<name>.mp4 cut from lecture.mp4 at SCENE_STARTS_S, and scenes.json, as the
    build leaves them (the sync check compares each scene with the lecture)."""
    import json

    lecture = folder / "lecture.mp4"
    total = float(
        subprocess.run(
            ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(lecture)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    (folder / "scenes").mkdir(exist_ok=True)
    entries = []
    for i, start in enumerate(SCENE_STARTS_S):
        end = SCENE_STARTS_S[i + 1] if i + 1 < len(SCENE_STARTS_S) else round(total)
        name = f"escena{i}"
        ffmpeg(
            "-ss",
            str(start),
            "-i",
            str(lecture),
            "-t",
            str(end - start),
            "-c:v",
            "libx264",
            "-preset",
            "veryfast",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-b:a",
            "96k",
            "-ar",
            "48000",
            str(folder / "scenes" / f"{name}.mp4"),
        )
        entries.append({"name": name, "file": f"scenes/{name}.mp4", "frames": (end - start) * 5, "fps": 5.0})
    (folder / "scenes.json").write_text(json.dumps({"scenes": entries}), encoding="utf-8")


def copy_build_outputs(template: Path, renders: Path, quality: str = "preview") -> Path:
    """A copy of outputs made once by `make_build_outputs` (encoding is the slow part)."""
    import shutil

    return Path(shutil.copytree(template / quality, renders / quality))


def use_tmp_lecture(root: Path, monkeypatch, settings: str = SETTINGS) -> Path:
    """Point the build's folders at `root` and use a youtube.toml beside a temporary plan."""
    renders = root / "renders"
    renders.mkdir(parents=True, exist_ok=True)
    (root / "youtube.toml").write_text(settings, encoding="utf-8")
    monkeypatch.setenv("FFN_RENDERS_DIR", str(renders))
    monkeypatch.setenv("FFN_CACHE_DIR", str(root / "cache"))
    monkeypatch.setenv("FFN_PLAN", str(root / "plan.toml"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    return renders


@pytest.fixture(scope="module")
def tone_video(tmp_path_factory) -> Path:
    return make_video(tmp_path_factory.mktemp("media") / "tone.mp4", duration_s=6)


def test_x264_default_output_has_closed_gops_and_youtube_codecs(tone_video):
    facts = stream_facts(tone_video)
    assert (facts.video_codec, facts.video_profile, facts.pix_fmt) == ("h264", "High", "yuv420p")
    assert (facts.audio_codec, facts.audio_profile, facts.sample_rate_hz, facts.channels) == ("aac", "LC", 48000, 2)
    gops = gop_facts(tone_video)
    assert gops.closed and gops.keyframes >= 2 and gops.x264_open_gop is False


def test_open_gops_are_detected_from_leading_pictures(tmp_path):
    video = make_video(tmp_path / "open.mp4", duration_s=6, video_args=("-x264-params", "open-gop=1:keyint=12"))
    gops = gop_facts(video)
    assert gops.x264_open_gop is True
    assert gops.open_gops >= 1 and not gops.closed


def test_loudness_agrees_with_the_builds_own_meter(tone_video, tmp_path):
    from lecture.media import soundtrack as st

    measured = loudness(tone_video)
    wav = tmp_path / "tone.wav"
    ffmpeg("-i", str(tone_video), "-map", "0:a:0", "-ar", "48000", "-c:a", "pcm_s16le", str(wav))
    reference = st.integrated_lufs([st.block_energies(wav)])
    assert measured.integrated_lufs == pytest.approx(reference, abs=0.3)
    assert measured.integrated_lufs == pytest.approx(-16.0, abs=0.5)
    assert measured.true_peak_dbtp == pytest.approx(st.true_peak_dbtp(wav), abs=0.3)
