"""How long the lecture's narration takes, per engine: Kokoro and espeak-ng side by side.

Usage: python benchmarks/bench_narration.py [SCENE ...] [--engines kokoro,espeak] [--mix]

For each engine, every planned scene's timeline is built twice in its own empty temporary
cache: first every clip is synthesised, then every clip is found in the cache. The numbers
the scripts read are resolved from ffn_core once, before the clock starts, so the figures
measure the narration alone. The real-time factor (RTF) is synthesis time over audio time
(lower is faster; the lecture's target for Kokoro is at most 0.4 on 2 cores); the CPU
column is processor seconds (all threads) per second of audio, which a busy machine
inflates less than the wall clock, and the cores column is processor time over wall time:
how many cores the synthesis really got (2 on an idle 2-core machine; less when others
share it, which then bounds the RTF at CPU s/s over cores). The load average is printed as
each engine starts. Kokoro's model load is timed apart. With --mix, each
engine's narration track is also assembled, normalised to -16 LUFS (the build's gain and
limiter, `lecture.media.soundtrack`) and subtitled, and those steps are timed too. The user's cache is not touched.
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
    parser.add_argument(
        "--engines", default="kokoro,espeak", help="comma-separated engines to compare (default: kokoro,espeak)"
    )
    parser.add_argument("--engine", help="a single engine (same as --engines NAME)")
    parser.add_argument("--mix", action="store_true", help="also time mixing, loudness and subtitles")
    args = parser.parse_args(argv)

    from voiceover.engines import EngineError, resolve_engine
    from voiceover.narrate import plan_scripts, select_scenes
    from voiceover.paths import plan_file
    from voiceover.script import FIELD_RE, load_script
    from voiceover.timing import default_lookup

    plan = select_scenes(plan_scripts(), args.scenes, plan_file())
    scripts = [(entry, load_script(entry.script, entry.script_path)) for entry in plan]
    keys = {
        m.group(1).partition(":")[0]
        for _, s in scripts
        for b in s.beats
        for seg in b.segments
        for m in FIELD_RE.finditer(seg)
    }
    values = {key: default_lookup(key) for key in sorted(keys)}  # ffn_core's own cost, not timed
    names = [args.engine] if args.engine else [n.strip() for n in args.engines.split(",") if n.strip()]
    summary = []
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    for name in names:
        try:
            choice = resolve_engine(name)
        except EngineError as err:
            print(f"{name}: {err}", file=sys.stderr)
            continue
        if choice.notice:
            print(choice.notice, file=sys.stderr)
        summary.append(run_engine(choice.engine, scripts, values, args.mix))
    if summary:
        print()
        print(
            f"{'engine':<12}{'audio s':>9}{'synth s':>9}{'RTF':>7}{'CPU s/s':>9}{'cores':>7}"
            f"{'model load s':>14}{'cached s':>10}{'load avg':>10}"
        )
        for row in summary:
            print(
                f"{row['engine']:<12}{row['audio']:>9.1f}{row['scratch']:>9.1f}{row['scratch'] / row['audio']:>7.2f}"
                f"{row['cpu'] / row['audio']:>9.2f}{row['cpu'] / row['scratch']:>7.2f}{row['load']:>14.1f}"
                f"{row['cached']:>10.3f}{row['loadavg']:>10.1f}"
            )
        print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


def _cpu() -> float:
    """Processor seconds of this process and its finished children (espeak-ng, ffmpeg)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def run_engine(engine, scripts, values, mix: bool) -> dict:
    """Build every timeline from scratch then from the cache with `engine`; print a table."""
    with tempfile.TemporaryDirectory(prefix="bench_narration.") as tmp:
        os.environ["FFN_CACHE_DIR"] = tmp
        os.environ["FFN_RECORDINGS_DIR"] = str(Path(tmp) / "no_recordings")
        from voiceover.timing import NarrationStats, build_timeline

        loadavg = os.getloadavg()[0]
        print(f"\nengine: {engine.name} {engine.settings()}")
        print(f"load average: {loadavg:.1f}")
        load_s = 0.0
        if engine.name == "kokoro":  # the model's load, once per process, timed apart
            from voiceover.engines.kokoro import _runtime

            start = time.perf_counter()
            _runtime(engine.root)
            load_s = time.perf_counter() - start
            print(f"model load: {load_s:.1f} s")
        print(
            f"{'scene':<16}{'audio s':>9}{'clips':>10}{'scratch s':>11}{'cache s':>9}"
            f"{'RTF':>7}{'CPU s/s':>9}{'cores':>7}"
        )
        totals = [0.0, 0, 0.0, 0.0, 0.0]
        timelines = []
        for entry, script in scripts:
            runs = []
            for _ in range(2):
                stats = NarrationStats()
                start, cpu = time.perf_counter(), _cpu()
                timeline = build_timeline(
                    entry.script, engine=engine, lookup=values.__getitem__, script=script, stats=stats
                )
                runs.append((time.perf_counter() - start, _cpu() - cpu, stats))
            (scratch, cpu, first), (cached, _, second) = runs
            assert second.synthesized == 0 and second.cached == first.synthesized, (first, second)
            timelines.append(timeline)
            n = first.synthesized
            print(
                f"{entry.scene:<16}{timeline.total_s:>9.1f}{n:>10}{scratch:>11.2f}{cached:>9.3f}"
                f"{scratch / timeline.total_s:>7.2f}{cpu / timeline.total_s:>9.2f}{cpu / scratch:>7.2f}",
                flush=True,
            )
            totals = [
                totals[0] + timeline.total_s,
                totals[1] + n,
                totals[2] + scratch,
                totals[3] + cached,
                totals[4] + cpu,
            ]
        print(
            f"{'total':<16}{totals[0]:>9.1f}{totals[1]:>10}{totals[2]:>11.2f}{totals[3]:>9.3f}"
            f"{totals[2] / totals[0]:>7.2f}{totals[4] / totals[0]:>9.2f}{totals[4] / totals[2]:>7.2f}"
        )

        if mix:
            from lecture.media import soundtrack as st
            from lecture.media.loudness import Loudness
            from voiceover.audio_format import RATE_HZ, TARGET_LUFS
            from voiceover.subtitles import write_srt, write_vtt
            from voiceover.track import write_scene_track

            out = Path(tmp) / "mix"
            start = time.perf_counter()
            tracks = [(write_scene_track(t, out / f"{t.scene}.wav"), round(t.total_s * RATE_HZ)) for t in timelines]
            lecture = st.join_pcm(tracks, out / "lecture.wav")
            assembled = time.perf_counter() - start
            start = time.perf_counter()  # the build's gain and limiter, on the lecture as one track
            norm = out / "lecture.norm.wav"
            st.limit(lecture, norm, TARGET_LUFS - st.integrated_lufs([st.block_energies(lecture)]))
            loudness = Loudness(st.integrated_lufs([st.block_energies(norm)]), st.true_peak_dbtp(norm))
            normalised = time.perf_counter() - start
            start = time.perf_counter()
            write_srt(timelines, out / "lecture.srt")
            write_vtt(timelines, out / "lecture.vtt")
            subtitled = time.perf_counter() - start
            minutes = totals[0] / 60
            print(
                f"mix: assemble {assembled:.2f} s, normalise {normalised:.2f} s "
                f"({normalised / minutes:.2f} s per minute of audio; {loudness.integrated_lufs:.1f} LUFS, "
                f"{loudness.true_peak_dbtp:.1f} dBTP), subtitles {subtitled:.3f} s"
            )
    return {
        "engine": engine.name,
        "audio": totals[0],
        "scratch": totals[2],
        "cached": totals[3],
        "cpu": totals[4],
        "load": load_s,
        "loadavg": loadavg,
    }


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
