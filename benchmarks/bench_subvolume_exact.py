"""Time and peak memory of the exact bipartite MI of the sub-volume Gaussians, structured vs dense.

At each length ``L = 4**k`` the script computes what chapter 04 needs per family member:
the bipartite MI at the splits ``L/ell = 2, 3, 4`` (reading (b)), once through the layer
recursion (``method="structured"``) and, where the dense factor fits, once through one
dense Cholesky factor of size ``3L/4`` (``method="dense"``). Every measurement runs in a
fresh child process, so its peak resident memory (``ru_maxrss`` from ``os.wait4``) is its
own and includes the interpreter and the imports (about 150 MB).

Usage: ``python benchmarks/bench_subvolume_exact.py [--layers 5 6 7 8 9] [--dense-max-layers 7]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = """
import json, sys, time
from seqmi.bipartite import split_point
from seqmi.data.subvolume import SubvolumeGaussian
layers, family, method = int(sys.argv[1]), sys.argv[2], sys.argv[3]
start = time.perf_counter()
sg = SubvolumeGaussian(layers, family)
ells = [split_point(sg.length, r) for r in (2, 3, 4)]
values = sg.bipartite_mi_splits(ells, method=method).tolist()
print(json.dumps({"seconds": time.perf_counter() - start, "values": values}))
"""


def run_child(code: str, *args: str) -> dict:
    """Run ``code`` in a fresh Python with ``args``; the JSON it prints, with its peak memory.

    ``peak_mb`` is the child's own peak resident memory (``ru_maxrss`` from ``os.wait4``),
    the interpreter and the imports included.
    """
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise RuntimeError(f"child {' '.join(args)} failed with status {status}")
    result = json.loads(out)
    result["peak_mb"] = usage.ru_maxrss / 1024  # kilobytes on Linux
    return result


def measure(layers: int, family: str, method: str) -> dict:
    """Run one computation in a child process; its wall time, peak memory and values."""
    return run_child(CHILD, str(layers), family, method)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[5, 6, 7, 8, 9], help="k of L = 4**k")
    parser.add_argument("--dense-max-layers", type=int, default=7, help="largest k run with the dense factor")
    parser.add_argument("--families", nargs="+", default=["subvolume", "logarithmic"])
    args = parser.parse_args()
    print(f"{'L':>8} {'family':<12} {'method':<11} {'time [s]':>9} {'peak [MB]':>10} "
          f"{'I(L/2)':>14} {'I(L/3)':>14} {'I(L/4)':>14} {'max rel diff':>12}")
    for k in args.layers:
        for family in args.families:
            structured = measure(k, family, "structured")
            rows = [("structured", structured, "")]
            if k <= args.dense_max_layers:
                dense = measure(k, family, "dense")
                diff = max(abs(s / d - 1) for s, d in zip(structured["values"], dense["values"]))
                rows.append(("dense", dense, f"{diff:.1e}"))
            for method, r, diff in rows:
                v = r["values"]
                print(f"{4 ** k:>8} {family:<12} {method:<11} {r['seconds']:>9.2f} {r['peak_mb']:>10.0f} "
                      f"{v[0]:>14.8f} {v[1]:>14.8f} {v[2]:>14.8f} {diff:>12}", flush=True)


if __name__ == "__main__":
    main()
