"""The lecture's MP4 written by copying bytes: scene videos laid end to end, the narration beside.

`ffmpeg -f concat ... -c copy` reads every packet of every scene and of the narration and
writes them again one by one (1.1 s for the 36-minute lecture at preview on a quiet 2-core
machine, 2 s when it is busy), on the critical path of every edit. Nothing in those packets
changes, only the index: so the index is built here from the inputs' own sample tables, and
the media data is copied range by range inside the kernel (`os.copy_file_range`). Each
scene starts where ffmpeg's concat demuxer starts it (after the earlier files' header
durations), so the result is ffmpeg's join packet for packet: the same bytes, timestamps,
durations and key frames, the same streams and duration as ffprobe reads them (tested
against ffmpeg), with the index at the front and the two tracks interleaved every half
second. (The scenes carry their parameter sets with every key frame, as the build's encoder
writes them; where they do not, ffmpeg's join would insert them and this one keeps the
bytes as encoded: the sample description holds them either way.)

Only the shape the build makes is joined this way: single-track H.264 scenes with the same
sample description (bit rates aside), time scale and edit (the B-frame delay), and a
single-track narration. Anything else raises `NotJoinable`, and `write_mp4` hands it to ffmpeg.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from voiceover.atomic import atomic_path

CONTAINERS = frozenset({b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf"})
SAMPLE_TABLES = frozenset({b"stts", b"ctts", b"stss", b"stsc", b"stsz", b"stco", b"co64"})
# Per-sample boxes copied as they are with the narration (its samples do not change); the
# video's are rebuilt, and a video box outside these makes the inputs not joinable here.
KEPT_AUDIO_BOXES = frozenset({b"stsd", b"sgpd", b"sbgp"})
CHUNK_S = 0.5  # interleaving: at most this much of one track before the other's turn
COPY_STEP = 1 << 30
WIDE_FROM = 1 << 32  # bytes: 32-bit chunk offsets end here


class NotJoinable(ValueError):
    """The inputs are not of the one shape joined here; ffmpeg joins them instead."""


@dataclass(frozen=True)
class Box:
    kind: bytes
    start: int  # offset of the box's header in its file, bytes
    header: int  # header length, bytes
    size: int  # the whole box, header included, bytes
    body: bytes


def _boxes(data: bytes, base: int = 0) -> list[Box]:
    out, off = [], 0
    while off + 8 <= len(data):
        size, kind = struct.unpack_from(">I4s", data, off)
        header = 8
        if size == 1:
            (size,) = struct.unpack_from(">Q", data, off + 8)
            header = 16
        elif size == 0:
            size = len(data) - off
        if size < header or off + size > len(data):
            raise NotJoinable(f"caja {kind!r} truncada")
        out.append(Box(kind, base + off, header, size, data[off + header : off + size]))
        off += size
    return out


def _child(box: Box, kind: bytes) -> Box:
    found = [b for b in _boxes(box.body) if b.kind == kind]
    if len(found) != 1:
        raise NotJoinable(f"{box.kind.decode()} sin una única caja {kind.decode()}")
    return found[0]


def _top_level(path: Path) -> tuple[bytes, bytes]:
    """(ftyp box bytes, moov body) of an MP4, reading only the boxes' headers and the two."""
    ftyp = moov = None
    with open(path, "rb") as f:
        end = os.fstat(f.fileno()).st_size
        off = 0
        while off + 8 <= end:
            f.seek(off)
            head = f.read(16)
            size, kind = struct.unpack_from(">I4s", head)
            header = 8
            if size == 1:
                (size,) = struct.unpack_from(">Q", head, 8)
                header = 16
            elif size == 0:
                size = end - off
            if size < header:
                raise NotJoinable(f"{path}: caja {kind!r} de tamaño {size}")
            if kind in (b"ftyp", b"moov"):
                f.seek(off)
                raw = f.read(size)
                if kind == b"ftyp":
                    ftyp = raw
                else:
                    moov = raw[header:]
            off += size
    if ftyp is None or moov is None:
        raise NotJoinable(f"{path}: sin ftyp o sin moov")
    return ftyp, moov


def _full(body: bytes) -> tuple[int, bytes]:
    """(version, the rest) of a full box's body."""
    return body[0], body[4:]


