"""The incremental build on a tiny two-scene lecture: what is redone after each kind of edit."""

from __future__ import annotations

import json
from concurrent.futures import Executor
from dataclasses import replace

import pytest
import soundfile
from fixtures.build_support import frames_of, fresh_copy, narration_offsets_ms, quiet_console

from lecture.build import narrate as narrate_step
from lecture.build.pipeline import build
from lecture.media.ffmpeg import probe

pytestmark = pytest.mark.slow


class NoRenderExecutor(Executor):
    """Fails the test if the build tries to render anything."""

    def submit(self, fn, *args, **kwargs):
        raise AssertionError(f"unexpected render: {args[0].scene if args else fn}")


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    return fresh_copy(tmp_path / "lecture").apply(monkeypatch)


def _mtimes(lecture) -> dict[str, int]:
    out = lecture.out()
    return {
        p.name: p.stat().st_mtime_ns
        for p in [
            out / "lecture.mp4",
            out / "scenes" / "tiny_a.mp4",
            out / "scenes" / "tiny_b.mp4",
            out / "lecture.es.srt",
        ]
    }


def test_nothing_changed_costs_no_render_no_construct_and_no_mux(tiny):
    before = _mtimes(tiny)
    for _ in range(2):
        report = build("preview", executor=NoRenderExecutor(), console=quiet_console())
        assert report.ok, report.failed
        assert report.rendered == [] and sorted(report.cached) == ["tiny_a", "tiny_b"]
        assert report.lecture == tiny.out() / "lecture.mp4"
        assert _mtimes(tiny) == before  # nothing rewritten, not even the audio


def test_outputs_follow_the_documented_layout(tiny):
    out = tiny.out()
    for rel in [
        "lecture.mp4",
        "scenes/tiny_a.mp4",
        "scenes/tiny_b.mp4",
        "lecture.es.srt",
        "lecture.es.vtt",
        "chapters.txt",
    ]:
        assert (out / rel).is_file(), rel
    assert (out / "chapters.txt").read_text(encoding="utf-8").startswith("0:00 Escena de prueba A\n")
    assert (out / "lecture.es.vtt").read_text(encoding="utf-8").startswith("WEBVTT")


def test_editing_one_scripts_text_rerenders_only_that_scene_and_refreshes_the_lecture(tiny):
    script = tiny.script("tiny_b")
    script.write_text(
        script.read_text(encoding="utf-8").replace(
            "Segunda prueba, un cuadrado.", "Segunda prueba: un cuadrado que aparece y se va."
        ),
        encoding="utf-8",
    )
    before = _mtimes(tiny)
    report = build("preview", jobs=2, console=quiet_console())
    assert report.ok, report.failed
    assert report.rendered == ["tiny_b"] and report.cached == ["tiny_a"]
    after = _mtimes(tiny)
    assert after["lecture.mp4"] != before["lecture.mp4"] and after["tiny_b.mp4"] != before["tiny_b.mp4"]
    assert "aparece y se va" in (tiny.out() / "lecture.es.srt").read_text(encoding="utf-8")
    # The lecture lasts exactly its scenes' whole frames, audio included.
    frames = frames_of(tiny.out() / "scenes" / "tiny_a.mp4") + frames_of(tiny.out() / "scenes" / "tiny_b.mp4")
    assert frames_of(report.lecture) == frames
    audio = next(s for s in probe(report.lecture)["streams"] if s["codec_type"] == "audio")
    assert float(audio["duration"]) == pytest.approx(frames / 15, abs=0.025)
    assert all(abs(ms) <= 12 for ms in narration_offsets_ms(tiny)), narration_offsets_ms(tiny)


def test_a_changed_number_rerenders_the_scene_that_read_it(tiny):
    work = tiny.work("tiny_a")
    record_file = next(work.glob("*.record.json"))
    record = json.loads(record_file.read_text(encoding="utf-8"))
    assert record["numbers_read"] == {"params.gpt2_small.d_model": 768}
    # As if ffn_core had computed another value when the scene last rendered.
    record["numbers_read"]["params.gpt2_small.d_model"] = 1024
    record["numbers_digest"] = "an-older-ffn_core"
    record_file.write_text(json.dumps(record), encoding="utf-8")
    report = build("preview", console=quiet_console())
    assert report.rendered == ["tiny_a"] and report.cached == ["tiny_b"]


def test_a_narration_edit_that_keeps_every_duration_only_remuxes_audio(tiny, monkeypatch, tmp_path):
    real = narrate_step.build_timeline

    def retaken(scene, **kwargs):
        timeline = real(scene, **kwargs)
        if scene != "tiny_b":
            return timeline
        beat = timeline.beats[0]
        seg = beat.segments[0]
        # Another take of the same length: same timing, other sound and words.
        data, rate = soundfile.read(seg.clip)
        clip = tmp_path / "take2.wav"
        soundfile.write(str(clip), data[::-1], rate)  # as loud: the lecture keeps its gain
        seg2 = replace(seg, text="Otra toma del cuadrado.", clip=str(clip))
        return replace(timeline, beats=(replace(beat, segments=(seg2,) + beat.segments[1:]),))

    monkeypatch.setattr(narrate_step, "build_timeline", retaken)
    before = _mtimes(tiny)
    report = build("preview", executor=NoRenderExecutor(), console=quiet_console())
    assert report.ok and report.rendered == []
    after = _mtimes(tiny)
    assert after["tiny_a.mp4"] == before["tiny_a.mp4"]
    assert after["tiny_b.mp4"] != before["tiny_b.mp4"] and after["lecture.mp4"] != before["lecture.mp4"]
    assert "Otra toma" in (tiny.out() / "lecture.es.srt").read_text(encoding="utf-8")


def test_only_renders_the_scenes_named_and_says_when_the_lecture_waits(tiny):
    for name in ("tiny_a", "tiny_b"):
        script = tiny.script(name)
        script.write_text(script.read_text(encoding="utf-8").replace("prueba", "prueba breve"), encoding="utf-8")
    before = _mtimes(tiny)
    report = build("preview", only=["tiny_a"], console=quiet_console())
    assert report.rendered == ["tiny_a"] and report.order == ["tiny_a"]
    assert report.lecture is None and any("tiny_b" in n for n in report.notes)
    assert _mtimes(tiny)["lecture.mp4"] == before["lecture.mp4"]
    with pytest.raises(ValueError, match=r"escena\(s\) desconocida"):
        build("preview", only=["nada"], console=quiet_console())


def test_a_source_edit_rerenders_its_scenes_in_a_process_pool_and_undoing_it_hits_again(tiny):
    from concurrent.futures import ProcessPoolExecutor

    original = tiny.scenes_py.read_text(encoding="utf-8")
    tiny.scenes_py.write_text(original + "\n# a passing edit\n", encoding="utf-8")
    # Any Executor can run the renders: the unit is picklable and pure.
    with ProcessPoolExecutor(max_workers=2) as pool:
        report = build("preview", executor=pool, console=quiet_console())
    assert report.ok, report.failed
    assert sorted(report.rendered) == ["tiny_a", "tiny_b"] and report.cached == []
    assert frames_of(report.lecture) == frames_of(tiny.out() / "scenes" / "tiny_a.mp4") + frames_of(
        tiny.out() / "scenes" / "tiny_b.mp4"
    )
    tiny.scenes_py.write_text(original, encoding="utf-8")
    report = build("preview", executor=NoRenderExecutor(), console=quiet_console())
    assert sorted(report.cached) == ["tiny_a", "tiny_b"]
