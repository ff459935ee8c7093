"""Faults injected into a built tiny lecture, and how many builds ended correct after them.

    .venv/bin/python benchmarks/bench_faults.py

For each fault of `tests/fixtures/faults.py` (an artefact truncated, zeroed, or its stamp
or record lost; a narration clip damaged), a private copy of the tiny two-scene lecture is
damaged, built once, and checked: every frame there, each scene's narration within 12 ms of
its own file and sounding as the undamaged lecture's, subtitles intact. Prints one line per
fault and the tally by kind. Also run, with assertions, by tests/test_build_damage.py.
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_ROOT), str(REPO_ROOT / "tests")]

from fixtures.build_support import ENV_KEYS, fresh_copy, quiet_console  # noqa: E402 - needs the path above
from fixtures.faults import FAULTS, inject, lecture_is_correct  # noqa: E402


def main() -> int:
    from lecture.build.pipeline import build

    os.environ.setdefault("FFN_VOICE_ENGINE", "espeak")
    tally: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    with tempfile.TemporaryDirectory(prefix="ffn-faults-") as tmp:
        for fault in FAULTS:
            saved = {k: os.environ.get(k) for k in ENV_KEYS}
            lecture = fresh_copy(Path(tmp) / fault.name)
            os.environ.update(lecture.env())
            try:
                inject(lecture, fault)
                start = time.monotonic()
                report = build("preview", jobs=2, console=quiet_console())
                problems = ([] if report.ok else [f"failed: {report.failed}"]) + lecture_is_correct(lecture)
            finally:
                for k, v in saved.items():
                    os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
            tally[fault.damage][0] += 1
            tally[fault.damage][1] += not problems
            print(
                f"{fault.name:28s} {'correcta' if not problems else 'MAL: ' + '; '.join(problems)}"
                f"  ({time.monotonic() - start:.1f} s)",
                flush=True,
            )
    injected = sum(n for n, _ in tally.values())
    correct = sum(ok for _, ok in tally.values())
    kinds = ", ".join(f"{kind} {n}" for kind, (n, _) in tally.items())
    print(f"\nfallos inyectados: {injected} ({kinds}); compilaciones correctas después: {correct} de {injected}")
    return 0 if correct == injected else 1


if __name__ == "__main__":
    sys.exit(main())
