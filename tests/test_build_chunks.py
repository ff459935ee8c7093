"""Chunked renders: a scene cut into ranges of its animations, each rendered by its own manim
process, joins into exactly the frames of an unsplit render; the chunk cache keeps what an
edit did not touch, and a killed render resumes with the chunks it finished."""

from __future__ import annotations

import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
from fixtures.build_support import FIXTURES, base_lecture, fresh_copy, quiet_console

from lecture.build.display import BuildDisplay
from lecture.build.pipeline import build
from lecture.farm.chunk import ChunkUnit, render_chunk
from lecture.farm.cuts import (
    Chunk,
    RenderedRange,
    TilingError,
    check_tiling,
    chunk_key,
    plan_chunks,
    target_seconds,
)
from lecture.farm.jobs import ChunkPolicy, SceneJob, run_chunked
from lecture.farm.launcher import RenderUnit, read_log
from lecture.farm.runners import ThreadRunner
from lecture.media.ffmpeg import framemd5
from lecture.plan import PlannedScene
from lecture.qualities import Quality
from voiceover.atomic import write_json
from voiceover.timeline import BeatTiming, Timeline

FPS = 15
PREVIEW = Quality("preview", 854, 480, FPS)


# -- planning, keys and tiling (no render) ------------------------------------------------
def timeline_of(*beats: tuple[str, float, dict], total_pad_s: float = 0.0) -> Timeline:
    """A timeline of beats laid end to end: (name, seconds, bookmarks relative to the beat)."""
    timed, clock = [], 0.0
    for name, seconds, marks in beats:
        timed.append(BeatTiming(name, clock, seconds - 0.2, 0.2, {k: clock + v for k, v in marks.items()}, ()))
        clock += seconds
    return Timeline("s", "S", tuple(timed), clock + total_pad_s, "s.toml")


def test_chunks_are_cut_at_the_beat_start_nearest_the_target_and_tile_the_scene():
    tl = timeline_of(("a", 8.0, {}), ("b", 3.0, {}), ("c", 9.0, {}), ("d", 4.0, {}), ("e", 6.0, {}))
    chunks = plan_chunks("s", tl, FPS, 10.0)
    # Beat starts at 0, 8, 11, 20, 24 s; from 0 the nearest to 10 s is 11 s (11 beats 8 by
    # distance 1 against 2); from 11 s the nearest to 21 s is 20 s; 10 s are left: the end.
    assert [(c.start_frame, c.end_frame) for c in chunks] == [(0, 165), (165, 300), (300, 450)]
    assert [c.index for c in chunks] == [0, 1, 2] and all(c.count == 3 for c in chunks)
    assert chunks[-1].is_last and not chunks[0].is_last


def test_a_beat_longer_than_the_target_is_cut_inside():
    tl = timeline_of(("largo", 40.0, {}))
    chunks = plan_chunks("s", tl, FPS, 10.0)
    assert [(c.start_frame, c.end_frame) for c in chunks] == [(0, 150), (150, 300), (300, 450), (450, 600)]


def test_no_target_leaves_the_scene_whole_and_kept_cuts_are_followed():
    tl = timeline_of(("a", 8.0, {}), ("b", 3.0, {}), ("c", 9.0, {}), ("d", 4.0, {}), ("e", 6.0, {}))
    assert [(c.start_frame, c.end_frame) for c in plan_chunks("s", tl, FPS, None)] == [(0, 450)]
    kept = plan_chunks("s", tl, FPS, 10.0, kept_cuts=[120])  # a cut an earlier build made at 8 s
    assert [(c.start_frame, c.end_frame) for c in kept] == [(0, 120), (120, 300), (300, 450)]
    with pytest.raises(ValueError, match="kept cuts"):
        plan_chunks("s", tl, FPS, 10.0, kept_cuts=[500])


