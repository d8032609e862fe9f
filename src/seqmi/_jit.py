"""Compiled inner loops (numba), kept apart so that importing seqmi never compiles them."""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray


@numba.njit(parallel=True, cache=True, nogil=True)
def _count(x: NDArray, k: int, max_lag: int, out: NDArray) -> None:  # pragma: no cover - compiled
    rows, length = x.shape
    # one lag per thread: each thread owns its K^2 table (a few kB, in L1 cache)
    for lag_index in numba.prange(max_lag):
        lag = lag_index + 1
        table = out[lag_index]
        for r in range(rows):
            for i in range(length - lag):
                table[x[r, i] * k + x[r, i + lag]] += 1


def count_lagged_pairs(x: NDArray[np.integer], k: int, max_lag: int) -> NDArray[np.int64]:
    """Pair counts ``out[tau - 1, a K + b]`` of ``(x_t, x_{t+tau})`` within rows.

    One pass over the pairs per lag, as :func:`numpy.bincount` does, but compiled and
    with the lags spread over the CPU cores; about 1 ns per pair and lag and core.

    Parameters
    ----------
    x : ndarray of int, shape (rows, length)
        Compact symbol codes ``0..k-1``.
    k : int
        Alphabet size.
    max_lag : int
        Largest distance, ``< length``.

    Returns
    -------
    ndarray of int64, shape (max_lag, k * k)
    """
    # the narrowest code type: every lag streams the whole sequence through the cache
    dtype = np.uint8 if k <= 2**8 else np.uint16 if k <= 2**16 else np.int64
    codes = np.ascontiguousarray(x, dtype=dtype)
    out = np.zeros((max_lag, k * k), dtype=np.int64)
    _count(codes, k, max_lag, out)
    return out
