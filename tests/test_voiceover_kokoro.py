"""Kokoro-82M: the engine, its checked files, sentences spoken whole with bookmarks on
word starts, the speaker-only lexicon, and the cache. Most tests use a fake engine that
knows its word times; a few speak short sentences with the real model."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import soundfile

from lecture.media import soundtrack as st
from lecture.media.loudness import measure
from voiceover.audio_format import RATE_HZ
from voiceover.clips import clip_key, speak_sentences
from voiceover.engines import EngineError, identity, is_aligned, resolve_engine
from voiceover.engines import kokoro_assets as assets
from voiceover.engines.espeak import EspeakEngine
from voiceover.engines.kokoro import ACOUSTIC_LEAD, KokoroEngine, _Levels, parse_speed
from voiceover.script import load_script
from voiceover.timeline import load_timeline, timeline_path
from voiceover.timing import NarrationStats, build_timeline
from voiceover.track import write_scene_track

SCRIPT = '''title = "Prueba"

[[beat]]
name = "uno"
text = """
La capa feed-forward {#guarda} guarda casi dos tercios. {#trabaja} Y trabaja en silencio.
"""
pause_s = 0.4
'''


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "no_recordings"))
    for key in ("FFN_VOICE", "FFN_VOICE_SPEED", "FFN_KOKORO_LANG"):
        monkeypatch.delenv(key, raising=False)


def script_at(tmp_path: Path, body: str = SCRIPT, name: str = "prueba"):
    path = tmp_path / f"{name}.toml"
    path.write_text(body, encoding="utf-8")
    return load_script(name, path)


@dataclass(frozen=True)
class WordsEngine:
    """A fake `AlignedEngine`: 0.1 s of silence, then a tone 40 ms a character per word."""

    calls: list = field(compare=False, hash=False)
    voice: str = "a"
    name: str = "palabras"

    def settings(self) -> dict:
        return {"voice": self.voice}

    def synthesize(self, text, out_wav):
        self.synthesize_words(text.split(), out_wav)

    def synthesize_words(self, units, out_wav):
        self.calls.append(list(units))
        starts, at = [], int(0.1 * RATE_HZ)
        for unit in units:
            starts.append(at)
            at += int(0.04 * (len(unit) + 1) * RATE_HZ)
        starts.append(at)
        tone = 0.3 * np.sin(2 * np.pi * 200 * np.arange(at) / RATE_HZ)
        tone[: starts[0]] = 0
        soundfile.write(str(out_wav), tone.astype(np.float32), RATE_HZ, subtype="PCM_16", format="WAV")
        return starts


@dataclass(frozen=True)
class ManyWordsEngine(WordsEngine):
    """`WordsEngine` that can also be handed several sentences at once, like Kokoro; it
    records each batch (`batches`) besides every sentence it speaks (`calls`)."""

    batches: list = field(default_factory=list, compare=False, hash=False)
    name: str = "palabras"

    def synthesize_sentences(self, sentences, out_wavs):
        self.batches.append([list(units) for units in sentences])
        return [self.synthesize_words(units, out) for units, out in zip(sentences, out_wavs)]


TWO_BEATS = (
    SCRIPT
    + '''
[[beat]]
name = "dos"
text = """
Las neuronas {#leen} leen patrones. Unas se encienden y otras callan. {#final} Así funciona.
"""
'''
)


def sentence_clips(tmp_path) -> dict[tuple, tuple[Path, list[int]]]:
    """Each sentence's cached clip and word starts, by its units."""
    out = {}
    for words in (tmp_path / "cache" / "voiceover" / "clips").glob("*.words.json"):
        data = json.loads(words.read_text(encoding="utf-8"))
        out[tuple(data["units"])] = (words.with_name(words.name.replace(".words.json", ".wav")), data["starts"])
    return out


def beat_audio(timeline) -> np.ndarray:
    return np.concatenate([soundfile.read(s.clip, dtype="int16")[0] for s in timeline.beats[0].segments if s.clip])


# --- choosing the engine, its settings and files (no synthesis) --------------------------


def test_kokoro_is_chosen_by_name_with_dora_at_0_9_in_latin_american_spanish():
    engine = resolve_engine("kokoro").engine
    assert isinstance(engine, KokoroEngine) and is_aligned(engine)
    assert (engine.voice, engine.speed, engine.lang) == ("ef_dora", 0.9, "es-419")
    who = identity(engine)
    assert who["engine"] == "kokoro" and who["voice"] == "ef_dora" and who["model_sha256"] == assets.MODEL_SHA256


def test_voice_speed_and_accent_come_from_the_environment():
    engine = resolve_engine(
        env={"FFN_VOICE_ENGINE": "kokoro", "FFN_VOICE": "em_alex", "FFN_VOICE_SPEED": "1.1", "FFN_KOKORO_LANG": "es"}
    ).engine
    assert (engine.voice, engine.speed, engine.lang) == ("em_alex", 1.1, "es")


def test_a_speed_is_a_factor_or_words_per_minute():
    assert parse_speed("0,9") == 0.9
    assert 0.8 < parse_speed("150") < 1.0
    for bad in ("5", "rápido", "3000"):
        with pytest.raises(EngineError, match="Kokoro's speed"):
            parse_speed(bad)


def test_an_unknown_voice_is_refused_listing_the_spanish_ones():
    with pytest.raises(EngineError, match="unknown Kokoro voice 'es-419'.*ef_dora, em_alex, em_santa"):
        resolve_engine("kokoro", voice="es-419")


def test_the_cache_key_holds_voice_speed_accent_and_model():
    keys = {
        clip_key(e, "hola")
        for e in (
            KokoroEngine(),
            KokoroEngine(voice="em_alex"),
            KokoroEngine(speed=1.0),
            KokoroEngine(lang="es"),
            EspeakEngine(),
        )
    }
    assert len(keys) == 5
    assert clip_key(KokoroEngine(), "hola") == clip_key(KokoroEngine(), "hola")
    settings = KokoroEngine().settings()
    assert settings["model_sha256"] == assets.MODEL_SHA256
    assert settings["voice_sha256"] == assets.VOICE_SHA256["ef_dora"]


def test_a_missing_voice_file_is_one_error_naming_it_and_the_repair(tmp_path):
    with pytest.raises(EngineError) as err:
        resolve_engine(env={"FFN_VOICE_ENGINE": "kokoro", "FFN_KOKORO_DIR": str(tmp_path / "kokoro")})
    message = str(err.value)
    assert str(tmp_path / "kokoro" / "voices" / "ef_dora.bin") in message and "missing" in message
    assert "python -m voiceover.engines.kokoro_assets install" in message


def test_a_corrupted_voice_file_is_refused(tmp_path):
    path = assets.voice_path("em_santa", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(np.zeros((510, 1, 256), np.float32).tobytes())
    with pytest.raises(EngineError, match=rf"{path} is corrupted .*kokoro_assets install"):
        assets.check_voice("em_santa", tmp_path)


def test_a_model_that_does_not_match_the_pinned_hash_is_refused(tmp_path):
    parts = []
    for i in range(4):
        parts.append(tmp_path / f"part{i}.bin")
        parts[-1].write_bytes(bytes([i]) * 1000)
    with pytest.raises(EngineError, match=f"expected {assets.MODEL_SHA256}: refusing it"):
        assets.assemble_model(tmp_path / "model.onnx", parts)
    assert not (tmp_path / "model.onnx").exists()
    with pytest.raises(EngineError, match="Kokoro model .* is missing; repair it with"):
        assets.timed_model(tmp_path, make=False)


def test_the_installed_files_match_their_pins():
    """What setup.sh installed: checked, and install a second time changes nothing."""
    root = assets.kokoro_dir()
    stamp = assets.timed_model_path(root).stat().st_mtime_ns
    said = []
    assets.install(log=said.append)
    assert said == [] and assets.timed_model_path(root).stat().st_mtime_ns == stamp
    for name in assets.VOICE_SHA256:
        assert assets.check_voice(name).stat().st_size == 510 * 256 * 4


def quantized_conv_model(with_bias: bool):
    """A one-convolution graph quantised the way Kokoro-82M's int8 vocoder is, with its
    dequantised weights and its bias (zeros without one)."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)
    w_q = rng.integers(0, 256, size=(6, 4, 5), dtype=np.uint8)
    w_zero, w_scale = np.uint8(131), np.float32(0.0123)
    bias = rng.normal(size=6).astype(np.float32)
    init = [
        numpy_helper.from_array(w_q, "w_q"),
        numpy_helper.from_array(np.array(w_zero), "w_zero"),
        numpy_helper.from_array(np.array(w_scale), "w_scale"),
    ]
    conv = "/decoder/generator/conv/Conv_quant"
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["x_q", "x_scale", "x_zero"], name="x_quantize"),
        helper.make_node("Mul", ["x_scale", "w_scale"], ["scale"], name="scales_mul"),
        helper.make_node(
            "ConvInteger", ["x_q", "w_q", "x_zero", "w_zero"], ["y_int"], name=conv, pads=[4, 4], dilations=[2]
        ),
    ]
    last = "y_int"
    if with_bias:
        init += [
            numpy_helper.from_array(bias, "bias"),
            numpy_helper.from_array(np.array([1, -1, 1], np.int64), "bias_shape"),
        ]
        nodes += [
            helper.make_node("Div", ["bias", "scale"], ["bias_div"], name="bias_div"),
            helper.make_node("Floor", ["bias_div"], ["bias_floor"], name="bias_floor"),
            helper.make_node("Cast", ["bias_floor"], ["bias_int"], to=TensorProto.INT32, name="bias_cast"),
            helper.make_node("Reshape", ["bias_int", "bias_shape"], ["bias_r"], name="bias_reshape"),
            helper.make_node("Add", ["y_int", "bias_r"], ["y_biased"], name="bias_add"),
        ]
        last = "y_biased"
    nodes += [
        helper.make_node("Cast", [last], ["y_float"], to=TensorProto.FLOAT, name="y_cast"),
        helper.make_node("Mul", ["y_float", "scale"], ["y"], name="output_scale_mul"),
    ]
    graph = helper.make_graph(
        nodes,
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, None])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        init,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    weight = (w_q.astype(np.float32) - float(w_zero)) * w_scale
    return model, weight, bias if with_bias else np.zeros(6, np.float32)


def run_graph(model, x: np.ndarray) -> np.ndarray:
    import onnxruntime as rt

    session = rt.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


@pytest.mark.parametrize("with_bias", [True, False])
def test_the_vocoder_s_quantised_convolutions_become_float_ones_with_the_same_weights(with_bias):
    model, weight, bias = quantized_conv_model(with_bias)
    x = np.random.default_rng(3).normal(size=(1, 4, 40)).astype(np.float32)
    quantised = run_graph(model, x)
    assert assets.float_decoder_convs(model, Path("prueba.onnx"), prefix="/decoder/") == 1
    assert {n.op_type for n in model.graph.node} == {"Conv"}  # quantisers and scales dropped
    # The dilated convolution (pads 4, dilation 2) written out with numpy.
    padded = np.pad(x[0], ((0, 0), (4, 4)))
    expected = np.array(
        [
            [
                bias[o] + sum(weight[o, i, k] * padded[i, t + 2 * k] for i in range(4) for k in range(5))
                for t in range(40)
            ]
            for o in range(6)
        ]
    )
    floated = run_graph(model, x)[0]
    assert np.allclose(floated, expected, atol=1e-4)
    # Only the 8-bit rounding of the input is gone: the int8 graph said nearly the same.
    assert np.max(np.abs(quantised[0] - expected)) < 0.05 * np.max(np.abs(expected))


def test_a_graph_that_is_not_kokoro_s_is_refused_by_the_float_edit():
    model, _, _ = quantized_conv_model(True)
    with pytest.raises(assets.KokoroAssetError, match="no quantised convolution under /vocoder/"):
        assets.float_decoder_convs(model, Path("otro.onnx"), prefix="/vocoder/")


# --- where a word is heard (no synthesis) ---------------------------------------------------


def sound(seconds: float, level: float = 0.3) -> np.ndarray:
    """A 200 Hz tone at 24 kHz, Kokoro's rate."""
    return (level * np.sin(2 * np.pi * 200 * np.arange(round(seconds * 24_000)) / 24_000)).astype(np.float32)


def test_a_word_after_a_pause_is_heard_where_its_sound_rises_to_the_millisecond():
    quiet = np.zeros(4800, np.float32)  # 200 ms
    murmur = sound(0.02, 0.001)  # 50 dB down: a stop's closure, not yet heard
    audio = np.concatenate([sound(0.3), quiet, murmur, sound(0.3)])
    rise = 7200 + 4800 + 480
    levels = _Levels.of(audio)
    found = levels.onset_after_pause(7200, rise + 600)
    assert found is not None and abs(found - rise) <= 24
    assert levels.onset_after_pause(7200, rise - 100) is None  # not yet risen
    # Straight after another sound (30 ms of silence is no pause), there is nothing to find.
    joined = _Levels.of(np.concatenate([sound(0.3), np.zeros(720, np.float32), sound(0.3)]))
    assert joined.onset_after_pause(6000, 9000) is None


# --- sentences spoken whole, bookmarks on word starts (fake engine) -------------------------


def test_each_sentence_is_spoken_whole_and_bookmarks_fall_on_word_starts(tmp_path):
    calls: list = []
    timeline = build_timeline("prueba", engine=WordsEngine(calls), script=script_at(tmp_path))
    # Two sentences, each in one call: the bookmarks did not cut them.
    assert [" ".join(c) for c in calls] == ["La capa fid fóruard guarda casi dos tercios.", "Y trabaja en silencio."]
    beat = timeline.beats[0]
    first = calls[0]
    # "guarda" is the fifth unit (the respelling "fid fóruard" is one unit): 0.1 s + 4 words.
    word_starts = 0.1 + 0.04 * np.cumsum([0] + [len(u) + 1 for u in first])
    assert beat.bookmarks["guarda"] == pytest.approx(word_starts[3], abs=1e-9)
    second_start = word_starts[-1] + 0.1  # the next sentence's first word, after its lead
    assert beat.bookmarks["trabaja"] == pytest.approx(second_start, abs=1e-9)
    # The segments' clips, put back together, are the sentences sample for sample.
    whole = np.concatenate(
        [soundfile.read(str(sentence_clips(tmp_path)[tuple(c)][0]), dtype="int16")[0] for c in calls]
    )
    assert np.array_equal(beat_audio(timeline), whole)
    assert [s.text for s in beat.segments] == [
        "La capa feed-forward",
        "guarda casi dos tercios.",
        "Y trabaja en silencio.",
    ]
    assert beat.speech_s == pytest.approx(len(whole) / RATE_HZ)
    assert load_timeline("prueba") == timeline


def test_a_bookmark_moved_one_word_later_moves_later_without_resynthesis(tmp_path):
    calls: list = []
    engine = WordsEngine(calls)
    before = build_timeline("prueba", engine=engine, script=script_at(tmp_path)).bookmark_times()
    moved = SCRIPT.replace("{#guarda} guarda casi", "guarda {#guarda} casi")
    stats = NarrationStats()
    after = build_timeline("prueba", engine=engine, script=script_at(tmp_path, moved), stats=stats).bookmark_times()
    assert after["guarda"] > before["guarda"] and after["trabaja"] == before["trabaja"]
    assert len(calls) == 2 and stats.synthesized == 0 and stats.cached == 2


def test_an_edit_resynthesises_only_the_sentence_it_touched_and_a_voice_switch_everything(tmp_path):
    calls: list = []
    build_timeline("prueba", engine=WordsEngine(calls), script=script_at(tmp_path))
    calls.clear()
    edited = SCRIPT.replace("Y trabaja en silencio.", "Y trabaja callada.")
    build_timeline("prueba", engine=WordsEngine(calls), script=script_at(tmp_path, edited))
    assert calls == [["Y", "trabaja", "callada."]]
    calls.clear()
    build_timeline("prueba", engine=WordsEngine(calls, voice="b"), script=script_at(tmp_path, edited))
    assert len(calls) == 2


def test_a_scene_s_missing_sentences_go_to_the_engine_together_and_are_cached_one_by_one(tmp_path):
    one_by_one: list = []
    alone = build_timeline("prueba", engine=WordsEngine(one_by_one), script=script_at(tmp_path, TWO_BEATS))
    calls: list = []
    engine = ManyWordsEngine(calls)
    stats = NarrationStats()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache2"))
        together = build_timeline("prueba", engine=engine, script=script_at(tmp_path, TWO_BEATS), stats=stats)
    # Both beats' five sentences in one batch, each still its own call...
    assert engine.batches == [one_by_one] and calls == one_by_one and len(calls) == 5
    assert stats.synthesized == 5 and stats.cached == 0
    # ...so the timeline is the one sentence-by-sentence synthesis gives, to the sample.
    assert together.bookmark_times() == alone.bookmark_times()
    assert [b.speech_s for b in together.beats] == [b.speech_s for b in alone.beats]
    for beat_alone, beat_together in zip(alone.beats, together.beats):
        audio = [
            np.concatenate([soundfile.read(s.clip, dtype="int16")[0] for s in b.segments if s.clip])
            for b in (beat_alone, beat_together)
        ]
        assert np.array_equal(*audio)
        # The segments' clips add up to the beat's sentences, sample for sample.
        assert len(audio[1]) == round(beat_together.speech_s * RATE_HZ)


def test_an_edit_hands_the_engine_only_the_sentence_it_touched(tmp_path):
    calls: list = []
    engine = ManyWordsEngine(calls)
    before = build_timeline("prueba", engine=engine, script=script_at(tmp_path, TWO_BEATS))
    assert len(engine.batches) == 1 and len(calls) == 5
    calls.clear()
    engine.batches.clear()
    edited = TWO_BEATS.replace("Unas se encienden y otras callan.", "Unas se encienden, otras no.")
    stats = NarrationStats()
    after = build_timeline("prueba", engine=engine, script=script_at(tmp_path, edited), stats=stats)
    assert calls == [["Unas", "se", "encienden,", "otras", "no."]] and engine.batches == []
    assert stats.synthesized == 1 and stats.cached == 4
    # What comes before the edit keeps its times; the bookmark after it moves with it.
    assert after.beats[0] == before.beats[0]
    assert after.beats[1].bookmarks["leen"] == before.beats[1].bookmarks["leen"]
    assert after.beats[1].bookmarks["final"] != before.beats[1].bookmarks["final"]
    # Two edits at once go to the engine together.
    calls.clear()
    twice = edited.replace("Así funciona.", "Así trabaja.").replace("Y trabaja en silencio.", "Y calla.")
    build_timeline("prueba", engine=engine, script=script_at(tmp_path, twice))
    assert engine.batches == [[["Y", "calla."], ["Así", "trabaja."]]] and len(calls) == 2


def test_a_sentence_said_twice_in_a_scene_is_spoken_once(tmp_path):
    calls: list = []
    body = SCRIPT.replace("Y trabaja en silencio.", "Y trabaja en silencio. Y trabaja en silencio.")
    stats = NarrationStats()
    build_timeline("prueba", engine=ManyWordsEngine(calls), script=script_at(tmp_path, body), stats=stats)
    assert len(calls) == 2 and stats.synthesized == 2 and stats.cached == 1
    said = speak_sentences(ManyWordsEngine(calls), [["Y", "trabaja", "en", "silencio."]] * 2)
    assert list(said) == [("Y", "trabaja", "en", "silencio.")] and not said[list(said)[0]].fresh and len(calls) == 2


def test_the_lexicon_respells_for_the_speaker_only_with_espeak_too(tmp_path):
    spoken = []

    @dataclass(frozen=True)
    class Recorder:
        name: str = "grabadora"

        def settings(self):
            return {}

        def synthesize(self, text, out_wav):
            spoken.append(text)
            soundfile.write(str(out_wav), np.zeros(4800, np.float32), RATE_HZ, subtype="PCM_16", format="WAV")

    body = 'title = "T"\n[[beat]]\nname = "a"\ntext = "GPT y LLaMA usan ReLU, SwiGLU o GELU; MiniLM, softmax."\n'
    timeline = build_timeline("escena", engine=Recorder(), script=script_at(tmp_path, body, "escena"))
    assert spoken == ["ge pe te y lama usan rélu, suiglú o yélu; míni el eme, sóftmax."]
    assert timeline.beats[0].text == "GPT y LLaMA usan ReLU, SwiGLU o GELU; MiniLM, softmax."


def test_a_beat_with_a_recorded_segment_is_spoken_segment_by_segment(tmp_path, monkeypatch):
    root = tmp_path / "grabaciones" / "prueba"
    root.mkdir(parents=True)
    tone = 0.3 * np.sin(2 * np.pi * 220 * np.arange(RATE_HZ) / RATE_HZ)
    soundfile.write(str(root / "uno.1.wav"), tone.astype(np.float32), RATE_HZ)
    calls: list = []
    timeline = build_timeline(
        "prueba", engine=WordsEngine(calls), script=script_at(tmp_path), recordings=tmp_path / "grabaciones"
    )
    assert timeline.beats[0].segments[0].source == str(root / "uno.1.wav")
    assert [" ".join(c) for c in calls] == ["guarda casi dos tercios.", "Y trabaja en silencio."]
    assert timeline.voice["recorded"] == 1


# --- the real model (short sentences) ------------------------------------------------------


def test_the_predicted_durations_add_up_to_the_audio_to_the_sample():
    from voiceover.engines.kokoro import _runtime

    runtime = _runtime(None)
    phonemes, _ = runtime.phonemize_units(["Hola", "a", "todos."], "es-419")
    tokens, _ = runtime.tokenize(phonemes)
    audio, durations = runtime.infer(tokens, runtime.style("ef_dora", len(tokens), None), 0.9)
    assert len(durations) == len(tokens) + 2  # the two pad tokens too
    assert int(durations.sum()) * assets.FRAME_SAMPLES == len(audio)


def test_sentences_spoken_side_by_side_sound_as_each_alone_to_the_sample(tmp_path):
    engine = resolve_engine("kokoro").engine
    sentences = [["Hola", "a", "todos."], ["Esto", "es", "una", "prueba."], ["Adiós."]]
    together = engine.synthesize_sentences(sentences, [tmp_path / f"junto{i}.wav" for i in range(3)])
    for i, units in enumerate(sentences):
        alone = engine.synthesize_words(units, tmp_path / f"solo{i}.wav")
        assert together[i] == alone and len(alone) == len(units) + 1 and alone[-1] % 1200 == 0
        clips = [soundfile.read(str(tmp_path / f"{kind}{i}.wav"), dtype="int16")[0] for kind in ("junto", "solo")]
        assert len(clips[0]) == alone[-1] and np.array_equal(*clips)


def test_a_sentence_kokoro_cannot_say_fails_the_batch_with_its_error(tmp_path):
    engine = resolve_engine("kokoro").engine
    with pytest.raises(EngineError, match="nothing to say"):
        engine.synthesize_sentences([[""], [" "]], [tmp_path / "a.wav", tmp_path / "b.wav"])
    with pytest.raises(EngineError, match="2 sentences for 1 clips"):
        engine.synthesize_sentences([["Hola."], ["Adiós."]], [tmp_path / "a.wav"])


def test_kokoro_speaks_a_sentence_whole_with_exact_bookmarks(tmp_path):
    engine = resolve_engine("kokoro").engine
    stats = NarrationStats()
    timeline = build_timeline("prueba", engine=engine, script=script_at(tmp_path), stats=stats)
    assert stats.synthesized == 2
    assert timeline.voice["engine"] == "kokoro" and timeline.voice["voice"] == "ef_dora"
    assert json.loads(timeline_path("prueba").read_text())["voice"]["model_sha256"] == assets.MODEL_SHA256
    beat = timeline.beats[0]
    marks = list(beat.bookmarks.values())
    assert 0 < marks[0] < marks[1] < beat.speech_s
    # Each bookmark sits on the start of the word after it, as the sentence's clip says.
    sentences = sentence_clips(tmp_path)
    _, first = sentences[("La", "capa", "fid fóruard", "guarda", "casi", "dos", "tercios.")]
    assert round(beat.bookmarks["guarda"] * RATE_HZ) == first[3]
    second_clip, second = sentences[("Y", "trabaja", "en", "silencio.")]
    assert round(beat.bookmarks["trabaja"] * RATE_HZ) == first[-1] + second[0]
    # A word said straight after another starts ACOUSTIC_LEAD before its first phoneme's
    # frame (frames of 600 samples at 24 kHz are 1200 samples at 48 kHz)...
    assert (first[3] + 2 * ACOUSTIC_LEAD) % 1200 == 0
    # ...and one after a pause where its sound rises: the sentence's leading pause before
    # "Y" is silent (so the clip before ends in it), and "Y" is heard from its start on.
    audio = soundfile.read(str(second_clip), dtype="float32")[0]
    loud = np.max(np.abs(audio))
    assert 0 < second[0] < second[1]
    assert np.max(np.abs(audio[: second[0]])) < 0.03 * loud < np.max(np.abs(audio[second[0] : second[0] + 480]))
    # 48 kHz mono 16-bit clips, neither silent nor clipped.
    for seg in beat.segments:
        info = soundfile.info(seg.clip)
        assert (info.samplerate, info.channels, info.subtype) == (48_000, 1, "PCM_16")
    audio = beat_audio(timeline).astype(np.float32) / 32768
    assert len(audio) == first[-1] + second[-1]
    assert 0.05 < np.max(np.abs(audio)) < 0.99 and np.sqrt(np.mean(audio**2)) > 0.01

    # A bookmark moved one word later moves later; the sentence is not spoken again.
    moved = SCRIPT.replace("{#guarda} guarda casi", "guarda {#guarda} casi")
    stats = NarrationStats()
    later = build_timeline("prueba", engine=engine, script=script_at(tmp_path, moved), stats=stats)
    assert later.beats[0].bookmarks["guarda"] > beat.bookmarks["guarda"]
    assert round(later.beats[0].bookmarks["guarda"] * RATE_HZ) == first[4]
    assert stats.synthesized == 0

    # Loudness as for every voice: -16 LUFS, true peak under -1 dBTP, with the build's gain and limiter.
    track = write_scene_track(timeline, tmp_path / "escena.wav")
    st.limit(track, tmp_path / "escena.norm.wav", gain_db=-16 - st.integrated_lufs([st.block_energies(track)]))
    result = measure(tmp_path / "escena.norm.wav")
    assert abs(result.integrated_lufs + 16) <= 1.0 and result.true_peak_dbtp <= -1.0