def test_a_scene_is_split_when_it_alone_would_outlast_the_others_or_workers_would_wait():
    lecture = {"intro": 30.0, "iceberg": 69.0, "largo": 200.0, "cierre": 20.0}  # 319 s
    two = target_seconds(lecture, workers=2)  # a share: 159.5 s
    assert two == {"intro": None, "iceberg": None, "largo": 100.0, "cierre": None}
    many = target_seconds(lecture, workers=16)  # a share: 19.9 s; more workers than scenes
    assert many == {"intro": 20.0, "iceberg": 20.0, "largo": 20.0, "cierre": 20.0}  # none under 20 s
    alone = target_seconds({"iceberg": 69.0}, workers=2)  # --only iceberg on two workers
    assert alone["iceberg"] == 34.5
    halves = plan_chunks("s", timeline_of(("a", 69.0, {})), FPS, alone["iceberg"])
    assert [(c.start_frame, c.end_frame) for c in halves] == [(0, 518), (518, 1035)]
    assert target_seconds(lecture, workers=2, chunk_s=5.0) == {name: 5.0 for name in lecture}
    with pytest.raises(ValueError, match="chunk-s"):
        target_seconds(lecture, workers=2, chunk_s=0.0)


def test_a_chunk_key_changes_with_the_beats_it_can_see_and_not_with_later_ones(tmp_path):
    module = tmp_path / "escena.py"
    module.write_text("class S: pass\n", encoding="utf-8")
    scene = PlannedScene("s", module, "S", "s")
    before = timeline_of(("a", 8.0, {}), ("b", 3.0, {}), ("c", 9.0, {"x": 1.0}))
    later_edit = timeline_of(("a", 8.0, {}), ("b", 3.0, {}), ("c", 9.5, {"x": 1.2}))
    first_edit = timeline_of(("a", 8.5, {}), ("b", 3.0, {}), ("c", 9.0, {"x": 1.0}))
    first = Chunk("s", 0, 2, 0, 120)  # beat a only
    last = Chunk("s", 1, 2, 120, 300)

    def keys(tl):
        return [chunk_key(scene, tl, PREVIEW, c, tmp_path) for c in (first, last)]

    assert keys(later_edit)[0] == keys(before)[0]  # beat c moved: the chunk of beat a stays
    assert keys(later_edit)[1] != keys(before)[1]
    assert all(a != b for a, b in zip(keys(first_edit), keys(before)))
    unedited = keys(before)
    module.write_text("class S:\n    pass  # edited\n", encoding="utf-8")
    assert all(a != b for a, b in zip(keys(before), unedited))  # a source edit: every chunk
    # A beat with a bookmark on its first frame starts a frame early: the chunk before it sees it.
    marked = timeline_of(("a", 8.0, {}), ("b", 3.0, {"y": 0.0}), ("c", 9.0, {}))
    remarked = timeline_of(("a", 8.0, {}), ("b", 3.5, {"y": 0.0}), ("c", 9.0, {}))
    assert chunk_key(scene, marked, PREVIEW, first, tmp_path) != chunk_key(scene, remarked, PREVIEW, first, tmp_path)


def test_tiling_accepts_chunks_end_to_end_and_names_a_gap_an_overlap_or_a_short_video():
    check_tiling("s", [RenderedRange(0, 37, 37), RenderedRange(None, 37, 0), RenderedRange(37, 114, 77)], 114)
    with pytest.raises(TilingError, match="trozo 2: empieza en el fotograma 40"):
        check_tiling("s", [RenderedRange(0, 37, 37), RenderedRange(40, 114, 74)], 114)
    with pytest.raises(TilingError, match="trozo 2: empieza en el fotograma 30"):
        check_tiling("s", [RenderedRange(0, 37, 37), RenderedRange(30, 114, 84)], 114)
    with pytest.raises(TilingError, match="su vídeo tiene 36"):
        check_tiling("s", [RenderedRange(0, 37, 36), RenderedRange(37, 114, 77)], 114)
    with pytest.raises(TilingError, match="la escena en el 120"):
        check_tiling("s", [RenderedRange(0, 37, 37), RenderedRange(37, 114, 77)], 120)


# -- renders --------------------------------------------------------------------------------