def _runs(body: bytes, width: int, signed: bool = False) -> np.ndarray:
    """A table of `entry_count` rows of `width` u32 (i32 when signed) after version+flags."""
    _, rest = _full(body)
    (count,) = struct.unpack_from(">I", rest)
    table = np.frombuffer(rest, dtype=">i4" if signed else ">u4", count=count * width, offset=4)
    return table.reshape(count, width).astype(np.int64)


def _expand(table: np.ndarray) -> np.ndarray:
    """(count, value) rows to one value per sample."""
    return np.repeat(table[:, 1], table[:, 0])


@dataclass(frozen=True)
class Track:
    """One track of one file, sample by sample (arrays of one entry per sample)."""

    path: Path
    ftyp: bytes
    mvhd: bytes  # body
    trak: Box
    timescale: int  # media ticks per second
    movie_timescale: int
    movie_duration: int  # the file's duration (mvhd), in the movie's time scale
    sizes: np.ndarray  # bytes
    offsets: np.ndarray  # in the file, bytes
    durations: np.ndarray  # media ticks
    composition: np.ndarray | None  # ctts offsets, media ticks (None: no ctts)
    sync: np.ndarray | None  # 1-based sample numbers of key frames (None: every sample)
    edit_media_time: int  # media ticks the presentation starts at
    edit_duration: int | None  # the edit's length, in the movie's time scale (None: no edit list)
    stsd: bytes  # the sample description box, whole
    extra: tuple[Box, ...]  # the sample table's other boxes


def read_track(path: Path) -> Track:
    ftyp, moov_body = _top_level(path)
    top = _boxes(moov_body)
    traks = [b for b in top if b.kind == b"trak"]
    if len(traks) != 1:
        raise NotJoinable(f"{path}: {len(traks)} pistas (se espera una)")
    trak = traks[0]
    mvhd = next(b for b in top if b.kind == b"mvhd").body
    movie_timescale = _timescale(mvhd)
    mdia = _child(trak, b"mdia")
    timescale = _timescale(_child(mdia, b"mdhd").body)
    stbl = _child(_child(mdia, b"minf"), b"stbl")
    tables = {b.kind: b for b in _boxes(stbl.body)}
    sizes = _sizes(tables[b"stsz"].body)
    offsets = _offsets(tables, len(sizes))
    durations = _expand(_runs(tables[b"stts"].body, 2))
    if len(durations) != len(sizes):
        raise NotJoinable(f"{path}: stts y stsz no cuentan las mismas muestras")
    composition = None
    if b"ctts" in tables:
        version, _ = _full(tables[b"ctts"].body)
        composition = _expand(_runs(tables[b"ctts"].body, 2, signed=version == 1))
        if len(composition) != len(sizes):
            raise NotJoinable(f"{path}: ctts no cuenta todas las muestras")
    sync = _runs(tables[b"stss"].body, 1)[:, 0] if b"stss" in tables else None
    return Track(
        path=Path(path),
        ftyp=ftyp,
        mvhd=mvhd,
        trak=trak,
        timescale=timescale,
        movie_timescale=movie_timescale,
        movie_duration=_mvhd_duration(mvhd),
        sizes=sizes,
        offsets=offsets,
        durations=durations,
        composition=composition,
        sync=sync,
        edit_media_time=_edit(trak)[1],
        edit_duration=_edit(trak)[0],
        stsd=_raw(tables[b"stsd"]),
        extra=tuple(b for k, b in tables.items() if k not in SAMPLE_TABLES and k != b"stsd"),
    )


def _raw(box: Box) -> bytes:
    return struct.pack(">I4s", 8 + len(box.body), box.kind) + box.body


def _timescale(body: bytes) -> int:
    version, rest = _full(body)
    return struct.unpack_from(">I", rest, 16 if version == 1 else 8)[0]


def _mvhd_duration(body: bytes) -> int:
    version, rest = _full(body)
    return struct.unpack_from(">Q", rest, 20)[0] if version == 1 else struct.unpack_from(">I", rest, 12)[0]


def _sizes(body: bytes) -> np.ndarray:
    _, rest = _full(body)
    fixed, count = struct.unpack_from(">II", rest)
    if fixed:
        return np.full(count, fixed, dtype=np.int64)
    return np.frombuffer(rest, dtype=">u4", count=count, offset=8).astype(np.int64)


