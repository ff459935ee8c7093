"""Timelines: bookmark times are measured audio boundaries, the cache re-synthesises only
what changed, and the JSON file carries what scenes need."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import soundfile
from scipy.signal import correlate

from voiceover.audio_format import RATE_HZ
from voiceover.engines.espeak import EspeakEngine
from voiceover.recordings import voice_bounds
from voiceover.script import load_script
from voiceover.timeline import load_timeline, timeline_path
from voiceover.timing import NarrationStats, build_timeline
from voiceover.track import write_scene_track

SCRIPT = '''title = "Prueba"

[[beat]]
name = "uno"
text = """
La capa feed-forward {#capa} transforma cada vector por separado,
{#vector} y luego devuelve el resultado.
"""
pause_s = 0.4

[[beat]]
name = "dos"
text = "Después viene otro bloque {#bloque} idéntico."
pause_s = 0.3
'''


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "no_recordings"))


def script_at(tmp_path: Path, body: str = SCRIPT, name: str = "prueba"):
    path = tmp_path / f"{name}.toml"
    path.write_text(body, encoding="utf-8")
    return load_script(name, path)


def test_bookmark_times_are_within_20_ms_of_the_measured_segment_boundaries(tmp_path):
    script = script_at(tmp_path)
    timeline = build_timeline("prueba", engine=EspeakEngine(), script=script)
    track = tmp_path / "track.wav"
    write_scene_track(timeline, track)
    mixed, rate = soundfile.read(str(track), dtype="float32")
    mixed = mixed[:, 0]
    assert rate == RATE_HZ and len(mixed) == round(timeline.total_s * rate)
    for beat in timeline.beats:
        names = list(beat.bookmarks)
        clock = beat.start_s
        for i, seg in enumerate(beat.segments):
            clip, clip_rate = soundfile.read(seg.clip, dtype="float32")
            # Where the clip's audio really is in the mixed track: cross-correlation
            # around the timeline's claim (+-0.5 s).
            lo = max(int((seg.start_s - 0.5) * rate), 0)
            window = mixed[lo : lo + len(clip) + rate]
            lag = int(np.argmax(correlate(window, clip, mode="valid", method="fft")))
            found_s = (lo + lag) / rate
            assert abs(found_s - seg.start_s) < 0.020, (beat.name, i, found_s, seg.start_s)
            # The boundary as the files say it: the sum of the real clip lengths so far.
            clock += len(clip) / clip_rate
            if i < len(names):
                assert abs(beat.bookmarks[names[i]] - clock) < 0.020, (names[i], clock)
                assert abs(beat.bookmarks[names[i]] - (found_s + len(clip) / clip_rate)) < 0.020


def test_a_bookmark_in_mid_sentence_adds_no_pause(tmp_path):
    script = script_at(tmp_path)
    timeline = build_timeline("prueba", engine=EspeakEngine(), script=script)
    cut = timeline.beat("uno").segments[0]  # "La capa feed-forward" ends in mid-sentence
    end = timeline.beat("uno").segments[-1]  # "... el resultado." ends a sentence
    trailing = []
    for seg in (cut, end):
        data, rate = soundfile.read(seg.clip, dtype="float32")
        _, last = voice_bounds(data, rate)
        trailing.append((len(data) - last) / rate)
    assert trailing[0] < 0.06, trailing  # espeak-ng's sentence pause is dropped in mid-sentence...
    assert trailing[1] > 0.2, trailing  # ...and kept where the sentence really ends


def test_editing_one_beat_resynthesises_that_beat_only(tmp_path):
    calls: list[str] = []
    engine = CountingEngine(calls)
    first = NarrationStats()
    build_timeline("prueba", engine=engine, script=script_at(tmp_path), stats=first)
    assert first.synthesized == 5 and len(calls) == 5
    calls.clear()
    again = NarrationStats()
    build_timeline("prueba", engine=engine, script=script_at(tmp_path), stats=again)
    assert calls == [] and again.cached == 5
    edited = SCRIPT.replace("Después viene otro bloque", "Luego llega otro bloque")
    build_timeline("prueba", engine=engine, script=script_at(tmp_path, edited))
    assert calls == ["Luego llega otro bloque"]


def test_changing_voice_or_speed_resynthesises_everything(tmp_path):
    calls: list[str] = []
    build_timeline("prueba", engine=CountingEngine(calls), script=script_at(tmp_path))
    calls.clear()
    build_timeline("prueba", engine=CountingEngine(calls, speed_wpm=170), script=script_at(tmp_path))
    assert len(calls) == 5


def test_the_timeline_json_holds_text_start_duration_bookmarks_and_total(tmp_path):
    timeline = build_timeline("prueba", engine=CountingEngine([]), script=script_at(tmp_path))
    data = json.loads(timeline_path("prueba").read_text(encoding="utf-8"))
    assert data["total_s"] == pytest.approx(timeline.total_s)
    beat = data["beats"][0]
    assert beat["text"] == ("La capa feed-forward transforma cada vector por separado, y luego devuelve el resultado.")
    assert beat["start_s"] == 0 and beat["duration_s"] == pytest.approx(beat["speech_s"] + 0.4)
    assert set(beat["bookmarks"]) == {"capa", "vector"}
    assert load_timeline("prueba") == timeline
    # Durations come from the clips: 40 ms a character in the counting engine.
    assert timeline.beats[1].segments[0].duration_s == pytest.approx(0.04 * len("Después viene otro bloque"))
    assert timeline.total_s == pytest.approx(sum(b.speech_s + b.pause_s for b in timeline.beats))


@dataclass(frozen=True)
class CountingEngine:
    """A test engine: a tone 40 ms per character, and a log of every synthesis."""

    calls: list = field(compare=False, hash=False)
    speed_wpm: int = 155
    name: str = "contador"

    def settings(self) -> dict:
        return {"speed_wpm": self.speed_wpm}

    def synthesize(self, text: str, out_wav: Path) -> None:
        self.calls.append(text)
        n = int(round(0.04 * len(text) * RATE_HZ))
        tone = 0.3 * np.sin(2 * np.pi * 200 * np.arange(n) / RATE_HZ)
        soundfile.write(str(out_wav), tone.astype(np.float32), RATE_HZ, subtype="PCM_16", format="WAV")


def test_a_damaged_clip_is_made_again_with_one_notice_and_an_unsealed_one_is_reused(tmp_path):
    from voiceover import seals
    from voiceover.clips import synthesize

    seals.take_notices()
    calls: list[str] = []
    engine = CountingEngine(calls)
    clip, _, fresh = synthesize(engine, "hola")
    assert fresh and calls == ["hola"]
    seal = clip.with_suffix(".seal.json")
    assert seals.Seal.from_json(json.loads(seal.read_text(encoding="utf-8"))) == seals.seal(clip)
    assert synthesize(engine, "hola")[2] is False and seals.take_notices() == []
    # Cached before seals existed: a readable clip is reused.
    seal.unlink()
    assert synthesize(engine, "hola")[2] is False and seals.take_notices() == []
    # Sealed, then changed (a sync tool, a crash): made again, named once.
    synthesize(engine, "adiós")
    damaged = synthesize(engine, "adiós")[0]
    sealed_ns = damaged.stat().st_mtime_ns
    with open(damaged, "r+b") as f:
        f.seek(-2, 2)
        f.write(b"\x7f\x7f")
    os.utime(damaged, ns=(sealed_ns, sealed_ns + 10**9))  # the clock may not have ticked since it was sealed
    assert synthesize(engine, "adiós")[2] is True and calls.count("adiós") == 2
    assert seals.take_notices() == [f"dañado, se rehace: {damaged} (clip de narración)"]
