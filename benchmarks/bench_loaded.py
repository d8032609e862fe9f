"""Every chapter's quick run on an idle machine and beside one busy core.

A book built on a shared machine (CI, a laptop doing other work) must not slow down
more than the core it lost. Each chapter runs once alone and once while a
single-threaded busy loop holds one core (the two runs back to back, chapter by
chapter, so that a drift of the machine touches both alike); the script prints a
Markdown table of both wall times and their ratio, and flags a chapter whose idle quick
run takes more than the two minutes the quick profile promises, or whose ratio is over
the 1.3 the book allows.

Two threads of a fork-join pool (torch's intra-op OpenMP pool, OpenBLAS, numba) on two
cores of which one is busy wait for each other at every parallel region: a chapter of
many small operations then ran five times slower. The chapters' quick profiles run one
thread (``cpu_threads = 1``, :func:`seqmi.device.set_cpu_threads`) for this reason.

Usage: ``python benchmarks/bench_loaded.py [--chapters 00 01 ...] [--profile quick]
[--timeout 900]`` (from the repository root, with the project's venv).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time

QUICK_LIMIT_S = 120.0  # each chapter's quick profile: under two minutes on two cores
MAX_RATIO = 1.3  # beside one busy core, at most this much slower than alone


def run_chapter(chapter: str, profile: str, timeout: float) -> float:
    """Wall seconds of executing one chapter (``inf`` past ``timeout``), as ``seqmi.book execute``
    does, into a scratch folder (the book's own ``_build`` stays untouched)."""
    with tempfile.TemporaryDirectory(prefix="bench-loaded-") as out:
        script = ("import sys; from pathlib import Path; from seqmi import book; "
                  "m = book.execute(book.find_root(), sys.argv[1], [sys.argv[2]], out=Path(sys.argv[3])); "
                  "sys.exit(any(e['status'] != 'ok' for e in m.values()))")
        start = time.perf_counter()
        try:
            subprocess.run([sys.executable, "-c", script, profile, chapter, out], check=True, timeout=timeout,
                           capture_output=True)
        except subprocess.TimeoutExpired:
            return float("inf")
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", nargs="*", default=["00", "01", "02", "03", "04", "05", "06"])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    rows = ["| chapter | idle | beside one busy core | ratio | |", "| --- | ---: | ---: | ---: | --- |"]
    for chapter in args.chapters:
        idle = run_chapter(chapter, args.profile, args.timeout)
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            loaded = run_chapter(chapter, args.profile, args.timeout)
        finally:
            busy.kill()
            busy.wait()
        ratio = loaded / idle
        flags = [f"idle over {QUICK_LIMIT_S:.0f} s"] if args.profile == "quick" and idle > QUICK_LIMIT_S else []
        flags += [f"ratio over {MAX_RATIO}"] if ratio > MAX_RATIO else []
        rows.append(f"| {chapter} | {idle:.1f} s | {loaded:.1f} s | {ratio:.2f} | {', '.join(flags)} |")
        print(rows[-1], file=sys.stderr, flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