class ChunkScene:
    """The fixture scene TinyC (three beats) copied under `root`, narrated with espeak-ng."""

    def __init__(self, root: Path, monkeypatch, quality: Quality = PREVIEW):
        self.quality = quality
        monkeypatch.setenv("FFN_CACHE_DIR", str(root / "cache"))
        root.mkdir(parents=True, exist_ok=True)
        shutil.copy2(FIXTURES / "chunk_scenes.py", root / "chunk_scenes.py")
        self.script = root / "tiny_c.toml"
        shutil.copy2(FIXTURES / "script" / "tiny_c.toml", self.script)
        self.root = root
        self.scene = PlannedScene("tiny_c", root / "chunk_scenes.py", "TinyC", "tiny_c", self.script)
        self.work = root / "work"

    def timeline(self) -> Timeline:
        from voiceover.timing import build_timeline

        return build_timeline("tiny_c", script=self.scene.load_script())

    def job(self, timeline: Timeline, tag: str) -> SceneJob:
        from lecture.farm.scene_cache import scene_key

        q = self.quality
        key = scene_key(self.scene, timeline, q)
        self.work.mkdir(parents=True, exist_ok=True)
        copy = self.work / f"{key}.timeline.json"
        write_json(copy, timeline.to_json())
        unit = RenderUnit(
            "tiny_c", str(self.scene.module), "TinyC", q.width_px, q.height_px, q.fps, str(copy),
            str(self.work / "media"), str(self.work / f"{key}.{tag}.mp4"), str(self.work / f"{key}.{tag}.log.json"),
        )  # fmt: skip
        return SceneJob(unit, key)

    def render(self, job: SceneJob, chunk_s: float | None, workers: int = 2):
        timeline = self.timeline()
        with BuildDisplay(quiet_console()) as display, ThreadPoolExecutor(workers) as pool:
            results = list(
                run_chunked(
                    [job], ThreadRunner(pool), display, scenes={"tiny_c": self.scene}, timelines={"tiny_c": timeline},
                    quality=self.quality, policy=ChunkPolicy(workers, chunk_s), numbers_digest="test",
                )
            )  # fmt: skip
        assert len(results) == 1
        _, result, outcomes = results[0]
        assert result.ok, result.error
        return result, outcomes


@pytest.mark.slow
def test_a_chunked_scene_decodes_to_exactly_the_frames_of_an_unsplit_render(tmp_path, monkeypatch):
    c = ChunkScene(tmp_path, monkeypatch)
    timeline = c.timeline()
    unsplit, whole = c.render(c.job(timeline, "whole"), chunk_s=None)
    chunked, parts = c.render(c.job(timeline, "chunked"), chunk_s=2.0)
    assert len(whole) == 1 and len(parts) == 3
    assert [p.start_frame for p in parts] == [0, parts[0].end_frame, parts[1].end_frame]
    expected = round(timeline.total_s * FPS)
    one, joined = framemd5(Path(unsplit.output)), framemd5(Path(chunked.output))
    assert len(one) == expected
    assert joined == one  # frame for frame, bit for bit: the chunks carry manim's own encoded animations
    assert len(set(one[parts[1].start_frame - 2 : parts[1].start_frame + 2])) == 4  # it moves across the cut
    # Each process tells its CPU seconds before its first drawn frame (start, skipped construct()) apart.
    assert all(0 < p.cpu_to_first_s < p.cpu_s for p in parts)
    log = read_log(chunked.log)
    assert log["frames"] == expected and log["numbers_read"] == {"params.gpt2_small.d_model": 768}
    assert log["bookmarks_fired_s"] == read_log(unsplit.log)["bookmarks_fired_s"]


@pytest.mark.slow
def test_chunking_does_not_depend_on_the_frame_size(tmp_path, monkeypatch):
    """4K frames (at a low rate, to stay quick): the same plan, the same exact join."""
    uhd = Quality("4k", 3840, 2160, 5)
    c = ChunkScene(tmp_path, monkeypatch, uhd)
    timeline = c.timeline()
    unsplit, _ = c.render(c.job(timeline, "whole"), chunk_s=None)
    chunked, parts = c.render(c.job(timeline, "chunked"), chunk_s=2.0)
    assert len(parts) == 3
    assert framemd5(Path(chunked.output)) == framemd5(Path(unsplit.output))
    stream = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
         "-of", "csv=p=0", chunked.output],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert stream == "3840,2160"


