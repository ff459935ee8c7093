"""The lecture's bibliography: `sources` in the scripts, checked against references.toml,
carried into the timeline, shown as a discreet citation while the beat plays, logged, and
listed in the YouTube description."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from voiceover.references import REFERENCES_PATH, BibliographyError, Reference, load_references, reference
from voiceover.script import ScriptError, load_script
from voiceover.timeline import BeatTiming, Segment, Timeline

REPO = Path(__file__).resolve().parent.parent


def write(tmp_path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


# -- references.toml -----------------------------------------------------------------------


def test_the_shipped_bibliography_loads_with_every_field():
    refs = load_references()
    assert len(refs) >= 25
    geva = refs["geva2021"]
    assert geva == reference("geva2021")
    assert (geva.short, geva.year, geva.venue) == ("Geva et al., 2021", 2021, "EMNLP 2021")
    assert geva.full() == (
        "Geva, M.; Schuster, R.; Berant, J.; Levy, O. (2021). Transformer Feed-Forward Layers Are "
        "Key-Value Memories. EMNLP 2021. https://arxiv.org/abs/2012.14913"
    )
    raw = REFERENCES_PATH.read_text(encoding="utf-8").splitlines()
    for ref in refs.values():
        assert raw[ref.line - 1].strip() == "[[reference]]"
        assert f'key = "{ref.key}"' in "\n".join(raw[ref.line : ref.line + 3])
        assert ref.url == "" or ref.url.startswith("https://")
        assert "<" not in ref.full() and ">" not in ref.full()


@pytest.mark.parametrize(
    "body, message",
    [
        ('[[reference]]\nkey = "a2020"\n', r":1: reference #1: missing \['authors'"),
        (
            '# c\n\n[[reference]]\nkey = "Mal"\nauthors = "A"\nshort = "A"\nyear = 2020\ntitle = "T"\n'
            'venue = "V"\nurl = ""\n',
            r":3: reference #1: `key` must be lowercase",
        ),
        (
            '[[reference]]\nkey = "a2020"\nauthors = "A"\nshort = "A"\nyear = "2020"\ntitle = "T"\n'
            'venue = "V"\nurl = ""\n',
            r":1: reference 'a2020': `year` must be a four-digit integer",
        ),
        (
            '[[reference]]\nkey = "a2020"\nauthors = "A"\nshort = "A"\nyear = 2020\ntitle = "T <b>"\n'
            'venue = "V"\nurl = ""\n',
            r":1: reference 'a2020': `title` may not contain < or >",
        ),
        ('[[reference]]\nkey = "a2020"\nauthors = "A"\n[broken\n', r":4: TOML syntax error"),
    ],
)
def test_a_bad_bibliography_names_its_file_and_line(tmp_path, body, message):
    path = write(tmp_path, "refs.toml", body)
    with pytest.raises(BibliographyError, match=re.escape(str(path)) + message):
        load_references(path)


def test_a_duplicate_key_names_both_lines(tmp_path):
    entry = (
        '[[reference]]\nkey = "a2020"\nauthors = "A"\nshort = "A"\nyear = 2020\ntitle = "T"\nvenue = "V"\nurl = ""\n'
    )
    path = write(tmp_path, "refs.toml", entry + "\n" + entry)
    with pytest.raises(BibliographyError, match=rf"{re.escape(str(path))}:10: reference 'a2020': duplicate key "):
        load_references(path)


# -- sources in a script ---------------------------------------------------------------------

SCRIPT = """title = "T"

[[beat]]
name = "uno"
text = "Sin fuentes."

[[beat]]
name = "dos"
text = "Con fuentes."
sources = ["geva2021", "dai2022"]

