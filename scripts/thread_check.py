"""The trained chapters' quick claims with one CPU thread and with two: the same within
what their statistics resolve (CI runs this after the test suite).

Each chapter that trains models runs its quick profile twice, with ``cpu_threads`` 1
and 2 (every pool: torch, numba, BLAS), into ``_build/threads/<n>/``, and its two claim
lists are compared by :func:`seqmi.claims.agreement.compare`. The script prints every
claim decided at the edge (a verdict that flips while the numbers agree) and every
failure, and exits 1 on a failure.

Usage: ``python scripts/thread_check.py [--only 03 04 05 06] [--out DIR]`` from the repository root.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from seqmi import book, report
from seqmi.claims.agreement import compare
from seqmi.device import thread_env

TRAINED = ["03", "04", "05", "06"]  # the chapters whose claims rest on trained models
THREADS = (1, 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=TRAINED, help="chapter ids or NN prefixes")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: _build/threads)")
    args = parser.parse_args(argv)
    root = book.find_root()
    base = args.out or root / "_build" / "threads"
    chapters = book.select(root, args.only)
    runs = {}
    for n in THREADS:
        start = time.perf_counter()
        out = base / str(n)
        os.environ.update(thread_env(n))  # the kernels' pools start at n too, whatever the caller set
        manifest = book.execute(root, "quick", chapters, extra={"cpu_threads": n}, out=out)
        failed = [c for c, entry in manifest.items() if entry["status"] != "ok"]
        if failed:
            print(f"{', '.join(failed)} failed with {n} thread(s)")
            return 1
        runs[n] = {c: report.load_results(out / "artifacts" / c)["claims"] for c in chapters}
        print(f"{n} thread(s): {len(chapters)} chapters in {time.perf_counter() - start:.0f} s", flush=True)
    bad = 0
    for chapter in chapters:
        result = compare(runs[THREADS[0]][chapter], runs[THREADS[1]][chapter])
        print(f"{chapter}: {result.compared} claims, {len(result.failures)} beyond their statistics, "
              f"{len(result.edges)} decided at the edge")
        for line in result.edges:
            print(f"  at the edge: {line}")
        for line in result.failures:
            print(f"  DIFFERS: {line}")
        bad += len(result.failures)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