def _offsets(tables: dict[bytes, Box], samples: int) -> np.ndarray:
    if b"stco" in tables:
        _, rest = _full(tables[b"stco"].body)
        (count,) = struct.unpack_from(">I", rest)
        chunks = np.frombuffer(rest, dtype=">u4", count=count, offset=4).astype(np.int64)
    else:
        _, rest = _full(tables[b"co64"].body)
        (count,) = struct.unpack_from(">I", rest)
        chunks = np.frombuffer(rest, dtype=">u8", count=count, offset=4).astype(np.int64)
    stsc = _runs(tables[b"stsc"].body, 3)
    per_chunk = np.zeros(len(chunks), dtype=np.int64)
    firsts = list(stsc[:, 0] - 1) + [len(chunks)]
    for (first, end), spc in zip(zip(firsts, firsts[1:]), stsc[:, 1]):
        per_chunk[first:end] = spc
    if per_chunk.sum() != samples:
        raise NotJoinable("stsc no reparte todas las muestras en sus bloques")
    return _chunked_offsets(chunks, per_chunk, samples, tables)


def _chunked_offsets(chunks: np.ndarray, per_chunk: np.ndarray, samples: int, tables: dict[bytes, Box]) -> np.ndarray:
    sizes = _sizes(tables[b"stsz"].body)
    chunk_of = np.repeat(np.arange(len(chunks)), per_chunk)
    first_of_chunk = np.concatenate([[0], np.cumsum(per_chunk)[:-1]])
    within = np.cumsum(sizes) - sizes  # bytes before each sample, counted from the first
    return chunks[chunk_of] + within - within[first_of_chunk[chunk_of]]


def _edit(trak: Box) -> tuple[int | None, int]:
    """(duration in the movie's time scale, media time) of the track's one edit."""
    edts = [b for b in _boxes(trak.body) if b.kind == b"edts"]
    if not edts:
        return None, 0
    version, rest = _full(_child(edts[0], b"elst").body)
    (count,) = struct.unpack_from(">I", rest)
    if count != 1:
        raise NotJoinable(f"lista de ediciones con {count} entradas")
    if version == 1:
        duration, media_time, rate = struct.unpack_from(">QqI", rest, 4)
    else:
        duration, media_time, rate = struct.unpack_from(">IiI", rest, 4)
    if rate != 0x00010000 or media_time < 0:
        raise NotJoinable("edición vacía o con velocidad distinta de 1")
    return duration, media_time


# -- writing ---------------------------------------------------------------------------


def _box(kind: bytes, *parts: bytes) -> bytes:
    body = b"".join(parts)
    return struct.pack(">I4s", 8 + len(body), kind) + body


def _full_box(kind: bytes, version: int, body: bytes) -> bytes:
    return _box(kind, bytes([version, 0, 0, 0]), body)


