"""Walk a built slide deck beat by beat in a real browser and say, for every slide, whether
the visible video is that beat's clip and plays.

    .venv/bin/python benchmarks/walk_deck.py renders/preview/slides/index.html

Debian's chromium through chromedriver (Selenium), headless, from file://. Prints one line
per beat that fails, then the counts and the time taken; exits 1 when any beat fails.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

# What the deck shows: the current slide's beat, its video's source, time and error.
STATE = """
const slide = Reveal.getCurrentSlide();
const video = slide.querySelector("video.beat");
return {beat: slide.dataset.beat, src: video ? video.currentSrc : "", time: video ? video.currentTime : 0,
        ended: video ? video.ended : false, error: video && video.error ? video.error.code : null};
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deck", type=Path)
    parser.add_argument("--shots", type=Path, default=None, help="folder for a screenshot of every 10th slide")
    args = parser.parse_args()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    options.page_load_strategy = "none"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,760", "--mute-audio"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "chromedriver"), options=options)
    start = time.monotonic()
    try:
        driver.get(args.deck.resolve().as_uri())
        until(lambda: driver.execute_script("return !!(window.Reveal && Reveal.isReady())"), 20)
        slugs = driver.execute_script(
            "return [...document.querySelectorAll('section[data-beat]')].map(s => s.dataset.beat)"
        )
        body = driver.find_element(By.TAG_NAME, "body")
        failed = []
        for i, slug in enumerate(slugs):
            if i:
                body.send_keys(Keys.ARROW_RIGHT)
            now = until(
                lambda slug=slug: (s := driver.execute_script(STATE))["beat"] == slug and s["time"] > 0.05 and s, 10
            )
            ok = bool(now) and now["src"].endswith(f"/clips/{slug}.mp4") and now["error"] is None
            if not ok:
                failed.append(slug)
                print(f"falla: {slug}: {now}")
            if args.shots and i % 10 == 0:
                args.shots.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(args.shots / f"{i:03d}-{slug}.png"))
        took = time.monotonic() - start
        print(f"{len(slugs) - len(failed)} de {len(slugs)} beats con su clip, reproduciéndose; {took:.1f} s")
        return 1 if failed else 0
    finally:
        driver.quit()


def until(condition, timeout_s: float):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    return None


if __name__ == "__main__":
    sys.exit(main())
