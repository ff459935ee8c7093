"""The lecture's narration track: loudness worked out scene by scene, encoded in stretches.

Loudness. The lecture is normalised as a whole (-16 LUFS integrated, ITU-R BS.1770, true
peak <= -1 dBTP) but processed per scene: each scene's K-weighted 400 ms block energies are
kept, so the lecture's gated loudness is computed from them without reading the audio
again; one gain applies to every scene, followed by a 4x-oversampled true-peak limiter run
on each scene. The gain is sticky: it changes only when the lecture drifts more than
`LOUDNESS_TOLERANCE_LU` from the target, so editing one scene re-limits that scene only.

Joining. AAC cannot be cut or joined at an arbitrary sample: every stream starts with the
encoder's priming and is made of whole 1024-sample packets, each decoded together with the
one before it, so joining scenes encoded apart by copying packets loses or adds up to a
packet at every join, and the error grows scene after scene. Two things make the joins
exact here. Every scene lasts a whole number of packets (the build rounds each scene's
frames up: `grid_frames`, at most 0.53 s), so every scene starts on the packet grid
whatever the scenes before it last. And the narration is encoded in stretches (a scene's
beats, cut again in pieces of about 4 s: `stretch_cuts`), each with a pre-roll and a post-roll of its true neighbouring samples,
of which only the stretch's own packets are kept: joined in order, the packets make one
continuous stream with one priming packet, declared in the MP4's edit list, that decodes
like a single encoding, every scene on its first frame. A stretch is encoded again only
when its samples or its rolls change; an edit that changes a scene's length moves no other
scene off the grid. Each scene's own MP4 gets its own stretches' packets.

(`join_pcm` and `encode_lecture`, the lecture joined as PCM and encoded once, remain for a
lecture with a scene off the grid or not narrated.)
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile

from lecture.media.ffmpeg import AAC_ARGS, encode_adts_each, run_ffmpeg
from voiceover.filters import k_weighted, oversampled
from voiceover.atomic import atomic_path, write_json
from voiceover.audio_format import CEILING_DBTP, CHANNELS, OVERSAMPLING, RATE_HZ, limiter_chain

# The limiter aims this far below the ceiling: room for the resample back to 48 kHz and for
# the overshoot of AAC encoding (measured about 0.4 dB on the lecture's narration).
LIMITER_HEADROOM_DB = 1.0
LOUDNESS_TOLERANCE_LU = 0.5
BLOCK_S, HOP_S = 0.4, 0.1  # BS.1770 gating blocks


class SoundtrackError(RuntimeError):
    pass


def _ffmpeg(args: list[str], what: str) -> None:
    run_ffmpeg(args, what, SoundtrackError)


# -- loudness ------------------------------------------------------------------------------
def block_energies(wav: Path) -> np.ndarray:
    """Mean square of the K-weighted signal in each 400 ms block (100 ms hop), summed over
    channels: everything BS.1770 gating needs from one scene."""
    data, rate = soundfile.read(str(wav), dtype="float32", always_2d=True)  # 16-bit PCM: exact
    if rate != RATE_HZ:
        raise SoundtrackError(f"{wav}: {rate} Hz, expected {RATE_HZ}")
    block, hop = int(BLOCK_S * rate), int(HOP_S * rate)
    if len(data) < block:
        return np.zeros(0)
    total = np.zeros(1 + (len(data) - block) // hop)
    starts = np.arange(len(total)) * hop
    done: list[tuple[np.ndarray, np.ndarray]] = []  # (channel, its block energies)
    for ch in range(data.shape[1]):
        x = data[:, ch]
        # Dual-mono narration: a channel equal to one already filtered adds the same energies
        # (x + x is exact), at a third of the filtering's cost.
        same = next((e for seen, e in done if np.array_equal(seen, x)), None)
        if same is None:
            y = k_weighted(x, rate).astype(np.float64)
            sums = np.concatenate([[0.0], np.cumsum(y * y)])
            same = (sums[starts + block] - sums[starts]) / block
            done.append((x, same))
        total += same
    return total


def integrated_lufs(energies: Sequence[np.ndarray]) -> float:
    """Gated integrated loudness (BS.1770-4) of scenes played end to end."""
    z = np.concatenate([e for e in energies if len(e)]) if energies else np.zeros(0)
    with np.errstate(divide="ignore"):
        loud = -0.691 + 10 * np.log10(z)
    gated = z[loud >= -70.0]
    if not len(gated):
        return float("-inf")
    relative = -0.691 + 10 * np.log10(gated.mean()) - 10.0
    final = z[(loud >= -70.0) & (loud >= relative)]
    return float(-0.691 + 10 * np.log10(final.mean()))


def true_peak_dbtp(wav: Path) -> float:
    """True peak, 4x oversampled (dual-mono narration: one channel tells both)."""
    data, _ = soundfile.read(str(wav), dtype="float32", always_2d=True)
    over = oversampled(data[:, 0], OVERSAMPLING)
    peak = float(np.max(np.abs(over))) if over.size else 0.0
    return 20 * np.log10(peak) if peak > 0 else float("-inf")


def limit(in_wav: Path, out_wav: Path, gain_db: float, ceiling_dbtp: float = CEILING_DBTP) -> None:
    """Apply `gain_db`, then a true-peak limiter under the ceiling (run at 4x the rate so
    it sees the peaks between samples), as 48 kHz stereo 16-bit. A silent narration has no
    loudness to bring to the target: its gain is infinite, and refused."""
    if not math.isfinite(gain_db):
        raise ValueError(f"{in_wav}: la narración está en silencio; no hay sonoridad que normalizar")
    limit_lin = 10 ** ((ceiling_dbtp - LIMITER_HEADROOM_DB) / 20)
    with atomic_path(Path(out_wav)) as tmp:
        _ffmpeg(
            [
                "-i",
                str(in_wav),
                "-af",
                limiter_chain(gain_db, limit_lin),
                "-ar",
                str(RATE_HZ),
                "-ac",
                str(CHANNELS),
                "-c:a",
                "pcm_s16le",
                "-f",
                "wav",
                str(tmp),
            ],
            f"limiting {Path(in_wav).name}",
        )


def encode_scene(wav: Path, out: Path) -> Path:
    """A scene's narration alone as AAC-LC in MP4, its priming trimmed by the container's
    edit list (kept when the stream is copied), so it starts on the scene's first frame."""
    with atomic_path(out) as tmp:
        _ffmpeg(
            [
                "-i",
                str(wav),
                *AAC_ARGS,
                "-f",
                "mp4",
                str(tmp),
            ],
            f"encoding the narration of {Path(wav).name}",
        )
    return out


