"""How long the lecture's narration takes: synthesised from scratch, then from the cache.

Usage: python benchmarks/bench_narration.py [SCENE ...] [--engine espeak|piper] [--mix]

Every planned scene's timeline is built twice in one empty temporary cache: first every
clip is synthesised, then every clip is found in the cache. The numbers the scripts read
are resolved from ffn_core once, before the clock starts, so the figures measure the
narration alone. With --mix, the narration track is also assembled, normalised to
-16 LUFS and subtitled, and those steps are timed too. The user's cache is not touched.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*")
    parser.add_argument("--engine", choices=("espeak", "piper"))
    parser.add_argument("--mix", action="store_true", help="also time mixing, loudness and subtitles")
    args = parser.parse_args(argv)

    from voiceover.engines import resolve_engine
    from voiceover.narrate import plan_path, plan_scripts, select_scenes
    from voiceover.script import FIELD_RE, load_script
    from voiceover.timeline import default_lookup

    plan = select_scenes(plan_scripts(), args.scenes, plan_path())
    scripts = [(entry, load_script(entry.script, entry.script_path)) for entry in plan]
    keys = {m.group(1).partition(":")[0] for _, s in scripts for b in s.beats for seg in b.segments
            for m in FIELD_RE.finditer(seg)}
    values = {key: default_lookup(key) for key in sorted(keys)}  # ffn_core's own cost, not timed
    choice = resolve_engine(args.engine)
    if choice.notice:
        print(choice.notice, file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="bench_narration.") as tmp:
        os.environ["FFN_CACHE_DIR"] = tmp
        os.environ["FFN_RECORDINGS_DIR"] = str(Path(tmp) / "no_recordings")
        from voiceover.timeline import NarrationStats, build_timeline

        print(f"engine: {choice.engine.name} {choice.engine.settings()}")
        print(f"{'scene':<16}{'audio s':>9}{'clips':>10}{'scratch s':>11}{'cache s':>9}{'x realtime':>12}")
        totals = [0.0, 0, 0.0, 0.0]
        timelines = []
        for entry, script in scripts:
            runs = []
            for _ in range(2):
                stats = NarrationStats()
                start = time.perf_counter()
                timeline = build_timeline(entry.script, engine=choice.engine, lookup=values.__getitem__,
                                          script=script, stats=stats)
                runs.append((time.perf_counter() - start, stats))
            (scratch, first), (cached, second) = runs
            assert second.synthesized == 0 and second.cached == first.synthesized, (first, second)
            timelines.append(timeline)
            n = first.synthesized
            print(f"{entry.scene:<16}{timeline.total_s:>9.1f}{n:>10}{scratch:>11.2f}{cached:>9.3f}"
                  f"{timeline.total_s / scratch:>12.1f}")
            totals = [totals[0] + timeline.total_s, totals[1] + n, totals[2] + scratch, totals[3] + cached]
        print(f"{'total':<16}{totals[0]:>9.1f}{totals[1]:>10}{totals[2]:>11.2f}{totals[3]:>9.3f}"
              f"{totals[0] / totals[2]:>12.1f}")

        if args.mix:
            from voiceover.mix import concat_wavs, normalize, write_scene_track
            from voiceover.subtitles import write_srt, write_vtt

            out = Path(tmp) / "mix"
            start = time.perf_counter()
            tracks = [write_scene_track(t, out / f"{t.scene}.wav") for t in timelines]
            lecture = concat_wavs(tracks, out / "lecture.wav")
            assembled = time.perf_counter() - start
            start = time.perf_counter()
            loudness = normalize(lecture, out / "lecture.norm.wav")
            normalised = time.perf_counter() - start
            start = time.perf_counter()
            write_srt(timelines, out / "lecture.srt")
            write_vtt(timelines, out / "lecture.vtt")
            subtitled = time.perf_counter() - start
            minutes = totals[0] / 60
            print(f"mix: assemble {assembled:.2f} s, normalise {normalised:.2f} s "
                  f"({normalised / minutes:.2f} s per minute of audio; {loudness.integrated_lufs:.1f} LUFS, "
                  f"{loudness.true_peak_dbtp:.1f} dBTP), subtitles {subtitled:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
