"""Time ``seqmi.info.two_point_mi`` against a straightforward bincount-per-lag baseline.

Cases (Grassberger estimator, exact counts in both implementations):

(a) 10,000 binary sequences of length 1,000, lags 1..500;
(b) one 2,000,000-symbol sequence over 60 symbols (Zipf-like frequencies), lags 1..1,000.

Usage: ``python benchmarks/bench_two_point_mi.py [--repeats 3] [--device cpu]``.
Timings are wall-clock seconds, best of ``--repeats``; the baseline runs once.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from seqmi.info import entropy, two_point_mi
from seqmi.pair_counts import choose_method


def baseline(x: np.ndarray, max_lag: int) -> np.ndarray:
    """One ``numpy.bincount`` of ``a K + b`` per lag, marginals counted on the same pairs."""
    x = np.atleast_2d(x).astype(np.int64)
    k = int(x.max()) + 1
    out = np.empty(max_lag)
    for lag in range(1, max_lag + 1):
        a, b = x[:, :-lag].ravel(), x[:, lag:].ravel()
        out[lag - 1] = (entropy(np.bincount(a, minlength=k)) + entropy(np.bincount(b, minlength=k))
                        - entropy(np.bincount(a * k + b, minlength=k * k)))
    return out


def best_of(fn, repeats: int) -> tuple[float, np.ndarray]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of two_point_mi (best is kept)")
    parser.add_argument("--device", default="cpu", help="torch device of the FFT path: cpu | cuda | auto")
    parser.add_argument("--only", choices=["a", "b"], help="run one case")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    freq = 1.0 / np.arange(1, 61)
    cases = {
        "a": ("10,000 x 1,000 binary, lags 1..500", rng.integers(0, 2, (10_000, 1_000), dtype=np.int8), 500),
        "b": ("2,000,000 symbols, K = 60, lags 1..1,000", rng.choice(60, 2_000_000, p=freq / freq.sum()), 1000),
    }
    print(f"{'case':<44} {'method':>8} {'seqmi [s]':>10} {'baseline [s]':>13} {'speed-up':>9} {'max |diff|':>11}")
    for key, (label, x, max_lag) in cases.items():
        if args.only and key != args.only:
            continue
        rows, length = np.atleast_2d(x).shape
        method = choose_method(rows, length, int(np.unique(x).size), max_lag)
        ours, fast = best_of(lambda: two_point_mi(x, max_lag, device=args.device), args.repeats)
        base, slow = best_of(lambda: baseline(x, max_lag), 1)
        print(f"({key}) {label:<40} {method:>8} {ours:>10.3f} {base:>13.3f} {base / ours:>8.1f}x "
              f"{np.abs(fast - slow).max():>11.1e}", flush=True)


if __name__ == "__main__":
    main()
