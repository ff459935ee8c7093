"""Every clip the narration reuses is sealed by content: a Kokoro sentence, a cut of
sentences and a recording's converted clip whose samples were zeroed behind an intact
header, with their old modification time put back, are made again, named, and sound as
before. Fake engines that know their word times stand in for Kokoro (see
tests/test_build_damage.py for the same fault through a whole build)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import soundfile
from fixtures.content_faults import zero_samples

from voiceover import seals
from voiceover.audio_format import RATE_HZ
from voiceover.script import load_script
from voiceover.timing import build_timeline

SCRIPT = '''title = "Prueba"

[[beat]]
name = "uno"
text = """
La capa guarda casi todo. {#trabaja} Y trabaja en silencio. Luego descansa.
"""
pause_s = 0.4

[[beat]]
name = "dos"
text = "Las neuronas leen patrones."
'''


@dataclass(frozen=True)
class WordsEngine:
    """A fake `AlignedEngine`: 0.1 s of silence, then a tone 40 ms a character per word,
    its pitch set by the word (so a clip swapped for another would be heard)."""

    calls: list = field(compare=False, hash=False)
    name: str = "palabras"

    def settings(self) -> dict:
        return {"voice": "a"}

    def synthesize(self, text, out_wav):
        self.synthesize_words(text.split(), out_wav)

    def synthesize_words(self, units, out_wav):
        self.calls.append(list(units))
        starts, at, pieces = [], int(0.1 * RATE_HZ), [np.zeros(int(0.1 * RATE_HZ))]
        for unit in units:
            starts.append(at)
            n = int(0.04 * (len(unit) + 1) * RATE_HZ)
            pieces.append(0.3 * np.sin(2 * np.pi * (150 + 10 * len(unit)) * np.arange(n) / RATE_HZ))
            at += n
        starts.append(at)
        soundfile.write(
            str(out_wav), np.concatenate(pieces).astype(np.float32), RATE_HZ, subtype="PCM_16", format="WAV"
        )
        return starts


@pytest.fixture
def voice(tmp_path, monkeypatch):
    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "recordings"))
    path = tmp_path / "prueba.toml"
    path.write_text(SCRIPT, encoding="utf-8")
    seals.take_notices()
    return load_script("prueba", path)


def sentence_clip(units: list[str]) -> Path:
    """The cached clip of the sentence said as `units` (found by its word starts' file)."""
    clips = Path(os.environ["FFN_CACHE_DIR"]) / "voiceover" / "clips"
    for words in clips.glob("*.words.json"):
        if json.loads(words.read_text(encoding="utf-8"))["units"] == units:
            return words.with_name(words.name.replace(".words.json", ".wav"))
    raise AssertionError(f"no cached sentence {units}")


def audio(timeline) -> np.ndarray:
    return np.concatenate(
        [soundfile.read(s.clip, dtype="int16")[0] for b in timeline.beats for s in b.segments if s.clip]
    )


def test_a_seal_is_broken_by_changed_content_even_with_size_and_time_kept(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(b"\x01" * 4096)
    sealed = seals.seal(path)
    assert seals.intact(path, sealed)
    path.write_bytes(b"\x00" * 4096)
    os.utime(path, ns=(sealed.mtime_ns, sealed.mtime_ns))
    assert not seals.intact(path, sealed)


def test_a_kokoro_sentence_zeroed_behind_its_header_is_spoken_again_named_and_sounds_as_before(voice):
    calls: list = []
    engine = WordsEngine(calls)
    before = build_timeline("prueba", engine, script=voice)
    heard = audio(before)
    sentence = ["Y", "trabaja", "en", "silencio."]
    clip = str(sentence_clip(sentence))
    zero_samples(Path(clip))
    seals.take_notices()
    calls.clear()
    after = build_timeline("prueba", engine, script=voice)
    assert calls == [sentence]
    (notice,) = seals.take_notices()
    assert clip in notice and "«Y trabaja en silencio.»" in notice
    assert np.array_equal(audio(after), heard) and after == before


def test_a_sentence_whose_cut_clip_was_zeroed_is_cut_again_without_speaking(voice):
    calls: list = []
    engine = WordsEngine(calls)
    before = build_timeline("prueba", engine, script=voice)
    heard = audio(before)
    cut = next(s.clip for s in before.beats[0].segments if Path(s.clip).name.startswith("cut-"))
    zero_samples(Path(cut))
    seals.take_notices()
    calls.clear()
    after = build_timeline("prueba", engine, script=voice)
    assert calls == []
    assert any(cut in n for n in seals.take_notices())
    assert np.array_equal(audio(after), heard)


def test_a_sentence_cached_before_seals_existed_is_reused_and_sealed_as_found(voice):
    calls: list = []
    engine = WordsEngine(calls)
    build_timeline("prueba", engine, script=voice)
    clips = Path(os.environ["FFN_CACHE_DIR"]) / "voiceover" / "clips"
    for seal in clips.glob("*.seal.json"):
        if seal.with_suffix("").with_suffix(".words.json").exists():
            seal.unlink()
    seals.take_notices()
    calls.clear()
    build_timeline("prueba", engine, script=voice)
    assert calls == [] and seals.take_notices() == []
    assert all(w.with_name(w.name.replace(".words.json", ".seal.json")).exists() for w in clips.glob("*.words.json"))


@dataclass(frozen=True)
class ToneEngine:
    """A segment engine (espeak's place): a tone 40 ms a character."""

    calls: list = field(compare=False, hash=False)
    name: str = "tono"

    def settings(self) -> dict:
        return {}

    def synthesize(self, text, out_wav):
        self.calls.append(text)
        n = int(0.04 * len(text) * RATE_HZ)
        tone = 0.3 * np.sin(2 * np.pi * 220 * np.arange(n) / RATE_HZ)
        soundfile.write(str(out_wav), tone.astype(np.float32), RATE_HZ, subtype="PCM_16", format="WAV")


def test_a_recorded_clip_zeroed_behind_its_header_is_converted_again_named_and_sounds_as_before(voice, tmp_path):
    folder = tmp_path / "recordings" / "prueba"
    folder.mkdir(parents=True)
    take = folder / "dos.wav"
    rng = np.random.default_rng(0)
    voiced = 0.2 * np.sin(2 * np.pi * 180 * np.arange(RATE_HZ) / RATE_HZ) * (1 + 0.1 * rng.standard_normal(RATE_HZ))
    soundfile.write(str(take), np.concatenate([np.zeros(RATE_HZ // 2), voiced, np.zeros(RATE_HZ // 2)]), RATE_HZ)
    engine = ToneEngine([])
    before = build_timeline("prueba", engine, script=voice)
    heard = audio(before)
    (clip,) = [s.clip for s in before.beats[1].segments]
    assert Path(clip).name.startswith("rec-")
    zero_samples(Path(clip))
    seals.take_notices()
    after = build_timeline("prueba", engine, script=voice)
    (notice,) = seals.take_notices()
    assert clip in notice and str(take) in notice
    assert np.array_equal(audio(after), heard) and after == before


def test_a_good_verdict_is_kept_across_builds_and_a_rewrite_with_the_old_time_is_still_caught(tmp_path, monkeypatch):
    from voiceover import atomic

    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    clip = tmp_path / "clip.wav"
    clip.write_bytes(b"RIFF" + bytes(range(256)) * 64)
    sealed = seals.seal(clip)
    assert seals.intact(clip, sealed)
    seals.take_notices()  # a build ends: the verdict is kept on disk
    assert (tmp_path / "cache" / "seals.json").is_file()

    hashed = []
    real = atomic.sha256_file
    monkeypatch.setattr(seals, "sha256_file", lambda p: hashed.append(p) or real(p))
    seals._loaded_from.clear()  # as a new process would start
    assert seals.intact(clip, sealed) and hashed == []  # the next build hashes nothing

    st = clip.stat()
    clip.write_bytes(b"RIFF" + bytes(256 * 64))  # zeroed behind the header, same size
    os.utime(clip, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the old time put back
    assert not seals.intact(clip, sealed) and hashed == [clip]
