"""Piper: an optional neural voice, used when the lecturer points at a local voice model.

Piper ships as the optional extra `ffn-video[piper]` (PyPI `piper-tts`), which installs a
`piper` program; the voice is a model file (`<voz>.onnx`) with its configuration
(`<voz>.onnx.json` or `<voz>.json`) beside it. Nothing is downloaded: without a model or
without the program, `PiperUnavailable` says what is missing and the caller falls back to
espeak-ng.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from voiceover.decode import to_clip
from voiceover.engines import EngineError, EngineFacts, EngineUnavailable, speed_wpm

# Piper's voices speak at roughly this rate with length_scale 1; a requested speed in words
# per minute becomes length_scale = NATURAL_WPM / speed (larger scale, slower speech).
NATURAL_WPM = 160


class PiperUnavailable(EngineUnavailable):
    """Piper cannot be used here (no model, no configuration, or no `piper` program)."""


def find_piper() -> str | None:
    """The `piper` program: on PATH, or beside this Python (an extra installed in the venv)."""
    found = shutil.which("piper")
    if found:
        return found
    beside = Path(sys.executable).parent / "piper"
    return str(beside) if beside.exists() else None


def model_config(model: Path) -> Path | None:
    for candidate in (model.with_name(model.name + ".json"), model.with_suffix(".json")):
        if candidate.exists():
            return candidate
    return None


@dataclass(frozen=True)
class PiperEngine:
    model: Path
    config: Path
    exe: str
    speaker: int | None = None
    length_scale: float = 1.0
    name: str = "piper"

    @classmethod
    def from_options(
        cls,
        voice: str | None = None,
        speed: int | str | None = None,
        piper_model: str | Path | None = None,
        **_: object,
    ) -> PiperEngine:
        """The engine for `FFN_PIPER_MODEL`, `FFN_VOICE` (speaker number) and `FFN_VOICE_SPEED`."""
        wpm = speed_wpm(speed)
        try:
            return cls.from_model(piper_model, speaker=voice, speed_wpm=wpm, exe=find_piper())
        except PiperUnavailable as why:
            raise PiperUnavailable(f"Piper no disponible: {why}") from None

    def identity(self) -> EngineFacts:
        return {
            "engine": self.name,
            "voice": self.speaker,
            "speed": self.length_scale,
            "model": str(self.model),
            "model_sha256": None,
        }

    @classmethod
    def from_model(
        cls,
        model: str | Path | None,
        speaker: str | int | None = None,
        speed_wpm: int | None = None,
        exe: str | None = None,
    ) -> PiperEngine:
        """Check that everything Piper needs is here; `PiperUnavailable` says what is not."""
        if not model:
            raise PiperUnavailable(
                "no se indicó un modelo de voz (--piper-model o FFN_PIPER_MODEL, un archivo .onnx local)"
            )
        model = Path(model).expanduser()
        if model.suffix != ".onnx":
            raise PiperUnavailable(f"el modelo de voz {model} no es un archivo .onnx")
        if not model.is_file():
            raise PiperUnavailable(f"el modelo de voz {model} no existe")
        config = model_config(model)
        if config is None:
            raise PiperUnavailable(
                f"al modelo de voz {model} le falta su configuración al lado ({model.name}.json o {model.stem}.json)"
            )
        if exe is None:
            raise PiperUnavailable(
                "el programa `piper` no está instalado (pip install 'ffn-video[piper]', que instala piper-tts)"
            )
        if speaker is not None:
            try:
                speaker = int(speaker)
            except ValueError:
                raise EngineError(
                    f"a Piper voice is chosen by its model; --voice / FFN_VOICE must be "
                    f"the speaker number of a multi-speaker model, got {speaker!r}"
                ) from None
        scale = round(NATURAL_WPM / speed_wpm, 3) if speed_wpm else 1.0
        return cls(model.resolve(), config.resolve(), exe, speaker, scale)

    def settings(self) -> EngineFacts:
        # The model's identity is its size, change time and configuration: hashing a
        # 60 MB model for every clip would cost more than the cache saves.
        stat = self.model.stat()
        return {
            "model": str(self.model),
            "model_size": stat.st_size,
            "model_mtime_ns": stat.st_mtime_ns,
            "config_sha256": hashlib.sha256(self.config.read_bytes()).hexdigest()[:16],
            "speaker": self.speaker,
            "length_scale": self.length_scale,
        }

    def command(self, out_wav: Path) -> list[str]:
        """The `piper` call that writes one WAV; the text goes to its standard input."""
        cmd = [self.exe, "--model", str(self.model), "--config", str(self.config), "--output-file", str(out_wav)]
        if self.length_scale != 1.0:
            cmd += ["--length-scale", f"{self.length_scale:g}"]
        if self.speaker is not None:
            cmd += ["--speaker", str(self.speaker)]
        return cmd

    def synthesize(self, text: str, out_wav: Path) -> None:
        raw = out_wav.with_suffix(".piper.wav")
        try:
            # One line: piper reads standard input line by line and would split the clip.
            proc = subprocess.run(
                self.command(raw), input=" ".join(text.split()) + "\n", capture_output=True, text=True
            )
            if proc.returncode != 0 or not raw.exists() or raw.stat().st_size <= 44:
                raise EngineError(
                    f"piper failed ({proc.returncode}) with model {self.model} on "
                    f"{text[:60]!r}: {proc.stderr.strip()[-400:]}"
                )
            to_clip(raw, out_wav, EngineError)  # the model's rate (often 22.05 kHz) -> 48 kHz mono
        finally:
            raw.unlink(missing_ok=True)