def _rle(values: np.ndarray) -> np.ndarray:
    """One value per sample to (count, value) rows."""
    if not len(values):
        return np.zeros((0, 2), dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
    counts = np.diff(np.concatenate([starts, [len(values)]]))
    return np.stack([counts, values[starts]], axis=1)


def _table(kind: bytes, rows: np.ndarray, signed: bool = False, version: int = 0) -> bytes:
    dtype = ">i4" if signed else ">u4"
    return _full_box(kind, version, struct.pack(">I", len(rows)) + rows.astype(dtype).tobytes())


@dataclass(frozen=True)
class Joined:
    """A track of the output: its samples, and the runs of them copied as chunks."""

    source: Track
    files: tuple[Path, ...]  # the file each sample's bytes are in, by index in `file_of`
    file_of: np.ndarray
    sizes: np.ndarray
    offsets: np.ndarray
    dts: np.ndarray  # decode time of each sample, media ticks
    durations: np.ndarray
    composition: np.ndarray | None
    sync: np.ndarray | None


def _has_btrt(stsd: bytes) -> bool:
    """Whether the (single) sample entry ends with its bit rates (`btrt`, 20 bytes): each
    scene's own, the one part of its description that differs from the others'."""
    return stsd[-20:-12] == struct.pack(">I4s", 20, b"btrt")


def _description(stsd: bytes) -> bytes:
    return stsd[:-20] if _has_btrt(stsd) else stsd


def _with_bit_rates(stsd: bytes, sizes: np.ndarray, duration: int, timescale: int) -> bytes:
    """The joined track's description: its bit rates as ffmpeg's muxer writes them (no buffer
    size, the average over the whole track, the first scene's peak unless the average is higher)."""
    if not _has_btrt(stsd) or duration <= 0:
        return stsd
    average = int(sizes.sum()) * 8 * timescale // duration
    peak = max(struct.unpack_from(">I", stsd, len(stsd) - 8)[0], average)
    return stsd[:-12] + struct.pack(">III", 0, peak, average)


def _join_video(tracks: Sequence[Track]) -> Joined:
    first = tracks[0]
    for t in tracks[1:]:
        same = (_description(t.stsd), t.timescale, t.edit_media_time, t.composition is None, t.sync is None)
        if same != (
            _description(first.stsd),
            first.timescale,
            first.edit_media_time,
            first.composition is None,
            first.sync is None,
        ):
            raise NotJoinable(f"{t.path}: no se codificó como {first.path}")
    for t in tracks:
        if t.extra:
            raise NotJoinable(f"{t.path}: tabla de muestras con {[b.kind.decode() for b in t.extra]}")
    counts = [len(t.sizes) for t in tracks]
    before = np.concatenate([[0], np.cumsum(counts)[:-1]])
    durations = np.concatenate([t.durations for t in tracks])
    # Each scene starts where ffmpeg's concat demuxer starts it: after the earlier files'
    # durations as their headers give them (whole microseconds), in this track's ticks
    # rounded to the nearest; the last sample of the scene before lasts up to there.
    starts_us = np.cumsum([0] + [t.movie_duration * 1_000_000 // t.movie_timescale for t in tracks[:-1]])
    starts = [(int(us) * first.timescale + 500_000) // 1_000_000 for us in starts_us]
    for k in range(1, len(tracks)):
        last = int(before[k]) - 1
        durations[last] += starts[k] - (starts[k - 1] + int(tracks[k - 1].durations.sum()))
        if durations[last] <= 0:
            raise NotJoinable(f"{tracks[k - 1].path}: dura más que su cabecera")
    sync = None
    if first.sync is not None:
        sync = np.concatenate([t.sync + b for t, b in zip(tracks, before)])
    composition = None
    if first.composition is not None:
        composition = np.concatenate([t.composition for t in tracks])
    return Joined(
        source=first,
        files=tuple(t.path for t in tracks),
        file_of=np.repeat(np.arange(len(tracks)), counts),
        sizes=np.concatenate([t.sizes for t in tracks]),
        offsets=np.concatenate([t.offsets for t in tracks]),
        dts=np.cumsum(durations) - durations,
        durations=durations,
        composition=composition,
        sync=sync,
    )


def _as_joined(track: Track) -> Joined:
    if any(b.kind not in KEPT_AUDIO_BOXES for b in track.extra):
        raise NotJoinable(f"{track.path}: tabla de muestras con {[b.kind.decode() for b in track.extra]}")
    return Joined(
        source=track,
        files=(track.path,),
        file_of=np.zeros(len(track.sizes), dtype=np.int64),
        sizes=track.sizes,
        offsets=track.offsets,
        dts=np.cumsum(track.durations) - track.durations,
        durations=track.durations,
        composition=track.composition,
        sync=track.sync,
    )


def _chunks(track: Joined) -> np.ndarray:
    """Where each chunk of the track starts (sample index): every `CHUNK_S` of decode time,
    and wherever the bytes of consecutive samples are not consecutive in one file."""
    n = len(track.sizes)
    step = int(CHUNK_S * track.source.timescale)
    slot = track.dts // step
    apart = (track.file_of[1:] != track.file_of[:-1]) | (track.offsets[1:] != track.offsets[:-1] + track.sizes[:-1])
    new = np.concatenate([[True], (slot[1:] != slot[:-1]) | apart])
    return np.flatnonzero(new) if n else np.zeros(0, dtype=np.int64)


def _movie_duration(track: Joined, movie_ts: int) -> int:
    """The track's presentation, in the movie's time scale. One file's track keeps its own
    edit's; a joined one lasts up to the end of its latest sample in composition order from
    where its edit starts (past the B-frame delay), rounded up as ffmpeg's muxer rounds it."""
    src = track.source
    if len(track.files) == 1 and src.edit_duration is not None and src.movie_timescale == movie_ts:
        return src.edit_duration
    ends = track.dts + track.durations + (track.composition if track.composition is not None else 0)
    shown = int(ends.max()) - src.edit_media_time if len(ends) else 0
    return -(-shown * movie_ts // src.timescale)


def _trak(
    track: Joined, track_id: int, chunk_offsets: np.ndarray, chunk_starts: np.ndarray, movie_ts: int, wide: bool
) -> bytes:
    """The output `trak` box: the source's boxes, durations and sample tables made anew."""
    src = track.source
    media_duration = int(track.durations.sum())
    movie_duration = _movie_duration(track, movie_ts)
    per_chunk = np.diff(np.concatenate([chunk_starts, [len(track.sizes)]]))
    stsc_rows = _rle(per_chunk)  # (count of chunks, samples per chunk)
    firsts = np.concatenate([[0], np.cumsum(stsc_rows[:, 0])[:-1]]) + 1
    stsc = np.stack([firsts, stsc_rows[:, 1], np.ones(len(firsts), dtype=np.int64)], axis=1)
    stsd = _with_bit_rates(src.stsd, track.sizes, media_duration, src.timescale) if track.files[1:] else src.stsd
    tables = [stsd, _table(b"stts", _rle(track.durations))]
    if track.sync is not None:
        tables.append(_table(b"stss", track.sync.reshape(-1, 1)))
    if track.composition is not None:
        signed = bool((track.composition < 0).any())
        tables.append(_table(b"ctts", _rle(track.composition), signed=signed, version=1 if signed else 0))
    tables.append(_table(b"stsc", stsc))
    tables.append(_full_box(b"stsz", 0, struct.pack(">II", 0, len(track.sizes)) + track.sizes.astype(">u4").tobytes()))
    if wide:
        tables.append(
            _full_box(b"co64", 0, struct.pack(">I", len(chunk_offsets)) + chunk_offsets.astype(">u8").tobytes())
        )
    else:
        tables.append(_table(b"stco", chunk_offsets.reshape(-1, 1)))
    tables += [_raw(b) for b in src.extra]
    stbl = _box(b"stbl", *tables)
    parts = []
    for box in _boxes(src.trak.body):
        if box.kind == b"tkhd":
            parts.append(_tkhd(box.body, track_id, movie_duration))
        elif box.kind == b"edts":
            kept = len(track.files) == 1 and movie_duration == src.edit_duration
            parts.append(_raw(box) if kept else _edts(movie_duration, src.edit_media_time))
        elif box.kind == b"mdia":
            parts.append(_mdia(box, media_duration, stbl))
        else:
            parts.append(_raw(box))
    return _box(b"trak", *parts)


def _tkhd(body: bytes, track_id: int, duration: int) -> bytes:
    version = body[0]
    b = bytearray(body)
    if version == 1:
        struct.pack_into(">I", b, 20, track_id)
        struct.pack_into(">Q", b, 28, duration)
    else:
        struct.pack_into(">I", b, 12, track_id)
        struct.pack_into(">I", b, 20, duration)
    return _box(b"tkhd", bytes(b))


def _edts(duration: int, media_time: int) -> bytes:
    if duration >= 1 << 32:
        entry = struct.pack(">IqqI", 1, duration, media_time, 0x00010000)
        return _box(b"edts", _full_box(b"elst", 1, entry))
    return _box(b"edts", _full_box(b"elst", 0, struct.pack(">IIiI", 1, duration, media_time, 0x00010000)))


def _mdia(mdia: Box, duration: int, stbl: bytes) -> bytes:
    parts = []
    for box in _boxes(mdia.body):
        if box.kind == b"mdhd":
            b = bytearray(box.body)
            if b[0] == 1:
                struct.pack_into(">Q", b, 24, duration)
            else:
                struct.pack_into(">I", b, 16, duration)
            parts.append(_box(b"mdhd", bytes(b)))
        elif box.kind == b"minf":
            inner = [stbl if b.kind == b"stbl" else _raw(b) for b in _boxes(box.body)]
            parts.append(_box(b"minf", *inner))
        else:
            parts.append(_raw(box))
    return _box(b"mdia", *parts)


def _mvhd(body: bytes, duration: int, next_track: int) -> bytes:
    b = bytearray(body)
    if b[0] == 1:
        struct.pack_into(">Q", b, 24, duration)
    else:
        struct.pack_into(">I", b, 16, duration)
    struct.pack_into(">I", b, len(b) - 4, next_track)
    return _box(b"mvhd", bytes(b))


def join(videos: Sequence[Path], audio: Path, out: Path) -> Path:
    """`videos` end to end with `audio` beside them, in one MP4 at `out` (index first)."""
    if not videos:
        raise NotJoinable("ningún vídeo que unir")
    video = _join_video([read_track(Path(v)) for v in videos])
    narration = _as_joined(read_track(Path(audio)))
    tracks = (video, narration)
    starts = [_chunks(t) for t in tracks]
    lengths = [np.add.reduceat(t.sizes, ss) if len(ss) else ss for t, ss in zip(tracks, starts)]
    # The write order: chunks by decode time in seconds, the video's first at a tie.
    order = sorted(
        (int(t.dts[s]) / t.source.timescale, i, k)
        for i, (t, ss) in enumerate(zip(tracks, starts))
        for k, s in enumerate(ss)
    )
    relative = [np.zeros(len(ss), dtype=np.int64) for ss in starts]
    data = 0  # bytes of media data
    for _, i, k in order:
        relative[i][k] = data
        data += int(lengths[i][k])
    movie_ts = video.source.movie_timescale
    ftyp = video.source.ftyp
    # The narration's user data (ffmpeg's encoder tag), as ffmpeg's join writes its own.
    udta = [_raw(b) for b in _boxes(_top_level(narration.source.path)[1]) if b.kind == b"udta"]
    wide = data + (64 << 20) >= WIDE_FROM  # 64-bit offsets (and mdat size) once near 4 GiB

    def moov(base: int) -> bytes:
        traks = [_trak(t, n + 1, relative[n] + base, starts[n], movie_ts, wide) for n, t in enumerate(tracks)]
        duration = max(_movie_duration(t, movie_ts) for t in tracks)
        return _box(b"moov", _mvhd(video.source.mvhd, duration, len(tracks) + 1), *traks, *udta)

    mdat = struct.pack(">I4sQ", 1, b"mdat", 16 + data) if wide else struct.pack(">I4s", 8 + data, b"mdat")
    index = moov(len(ftyp) + len(moov(0)) + len(mdat))  # its size does not depend on the offsets
    with atomic_path(Path(out)) as tmp:
        with open(tmp, "wb", buffering=0) as dst:
            dst.write(ftyp + index + mdat)
            sources: dict[Path, BinaryIO] = {}
            try:
                for _, i, k in order:
                    t = tracks[i]
                    first = int(starts[i][k])
                    path = t.files[int(t.file_of[first])]
                    if path not in sources:
                        sources[path] = open(path, "rb")
                    _copy(sources[path], dst, int(t.offsets[first]), int(lengths[i][k]))
            finally:
                for f in sources.values():
                    f.close()
    return Path(out)


def _copy(src: BinaryIO, dst: BinaryIO, offset: int, length: int) -> None:
    """`length` bytes of `src` from `offset` appended to `dst`, inside the kernel if it can."""
    while length:
        try:
            n = os.copy_file_range(src.fileno(), dst.fileno(), min(length, COPY_STEP), offset)
        except OSError:
            n = 0
        if n <= 0:
            src.seek(offset)
            block = src.read(min(length, COPY_STEP))
            if not block:
                raise NotJoinable(f"{src.name}: termina antes de sus muestras")
            dst.write(block)
            n = len(block)
        offset += n
        length -= n


def write_mp4(videos: Sequence[Path], audio: Path, out: Path, what: str) -> Path:
    """`videos` end to end with `audio` beside them at `out`: by copying bytes (`join`) when
    the inputs are of the build's shape, by ffmpeg's stream copy otherwise."""
    from lecture.media.ffmpeg import concat_mux, mux_copy

    try:
        return join(videos, audio, out)
    except NotJoinable:
        if len(videos) == 1:
            return mux_copy(videos[0], audio, out)
        return concat_mux(videos, audio, out, what)
