"""Shared fixtures. Builds write into a temporary cache and renders folder so tests never
touch a lecturer's own renders; the preview build is made once per test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def draft_voice():
    """Tests that do not care about the voice speak with espeak-ng (fast), whatever the
    default engine (`voiceover.engines.DEFAULT_ENGINE`); Kokoro's own tests ask for it."""
    old = os.environ.get("FFN_VOICE_ENGINE")
    os.environ["FFN_VOICE_ENGINE"] = "espeak"
    yield
    if old is None:
        os.environ.pop("FFN_VOICE_ENGINE", None)
    else:
        os.environ["FFN_VOICE_ENGINE"] = old


@pytest.fixture(scope="session")
def preview_build(tmp_path_factory):
    """The whole lecture built at preview quality into a temporary folder (once)."""
    root = tmp_path_factory.mktemp("build")
    old = {k: os.environ.get(k) for k in ("FFN_RENDERS_DIR", "FFN_CACHE_DIR")}
    os.environ["FFN_RENDERS_DIR"] = str(root / "renders")
    # Narration clips and ffn_core results are reused from the repo cache when present:
    # the build's own artefacts (renders, records) still start empty.
    os.environ["FFN_CACHE_DIR"] = str(root / "cache")
    try:
        from lecture.build.pipeline import build

        report = build("preview", jobs=2)
        assert report.ok, report.failed
        yield report, root
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture
def scripts_dir(tmp_path) -> Path:
    return tmp_path