@pytest.mark.slow
def test_editing_the_last_beat_renders_only_from_the_chunk_it_is_in(tmp_path, monkeypatch):
    c = ChunkScene(tmp_path, monkeypatch)
    first, parts = c.render(c.job(c.timeline(), "a"), chunk_s=2.0)
    assert [p.reused for p in parts] == [False, False, False]
    text = c.script.read_text(encoding="utf-8")
    c.script.write_text(text.replace("que gira.", "que gira, gira."), encoding="utf-8")
    edited = c.timeline()
    second, again = c.render(c.job(edited, "b"), chunk_s=2.0)
    assert [p.reused for p in again[:2]] == [True, True] and not any(p.reused for p in again[2:])
    assert [p.key for p in again[:2]] == [p.key for p in parts[:2]]
    assert len(framemd5(Path(second.output))) == round(edited.total_s * FPS) > len(framemd5(Path(first.output)))
    # A different target length later still finds the chunks kept before the edit.
    third, kept = c.render(c.job(edited, "c"), chunk_s=3.0)
    assert kept[0].reused and kept[0].key == parts[0].key


@pytest.mark.slow
def test_a_killed_render_resumes_with_the_chunks_it_finished(tmp_path, monkeypatch):
    c = ChunkScene(tmp_path, monkeypatch)
    timeline = c.timeline()
    job = c.job(timeline, "a")
    _, parts = c.render(job, chunk_s=2.0)
    # As if the build had been killed after chunks 1 and 3: chunk 2's video and record are gone.
    folder = c.work / "chunks"
    for path in folder.glob(f"{parts[1].key}.*"):
        path.unlink()
    Path(job.unit.output).unlink()
    result, again = c.render(job, chunk_s=2.0)
    assert [p.reused for p in again] == [True, False, True]
    assert len(framemd5(Path(result.output))) == round(timeline.total_s * FPS)


@pytest.mark.slow
def test_an_animation_that_spans_a_cut_stays_whole_in_the_chunk_it_started_in(tmp_path, monkeypatch):
    c = ChunkScene(tmp_path, monkeypatch)
    timeline = c.timeline()
    media = tmp_path / "media"

    def chunk(start: int, end: int | None, name: str) -> ChunkUnit:
        return ChunkUnit(
            "tiny_c", 0, 2, str(c.scene.module), "TinyC", 854, 480, FPS, start, end,
            str(c.job(timeline, "x").unit.timeline_json), str(media), str(tmp_path / f"{name}.mp4"),
            str(tmp_path / f"{name}.log.json"),
        )  # fmt: skip

    # Frame 20 falls inside the square's turn (frames 19-37): the turn belongs to the first chunk.
    head = render_chunk(chunk(0, 20, "head"))
    assert head.ok, head.error
    assert (head.first_frame, head.end_frame, head.frames_written) == (0, 37, 37)
    # A range in which no animation starts holds nothing.
    empty = render_chunk(chunk(20, 30, "empty"))
    assert empty.ok and empty.range.empty and empty.output == "" and empty.frames_written == 0


def test_a_chunk_that_cannot_see_the_repository_says_so_in_spanish(tmp_path):
    from lecture.farm.remote import run_on_worker

    unit = ChunkUnit(
        "tiny_c", 0, 1, "x.py", "X", 854, 480, FPS, 0, None, str(tmp_path / "t.json"), str(tmp_path),
        str(tmp_path / "o.mp4"), str(tmp_path / "o.log.json"), repo=str(tmp_path / "sin-repo"),
    )  # fmt: skip
    from dataclasses import asdict

    result = run_on_worker(asdict(unit))
    assert not result["ok"]
    assert "no ve el repositorio" in result["error"] and "sistema de archivos compartido" in result["error"]
    assert "Traceback" not in result["error"]
    missing_python = run_on_worker(asdict(replace(unit, repo=str(Path(__file__).parents[1]), python="/nada/python")))
    assert "no ve el entorno virtual" in missing_python["error"]


