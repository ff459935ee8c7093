"""`ffn-video publish --dry-run`: the bundle made from a (synthetic) build's outputs."""

from __future__ import annotations

import json

import pytest
from PIL import Image
from test_youtube_media import (
    SETTINGS,
    copy_build_outputs,
    make_build_outputs,
    use_tmp_lecture,
)

from lecture.cli import main
from lecture.youtube import YoutubeError
from lecture.youtube.bundle import make_bundle
from lecture.youtube.channel import load_settings, settings_path
from lecture.youtube.check import RULES
from lecture.youtube.video_facts import gop_facts, stream_facts


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """A fake build's outputs, encoded once for the module."""
    template = tmp_path_factory.mktemp("template")
    make_build_outputs(template)
    return template


@pytest.fixture
def lecture(tmp_path, monkeypatch, outputs):
    copy_build_outputs(outputs, use_tmp_lecture(tmp_path, monkeypatch))
    return tmp_path


def test_dry_run_writes_a_bundle_that_passes_every_rule(lecture, capsys):
    assert main(["publish", "--dry-run", "--quality", "preview"]) == 0
    out = capsys.readouterr().out
    folder = lecture / "renders" / "preview" / "youtube"
    assert f"paquete: {folder} (vídeo copiado)" in out
    assert "FALLA" not in out and out.count("pasa ") == len(RULES)

    source = lecture / "renders" / "preview" / "lecture.mp4"
    assert (folder / "video.mp4").read_bytes() == source.read_bytes()  # a stream copy: nothing re-encoded
    assert (folder / "captions.es.srt").read_text(encoding="utf-8").startswith("1\n00:00:00,500")
    with Image.open(folder / "thumbnail.png") as thumb:
        assert (thumb.format, thumb.size) == ("PNG", (1280, 720))
    assert (folder / "thumbnail.png").stat().st_size < 2 * 1024 * 1024

    description = (folder / "description.txt").read_text(encoding="utf-8")
    assert description.startswith("Una clase sobre la capa feed-forward")
    assert "Capítulos:\n0:00 Panorama: qué hace la capa feed-forward\n0:10 La mitad famosa" in description
    assert "ffn-video numbers" in description and "voz sintética" in description

    meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
    assert meta["snippet"] == {
        "title": "La capa feed-forward, explicada con números reales",
        "description": description,
        "tags": ["transformer", "feed-forward", "redes neuronales"],
        "categoryId": "27",
        "defaultLanguage": "es",
        "defaultAudioLanguage": "es",
    }
    assert meta["status"] == {
        "privacyStatus": "private",
        "selfDeclaredMadeForKids": False,
        "containsSyntheticMedia": True,
    }
    assert meta["caption"] == {"language": "es", "name": "Español"}
    assert not list(folder.glob("*.part"))


def test_the_description_lists_the_works_the_plan_cites_and_says_where_numbers_come_from(lecture, capsys):
    script = lecture / "uno.toml"
    script.write_text(
        'title = "T"\n[[beat]]\nname = "uno"\ntext = "Hola."\nsources = ["geva2021", "fuente_ffn_interactivo"]\n',
        encoding="utf-8",
    )
    (lecture / "plan.toml").write_text(
        f'[[scene]]\nname = "uno"\nmodule = "tests/fixtures/tiny_scenes.py"\nclass = "TinyB"\n'
        f'script_path = "{script}"\n',
        encoding="utf-8",
    )
    assert main(["publish", "--dry-run", "--quality", "preview"]) == 0
    assert "FALLA" not in capsys.readouterr().out  # the check's rules: 5000 bytes, no < or >
    description = (lecture / "renders/preview/youtube/description.txt").read_text(encoding="utf-8")
    references = description.split("\n\nReferencias:\n", 1)[1].split("\n\n")[0].splitlines()
    assert references == [
        "Geva, M.; Schuster, R.; Berant, J.; Levy, O. (2021). Transformer Feed-Forward Layers Are Key-Value "
        "Memories. EMNLP 2021. https://arxiv.org/abs/2012.14913",
        "Texto fuente del curso (2026). FFN interactivo (texto de referencia del curso; cifras citadas, no "
        "calculadas). material del curso.",
    ]
    # The note no longer claims every figure is computed: published and quoted ones are named.
    assert "ninguno está copiado a mano" not in description
    assert "publicaron sus autores" in description and "cifra citada" in description


def test_the_description_limit_is_the_one_the_check_enforces():
    from lecture.youtube import channel, check

    assert channel.MAX_DESCRIPTION_BYTES == check.MAX_DESCRIPTION_BYTES == 5000


