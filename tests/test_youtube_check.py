"""`ffn-video check`: a good bundle passes every rule; a bundle broken one rule at a time
fails that rule alone, with a Spanish message, and the command exits non-zero."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from test_youtube_media import ffmpeg, make_build_outputs, use_tmp_lecture

from lecture.cli import main
from lecture.youtube.bundle import make_bundle
from lecture.youtube.bundle_paths import BundlePaths
from lecture.youtube.check import RULES, Rule, check_bundle, failed, passed


@pytest.fixture(scope="module")
def good_bundle(tmp_path_factory) -> Path:
    """A bundle made by `publish --dry-run` from a fake build, once for the module."""
    root = tmp_path_factory.mktemp("good")
    with pytest.MonkeyPatch.context() as mp:
        renders = use_tmp_lecture(root, mp)
        make_build_outputs(renders)
        return make_bundle("preview").paths.folder


@pytest.fixture
def bundle(good_bundle, tmp_path) -> BundlePaths:
    # The bundle with the build's scene files beside it, as in renders/<quality>/.
    shutil.copytree(good_bundle.parent / "scenes", tmp_path / "scenes")
    shutil.copy2(good_bundle.parent / "scenes.json", tmp_path / "scenes.json")
    return BundlePaths(Path(shutil.copytree(good_bundle, tmp_path / "youtube")))


def _edit_metadata(paths: BundlePaths, change) -> None:
    meta = json.loads(paths.metadata.read_text(encoding="utf-8"))
    change(meta)
    paths.metadata.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    paths.description.write_text(meta["snippet"]["description"], encoding="utf-8")


def _set_description(text_of):
    return lambda p: _edit_metadata(p, lambda m: m["snippet"].update(description=text_of(m["snippet"]["description"])))


def _reencode(*args):
    def breaker(paths: BundlePaths) -> None:
        tmp = paths.folder / "tmp.mp4"
        ffmpeg("-i", str(paths.video), *args, str(tmp))
        tmp.replace(paths.video)

    return breaker


def _noise_thumbnail(paths: BundlePaths) -> None:
    pixels = np.random.default_rng(0).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(paths.thumbnail)


BREAKAGES = {
    "contenedor y códecs": _reencode(
        "-c:v", "libx264", "-profile:v", "main", "-c:a", "copy", "-movflags", "+faststart"
    ),
    "GOP cerrado": _reencode(
        "-c:v", "libx264", "-x264-params", "open-gop=1:keyint=12", "-c:a", "copy", "-movflags", "+faststart"
    ),
    "inicio rápido": _reencode("-c", "copy"),  # no +faststart: the index goes at the end
    "audio": _reencode("-c:v", "copy", "-c:a", "aac", "-ar", "44100", "-movflags", "+faststart"),
    # The same narration, quieter, or with short loud bursts mixed in (-16 LUFS or so, but
    # peaks near full scale): the content stays, so only loudness or peak is wrong.
    "sonoridad": _reencode(
        "-c:v", "copy", "-af", "volume=-14dB", "-c:a", "aac", "-ar", "48000", "-movflags", "+faststart"
    ),
    "pico real": _reencode(
        "-f",
        "lavfi",
        "-i",
        "aevalsrc=if(lt(mod(t\\,2)\\,0.01)\\,0.85*sin(2*PI*3000*t)\\,0):s=48000:d=32",
        "-filter_complex",
        "[0:a]volume=-1.5dB[a];[1:a]pan=stereo|c0=c0|c1=c0[b];"
        "[a][b]amix=inputs=2:normalize=0:duration=first,apad=whole_dur=32,atrim=end=32[m]",
        "-map",
        "0:v",
        "-map",
        "[m]",
        "-c:v",
        "copy",
        "-c:a",
        "aac",
        "-ar",
        "48000",
        "-movflags",
        "+faststart",
    ),
    "sincronía": _reencode(
        "-c:v", "copy", "-af", "adelay=100|100,atrim=end=32", "-c:a", "aac", "-ar", "48000", "-movflags", "+faststart"
    ),
    "capítulos": _set_description(lambda d: d.replace("0:20 XOR", "0:25 XOR").replace("0:10 La", "0:05 La")),
    "subtítulos": lambda p: p.captions.write_text("1\n00:00:01 --> tarde\nsin tiempos\n", encoding="utf-8"),
    "miniatura: tamaño": lambda p: Image.new("RGB", (640, 360)).save(p.thumbnail),
    "miniatura: peso": _noise_thumbnail,
    "título": lambda p: _edit_metadata(p, lambda m: m["snippet"].update(title="x" * 101)),
    "descripción": _set_description(lambda d: d + "é" * 2500),
    "etiquetas": lambda p: _edit_metadata(p, lambda m: m["snippet"].update(tags=["etiqueta larga"] * 40)),
    "ajustes de YouTube": lambda p: _edit_metadata(p, lambda m: m["snippet"].update(categoryId="22")),
}


def test_every_rule_has_a_breakage_here():
    assert set(BREAKAGES) == {r.name for r in RULES}


def test_a_good_bundle_passes_every_rule(bundle):
    results = check_bundle(bundle)
    assert [r.rule for r in results] == [r.name for r in RULES]
    assert all(r.ok for r in results), [r for r in results if not r.ok]


@pytest.mark.parametrize("rule", list(BREAKAGES))
def test_a_bundle_broken_in_one_way_fails_that_rule_alone(bundle, rule):
    BREAKAGES[rule](bundle)
    results = {r.rule: r for r in check_bundle(bundle)}
    assert [name for name, r in results.items() if not r.ok] == [rule], {n: r.message for n, r in results.items()}
    assert results[rule].message


@pytest.mark.parametrize("bad", ["<b>negrita</b>", "a > b"])
def test_angle_brackets_fail_the_title_and_the_description(bundle, bad):
    _edit_metadata(bundle, lambda m: m["snippet"].update(title=bad, description=m["snippet"]["description"] + bad))
    failing = {r.rule: r.message for r in check_bundle(bundle) if not r.ok}
    assert set(failing) == {"título", "descripción"} and "«<» o «>»" in failing["título"]


def test_a_description_out_of_step_with_metadata_fails(bundle):
    bundle.description.write_text("otra cosa\n", encoding="utf-8")
    failing = {r.rule: r.message for r in check_bundle(bundle) if not r.ok}
    assert list(failing) == ["descripción"] and "no coinciden" in failing["descripción"]


def test_a_missing_file_fails_its_rules_naming_it(bundle):
    bundle.thumbnail.unlink()
    failing = {r.rule: r.message for r in check_bundle(bundle) if not r.ok}
    assert set(failing) == {"miniatura: tamaño", "miniatura: peso"}
    assert str(bundle.thumbnail) in failing["miniatura: peso"] and "publish --dry-run" in failing["miniatura: peso"]


def test_check_command_prints_each_rule_and_exits_non_zero_on_a_failure(good_bundle, tmp_path, monkeypatch, capsys):
    renders = use_tmp_lecture(tmp_path, monkeypatch)
    shutil.copytree(good_bundle.parent, renders / "1080p")
    assert main(["check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(RULES) + 1 and all(line.startswith("pasa ") for line in lines[:-1])
    assert lines[-1] == f"{len(RULES)} de {len(RULES)} reglas cumplidas"

    BREAKAGES["título"](BundlePaths(renders / "1080p" / "youtube"))
    assert main(["check", "--quality", "1080p"]) == 1
    out = capsys.readouterr().out
    assert "FALLA  título: 101 caracteres; YouTube admite 100 como máximo" in out


def test_check_without_a_bundle_says_how_to_make_one(tmp_path, monkeypatch, capsys):
    use_tmp_lecture(tmp_path, monkeypatch)
    assert main(["check", "--quality", "4k"]) == 2
    assert "ffn-video publish --dry-run --quality 4k" in capsys.readouterr().err


def test_one_more_rule_is_one_more_function(bundle):
    def narration_in_sync(b):
        return passed("en sincronía") if b.streams.duration_s > 30 else failed("desfasada")

    results = check_bundle(bundle, rules=(*RULES, Rule("sincronía", narration_in_sync)))
    assert results[-1].rule == "sincronía" and results[-1].ok and results[-1].message == "en sincronía"