@pytest.mark.slow
def test_a_build_killed_midway_resumes_with_the_chunks_it_finished(tmp_path, monkeypatch):
    lecture = fresh_copy(tmp_path / "lecture", with_build=False).apply(monkeypatch)
    proc = lecture.cli("build", "--only", "tiny_a", "--chunk-s", "1", "--jobs", "1")
    chunks = lecture.work("tiny_a") / "chunks"
    deadline = time.monotonic() + 300
    while not list(chunks.glob("*.record.json")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.kill()  # SIGKILL, with the first chunk kept and the next one rendering
    proc.communicate()
    finished = {p.name.split(".")[0] for p in chunks.glob("*.record.json")}
    assert finished and not list(lecture.work("tiny_a").glob("*.record.json"))  # the scene was not joined yet
    report = build("preview", only=["tiny_a"], jobs=1, chunk_s=1.0, console=quiet_console())
    assert report.ok, report.failed
    outcomes = report.chunks["tiny_a"]
    assert {o.key for o in outcomes if o.reused} == finished and not all(o.reused for o in outcomes)
    joined = next(lecture.work("tiny_a").glob("*.mp4"))
    assert framemd5(joined) == framemd5(next(base_lecture().work("tiny_a").glob("*.mp4")))


def test_local_builds_cut_scenes_for_the_manim_processes_the_cores_can_run_side_by_side():
    from lecture.build.render import render_executor

    with render_executor(None, 2) as two, render_executor(None, 16) as sixteen:
        assert two.workers == 1 and sixteen.workers == 8  # one manim keeps about two cores busy
        assert two.runner.executor._max_workers == 2  # scenes still render two at a time

    # On two cores, --only iceberg is not cut: it would only pay the chunks' own CPU.
    assert target_seconds({"iceberg": 114.0}, two.workers) == {"iceberg": None}


@pytest.mark.slow
def test_a_formula_is_typeset_once_and_read_by_every_later_render(tmp_path, monkeypatch):
    c = ChunkScene(tmp_path, monkeypatch)
    shared = tmp_path / "svg"

    def unit(name: str) -> ChunkUnit:
        return ChunkUnit(
            "tiny_c", 0, 1, str(c.scene.module), "TinyFormula", 854, 480, FPS, 0, None,
            str(c.job(c.timeline(), "x").unit.timeline_json), str(tmp_path / "media"), str(tmp_path / f"{name}.mp4"),
            str(tmp_path / f"{name}.log.json"), svg_cache=str(shared),
        )  # fmt: skip

    first = render_chunk(unit("first"))
    assert first.ok, first.error
    assert list((shared / "Tex").glob("*.svg"))
    # Without LaTeX on the PATH the formula can only come from the shared SVG.
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("ffmpeg", "ffprobe"):
        (tools / tool).symlink_to(shutil.which(tool))
    monkeypatch.setenv("PATH", str(tools))
    again = render_chunk(unit("again"))
    assert again.ok, again.error
    assert framemd5(Path(again.output)) == framemd5(Path(first.output))


def test_an_attempt_adds_only_the_svgs_not_yet_kept_each_whole(tmp_path):
    from lecture.farm.chunk import keep_svgs, seed_svgs

    shared, attempt, later = tmp_path / "svg", tmp_path / "a1", tmp_path / "a2"
    (shared / "Tex").mkdir(parents=True)
    (shared / "Tex" / "old.svg").write_text("<svg>old</svg>")
    seed_svgs(shared, attempt)
    assert (attempt / "Tex" / "old.svg").read_text() == "<svg>old</svg>"
    (attempt / "Tex" / "new.svg").write_text("<svg>new</svg>")
    (attempt / "Tex" / "new.tex").write_text("\\documentclass{article}")  # LaTeX's leftovers stay behind
    keep_svgs(attempt, shared)
    assert sorted(p.relative_to(shared).as_posix() for p in shared.rglob("*") if p.is_file()) == [
        "Tex/new.svg", "Tex/old.svg",
    ]  # fmt: skip
    seed_svgs(shared, later)
    assert (later / "Tex" / "new.svg").read_text() == "<svg>new</svg>"
