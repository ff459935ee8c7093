"""How far each bookmark is from the moment its word is heard, over the whole lecture (issue 21).

Usage: python benchmarks/bench_onsets.py [SCENE ...] [--cache DIR] [--repo PATH]

Every scene of the plan (`lecture/plan.toml` of the checkout that narrates; a scene whose module or narration is missing
is skipped, and named) is narrated with Kokoro, then measured the way
`tests/test_bookmark_onsets.py` measures it, with the same code: in the scene's decoded
audio, the speech onset after a pause of at least 150 ms nearest to each bookmark, within
150 ms (onset minus bookmark: negative when the voice starts first). Printed per scene and
for the whole lecture, in ms: count, mean, median |delta|, 95th percentile of |delta|, max
|delta|, for the bookmarks that open a sentence and for every bookmark after a pause; then
how many clips that end at a sentence-opening bookmark still carry sound in their last
50 ms (a 10 ms window within 30 dB of the stretch's loudest: not the measure's near-silence).

Clips come from, and go to, the narration cache in use (`FFN_CACHE_DIR` or the repository's
`.cache`), or `--cache DIR`: a first run synthesises what is missing (about 0.6 CPU-s per
second of speech, 28 minutes for the lecture), later runs read it. `--repo PATH` narrates
with the voiceover package of another checkout (e.g. `git worktree add /tmp/before
<commit>`), measured by this checkout's measure: the before and after of a change, with
its own cache folder (`--cache`) for each.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", help="scenes of the plan (default: all)")
    parser.add_argument("--cache", type=Path, help="narration cache folder (default: FFN_CACHE_DIR or .cache)")
    parser.add_argument("--repo", type=Path, help="narrate with the voiceover package of this checkout")
    args = parser.parse_args(argv)
    if args.cache:
        os.environ["FFN_CACHE_DIR"] = str(args.cache.resolve())
    os.environ["FFN_VOICE_ENGINE"] = "kokoro"
    code = (args.repo or REPO).resolve()
    sys.path[:0] = [str(code), str(REPO / "tests")]

    from test_bookmark_onsets import bookmark_onsets, pause_cuts, summary

    from voiceover.engines import resolve_engine
    from voiceover.script import load_script
    from voiceover.timing import build_timeline

    engine = resolve_engine("kokoro").engine
    print(f"narrating with {code / 'voiceover'}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    opening: list[float] = []
    paused: list[float] = []
    loud_cuts: list[str] = []
    cuts = 0
    print(f"{'ms':<17}{'marks':>6}  {'opening: n mean med p95 max':<34}after a pause: n mean med p95 max")
    start, cpu = time.monotonic(), time.process_time()
    for scene, script in planned(code, args.scenes):
        path = code / "voiceover" / "script" / "es" / f"{script}.toml"
        timeline = build_timeline(script, engine=engine, script=load_script(script, path))
        found = bookmark_onsets(timeline)
        here = [o.delta_s for o in found if o.opens_sentence and o.onset_s is not None]
        after = [o.delta_s for o in found if o.onset_s is not None]
        opening += here
        paused += after
        scene_cuts = pause_cuts(timeline)
        cuts += len(scene_cuts)
        loud_cuts += [f"{c.scene}/{c.bookmark} ({c.tail_db:+.0f} dB)" for c in scene_cuts if c.tail_db >= -30]
        print(f"{scene:<17}{len(found):>6}  {row(summary(here)):<34}{row(summary(after))}", flush=True)
    print(f"{'lecture':<17}{'':>6}  {row(summary(opening)):<34}{row(summary(paused))}")
    print(f"clips ending at a sentence-opening bookmark with sound in their last 50 ms: {len(loud_cuts)} of {cuts}")
    if loud_cuts:
        print(f"  {', '.join(loud_cuts[:8])}{', ...' if len(loud_cuts) > 8 else ''}")
    print(f"{time.monotonic() - start:.0f} s, {time.process_time() - cpu:.0f} CPU-s in this process")
    return 0


def planned(root: Path, wanted: list[str]) -> list[tuple[str, str]]:
    """(scene, narration) of each scene of `root`'s plan that has both, in order; the
    others are named on stderr and skipped (the plan may list a scene still being written)."""
    from voiceover.script import declared_script

    out = []
    for entry in tomllib.loads((root / "lecture" / "plan.toml").read_text(encoding="utf-8")).get("scene", []):
        name = entry.get("name")
        if wanted and name not in wanted:
            continue
        module = root / str(entry.get("module", ""))
        script = entry.get("script") or (declared_script(module, entry["class"]) if module.is_file() else None)
        if not script or not (root / "voiceover" / "script" / "es" / f"{script}.toml").is_file():
            print(f"{name}: skipped (no scene module or narration)", file=sys.stderr)
            continue
        out.append((str(name), str(script)))
    return out


def row(figures: dict[str, float]) -> str:
    return (
        f"{figures['count']:>4.0f} {figures['mean']:>+6.1f} {figures['median']:>4.1f} "
        f"{figures['p95']:>4.1f} {figures['max']:>4.1f}"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