# -- the lecture's track ---------------------------------------------------------------
def join_pcm(scenes: Sequence[tuple[Path, int]], out_wav: Path) -> Path:
    """The scenes' limited narration end to end as one 48 kHz WAV, each cut or padded with
    silence to exactly `samples` (its video's length in samples), so every scene's
    narration starts on its first frame and the track lasts exactly as long as the video.

    Streamed a block at a time: a 25-minute lecture never sits in memory whole."""
    block = RATE_HZ * 10
    with atomic_path(Path(out_wav)) as tmp:
        with soundfile.SoundFile(
            str(tmp), "w", samplerate=RATE_HZ, channels=CHANNELS, subtype="PCM_16", format="WAV"
        ) as out:
            for wav, samples in scenes:
                written = 0
                with soundfile.SoundFile(str(wav)) as src:
                    if src.samplerate != RATE_HZ or src.channels != CHANNELS:
                        raise SoundtrackError(
                            f"{wav}: {src.samplerate} Hz, {src.channels} channels; expected {RATE_HZ} Hz stereo"
                        )
                    while written < samples:
                        data = src.read(min(block, samples - written), dtype="int16", always_2d=True)
                        if not len(data):
                            break
                        out.write(data)
                        written += len(data)
                while written < samples:  # the narration is shorter than its video: silence
                    n = min(block, samples - written)
                    out.write(np.zeros((n, CHANNELS), dtype=np.int16))
                    written += n
    return Path(out_wav)


