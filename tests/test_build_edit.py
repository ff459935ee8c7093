"""An edit costs what it changes (issue 24): the narration is encoded in stretches that join
exactly and are encoded again only where their samples change, and a scene edited after its
first beats is rendered only from the first beat that changed, its head copied from the
earlier render, frame for frame what an unsplit render draws."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile
from fixtures.build_support import fresh_copy, narration_offsets_ms, quiet_console
from test_build_chunks import FPS, ChunkScene, timeline_of

from lecture.farm import jobs, scene_cache
from lecture.farm.jobs import drawn_alike, shared_cut
from lecture.media import soundtrack as st
from lecture.media.ffmpeg import framemd5
from lecture.media.sync_check import best_lag
from voiceover.timeline import Timeline, timing_fact


# -- the packet grid and the stretches (no build) -------------------------------------------
def test_every_quality_rounds_scenes_to_whole_aac_packets_of_narration():
    assert st.grid_frames(15) == 8 and st.grid_frames(60) == 32  # 25 600 samples: 0.533 s
    for fps in (15, 30, 60):
        for frames in (1, 47, 48, 1000):
            padded = st.on_grid(frames, fps)
            assert padded >= frames and padded - frames < st.grid_frames(fps)
            assert padded * (st.RATE_HZ // fps) % st.AAC_FRAME == 0


def test_stretches_start_at_beat_starts_on_the_grid_and_none_is_short():
    rate = st.RATE_HZ
    samples = 60 * rate
    cuts = st.stretch_cuts([0.0, 3.0, 12.0, 30.0, 35.0, 55.0], samples)
    assert cuts[0] == 0 and all(c % st.AAC_FRAME == 0 for c in cuts)
    # 3 s and 35 s are too near the cut before; 55 s too near the end
    beats = [c for c in cuts if any(abs(c - s * rate) < st.AAC_FRAME for s in (0.0, 12.0, 30.0))]
    assert len(beats) == 3 and not any(abs(c - s * rate) < st.AAC_FRAME for c in cuts for s in (3.0, 35.0, 55.0))
    # Each beat's stretch in pieces measured from its start: none shorter than a piece, none twice as long.
    piece = round(st.PIECE_S * rate / st.AAC_FRAME) * st.AAC_FRAME
    lengths = np.diff([*cuts, samples])
    assert all(piece <= n < 2 * piece for n in lengths)
    assert all((c - max(b for b in beats if b <= c)) % piece == 0 for c in cuts)
    # A longer scene (a sentence added at its end) keeps every cut before its old end.
    longer = st.stretch_cuts([0.0, 3.0, 12.0, 30.0, 35.0, 55.0], samples + rate)
    assert set(cuts) <= set(longer)
    assert st.stretch_cuts([0.0], 2 * rate) == (0,)  # a scene shorter than a piece: one stretch


def _tone(seconds: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(round(seconds * st.RATE_HZ)) / st.RATE_HZ
    mono = 0.3 * np.sin(2 * np.pi * (300 + 40 * seed) * t) * (0.5 + 0.5 * np.sin(2 * np.pi * 0.9 * t))
    mono = mono + 0.02 * rng.standard_normal(len(t))
    return (np.stack([mono, mono], 1) * 32767).astype(np.int16)


def _decode(path: Path) -> np.ndarray:
    out = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(path), "-ac", "1", "-f", "f32le", "-"], capture_output=True, check=True
    ).stdout
    return np.frombuffer(out, dtype=np.float32)


def _lecture(tmp_path: Path, lengths_s: list[float], seeds: list[int]):
    scenes = []
    for i, (seconds, seed) in enumerate(zip(lengths_s, seeds)):
        wav = tmp_path / f"s{i}.{seed}.wav"
        soundfile.write(str(wav), _tone(seconds, seed), st.RATE_HZ, subtype="PCM_16")
        samples = round(seconds * st.RATE_HZ / st.AAC_FRAME) * st.AAC_FRAME
        scenes.append(st.ScenePcm(f"s{i}", wav, samples, st.stretch_cuts([0.0, seconds / 2], samples)))
    stretches = st.lecture_stretches(scenes, [st.scene_hashes(s) for s in scenes])
    return scenes, stretches


def test_stretches_encoded_apart_decode_where_one_encoding_would_and_only_changed_ones_are_encoded(tmp_path):
    store = tmp_path / "stretches"
    scenes, stretches = _lecture(tmp_path, [21.0, 18.5, 23.0], [1, 2, 3])
    assert len(stretches) == 12 and len(st.encode_stretches(scenes, stretches, store)) == 12  # 2 beats, 2 pieces each
    m4a = st.stretches_to_m4a(store, stretches, tmp_path / "lecture.m4a")
    decoded = _decode(m4a)
    source = np.concatenate([st.read_pcm(s.wav, 0, s.samples, s.samples)[:, 0] for s in scenes]) / 32768
    assert abs(len(decoded) - len(source)) <= 48  # the priming is dropped by the edit list
    # Every scene starts where it should, to the sample: no drift at a join.
    start = 0
    for scene in scenes:
        lo = max(start - 2400, 0)
        window = decoded[lo : start + 48_000 + 2400]
        assert lo + best_lag(source[start : start + 48_000].astype(np.float32), window) == start
        start += scene.samples
    # As close to the PCM across the joins as inside the scenes (no click, no gap).
    err = np.abs(decoded[: len(source)] - source)
    joins = np.cumsum([s.samples for s in scenes])[:-1]
    near = np.concatenate([err[j - 2048 : j + 2048] for j in joins])
    assert np.sqrt(np.mean(near**2)) <= 2 * np.sqrt(np.mean(err**2))

    # The second scene gets longer (what it says before its old end is kept): its last piece
    # and the next scene's first (whose pre-roll it is) are encoded again; nothing else.
    edited, again = _lecture(tmp_path, [21.0, 18.5, 23.0], [1, 2, 3])
    longer = _tone(20.0, 2)
    longer[: round(9.25 * st.RATE_HZ)] = _tone(18.5, 2)[: round(9.25 * st.RATE_HZ)]
    soundfile.write(str(edited[1].wav), longer, st.RATE_HZ, subtype="PCM_16")
    samples = round(20.0 * st.RATE_HZ / st.AAC_FRAME) * st.AAC_FRAME
    edited[1] = st.ScenePcm("s1", edited[1].wav, samples, edited[1].cuts)
    again = st.lecture_stretches(edited, [st.scene_hashes(s) for s in edited])
    redone = st.encode_stretches(edited, again, store)
    assert [(s.scene, again.index(s)) for s in redone] == [("s1", 7), ("s2", 8)]


def test_a_stretch_encoded_beside_others_in_one_process_holds_the_bytes_it_holds_encoded_alone(tmp_path):
    scenes, stretches = _lecture(tmp_path, [21.0, 9.0], [4, 5])
    alone, together = tmp_path / "alone", tmp_path / "together"
    for stretch in stretches[:3]:
        st.encode_runs(scenes, [[stretch]], alone)
    st.encode_runs(scenes, [[s] for s in stretches[:3]], together)
    for stretch in stretches[:3]:
        assert st.stretch_file(alone, stretch).read_bytes() == st.stretch_file(together, stretch).read_bytes()
    assert not list(together.glob("*.part"))  # the batch's WAV and ADTS files are gone


# -- video: the head of an earlier render -----------------------------------------------------
def test_the_cut_falls_at_the_first_beat_that_changed():
    before = timeline_of(("a", 8.0, {}), ("b", 3.0, {}), ("c", 9.0, {"x": 1.0}))
    last = timeline_of(("a", 8.0, {}), ("b", 3.0, {}), ("c", 9.5, {"x": 1.2}))
    middle = timeline_of(("a", 8.0, {}), ("b", 3.4, {}), ("c", 9.0, {"x": 1.0}))
    first = timeline_of(("a", 8.2, {}), ("b", 3.0, {}), ("c", 9.0, {"x": 1.0}))
    assert shared_cut(last, before, FPS) == round(11.0 * FPS)
    assert shared_cut(middle, before, FPS) == round(8.0 * FPS)
    assert shared_cut(first, before, FPS) == 0
    # A bookmark on a beat's first frame moves that beat's first animation a frame earlier.
    marked = timeline_of(("a", 8.0, {}), ("b", 3.0, {}), ("c", 9.0, {"y": 0.0}))
    assert shared_cut(marked, before, FPS) == round(8.0 * FPS)


def test_the_cut_falls_at_the_last_animation_drawn_from_timing_that_held():
    before = timeline_of(("a", 8.0, {}), ("b", 6.0, {"x": 1.0, "y": 4.0}))
    # What a render on `before` read, in order, and at each animation start how many of
    # those facts the frames before it were drawn from.
    read = [
        ("a", "start_s", ""), ("a", "end_s", ""), ("b", "start_s", ""),
        ("b", "bookmark_s", "x"), ("b", "bookmark_s", "y"), ("b", "speech_end_s", ""), ("b", "end_s", ""),
    ]  # fmt: skip
    log = {
        "timing_facts": [[*r, timing_fact(before, *r)] for r in read],
        "animation_starts": [[0, 0], [120, 2], [135, 4], [180, 5], [201, 6]],
    }
    # A sentence added after y: x and y hold, the speech's end moved.
    later = timeline_of(("a", 8.0, {}), ("b", 7.5, {"x": 1.0, "y": 4.0}))
    assert drawn_alike(later, log, FPS) == 180
    # y moved: only the frames before the animation that ran up to y are the same.
    middle = timeline_of(("a", 8.0, {}), ("b", 7.5, {"x": 1.0, "y": 4.5}))
    assert drawn_alike(middle, log, FPS) == 135
    # The first beat longer: nothing but the scene's start.
    assert drawn_alike(timeline_of(("a", 8.5, {}), ("b", 6.0, {"x": 1.0, "y": 4.0})), log, FPS) == 0
    # A log from before the facts were noted: the caller falls back on beat starts.
    assert drawn_alike(later, {"frames": 210}, FPS) is None
    with pytest.raises(ValueError, match="unknown timing fact"):
        timing_fact(before, "a", "length_s")


def _kept(c: ChunkScene, job, result) -> None:
    """The render kept in the scene cache as the build keeps it (record written last)."""
    record = scene_cache.CacheRecord.of_render(job.key, result.output, result.log, result.seconds, "test", {})
    record = replace(record, extra={"video_seal": None})
    scene_cache.save_record(c.work, record)


def _rendered_then_edited(c: ChunkScene, text: str, edited: str) -> Timeline:
    """The scene rendered whole and kept, then its script edited: the edited timeline."""
    first_job = c.job(c.timeline(), "a")
    first, _ = c.render(first_job, chunk_s=None, workers=1)
    _kept(c, first_job, first)
    c.script.write_text(c.script.read_text(encoding="utf-8").replace(text, edited), "utf-8")
    return c.timeline()


@pytest.mark.slow
# (2, 2.0): a scene the build would cut into chunks by itself still lends its head.
@pytest.mark.parametrize(("workers", "chunk_s"), [(1, None), (2, None), (2, 2.0)])
def test_an_edit_after_the_first_beat_renders_from_it_and_matches_an_unsplit_render(
    tmp_path, monkeypatch, workers, chunk_s
):
    monkeypatch.setattr(jobs, "MIN_HEAD_S", 0.0)  # TinyC lasts seven seconds
    monkeypatch.setattr(jobs, "MIN_CHUNK_S", 1.0)  # its last beat about three
    c = ChunkScene(tmp_path / "edit", monkeypatch)
    edited = _rendered_then_edited(c, "que gira.", "que gira, gira.")
    second, parts = c.render(c.job(edited, "b"), chunk_s=chunk_s, workers=workers)
    # The head lent; the last beat rendered, by as many processes as may draw it side by side.
    assert [p.reused for p in parts] == [True] + [False] * workers
    assert parts[1].start_frame == parts[0].end_frame >= round(edited.beats[2].start_s * FPS) - 1
    assert all(after.start_frame == before.end_frame for before, after in zip(parts, parts[1:]))
    # The same timeline rendered whole elsewhere: the same frames, bit for bit.
    alone = ChunkScene(tmp_path / "alone", monkeypatch)
    unsplit, _ = alone.render(alone.job(edited, "whole"), chunk_s=None, workers=1)
    assert framemd5(Path(second.output)) == framemd5(Path(unsplit.output))
    assert len(framemd5(Path(second.output))) == round(edited.total_s * FPS)


@pytest.mark.slow
def test_an_edit_inside_a_beat_keeps_the_frames_drawn_before_it(tmp_path, monkeypatch):
    """The first beat's last sentence lengthened: its first animation, aimed at the bookmark
    before that sentence, is taken from the earlier render; the rest is drawn."""
    monkeypatch.setattr(jobs, "MIN_HEAD_S", 0.0)
    c = ChunkScene(tmp_path / "edit", monkeypatch)
    edited = _rendered_then_edited(c, "Que gira.", "Que gira y gira.")
    second, parts = c.render(c.job(edited, "b"), chunk_s=None, workers=1)
    assert [p.reused for p in parts] == [True, False]
    assert parts[0].end_frame == round(edited.beats[0].bookmarks["gira"] * FPS)  # inside the first beat
    alone = ChunkScene(tmp_path / "alone", monkeypatch)
    unsplit, _ = alone.render(alone.job(edited, "whole"), chunk_s=None, workers=1)
    assert framemd5(Path(second.output)) == framemd5(Path(unsplit.output))


@pytest.mark.slow
def test_a_head_copied_ahead_to_the_wrong_frame_is_copied_again_to_where_the_rest_starts(tmp_path, monkeypatch):
    """The head is copied while the rest renders, to where the rest is planned to start; a
    copy that guessed wrong (here made one frame short on purpose) is not used."""
    monkeypatch.setattr(jobs, "MIN_HEAD_S", 0.0)
    copy_head, calls = jobs._copy_head, []

    def guessing_wrong(state, past):
        calls.append(past)
        return copy_head(state, past - 1 if len(calls) == 1 else past)

    monkeypatch.setattr(jobs, "_copy_head", guessing_wrong)
    c = ChunkScene(tmp_path / "edit", monkeypatch)
    edited = _rendered_then_edited(c, "Que gira.", "Que gira y gira.")
    second, parts = c.render(c.job(edited, "b"), chunk_s=None, workers=1)
    assert [p.reused for p in parts] == [True, False]
    assert calls == [parts[1].start_frame, parts[1].start_frame]  # ahead, then again once the rest was back
    alone = ChunkScene(tmp_path / "alone", monkeypatch)
    unsplit, _ = alone.render(alone.job(edited, "whole"), chunk_s=None, workers=1)
    assert framemd5(Path(second.output)) == framemd5(Path(unsplit.output))


def test_the_rest_is_parted_only_when_each_part_pays_its_start():
    assert jobs.rest_target_s(60.0, 2) == 30.0 and jobs.rest_target_s(60.0, 1) is None
    assert jobs.rest_target_s(60.0, 8) == 20.0 and jobs.rest_target_s(30.0, 2) is None


@pytest.mark.slow
def test_a_render_from_other_sources_lends_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(jobs, "MIN_HEAD_S", 0.0)
    c = ChunkScene(tmp_path, monkeypatch)
    first_job = c.job(c.timeline(), "a")
    first, _ = c.render(first_job, chunk_s=None, workers=1)
    _kept(c, first_job, first)
    c.scene.module.write_text(c.scene.module.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    c.script.write_text(c.script.read_text(encoding="utf-8").replace("que gira.", "que gira, gira."), "utf-8")
    _, parts = c.render(c.job(c.timeline(), "b"), chunk_s=None, workers=1)
    assert len(parts) == 1 and not parts[0].reused


# -- the build ----------------------------------------------------------------------------
@pytest.mark.slow
def test_editing_one_scene_encodes_only_its_stretches_and_the_lecture_stays_in_sync(tmp_path, monkeypatch):
    tiny = fresh_copy(tmp_path / "lecture").apply(monkeypatch)
    from lecture.build.pipeline import build

    store = tiny.cache / "build" / "preview" / "audio" / "stretches"
    before = {p.name for p in store.glob("*.aac")}
    script = tiny.script("tiny_b")
    script.write_text(
        script.read_text(encoding="utf-8").replace("Segunda prueba, un cuadrado.", "Segunda prueba: un cuadrado azul."),
        encoding="utf-8",
    )
    report = build("preview", jobs=2, console=quiet_console())
    assert report.ok, report.failed
    assert report.rendered == ["tiny_b"]
    new = {p.name for p in store.glob("*.aac")} - before
    assert len(new) == 1  # tiny_b's one stretch; tiny_a's comes before it and kept its samples
    assert set(report.encoded_s) == {"tiny_b"}
    assert all(abs(ms) <= 12 for ms in narration_offsets_ms(tiny)), narration_offsets_ms(tiny)
    # Not only the lecture against the scene's file: the file against its own PCM, to the sample.
    limited = soundfile.read(str(store.parent / "tiny_b.limited.wav"), dtype="float32", always_2d=True)[0][:, 0]
    played = np.concatenate([np.zeros(480, np.float32), _decode(tiny.out() / "scenes" / "tiny_b.mp4")])
    assert best_lag(limited[:24_000], played[:48_000]) == 480
    assert any("tiny_b" in line for line in report.redone)
    recent = json.loads((store / "recent.json").read_text(encoding="utf-8"))["lectures"]
    assert len(recent) == 2  # the lecture before the edit is kept: undoing it encodes nothing


@pytest.mark.slow
def test_watch_says_what_it_redid_and_how_long_after_the_save_the_lecture_was_ready(tmp_path, monkeypatch):
    import io
    import threading

    from rich.console import Console

    from lecture.build.watch import watch

    tiny = fresh_copy(tmp_path / "lecture").apply(monkeypatch)
    script = tiny.script("tiny_a")

    def edit():
        script.write_text(script.read_text(encoding="utf-8").replace("Un círculo.", "Un círculo rojo."), "utf-8")

    out = io.StringIO()
    timer = threading.Timer(0.8, edit)
    timer.start()
    try:
        report = watch(
            "preview", interval_s=0.1, settle_s=0.1, max_cycles=1, initial_build=False,
            console=Console(file=out, width=200), plan_file=tiny.plan,
        )  # fmt: skip
    finally:
        timer.cancel()
    assert report is not None and report.ok, report and report.failed
    text = out.getvalue()
    assert "rehecho: render de «tiny_a»" in text and "rehecho: rehecha: lecture.mp4" in text
    assert "narración codificada: «tiny_a»" in text
    assert "recompilado en" in text and "s después de guardar" in text
