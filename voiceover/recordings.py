"""Recorded narration: a lecturer's own voice replaces synthesis beat by beat.

Files live in `voiceover/recordings/<escena>/` (or under `FFN_RECORDINGS_DIR`), named by
beat and, where bookmarks split a beat, by segment:

    <beat>.<ext>      a beat without bookmarks, recorded whole
    <beat>.<n>.<ext>  segment n (1, 2, ...) of a beat with bookmarks: segment n is the
                      text before the n-th bookmark, the last one follows the last bookmark

`<ext>` is wav, mp3, flac (or ogg, m4a). Any sample rate and channel count is accepted;
each file becomes a 48 kHz mono clip whose leading and trailing silence is trimmed to
`MARGIN_S`, and the timeline follows the clip's real duration. A beat with bookmarks is
never taken whole: its bookmark times could only be guessed, not measured.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile

from ffn_core import settings
from voiceover import seals
from voiceover.atomic import atomic_path
from voiceover.clips import seal_clip, sealed_clip
from voiceover.decode import decode
from voiceover.engines import CLIP_RATE_HZ
from voiceover.paths import clips_dir
from voiceover.script import Script, ScriptError

AUDIO_EXTENSIONS = (".wav", ".mp3", ".flac", ".ogg", ".m4a")
MARGIN_S = 0.1  # silence kept (or added) before and after the voice
WINDOW_S = 0.01  # loudness is judged on 10 ms windows
SILENCE_BELOW_PEAK_DB = 35.0  # a window this far under the loudest one is silence...
SILENCE_FLOOR_DBFS = -55.0  # ...and so is any window under this, whatever the peak
TRIM_RULES = 1  # bump when trimming changes (part of the cache key)
NAME_RE = re.compile(r"^(?P<beat>[a-z0-9_]+)(?:\.(?P<segment>[0-9]+))?$")

DEFAULT_DIR = Path(__file__).resolve().parent / "recordings"


def recordings_dir() -> Path:
    """Where recorded tracks are looked up; `FFN_RECORDINGS_DIR` moves it."""
    return settings.recordings_root() or DEFAULT_DIR


@dataclass(frozen=True)
class Recording:
    path: Path
    beat: str
    segment: int  # 0-based index into the beat's segments


def expected_names(script: Script) -> list[str]:
    """The file names (without extension) a recording of each spoken segment may take."""
    names = []
    for beat in script.beats:
        if not beat.bookmarks:
            names.append(beat.name)
        else:
            names += [f"{beat.name}.{i + 1}" for i, text in enumerate(beat.segments) if text.strip()]
    return names


def find_recordings(script: Script, root: Path | None = None) -> dict[tuple[str, int], Recording]:
    """Recordings for `script`'s scene, keyed by (beat, segment index). A file whose name
    matches no spoken segment is an error naming the file and the names it could take."""
    folder = (root if root is not None else recordings_dir()) / script.scene
    if not folder.is_dir():
        return {}
    beats = {b.name: b for b in script.beats}
    found: dict[tuple[str, int], Recording] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in AUDIO_EXTENSIONS or path.name.startswith("."):
            continue
        stem = path.name[: -len(path.suffix)]
        match = NAME_RE.match(stem)
        beat = beats.get(match.group("beat")) if match else None
        hint = f"(names this scene can take: {', '.join(expected_names(script))})"
        if match is None or beat is None:
            raise ScriptError(f"{path}: recording names no beat of scene '{script.scene}' {hint}")
        number = match.group("segment")
        if beat.bookmarks and number is None:
            raise ScriptError(
                f"{path}: beat '{beat.name}' of scene '{script.scene}' has bookmarks "
                f"({', '.join(beat.bookmarks)}), so its times must be measured segment by segment: "
                f"record it as {', '.join(f'{beat.name}.{i + 1}' for i in range(len(beat.segments)))}"
            )
        if not beat.bookmarks and number is not None:
            raise ScriptError(
                f"{path}: beat '{beat.name}' of scene '{script.scene}' has no bookmarks; "
                f"name its recording {beat.name}{path.suffix}"
            )
        index = int(number) - 1 if number is not None else 0
        if not 0 <= index < len(beat.segments) or not beat.segments[index].strip():
            raise ScriptError(
                f"{path}: beat '{beat.name}' of scene '{script.scene}' has no spoken segment {number} {hint}"
            )
        if (beat.name, index) in found:
            raise ScriptError(f"{path}: segment already recorded in {found[(beat.name, index)].path}")
        found[(beat.name, index)] = Recording(path, beat.name, index)
    return found


def recorded_clip(recording: Path) -> tuple[Path, float]:
    """The recording as a trimmed 48 kHz mono clip (converted once, cached by content)."""
    digest = hashlib.sha256(recording.read_bytes())
    digest.update(f"{MARGIN_S}|{SILENCE_BELOW_PEAK_DB}|{SILENCE_FLOOR_DBFS}|{TRIM_RULES}".encode())
    path = clips_dir() / f"rec-{digest.hexdigest()[:24]}.wav"
    sealed = sealed_clip(path)  # sealed by content, like every clip
    if path.exists() and not seals.intact(path, sealed):
        if sealed is not None:  # one cached before seals existed is converted again, quietly (cheap)
            seals.damaged(path, f"clip de la grabación {recording}")
        path.unlink()
    if not path.exists():
        samples = trim_silence(decode(recording, ScriptError), CLIP_RATE_HZ)
        if samples is None:
            raise ScriptError(f"{recording}: the recording is silent")
        with atomic_path(path) as tmp:
            soundfile.write(str(tmp), samples, CLIP_RATE_HZ, subtype="PCM_16", format="WAV")
        seal_clip(path)
    info = soundfile.info(str(path))
    return path, info.frames / info.samplerate


def voice_bounds(samples: np.ndarray, rate: int) -> tuple[int, int] | None:
    """First and one-past-last sample of the windows that hold voice; None if all silent."""
    window = max(int(rate * WINDOW_S), 1)
    count = len(samples) // window
    if count == 0:
        return None
    frames = samples[: count * window].reshape(count, window).astype(np.float64)
    rms_db = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-20)
    threshold = max(rms_db.max() - SILENCE_BELOW_PEAK_DB, SILENCE_FLOOR_DBFS)
    loud = np.nonzero(rms_db >= threshold)[0]
    if loud.size == 0:
        return None
    return int(loud[0]) * window, min(int(loud[-1] + 1) * window, len(samples))


def trim_silence(samples: np.ndarray, rate: int, margin_s: float = MARGIN_S) -> np.ndarray | None:
    """`samples` with exactly `margin_s` of silence before and after the voice."""
    bounds = voice_bounds(samples, rate)
    if bounds is None:
        return None
    first, last = bounds
    margin = int(round(margin_s * rate))
    pad = np.zeros(margin, dtype=np.float32)
    # Keep the recording's own room tone where it has enough; pad with silence where not.
    head = samples[max(first - margin, 0) : first]
    tail = samples[last : last + margin]
    return np.concatenate([pad[: margin - len(head)], head, samples[first:last], tail, pad[: margin - len(tail)]])
