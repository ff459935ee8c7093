"""What the classroom outputs cost once a lecture is built: the reveal.js deck (cold: every
clip cut; warm: every clip kept), the PowerPoint deck and the handout, in seconds, with the
cost per beat.

  .venv/bin/python benchmarks/bench_classroom.py                 # the tests' tiny lecture, built here
  .venv/bin/python benchmarks/bench_classroom.py --quality 1080p # the lecture built in renders/

Nothing is rendered: the figures are those of cutting, copying and typesetting.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_ROOT), str(REPO_ROOT / "tests")]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", help="a quality already built in renders/ (default: the tiny lecture)")
    args = parser.parse_args(argv)
    if args.quality is None:
        os.environ.setdefault("FFN_VOICE_ENGINE", "espeak")
        from fixtures.classroom_lecture import classroom_lecture

        os.environ.update(classroom_lecture().env())
    quality = args.quality or "preview"

    from lecture.classroom.handout import make_handout
    from lecture.classroom.slides import PPTX, make_slides, slides_folder
    from lecture.plan import load_plan

    plan = load_plan()
    shutil.rmtree(slides_folder(quality).clips, ignore_errors=True)
    shutil.rmtree(slides_folder(quality).posters, ignore_errors=True)
    rows = []
    for what, run in (
        ("deck, cold", lambda: make_slides(plan, quality)),
        ("deck, warm", lambda: make_slides(plan, quality)),
        ("pptx", lambda: make_slides(plan, quality, fmt=PPTX)),
        ("handout", lambda: make_handout(plan, quality)),
    ):
        started = time.monotonic()
        report = run()
        rows.append((what, time.monotonic() - started, report))
    beats = rows[0][2].slides
    print(f"{len(plan)} scenes, {beats} beats, quality {quality}, {os.cpu_count()} cores")
    for what, seconds, report in rows:
        print(f"  {what:<11} {seconds:7.2f} s   {1000 * seconds / beats:7.1f} ms per beat   {report.path}")
    print(f"  cuts: {rows[0][2].cuts}")
    total = rows[0][1] + rows[3][1]
    print(f"deck (cold) and handout: {total:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
