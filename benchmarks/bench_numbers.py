"""How long every audited number takes: from scratch, then from the on-disk cache.

Usage: python benchmarks/bench_numbers.py [--check]

Both runs happen in fresh Python processes sharing one temporary cache root (FFN_CACHE_DIR;
the results land in its ffn_core/ folder), so the "from scratch" run pays for every training
and the "from cache" run pays for imports and reading the cache, as a real build would. Each
time covers importing ffn_core.registry and calling all_numbers(). A second from-scratch run
in another empty cache root must give the same numbers, number for number (determinism),
and so must the cached run. With --check, exit 1 when a target is missed (scratch < 60 s,
cache < 1 s) or the runs disagree.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRATCH_TARGET_S = 60.0
CACHE_TARGET_S = 1.0

_CHILD = """
import json, time
start = time.perf_counter()
from ffn_core.registry import all_numbers
numbers = all_numbers()
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "numbers": {n.key: n.value for n in numbers}}))
"""


def _run(cache_root: str) -> tuple[float, float, dict]:
    """(seconds inside the child, wall seconds including interpreter start, numbers)."""
    env = {
        **os.environ,
        "FFN_CACHE_DIR": cache_root,
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", _CHILD], cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode:
        sys.exit(f"benchmark child failed:\n{result.stderr}")
    report = json.loads(result.stdout.strip().splitlines()[-1])
    return report["seconds"], wall, report["numbers"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ffn_core_bench_") as cache_root:
        scratch, scratch_wall, first = _run(cache_root)
        cached, cached_wall, second = _run(cache_root)
    with tempfile.TemporaryDirectory(prefix="ffn_core_bench_again_") as other_dir:
        _, _, again = _run(other_dir)
    deterministic = first == again
    same = first == second
    ratio = scratch / cached if cached else float("inf")
    print(f"numbers computed:        {len(first)}")
    print(
        f"from scratch:            {scratch:7.2f} s  (wall with interpreter start {scratch_wall:.2f} s; "
        f"target < {SCRATCH_TARGET_S:.0f} s)"
    )
    print(
        f"from cache:              {cached:7.2f} s  (wall with interpreter start {cached_wall:.2f} s; "
        f"target < {CACHE_TARGET_S:.0f} s)"
    )
    print(f"speed-up (scratch/cache): {ratio:6.1f} x")
    print(f"cache gives the same numbers:        {'yes' if same else 'NO'}")
    print(f"a second scratch run gives the same: {'yes' if deterministic else 'NO'}")
    for label, other in (("cache", second), ("second scratch run", again)):
        differing = sorted(k for k in first.keys() | other.keys() if first.get(k) != other.get(k))
        if differing:
            print(
                f"  keys that differ in the {label}: {', '.join(differing[:10])}"
                + (" ..." if len(differing) > 10 else "")
            )
    ok = scratch < SCRATCH_TARGET_S and cached < CACHE_TARGET_S and same and deterministic
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    raise SystemExit(main())
