"""Step 1, narrate: every scene's timeline (its audio made or found in the voice cache).

Every scene of the plan is narrated, chosen or not: the lecture's loudness and the joined
lecture need them all. Only a chosen scene's failure is reported."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lecture.build.failures import failure_message
from lecture.build.state import Build, BuildProgress, Failure
from voiceover.timeline import Timeline
from voiceover.timing import build_timeline


@dataclass(frozen=True)
class Narrated:
    timelines: Mapping[str, Timeline]  # every scene narrated, by name (read only)
    voices: tuple[str, ...]  # who spoke in the chosen scenes, one line per distinct voice
    failed: tuple[Failure, ...]


def narrate(build: Build, display: BuildProgress) -> Narrated:
    timelines: dict[str, Timeline] = {}
    failed: list[Failure] = []
    for scene in build.plan:
        try:
            timelines[scene.name] = build_timeline(scene.script, script=scene.load_script())
        except Exception as err:  # noqa: BLE001 - one scene's narration must not stop the others
            if scene.name in build.chosen_names:
                failed.append(Failure(scene.name, failure_message("narración", err, _voice_cache())))
                display.failed(scene.name, failed[-1].message)
    voices = tuple(dict.fromkeys(describe_voice(timelines[s.name].voice) for s in build.chosen if s.name in timelines))
    return Narrated(timelines, voices, tuple(failed))


def _voice_cache() -> Path:
    from voiceover.paths import cache_dir

    return cache_dir()


def describe_voice(voice: dict) -> str:
    """One line for a timeline's `voice` entry: engine, voice, speed, accent and model."""
    parts = [str(voice.get("engine", "?"))]
    if voice.get("voice"):
        parts.append(str(voice["voice"]))
    if voice.get("speed") is not None:
        parts.append(f"velocidad {voice['speed']}")
    if voice.get("lang"):
        parts.append(str(voice["lang"]))
    model = voice.get("model")
    sha = voice.get("model_sha256")
    if model or sha:
        parts.append(f"{model or 'modelo'}" + (f" (sha256 {str(sha)[:12]}…)" if sha else ""))
    line = ", ".join(parts)
    if voice.get("recorded"):
        line += f"; {voice['recorded']} tramos grabados"
    return line
