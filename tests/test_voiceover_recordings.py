"""Recorded tracks: a lecturer's file replaces synthesis for its beat or segment, in any
format, rate and channel count; silence is trimmed to the margin and the timeline moves
to the recording's real duration. Badly named files are errors that name them."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import soundfile

from voiceover.audio_format import RATE_HZ
from voiceover.recordings import MARGIN_S, find_recordings
from voiceover.script import ScriptError, load_script
from voiceover.timing import build_timeline
from voiceover.track import scene_samples

SCRIPT = """title = "Prueba"

[[beat]]
name = "entrada"
text = "Buenos días."
pause_s = 0.5

[[beat]]
name = "marcas"
text = "Primero esto, {#medio} después aquello."
pause_s = 0.5
"""


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "grabaciones"))


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "prueba.toml"
    path.write_text(SCRIPT, encoding="utf-8")
    return load_script("prueba", path)


def tone(
    path: Path, seconds: float, lead_s: float, tail_s: float, freq: int = 440, rate: int = 44_100, channels: int = 2
) -> Path:
    """A tone with silence before and after, encoded by ffmpeg as the suffix says."""
    path.parent.mkdir(parents=True, exist_ok=True)
    delay = int(lead_s * 1000)
    subprocess.run(
        [
            "ffmpeg",
            "-nostdin",
            "-loglevel",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            f"sine=frequency={freq}:duration={seconds}:sample_rate={rate}",
            "-af",
            f"adelay={delay}|{delay},apad=pad_dur={tail_s}",
            "-ar",
            str(rate),
            "-ac",
            str(channels),
            str(path),
        ],
        check=True,
    )
    return path


@dataclass(frozen=True)
class Silent:
    """An engine that must not be asked for what a recording covers."""

    forbidden: tuple[str, ...] = ("Buenos días.", "Primero esto,")
    name: str = "silencio"

    def settings(self) -> dict:
        return {}

    def synthesize(self, text: str, out_wav: Path) -> None:
        if text in self.forbidden:
            raise AssertionError(f"synthesised {text!r}, which is recorded")
        soundfile.write(str(out_wav), np.zeros(int(0.8 * RATE_HZ), np.float32), RATE_HZ, subtype="PCM_16", format="WAV")


def test_a_recorded_track_replaces_synthesis_and_moves_the_timeline(tmp_path, script):
    root = tmp_path / "grabaciones" / "prueba"
    whole = tone(root / "entrada.mp3", 1.5, lead_s=0.7, tail_s=0.9)  # 44.1 kHz stereo MP3
    part = tone(root / "marcas.1.flac", 2.0, lead_s=0.03, tail_s=0.6, freq=660, rate=96_000, channels=1)
    timeline = build_timeline("prueba", engine=Silent(), script=script)

    entrada = timeline.beat("entrada").segments[0]
    assert entrada.source == str(whole)
    # Trimmed to the margin on both sides: 1.5 s of tone + 2 x 0.1 s, whatever the padding was.
    assert entrada.duration_s == pytest.approx(1.5 + 2 * MARGIN_S, abs=0.03)
    marcas = timeline.beat("marcas")
    assert marcas.segments[0].source == str(part)
    assert marcas.segments[0].duration_s == pytest.approx(2.0 + 2 * MARGIN_S, abs=0.02)
    assert marcas.segments[1].source == "silencio"  # the unrecorded segment is still synthesised
    # The timeline follows the recordings: the second beat starts after the first's real
    # length plus its pause, and the bookmark sits at the end of the recorded segment.
    assert marcas.start_s == pytest.approx(entrada.duration_s + 0.5, abs=1e-9)
    assert marcas.bookmarks["medio"] == pytest.approx(marcas.start_s + marcas.segments[0].duration_s, abs=1e-9)
    info = soundfile.info(entrada.clip)
    assert (info.samplerate, info.channels) == (48_000, 1)

    # And the mix plays the recording there: the 660 Hz tone fills the recorded segment.
    mono = scene_samples(timeline)
    seg = marcas.segments[0]
    middle = mono[int((seg.start_s + 0.5) * RATE_HZ) : int((seg.start_s + 1.5) * RATE_HZ)]
    spectrum = np.abs(np.fft.rfft(middle))
    assert np.fft.rfftfreq(len(middle), 1 / RATE_HZ)[np.argmax(spectrum)] == pytest.approx(660, abs=2)


def test_replacing_a_recording_changes_the_timeline(tmp_path, script):
    root = tmp_path / "grabaciones" / "prueba"
    tone(root / "entrada.wav", 1.0, lead_s=0.2, tail_s=0.2)
    engine = Silent(forbidden=("Buenos días.",))
    short = build_timeline("prueba", engine=engine, script=script).total_s
    tone(root / "entrada.wav", 2.5, lead_s=0.2, tail_s=0.2)
    longer = build_timeline("prueba", engine=engine, script=script).total_s
    assert longer - short == pytest.approx(1.5, abs=0.03)


@pytest.mark.parametrize(
    "name, message",
    [
        ("salida.wav", "recording names no beat of scene 'prueba'"),
        (
            "marcas.wav",
            "has bookmarks \\(medio\\), so its times must be measured segment by segment: "
            "record it as marcas.1, marcas.2",
        ),
        ("entrada.1.wav", "beat 'entrada' of scene 'prueba' has no bookmarks; name its recording entrada.wav"),
        ("marcas.3.wav", "has no spoken segment 3"),
    ],
)
def test_a_badly_named_recording_is_an_error_naming_the_file(tmp_path, script, name, message):
    path = tone(tmp_path / "grabaciones" / "prueba" / name, 0.5, 0.1, 0.1)
    with pytest.raises(ScriptError, match=message) as err:
        find_recordings(script)
    assert str(path) in str(err.value)


def test_a_silent_or_unreadable_recording_is_an_error_naming_it(tmp_path, script):
    root = tmp_path / "grabaciones" / "prueba"
    root.mkdir(parents=True)
    silent = root / "entrada.wav"
    soundfile.write(str(silent), np.zeros(48_000, np.float32), 48_000)
    engine = Silent(forbidden=("Buenos días.",))
    with pytest.raises(ScriptError, match=f"{silent}: the recording is silent"):
        build_timeline("prueba", engine=engine, script=script)
    silent.unlink()
    broken = root / "entrada.mp3"
    broken.write_bytes(b"this is not audio")
    with pytest.raises(ScriptError, match=f"{broken}: not a readable audio file"):
        build_timeline("prueba", engine=engine, script=script)