[[beat]]
name = "tres"
text = "Las mismas, y otra."
sources = ["dai2022", "meng2022"]
"""


def test_sources_are_read_per_beat_and_listed_once_in_order(tmp_path):
    script = load_script("escena", write(tmp_path, "escena.toml", SCRIPT))
    assert [b.sources for b in script.beats] == [(), ("geva2021", "dai2022"), ("dai2022", "meng2022")]
    assert script.sources() == ("geva2021", "dai2022", "meng2022")


def test_an_unknown_source_names_file_line_beat_key_and_close_matches(tmp_path):
    path = write(tmp_path, "escena.toml", SCRIPT.replace('"dai2022", "meng2022"', '"dai2022", "geva2012"'))
    with pytest.raises(ScriptError) as err:
        load_script("escena", path)
    message = str(err.value)
    assert message.startswith(f"{path}:15: beat 'tres': unknown source 'geva2012'")
    assert (
        "did you mean: " in message
        and "geva2021" in message.split("did you mean: ")[1]
        and str(REFERENCES_PATH) in message
    )


@pytest.mark.parametrize(
    "value, message",
    [('"geva2021"', "must be a list of reference keys"), ('["geva2021", "geva2021"]', "repeats a key")],
)
def test_malformed_sources_are_refused(tmp_path, value, message):
    path = write(tmp_path, "escena.toml", f'title = "T"\n[[beat]]\nname = "a"\ntext = "hola"\nsources = {value}\n')
    with pytest.raises(ScriptError, match=rf"{re.escape(str(path))}:5: beat 'a': `sources` {message}"):
        load_script("escena", path)


def test_every_key_the_lecture_cites_is_in_the_bibliography():
    # Loading each script checks its `sources`: a cited key missing from references.toml
    # is a ScriptError naming the file, the line, the beat and the key.
    from voiceover.paths import SCRIPT_DIR

    for path in sorted(SCRIPT_DIR.glob("*.toml")):
        load_script(path.stem, path)


def test_every_reference_is_cited_by_some_beat_of_the_plan():
    """The integration gate: an entry nobody cites is removed, or cited where the lecture uses it."""
    from lecture.plan import load_plan

    cited = {k for scene in load_plan() for k in scene.load_script().sources()}
    uncited = [k for k in load_references() if k not in cited]
    assert not uncited, f"references nobody cites in the scripts of lecture/plan.toml: {uncited}"


# -- the timeline carries them ---------------------------------------------------------------


def test_the_timeline_json_carries_each_beats_sources_and_older_json_still_loads():
    seg = Segment("hola", "hola", 0.0, 1.0, "")
    timeline = Timeline(
        "escena",
        "T",
        (BeatTiming("a", 0.0, 1.0, 0.5, {}, (seg,)), BeatTiming("b", 1.5, 1.0, 0.0, {}, (seg,), ("geva2021",))),
        2.5,
        "escena.toml",
    )
    data = json.loads(json.dumps(timeline.to_json()))
    assert [b["sources"] for b in data["beats"]] == [[], ["geva2021"]]
    assert Timeline.from_json(data) == timeline
    for beat in data["beats"]:
        del beat["sources"]  # a timeline written before beats had sources
    assert [b.sources for b in Timeline.from_json(data).beats] == [(), ()]


def test_build_timeline_takes_the_sources_from_the_script(tmp_path, monkeypatch):
    import numpy as np
    import soundfile

    from voiceover.timing import build_timeline

    monkeypatch.setenv("FFN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FFN_RECORDINGS_DIR", str(tmp_path / "no_recordings"))

    class Silence:
        name = "silencio"

        def settings(self) -> dict:
            return {}

        def synthesize(self, text, out_wav):
            soundfile.write(str(out_wav), np.zeros(4800, np.float32), 48_000, subtype="PCM_16", format="WAV")

    script = load_script("escena", write(tmp_path, "escena.toml", SCRIPT))
    timeline = build_timeline("escena", engine=Silence(), script=script)
    assert [b.sources for b in timeline.beats] == [b.sources for b in script.beats]


# -- the citation on screen ------------------------------------------------------------------

FPS = 15


def tiny_timeline(tmp_path) -> Path:
    def seg(start):
        return (Segment("x", "x", start, 1.0, ""),)

    timeline = Timeline(
        "tiny",
        "T",
        (
            BeatTiming("uno", 0.0, 2.0, 0.0, {"x": 1.0}, seg(0.0) + seg(1.0), ("geva2021", "dai2022")),
            BeatTiming("dos", 2.0, 2.0, 0.0, {}, seg(2.0), ("geva2021", "dai2022")),
            BeatTiming("tres", 4.0, 2.0, 0.0, {}, seg(4.0)),
            BeatTiming("cuatro", 6.0, 2.0, 0.0, {}, seg(6.0), ("meng2022",)),
        ),
        8.0,
        str(tmp_path / "tiny.toml"),
    )
    path = tmp_path / "timeline.json"
    path.write_text(json.dumps(timeline.to_json()), encoding="utf-8")
    return path


def run_tiny(tmp_path, monkeypatch, render: bool):
    """Four beats (two citing the same works, one citing none, one another work); the scene
    clears its stage with FadeOut(m) for m in self.mobjects, as real scenes do."""
    from manim import FadeIn, FadeOut, tempconfig

    from scenes.kit import typography as ty
    from scenes.kit.narrated import NarratedScene

    monkeypatch.setenv("FFN_TIMELINE", str(tiny_timeline(tmp_path)))
    monkeypatch.setenv("FFN_SCENE_LOG", str(tmp_path / "log.json"))
    seen: dict[str, list] = {}

    class Tiny(NarratedScene):
        script = "tiny"

        def construct(self):
            with self.beat("uno") as b:
                self.play(FadeIn(ty.label("hola")), run_time=b.until("x"))
                seen["uno"] = [self._citation is not None and self._citation.text]
                self.wait(b.remaining())
            with self.beat("dos") as b:
                self.play(*(FadeOut(m) for m in self.mobjects), run_time=b.remaining())
                seen["dos"] = [self._citation is not None and self._citation.text]
            with self.beat("tres") as b:
                seen["tres"] = [self._citation]
                self.wait(b.remaining())
            with self.beat("cuatro") as b:
                self.wait(b.remaining())

    with tempconfig(
        {
            "dry_run": not render,
            "write_to_movie": render,
            "quality": "low_quality",
            "frame_rate": FPS,
            "media_dir": str(tmp_path / "media"),
            "disable_caching": True,
            "progress_bar": "none",
            "verbosity": "WARNING",
        }
    ):
        scene = Tiny()
        if not render:
            scene.renderer._original_skipping_status = True
            scene.renderer.skip_animations = True
        scene.render()
    log = json.loads((tmp_path / "log.json").read_text(encoding="utf-8"))
    return scene, seen, log


def test_a_beat_with_sources_shows_their_citation_without_taking_time(tmp_path, monkeypatch):
    scene, seen, log = run_tiny(tmp_path, monkeypatch, render=False)
    label = "Geva et al., 2021; Dai et al., 2022"
    assert seen == {"uno": [label], "dos": [label], "tres": [None]}  # kept through the stage's FadeOut
    assert scene.frames == 8 * FPS and scene.fired == {"x": 1.0}
    assert scene.layout_problems == []
    assert log["sources"] == {
        "uno": ["geva2021", "dai2022"],
        "dos": ["geva2021", "dai2022"],
        "tres": [],
        "cuatro": ["meng2022"],
    }
    assert log["citations"] == {"uno": label, "dos": label, "cuatro": "Meng et al., 2022"}
    assert log["visible_texts"]["uno"] == ["hola", label]
    assert log["visible_texts"]["tres"] == []
    assert log["visible_texts"]["cuatro"] == ["Meng et al., 2022"]


def test_the_citation_is_small_muted_and_in_the_bottom_right_corner_inside_the_margin():
    from manim import DL, config

    from scenes.kit import palette
    from scenes.kit.citation import Citation
    from scenes.kit.narrated import FRAME_MARGIN, MIN_TEXT_PX, PX_PER_FONT_SIZE

    citation = Citation.of(["geva2021", "dai2022", "meng2022"]).place()
    assert citation.text == "Geva et al., 2021; Dai et al., 2022; Meng et al., 2022"
    for line in citation.lines:
        assert line.font_size * PX_PER_FONT_SIZE >= MIN_TEXT_PX
        assert line.color == palette.MUTED
    half_w, half_h = config.frame_width / 2 - FRAME_MARGIN, config.frame_height / 2 - FRAME_MARGIN
    assert citation.get_right()[0] <= half_w and citation.get_bottom()[1] >= -half_h
    assert citation.get_right()[0] > half_w - 0.5 and citation.get_bottom()[1] < -half_h + 0.5
    assert citation.place(DL).get_left()[0] < 0
    many = Citation.of(list(load_references())[:8])
    assert len(many.lines) == 8 and many.width < config.frame_width / 2  # one line per work when long


def test_a_scene_puts_the_citation_in_another_corner_when_its_own_text_is_there(tmp_path, monkeypatch):
    from manim import UL, FadeIn, tempconfig

    from scenes.kit import typography as ty
    from scenes.kit.narrated import NarratedScene

    monkeypatch.setenv("FFN_TIMELINE", str(tiny_timeline(tmp_path)))
    monkeypatch.setenv("FFN_SCENE_LOG", str(tmp_path / "log.json"))

    def run(corners=None, corner=None):
        class Crowded(NarratedScene):
            script = "tiny"
            citation_corners = corners or {}
            citation_corner = corner if corner is not None else NarratedScene.citation_corner

            def construct(self):
                with self.beat("uno") as b:
                    note = ty.small("una nota en la esquina, larga").to_corner([1, -1, 0], buff=0.25)
                    self.play(FadeIn(note), run_time=b.until("x"))
                    self.wait(b.remaining())
                for name in ("dos", "tres", "cuatro"):
                    with self.beat(name) as b:
                        self.wait(b.remaining())

        with tempconfig({"dry_run": True, "media_dir": str(tmp_path / "m"), "progress_bar": "none"}):
            scene = Crowded()
            scene.renderer._original_skipping_status = True
            scene.renderer.skip_animations = True
            scene.render()
        return scene.layout_problems

    crowded = run()
    assert any(p.startswith("beat 'uno'") and "overlaps" in p and "Geva et al., 2021" in p for p in crowded)
    assert any(p.startswith("beat 'cuatro'") and "Meng et al., 2022" in p for p in crowded)
    # One beat moved (the next, citing the same works, keeps it there); or the whole scene.
    assert [p.split(":")[0] for p in run(corners={"uno": UL})] == ["beat 'cuatro'"]
    assert run(corner=UL) == []


@pytest.mark.slow
def test_the_citation_fades_in_and_out_in_the_rendered_frames(tmp_path, monkeypatch):
    import subprocess

    from PIL import Image

    scene, _, _ = run_tiny(tmp_path, monkeypatch, render=True)
    movie = next((tmp_path / "media").rglob("Tiny.mp4"))
    frames = int(
        subprocess.run(
            [
                "ffprobe",
                "-v",
                "error",
                "-count_frames",
                "-select_streams",
                "v",
                "-show_entries",
                "stream=nb_read_frames",
                "-of",
                "csv=p=0",
                str(movie),
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    assert frames == scene.frames == 8 * FPS

    def corner_brightness(t: float) -> int:
        png = tmp_path / f"f{t}.png"
        subprocess.run(
            ["ffmpeg", "-v", "error", "-y", "-ss", str(t), "-i", str(movie), "-frames:v", "1", str(png)], check=True
        )
        with Image.open(png) as im:
            rgb = im.convert("RGB")
            w, h = rgb.size
            return max(max(p) for p in rgb.crop((int(w * 0.55), int(h * 0.85), w, h)).getdata())

    background = corner_brightness(5.0)  # beat «tres» cites nothing
    shown = corner_brightness(1.5)
    assert shown > background + 60
    assert corner_brightness(3.0) > background + 60  # «dos» cites the same works: no blink between
    assert corner_brightness(0.0) < shown - 40  # fading in at the beat's start
    assert corner_brightness(7.0) > background + 60  # «cuatro» cites another work


# -- the YouTube description ---------------------------------------------------------------


def test_the_description_lists_the_cited_works_in_plan_order_each_once(tmp_path):
    from lecture.youtube.metadata import cited_references

    write(tmp_path, "a.toml", SCRIPT)
    write(tmp_path, "b.toml", SCRIPT.replace('["dai2022", "meng2022"]', '["vaswani2017", "geva2021"]'))
    plan = write(
        tmp_path,
        "plan.toml",
        f'[[scene]]\nname = "b"\nmodule = "tests/fixtures/tiny_scenes.py"\nclass = "TinyB"\n'
        f'script_path = "{tmp_path / "b.toml"}"\n\n'
        f'[[scene]]\nname = "a"\nmodule = "tests/fixtures/tiny_scenes.py"\nclass = "TinyA"\n'
        f'script_path = "{tmp_path / "a.toml"}"\n',
    )
    assert [r.key for r in cited_references(plan)] == ["geva2021", "dai2022", "vaswani2017", "meng2022"]
    assert cited_references(tmp_path / "no_plan.toml") == []


def test_the_references_section_shortens_itself_to_stay_under_youtubes_limit():
    from lecture.youtube.channel import MAX_DESCRIPTION_BYTES, load_settings
    from lecture.youtube.metadata import REFERENCE_STYLES, description_text, reference_line, references_section

    refs = list(load_references().values())
    geva = refs[1]
    assert reference_line(geva, "et_al") == (
        "Geva, M. et al. (2021). Transformer Feed-Forward Layers Are Key-Value Memories. EMNLP 2021. "
        "https://arxiv.org/abs/2012.14913"
    )
    assert reference_line(geva, "label") == "Geva et al., 2021: https://arxiv.org/abs/2012.14913"
    sizes = [len(references_section(refs, s).encode()) for s in REFERENCE_STYLES]
    assert sizes == sorted(sizes, reverse=True)
    chapters = "\n".join(f"{i}:00 Un capítulo de la clase con su título" for i in range(20))
    settings = load_settings(REPO / "lecture" / "youtube.toml")
    text = description_text(settings, chapters, refs)  # the whole bibliography, the real summary
    assert len(text.encode("utf-8")) <= MAX_DESCRIPTION_BYTES and "<" not in text and ">" not in text
    section = text.split("Referencias:\n", 1)[1]
    assert all(r.short in section for r in refs)
    few = description_text(settings, chapters, refs[:3])
    assert "Vaswani, A.; Shazeer, N.;" in few  # in full while it fits
    assert description_text(settings, chapters, []).count("Referencias") == 0


def test_a_reference_is_a_frozen_record():
    ref = reference("geva2021")
    with pytest.raises(AttributeError):
        ref.year = 2020  # type: ignore[misc]
    assert isinstance(ref, Reference)
