"""The deck in a real browser: Debian's chromium, driven by chromedriver through Selenium,
opens `slides/index.html` from file:// (no server, no network) and is walked with the keys
a lecturer presses. Screenshots of a slide, the notes view and the overview are written to
`renders/<quality>/slides/check/`."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from fixtures.classroom_lecture import own_renders

from lecture.cli import main
from lecture.media.ffmpeg import probe

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None or CHROMEDRIVER is None,
        reason="sin Chromium: la prueba necesita los paquetes chromium y chromium-driver (./setup.sh los instala)",
    ),
]
webdriver = pytest.importorskip("selenium.webdriver", reason="sin selenium: ./setup.sh lo instala (.[dev])")

FIRST_SCENE = ["tiny_c-01-uno", "tiny_c-02-dos", "tiny_c-03-tres"]
STATE = """
const slide = Reveal.getCurrentSlide();
const video = slide.querySelector("video.beat");
return {beat: slide.dataset.beat, src: video.currentSrc, time: video.currentTime, paused: video.paused,
        ended: video.ended, muted: video.muted, error: video.error ? video.error.code : null};
"""
# Every video's error and play events, from the first moment (lazily loaded sources included).
LISTEN = """
window.__errors = []; window.__plays = [];
document.querySelectorAll("video.beat").forEach(function (v) {
  const slug = v.closest("section").dataset.beat;
  v.addEventListener("error", function () { window.__errors.push(slug); });
  v.addEventListener("play", function () { window.__plays.push(slug); });
});
"""


def wait_for(condition, what: str, timeout_s: float = 10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def browser():
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # The notes view is a window the deck writes into and never closes: waiting for it to
    # "load" would wait forever, so loads are waited for here, by what the page shows.
    options.page_load_strategy = "none"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,760", "--mute-audio"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def deck(tmp_path, monkeypatch) -> Path:
    for key, value in own_renders(tmp_path).items():
        monkeypatch.setenv(key, value)
    assert main(["slides"]) == 0
    return tmp_path / "renders" / "preview" / "slides" / "index.html"


def test_the_deck_advances_beat_by_beat_plays_each_clip_and_replays_going_back(browser, deck):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    check = deck.parent / "check"
    check.mkdir(exist_ok=True)
    browser.get(deck.as_uri())
    wait_for(lambda: browser.execute_script("return !!(window.Reveal && Reveal.isReady())"), "reveal.js")
    browser.execute_script(LISTEN)
    body = browser.find_element(By.TAG_NAME, "body")

    def state() -> dict:
        return browser.execute_script(STATE)

    def plays(slug: str) -> int:
        return browser.execute_script("return window.__plays.filter(s => s === arguments[0]).length", slug)

    def playing(slug: str) -> dict:
        """The visible slide is `slug`'s, its video is the beat's clip and it plays."""
        now = wait_for(lambda: (s := state())["beat"] == slug and s["time"] > 0.1 and s, f"{slug} playing")
        assert now["src"].endswith(f"/clips/{slug}.mp4") and now["error"] is None, now
        time.sleep(0.3)
        later = state()
        assert later["beat"] == slug and (later["time"] > now["time"] or later["ended"]), (now, later)
        return later

    for i, slug in enumerate(FIRST_SCENE):
        if i:
            body.send_keys(Keys.ARROW_RIGHT)
        playing(slug)
        if i == 1:
            browser.save_screenshot(str(check / "slide.png"))
    # The last beat ends and holds on its last frame.
    held = wait_for(lambda: (s := state())["ended"] and s, "the last beat's clip to end")
    clip = deck.parent / "clips" / f"{FIRST_SCENE[-1]}.mp4"
    clip_s = float(next(st for st in probe(clip)["streams"] if st["codec_type"] == "video")["duration"])
    assert held["beat"] == FIRST_SCENE[-1] and held["time"] == pytest.approx(clip_s, abs=0.05)

    # ← goes back one beat and plays its clip again from the start.
    before = plays(FIRST_SCENE[1])
    body.send_keys(Keys.ARROW_LEFT)
    again = playing(FIRST_SCENE[1])
    assert plays(FIRST_SCENE[1]) == before + 1 and again["time"] < 1.5
    # Space goes forward too, into the next chapter.
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.SPACE)
    playing("tiny_a-01-uno")
    assert browser.execute_script("return window.__errors") == []

    # V: the synthetic narration instead of the lecturer's voice, and back.
    assert state()["muted"]
    body.send_keys("v")
    assert not state()["muted"] and browser.find_element(By.ID, "voz").get_attribute("aria-pressed") == "true"
    assert "narración sintética" in browser.find_element(By.ID, "voz").text
    body.send_keys("v")
    assert state()["muted"]

    # Esc: the chapters side by side.
    body.send_keys(Keys.ESCAPE)
    wait_for(lambda: browser.execute_script("return Reveal.isOverview()"), "the overview")
    time.sleep(0.5)
    browser.save_screenshot(str(check / "overview.png"))
    body.send_keys(Keys.ESCAPE)

    # S: the notes view, with the beat's narration and its labels in Spanish.
    deck_window = browser.current_window_handle
    body.send_keys("s")
    notes_window = wait_for(lambda: [h for h in browser.window_handles if h != deck_window], "the notes view")[0]
    browser.switch_to.window(notes_window)
    browser.set_window_size(1100, 700)
    text = wait_for(
        lambda: "Primera prueba. Un círculo." in (t := browser.execute_script("return document.body.innerText")) and t,
        "the notes of the current beat",
    )
    assert "A continuación" in text and "NOTAS" in text.upper() and "Upcoming" not in text, text
    time.sleep(1.0)  # the previews of the current and next slides load
    browser.save_screenshot(str(check / "notes.png"))
    for name in ("slide.png", "notes.png", "overview.png"):
        assert (check / name).stat().st_size > 5_000
