"""One-take recordings: a scene (or the lecture) read straight through re-times the scene.

The stand-in lecturer is espeak-ng at another speed and pitch, with noise and longer pauses
of its own; its own timeline (the exact sum of its clips) is the truth the alignment against
the default draft voice must find. Kokoro's stand-in (`em_alex`) is measured in
`benchmarks/bench_alignment.py`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile

from voiceover.engines.espeak import EspeakEngine
from voiceover.script import load_script
from voiceover.subtitles import cues
from voiceover.takes import TakeError, find_take, narrated_by_recordings
from voiceover.timeline import timeline_path
from voiceover.timing import NarrationStats, build_timeline, default_lookup, measure_timeline
from voiceover.track import scene_samples

RATE = 48_000
SCRIPT = """title = "Toma"

[[beat]]
name = "entrada"
text = "Buenos días a todos. Hoy miramos una red muy pequeña, {#capa} con una sola capa oculta y cuatro neuronas."
pause_s = 0.5

[[beat]]
name = "medio"
text = "Cada neurona dobla el plano por una recta. {#suma} Al sumar los pliegues, el plano queda partido en regiones."
pause_s = 0.5

[[beat]]
name = "cierre"
text = "Eso es todo lo que hace la capa. Nada más, {#fin} y nada menos."
pause_s = 0.5
"""
EXTRA_PAUSE_S = 1.2  # the stand-in pauses this much longer before the second beat
LEAD_S = 0.6


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "grabaciones"))
    (tmp_path / "grabaciones").mkdir()


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "toma.toml"
    path.write_text(SCRIPT, encoding="utf-8")
    return load_script("toma", path)


def stand_in(script, drop_sentence: tuple[int, int] | None = None):
    """The stand-in's reading (48 kHz) and its bookmark times in it; optionally without one
    sentence ((beat index, sentence index))."""
    voice = EspeakEngine(speed_wpm=190, pitch=30)
    timeline = measure_timeline(script.scene, voice, default_lookup, script, stats=NarrationStats())
    audio = scene_samples(timeline)
    rng = np.random.default_rng(3)
    pieces, marks, at = [np.zeros(int(LEAD_S * RATE), np.float32)], {}, LEAD_S
    for i, beat in enumerate(timeline.beats):
        lo, hi = int(beat.start_s * RATE), int(beat.end_s * RATE)
        part = audio[lo:hi]
        if drop_sentence is not None and drop_sentence[0] == i:
            # espeak's sentence ends are the pauses inside its segments: cut the given one.
            quiet = np.flatnonzero(np.convolve(np.abs(part) > 1e-3, np.ones(2400), "same") == 0)
            gaps = [g for g in np.split(quiet, np.flatnonzero(np.diff(quiet) > 1) + 1) if len(g)]
            inner = [int(g[len(g) // 2]) for g in gaps if 0 < g[0] and g[-1] < len(part) - 1]
            bounds = [0, *inner, len(part)]
            k = drop_sentence[1]
            part = np.concatenate([part[: bounds[k]], part[bounds[k + 1] :]])
        pieces.append(part)
        marks.update({k: at + (v - beat.start_s) for k, v in beat.bookmarks.items()})
        at += len(part) / RATE
        if i == 0:
            pieces.append(np.zeros(int(EXTRA_PAUSE_S * RATE), np.float32))
            at += EXTRA_PAUSE_S
    take = np.concatenate(pieces + [np.zeros(RATE // 2, np.float32)])
    take = take + rng.standard_normal(len(take)).astype(np.float32) * 0.003
    return take, marks


def write_take(path, samples):
    stereo = np.stack([samples, samples], axis=1)
    soundfile.write(str(path), stereo, RATE, format="FLAC")


def test_a_scene_read_in_one_take_re_times_every_bookmark_beat_and_pause(script, tmp_path):
    take, truth = stand_in(script)
    write_take(tmp_path / "grabaciones" / "toma.flac", take)
    stats = NarrationStats()
    timeline = build_timeline("toma", script=script, stats=stats)
    facts = timeline.voice["take"]
    assert facts["path"].endswith("toma.flac") and stats.take.endswith("toma.flac")
    errors = [abs(facts["bookmarks"][k]["take_s"] - truth[k]) for k in truth]
    assert max(errors) < 0.08, errors
    assert all(0.0 <= facts["bookmarks"][k]["confidence"] <= 1.0 for k in truth)
    # The take's own pause before the second beat, not the script's 0.5 s.
    assert timeline.beats[0].pause_s > 0.5 + EXTRA_PAUSE_S * 0.8
    # Bookmarks sit in the scene where they sit in the take, less where the scene starts there.
    origin = facts["bookmarks"]["capa"]["take_s"] - timeline.bookmark_times()["capa"]
    for k in truth:
        assert timeline.bookmark_times()[k] == pytest.approx(facts["bookmarks"][k]["take_s"] - origin, abs=2e-3)
    # Every segment is a clip cut from the take, as long as the timeline says.
    for beat in timeline.beats:
        for seg in beat.segments:
            assert seg.source.endswith("toma.flac")
            assert soundfile.info(seg.clip).frames == round(seg.duration_s * RATE)
    assert timeline.voice["recorded"] == sum(len(b.segments) for b in timeline.beats)
    assert narrated_by_recordings([timeline])
    # Subtitles start on the take's words: the second beat's first cue where its first word is.
    second = next(c for c in cues([timeline]) if c.text.startswith("Cada"))
    assert second.start_s == pytest.approx(facts["words"]["medio"][0], abs=0.002)


def test_a_take_that_skips_a_sentence_is_refused_naming_the_beat_and_nothing_is_written(script, tmp_path):
    build_timeline("toma", script=script)  # what was built before
    before = timeline_path("toma").read_text(encoding="utf-8")
    take, _ = stand_in(script, drop_sentence=(1, 0))
    write_take(tmp_path / "grabaciones" / "toma.flac", take)
    with pytest.raises(TakeError) as refused:
        build_timeline("toma", script=script)
    message = str(refused.value)
    assert "«medio»" in message and "toma.flac" in message and "de la grabación" in message
    assert timeline_path("toma").read_text(encoding="utf-8") == before


def test_a_damaged_cut_of_the_take_is_cut_again_and_said(script, tmp_path):
    from voiceover import seals

    write_take(tmp_path / "grabaciones" / "toma.flac", stand_in(script)[0])
    first = build_timeline("toma", script=script)
    clip = Path(first.beats[1].segments[0].clip)
    good = soundfile.read(str(clip), dtype="int16")[0]
    seals.take_notices()
    soundfile.write(str(clip), np.zeros_like(good), RATE, subtype="PCM_16", format="WAV")  # same length, silent
    again = build_timeline("toma", script=script)
    assert Path(again.beats[1].segments[0].clip) == clip
    assert np.array_equal(soundfile.read(str(clip), dtype="int16")[0], good)
    assert any("corte de la grabación" in notice for notice in seals.take_notices())


def test_beat_files_win_over_the_take_for_their_beat(script, tmp_path):
    take, _ = stand_in(script)
    write_take(tmp_path / "grabaciones" / "toma.flac", take)
    folder = tmp_path / "grabaciones" / "toma"
    folder.mkdir()
    tone = 0.2 * np.sin(2 * np.pi * 440 * np.arange(int(1.5 * RATE)) / RATE).astype(np.float32)
    for i in (1, 2):
        soundfile.write(str(folder / f"medio.{i}.wav"), tone, RATE)
    timeline = build_timeline("toma", script=script)
    medio = timeline.beat("medio")
    assert all(str(folder) in s.source for s in medio.segments)
    assert medio.speech_s == pytest.approx(2 * (1.5 + 0.0) + 0.4, abs=0.25)  # trimmed to 0.1 s margins
    assert timeline.beat("cierre").segments[0].source.endswith("toma.flac")


def test_a_lecture_take_finds_each_scene_in_plan_order(tmp_path, monkeypatch):
    names = ("una", "otra")
    scripts = []
    for name in names:
        path = tmp_path / f"{name}.toml"
        path.write_text(SCRIPT.replace("Buenos días", "Hola" if name == "otra" else "Buenos días"), encoding="utf-8")
        scripts.append(load_script(name, path))
    plan = tmp_path / "plan.toml"
    plan.write_text(
        "".join(f'[[scene]]\nname = "{n}"\nscript = "{n}"\nscript_path = "{tmp_path / n}.toml"\n\n' for n in names),
        encoding="utf-8",
    )
    monkeypatch.setenv("FFN_PLAN", str(plan))
    takes, truths = zip(*(stand_in(s) for s in scripts))
    gap = np.zeros(2 * RATE, np.float32)
    write_take(tmp_path / "grabaciones" / "lecture.flac", np.concatenate([takes[0], gap, takes[1]]))
    offset = (len(takes[0]) + len(gap)) / RATE
    assert find_take(scripts[1]) is not None and find_take(scripts[1]).whole_lecture
    for script, truth, shift in zip(scripts, truths, (0.0, offset)):
        timeline = build_timeline(script.scene, script=script)
        got = {k: v["take_s"] for k, v in timeline.voice["take"]["bookmarks"].items()}
        assert max(abs(got[k] - (truth[k] + shift)) for k in truth) < 0.08, (script.scene, got, truth)
    assert json.loads(timeline_path("otra").read_text(encoding="utf-8"))["voice"]["take"]["path"].endswith(
        "lecture.flac"
    )


def test_two_takes_of_one_scene_are_an_error_naming_both(script, tmp_path):
    for ext in ("wav", "mp3"):
        (tmp_path / "grabaciones" / f"toma.{ext}").write_bytes(b"")
    with pytest.raises(TakeError, match=r"toma\.wav.*toma\.mp3|toma\.mp3.*toma\.wav"):
        find_take(script)


@pytest.mark.slow
def test_kokoro_stand_in_with_reverb_and_noise_lands_every_bookmark_of_a_scene(tmp_path):
    # em_alex at speed 1.1 in a small noisy room reads "relu"; aligned against ef_dora.
    from scipy.signal import fftconvolve

    from voiceover.engines.kokoro import KokoroEngine

    script = load_script("relu")
    alex = KokoroEngine.from_options(voice="em_alex", speed=1.1)
    truth = measure_timeline("relu", alex, default_lookup, script, stats=NarrationStats())
    rng = np.random.default_rng(11)
    dry = np.concatenate([np.zeros(int(LEAD_S * RATE), np.float32), scene_samples(truth)])
    t = np.arange(int(0.25 * RATE)) / RATE
    response = rng.standard_normal(len(t)) * np.exp(-t * 6.9 / 0.25) * 0.25
    response[0] = 1.0
    wet = fftconvolve(dry, response)[: len(dry)]
    power = np.mean(wet[np.abs(wet) > 1e-3] ** 2)
    soundfile.write(
        str(tmp_path / "grabaciones" / "relu.wav"), wet + rng.standard_normal(len(wet)) * np.sqrt(power / 100), RATE
    )
    timeline = build_timeline("relu", engine=KokoroEngine.from_options(), script=script)
    got = timeline.voice["take"]["bookmarks"]
    errors = sorted(abs(got[k]["take_s"] - (v + LEAD_S)) for k, v in truth.bookmark_times().items())
    assert np.median(errors) < 0.03 and errors[-1] < 0.12, errors
