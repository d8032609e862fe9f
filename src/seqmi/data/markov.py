"""The binary symmetric Markov chain: the book's process with exactly known MI."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from seqmi.validate import check_float, check_int


def binary_symmetric_chain(n_seq: int, length: int, q: float, seed: int) -> NDArray[np.int8]:
    """Sample stationary binary symmetric Markov chains.

    ``x_1`` is uniform on {0, 1}; each next symbol flips with probability ``q``.

    Parameters
    ----------
    n_seq : int
        Number of independent sequences (rows), ``>= 1``.
    length : int
        Symbols per sequence, ``>= 2``.
    q : float
        Flip probability, ``0 <= q <= 1``.
    seed : int
        Seed of the numpy generator.

    Returns
    -------
    ndarray of int8, shape (n_seq, length)
    """
    check_int("n_seq", n_seq, 1)
    check_int("length", length, 2)
    check_float("q", q, 0.0, 1.0)
    rng = np.random.default_rng(seed)
    start = rng.integers(0, 2, size=(n_seq, 1), dtype=np.int8)
    flips = (rng.random((n_seq, length - 1)) < q).astype(np.int8)
    # x_t = x_1 xor (number of flips so far) mod 2
    parity = np.cumsum(flips, axis=1, dtype=np.int64) % 2
    return np.concatenate([start, (start ^ parity).astype(np.int8)], axis=1)


def sequence_probabilities(length: int, q: float) -> NDArray[np.float64]:
    """Exact probability of each of the ``2**length`` binary sequences of the chain.

    Index ``i`` encodes the sequence whose first symbol is the most significant bit.

    Parameters
    ----------
    length : int
        Sequence length, ``1 <= length <= 24`` (the table has ``2**length`` entries).
    q : float
        Flip probability, ``0 <= q <= 1``.

    Returns
    -------
    ndarray of float, shape (2**length,)
    """
    check_int("length", length, 1, 24)
    check_float("q", q, 0.0, 1.0)
    codes = np.arange(2**length)
    bits = (codes[:, None] >> np.arange(length - 1, -1, -1)) & 1
    n_flips = np.count_nonzero(np.diff(bits, axis=1), axis=1)
    return 0.5 * q**n_flips * (1.0 - q) ** (length - 1 - n_flips)