def encode_lecture(wav: Path, out: Path) -> Path:
    """The whole lecture's narration encoded once: one AAC stream with no joins, its
    priming trimmed by the container's edit list, so no scene drifts against its frames."""
    return encode_scene(wav, out)


def save_json(path: Path, data: dict) -> None:
    write_json(path, data)


def load_json(path: Path) -> dict | None:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# -- the lecture's track in stretches ------------------------------------------------------
# AAC-LC codes 1024 samples per packet, and a packet decodes only together with the one
# before it (its transform overlaps it by half). Every scene therefore lasts a whole number
# of packets (the build pads each scene's last frame so: `grid_frames`), every scene starts
# on the packet grid whatever the scenes before it last, and the narration is encoded in
# stretches of whole packets: each one with a pre-roll and a post-roll of the true
# neighbouring samples (which the neighbours' own encodings also coded), of which only the
# stretch's own packets are kept. Joined in order they make one continuous AAC stream that
# decodes exactly like a single encoding, sample for sample in time, and a stretch is
# encoded again only when its samples or its rolls change.
AAC_FRAME = 1024  # samples per AAC-LC packet
PRE_ROLL = 2 * AAC_FRAME  # samples coded before a stretch and dropped (the encoder settles)
POST_ROLL = 2 * AAC_FRAME  # samples coded after it and dropped (its last packet overlaps them)
MIN_STRETCH_S = 8.0  # a stretch starts at a beat start at least this far from the last cut
# A beat's stretch is cut again every this long from its start (the last piece up to twice
# as long): an edit re-encodes from the piece it falls in, not from the beat's start. Each
# piece is one more ffmpeg run (about 0.1 s) in a full build.
PIECE_S = 4.0
ENCODERS = 2  # ffmpeg processes encoding stretches at once


def grid_frames(fps: int) -> int:
    """Video frames in the shortest length that is also whole AAC packets (8 at 15 fps and
    32 at 60 fps: 0.533 s)."""
    if RATE_HZ % fps:
        raise SoundtrackError(f"{fps} fps: a frame is not a whole number of samples at {RATE_HZ} Hz")
    per_frame = RATE_HZ // fps
    return math.lcm(per_frame, AAC_FRAME) // per_frame