def test_a_second_dry_run_keeps_the_copied_video_and_takes_the_privacy_asked_for(lecture, capsys):
    assert main(["publish", "--dry-run", "--quality", "preview"]) == 0
    assert main(["publish", "--dry-run", "--quality", "preview", "--privacy", "unlisted"]) == 0
    assert "(vídeo al día)" in capsys.readouterr().out
    meta = json.loads((lecture / "renders/preview/youtube/metadata.json").read_text(encoding="utf-8"))
    assert meta["status"]["privacyStatus"] == "unlisted"


def test_a_recorded_narration_is_declared_as_not_synthetic(lecture):
    (lecture / "youtube.toml").write_text(
        SETTINGS.replace("synthetic_media = true", "synthetic_media = false"), encoding="utf-8"
    )
    report = make_bundle("preview")
    meta = json.loads(report.paths.metadata.read_text(encoding="utf-8"))
    assert meta["status"]["containsSyntheticMedia"] is False
    assert "voz sintética" not in meta["snippet"]["description"]


def test_an_open_gop_lecture_is_reencoded_with_closed_gops(tmp_path, monkeypatch):
    renders = use_tmp_lecture(tmp_path, monkeypatch)
    make_build_outputs(renders, video_args=("-x264-params", "open-gop=1:keyint=12"))
    report = make_bundle("preview")
    assert report.video_action == "recodificado (GOP abiertos)"
    assert gop_facts(report.paths.video).closed
    facts = stream_facts(report.paths.video)
    assert (facts.video_profile, facts.pix_fmt, facts.audio_codec) == ("High", "yuv420p", "aac")


def test_missing_build_outputs_say_which_build_command_makes_them(tmp_path, monkeypatch, capsys):
    use_tmp_lecture(tmp_path, monkeypatch)
    assert main(["publish", "--dry-run", "--quality", "1080p"]) == 2
    err = capsys.readouterr().err
    assert "lecture.mp4" in err and "ffn-video build --quality 1080p" in err


def test_a_title_too_long_is_refused_naming_the_settings_file(lecture, capsys):
    (lecture / "youtube.toml").write_text(
        SETTINGS.replace('title = "La capa', f'title = "{"x" * 90} La capa'), encoding="utf-8"
    )
    assert main(["publish", "--dry-run", "--quality", "preview"]) == 2
    err = capsys.readouterr().err
    assert str(lecture / "youtube.toml") in err.replace("\n", "") and "100" in err
    assert not (lecture / "renders/preview/youtube/metadata.json").exists()


def test_settings_beside_the_plan_win_over_the_lectures_own(lecture, tmp_path):
    assert settings_path() == lecture / "youtube.toml"
    (lecture / "youtube.toml").unlink()
    default = load_settings(settings_path())  # lecture/youtube.toml, the real one
    assert default.path.name == "youtube.toml" and default.category_id == "27" and default.language == "es"
    assert len(default.title) <= 100 and default.made_for_kids is False


@pytest.mark.parametrize(
    "broken, complaint",
    [
        ('[youtube]\nprivacy = "secreto"', "privacy"),
        ('[youtube]\nmade_for_kids = "no"', "made_for_kids"),
        ("color = 3", "claves desconocidas"),
    ],
)
def test_bad_settings_name_the_file_and_the_key(tmp_path, broken, complaint):
    path = tmp_path / "youtube.toml"
    path.write_text(SETTINGS.replace("[youtube]\nsynthetic_media = true", "") + broken, encoding="utf-8")
    with pytest.raises(YoutubeError, match=complaint) as err:
        load_settings(path)
    assert str(path) in str(err.value)


def test_a_thumbnail_title_too_long_for_large_type_names_the_setting(lecture, capsys):
    long_title = SETTINGS.replace('thumbnail_title = "', 'thumbnail_title = "' + "palabra " * 12)
    (lecture / "youtube.toml").write_text(long_title, encoding="utf-8")
    assert main(["publish", "--dry-run", "--quality", "preview"]) == 2
    err = capsys.readouterr().err.replace("\n", "")
    assert str(lecture / "youtube.toml") in err and "thumbnail_title" in err


def test_an_empty_frame_for_the_thumbnail_is_pointed_out(tmp_path):
    from test_youtube_media import ffmpeg

    from lecture.youtube.thumbnail import make_thumbnail

    black = tmp_path / "black.mp4"
    ffmpeg("-f", "lavfi", "-i", "color=c=0x101420:size=128x72:rate=5:duration=2", "-c:v", "libx264", str(black))
    assert make_thumbnail(black, 1.0, "¿Qué hace la capa?", tmp_path / "a.png").blank_frame
    busy = tmp_path / "busy.mp4"
    ffmpeg("-f", "lavfi", "-i", "testsrc=size=128x72:rate=5:duration=2", "-c:v", "libx264", str(busy))
    assert not make_thumbnail(busy, 1.0, "¿Qué hace la capa?", tmp_path / "b.png").blank_frame
