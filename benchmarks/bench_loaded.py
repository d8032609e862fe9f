"""A chapter's quick run on an idle machine and beside one busy core.

A book built on a shared machine (CI, a laptop doing other work) must not slow down
more than the core it lost: the chapter runs once alone and once while a
single-threaded busy loop holds one core, and the script prints both wall times and
their ratio. Before ``seqmi.device.set_cpu_threads`` a chapter set only torch's
threads; numba's OpenMP workers then spun between parallel regions and, with a core
taken, stole the working thread's time.

Usage: ``python benchmarks/bench_loaded.py [--chapter 03] [--profile quick] [--timeout 900]``
(run from the repository root with the project's venv).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def run_chapter(chapter: str, profile: str, timeout: float) -> float:
    """Wall seconds of ``seqmi.book execute`` for one chapter (``inf`` past ``timeout``)."""
    start = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-m", "seqmi.book", "execute", "--profile", profile, "--only", chapter],
                       check=True, timeout=timeout, capture_output=True)
    except subprocess.TimeoutExpired:
        return float("inf")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", default="03")
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    idle = run_chapter(args.chapter, args.profile, args.timeout)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        loaded = run_chapter(args.chapter, args.profile, args.timeout)
    finally:
        busy.kill()
    print(f"chapter {args.chapter} ({args.profile}): idle {idle:.1f} s, beside one busy core {loaded:.1f} s, "
          f"ratio {loaded / idle:.2f}")


if __name__ == "__main__":
    main()