def on_grid(frames: int, fps: int) -> int:
    """`frames` rounded up to whole AAC packets of narration."""
    step = grid_frames(fps)
    return -(-frames // step) * step


def adts_packets(data: bytes, where: Path) -> list[bytes]:
    """The packets of an ADTS stream, each with its 7-byte header (ffmpeg writes no CRC)."""
    packets, pos = [], 0
    for size in adts_packet_sizes(data, where):
        packets.append(data[pos : pos + size])
        pos += size
    return packets


def adts_packet_sizes(data: bytes, where: Path, whole: bool = True) -> list[int]:
    """The sizes of an ADTS stream's packets, every header checked (`whole` False: `data`
    may end inside its last packet)."""
    sizes, pos, end = [], 0, len(data)
    while pos < end:
        if pos + 7 > end or data[pos] != 0xFF or data[pos + 1] & 0xF0 != 0xF0:
            raise SoundtrackError(f"{where}: not an ADTS stream at byte {pos}")
        size = ((data[pos + 3] & 0x03) << 11) | (data[pos + 4] << 3) | (data[pos + 5] >> 5)
        if size < 7:
            raise SoundtrackError(f"{where}: ADTS packet of {size} bytes at byte {pos}")
        sizes.append(size)
        pos += size
    if whole and pos != end:
        raise SoundtrackError(f"{where}: its last ADTS packet is cut short")
    return sizes


@dataclass(frozen=True)
class ScenePcm:
    """A scene's limited narration as the lecture plays it: `samples` long (cut or padded)."""

    name: str
    wav: Path
    samples: int  # its video's length in samples: whole AAC packets
    cuts: tuple[int, ...]  # where its stretches start, scene-relative (0 first)


@dataclass(frozen=True)
class Stretch:
    """Samples `[start, end)` of the lecture (whole packets), inside one scene."""

    scene: str
    start: int
    end: int
    digest: str  # its samples and its rolls: equal digests, packets that decode alike
    own: str = ""  # its samples alone: what a scene's own file decodes from it (not the rolls)

    @property
    def packets(self) -> int:
        return (self.end - self.start) // AAC_FRAME


def stretch_cuts(beat_starts_s: Sequence[float], samples: int) -> tuple[int, ...]:
    """Where a scene's stretches start: at beat starts (on the packet grid), none closer than
    `MIN_STRETCH_S` to the cut before or to the scene's end, and then every `PIECE_S` from
    each of those (the last piece of each at least `PIECE_S` long). An edit re-encodes from
    the piece it falls in to the scene's end; the pieces before it keep their samples (each
    measured from its beat's start, whatever the scene's length now)."""
    beats = [0]
    least = round(MIN_STRETCH_S * RATE_HZ)
    for start_s in beat_starts_s:
        cut = round(start_s * RATE_HZ / AAC_FRAME) * AAC_FRAME
        if cut - beats[-1] >= least and samples - cut >= least:
            beats.append(cut)
    piece = round(PIECE_S * RATE_HZ / AAC_FRAME) * AAC_FRAME
    cuts: list[int] = []
    for start, end in zip(beats, [*beats[1:], samples]):
        cuts.extend(range(start, end - piece + 1, piece) if end - start >= piece else [start])
    return tuple(cuts)


def read_pcm(wav: Path, start: int, stop: int, samples: int) -> np.ndarray:
    """Samples `[start, stop)` of a scene's narration cut or padded to `samples`, int16 stereo."""
    out = np.zeros((max(stop - start, 0), CHANNELS), dtype=np.int16)
    stop_in = min(stop, samples)
    if stop_in <= start:
        return out
    with soundfile.SoundFile(str(wav)) as src:
        if src.samplerate != RATE_HZ or src.channels != CHANNELS:
            raise SoundtrackError(f"{wav}: {src.samplerate} Hz, {src.channels} channels; expected {RATE_HZ} Hz stereo")
        src.seek(min(start, src.frames))
        data = src.read(stop_in - start, dtype="int16", always_2d=True)
    out[: len(data)] = data
    return out


def _hash(pcm: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(pcm).tobytes()).hexdigest()[:24]


PEAK_MARGIN = 16  # samples either side a stretch's oversampled peak depends on (the filter reaches 10)


def scene_hashes(scene: ScenePcm, known_peaks: dict[str, float] | None = None) -> dict:
    """Hashes of a scene's stretches and of the rolls its neighbours borrow: each stretch's
    own samples, the `PRE_ROLL` before it and the `POST_ROLL` after it inside the scene, and
    the scene's first `POST_ROLL` and last `PRE_ROLL` samples. Also each stretch's true peak
    (the scene's is the largest), taken from `known_peaks` (by the hash of the samples it
    depends on) where an earlier version of the scene had the same stretch."""
    pcm = read_pcm(scene.wav, 0, scene.samples, scene.samples)
    bounds = [*scene.cuts, scene.samples]
    known = dict(known_peaks or {})
    peaks = []
    for a, b in zip(bounds, bounds[1:]):
        lo, hi = max(a - PEAK_MARGIN, 0), min(b + PEAK_MARGIN, scene.samples)
        key = f"{_hash(pcm[lo:hi, 0])}-{a - lo}-{hi - b}"
        if key not in known:
            known[key] = _window_peak_dbtp(pcm[lo:hi, 0], a - lo, b - lo)
        peaks.append(key)
    return {
        "own": [_hash(pcm[a:b]) for a, b in zip(bounds, bounds[1:])],
        "pre": [_hash(pcm[max(a - PRE_ROLL, 0) : a]) for a in bounds[:-1]],
        "post": [_hash(pcm[b : b + POST_ROLL]) for b in bounds[1:]],
        "head": _hash(pcm[:POST_ROLL]),
        "tail": _hash(pcm[scene.samples - PRE_ROLL :]),
        "peaks": {k: known[k] for k in peaks},
        "true_peak_dbtp": max((known[k] for k in peaks), default=float("-inf")),
    }


def _window_peak_dbtp(x: np.ndarray, a: int, b: int) -> float:
    """True peak of samples `[a, b)` of `x` (int16), oversampled as the whole track would be:
    `x` holds the samples around them that the filter reaches (or the track's own edge)."""
    over = oversampled(x.astype(np.float32) / 32768.0, OVERSAMPLING)[a * OVERSAMPLING : b * OVERSAMPLING]
    peak = float(np.max(np.abs(over))) if over.size else 0.0
    return 20 * np.log10(peak) if peak > 0 else float("-inf")


def lecture_stretches(scenes: Sequence[ScenePcm], hashes: Sequence[dict]) -> list[Stretch]:
    """The lecture's stretches in order, each digest covering its samples and both rolls
    (the neighbour scene's edge where a roll crosses a join; silence before the first)."""
    stretches, clock = [], 0
    silent = "silence"
    for i, (scene, h) in enumerate(zip(scenes, hashes)):
        bounds = [*scene.cuts, scene.samples]
        for j, (a, b) in enumerate(zip(bounds, bounds[1:])):
            pre = h["pre"][j] if j else (hashes[i - 1]["tail"] if i else silent)
            post = h["post"][j] if j < len(bounds) - 2 else (hashes[i + 1]["head"] if i + 1 < len(scenes) else silent)
            digest = hashlib.sha256(f"{AAC_ARGS}|{pre}|{h['own'][j]}|{post}|{b - a}".encode()).hexdigest()[:24]
            stretches.append(Stretch(scene.name, clock + a, clock + b, digest, f"{h['own'][j]}-{b - a}"))
        clock += scene.samples
    return stretches


def stretch_file(folder: Path, stretch: Stretch) -> Path:
    """A stretch's packets as ADTS: the packet before its first (the priming that lets a
    stream start there) followed by its own."""
    return Path(folder) / f"{stretch.digest}.aac"


def encode_runs(scenes: Sequence[ScenePcm], runs: Sequence[Sequence[Stretch]], folder: Path) -> None:
    """Encode each run of consecutive stretches in one pass with its rolls and keep each
    stretch's packets (the one before included) in its own file: every run its own
    encoding, all of them in one ffmpeg process."""
    folder.mkdir(parents=True, exist_ok=True)
    # *.part: a killed build's leftovers are swept
    files = [(folder / f".run-{r[0].digest}.wav.part", folder / f".run-{r[0].digest}.adts.part") for r in runs]
    try:
        starts = []
        for run, (wav, _) in zip(runs, files):
            lo, pcm = _run_pcm(scenes, run)
            soundfile.write(str(wav), pcm, RATE_HZ, subtype="PCM_16", format="WAV")
            starts.append(lo)
        stretches = sum(len(r) for r in runs)
        encode_adts_each(files, f"encoding {stretches} stretches of the narration")
        for run, lo, (_, adts) in zip(runs, starts, files):
            _keep_packets(run, lo, adts_packets(adts.read_bytes(), adts), folder, adts)
    finally:
        for wav, adts in files:
            wav.unlink(missing_ok=True)
            adts.unlink(missing_ok=True)


def _run_pcm(scenes: Sequence[ScenePcm], run: Sequence[Stretch]) -> tuple[int, np.ndarray]:
    """The lecture's samples a run is encoded from, its rolls included: (first sample, PCM)."""
    starts = np.cumsum([0] + [s.samples for s in scenes])
    lo, hi = run[0].start - PRE_ROLL - AAC_FRAME, run[-1].end + POST_ROLL
    pcm = np.zeros((hi - lo, CHANNELS), dtype=np.int16)
    for scene, first in zip(scenes, starts):
        a, b = max(lo, first), min(hi, first + scene.samples)
        if a < b:
            data = read_pcm(scene.wav, a - first, b - first, scene.samples)
            pcm[a - lo : a - lo + len(data)] = data
    return int(lo), pcm


def _keep_packets(run: Sequence[Stretch], lo: int, packets: list[bytes], folder: Path, where: Path) -> None:
    # Packet k of an encoding decodes its input's samples [1024 (k - 1), 1024 k): the encoder
    # delays everything by one packet (its priming).
    for stretch in run:
        first = (stretch.start - lo) // AAC_FRAME  # the packet before the stretch's first
        kept = packets[first : first + 1 + stretch.packets]
        if len(kept) != 1 + stretch.packets:
            raise SoundtrackError(f"{where}: {len(packets)} packets, the stretch needs {first + 1 + stretch.packets}")
        with atomic_path(stretch_file(folder, stretch)) as tmp:
            tmp.write_bytes(b"".join(kept))


BATCH = 8  # stretches encoded by one ffmpeg process, each in its own encoding


def encode_stretches(scenes: Sequence[ScenePcm], stretches: Sequence[Stretch], folder: Path) -> list[Stretch]:
    """Encode the stretches whose files are missing, each in its own pass (with its rolls),
    up to `BATCH` passes per ffmpeg process and `ENCODERS` processes at once; the stretches
    encoded."""
    from concurrent.futures import ThreadPoolExecutor

    todo = list({s.digest: s for s in stretches if not stretch_file(folder, s).is_file()}.values())
    # As many processes as encoders at least, so a few stretches still encode side by side.
    size = max(1, min(BATCH, -(-len(todo) // ENCODERS)))
    batches = [todo[i : i + size] for i in range(0, len(todo), size)]
    with ThreadPoolExecutor(max_workers=ENCODERS) as pool:
        for job in [pool.submit(encode_runs, scenes, [[s] for s in batch], folder) for batch in batches]:
            job.result()
    return todo


def join_stretches(folder: Path, stretches: Sequence[Stretch], out: Path) -> Path:
    """The stretches' packets in order as one ADTS stream: the first one's priming packet,
    then every stretch's own packets."""
    with atomic_path(Path(out)) as tmp, open(tmp, "wb") as sink:
        for i, stretch in enumerate(stretches):
            path = stretch_file(folder, stretch)
            data = path.read_bytes()
            # Only the first header is read (the file was written whole, from packets checked
            # one by one): the lecture's 100 000 packets are copied as bytes, not walked.
            sink.write(data if i == 0 else data[adts_packet_sizes(data[:7], path, whole=False)[0] :])
    return Path(out)


def prune_stretches(folder: Path, keep: set[str]) -> None:
    """Delete the stretch files of no recent lecture."""
    for path in Path(folder).glob("*.aac"):
        if path.name.split(".")[0] not in keep:
            path.unlink(missing_ok=True)


def stretches_to_m4a(folder: Path, stretches: Sequence[Stretch], out: Path) -> Path:
    """The stretches joined (`join_stretches`) as AAC in MP4, the priming packet declared."""
    from lecture.media.ffmpeg import wrap_adts

    adts = Path(out).with_name(f".{Path(out).name}.adts.part")
    try:
        join_stretches(folder, stretches, adts)
        wrap_adts(adts, Path(out), AAC_FRAME)
    finally:
        adts.unlink(missing_ok=True)
    return Path(out)
