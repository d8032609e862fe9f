"""Time and peak memory of the canonical correlations of past and future (sub-volume Gaussians).

At each length ``L = 4**k`` the script computes the canonical correlations of the equal
split (reading (b), sub-volume family, one copy) through the layer recursion
(``method="structured"``, :mod:`seqmi.data.subvolume_cca`) and, where the dense matrix
fits (``k <= 6``), through Cholesky factors and one SVD (``method="dense"``), and checks
that the terms sum to :meth:`~seqmi.data.subvolume.SubvolumeGaussian.bipartite_mi`. Every
measurement runs in a fresh child process, so its peak resident memory (``ru_maxrss``
from ``os.wait4``) is its own and includes the interpreter and the imports.

Usage: ``python benchmarks/bench_canonical_correlations.py [--layers 6 7 8]``.
"""

from __future__ import annotations

import argparse

from bench_subvolume_exact import run_child  # a script beside this one

CHILD = """
import json, sys, time
import numpy as np
from seqmi.data.subvolume import SubvolumeGaussian
layers, method = int(sys.argv[1]), sys.argv[2]
start = time.perf_counter()
sg = SubvolumeGaussian(layers)
rho = sg.canonical_correlations(method=method)
seconds = time.perf_counter() - start
mi = float(-0.5 * np.log1p(-rho ** 2).sum())
print(json.dumps({"seconds": seconds, "count": int(rho.size), "mi": mi, "bipartite_mi": sg.bipartite_mi()}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[6, 7, 8], help="k of L = 4**k")
    args = parser.parse_args()
    print(f"{'L':>10} {'method':<11} {'time [s]':>9} {'peak [MB]':>10} {'count':>8} {'rel. diff to bipartite_mi':>26}")
    for k in args.layers:
        for method in ("structured", "dense") if k <= 6 else ("structured",):
            r = run_child(CHILD, str(k), method)
            rel = abs(r["mi"] - r["bipartite_mi"]) / r["bipartite_mi"]
            print(f"{4 ** k:>10,d} {method:<11} {r['seconds']:>9.2f} {r['peak_mb']:>10.0f} {r['count']:>8,d} "
                  f"{rel:>26.1e}", flush=True)


if __name__ == "__main__":
    main()
