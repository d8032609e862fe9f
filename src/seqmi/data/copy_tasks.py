"""The Copy and Denoise memory tasks (Kerg et al. 2020, Appendix D; Arjovsky et al. 2016;
Jing et al. 2019).

Tokens: ``0`` blank, ``1 .. n_labels`` the symbols to remember, ``n_labels + 1`` the
delimiter ("now recall"). Targets are ``0`` (blank) everywhere except the last
``n_symbols`` steps, which hold the remembered symbols in order. A model that has
forgotten them scores ``1/n_labels`` on the recalled symbols.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from seqmi.validate import check_int


def copy_task(n: int, T: int, seed: int, n_symbols: int = 10, n_labels: int = 8) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Copy task: ``n_symbols`` random labels, ``T - 1`` blanks, the delimiter, ``n_symbols``
    blanks; recall the labels at the last ``n_symbols`` steps.

    Parameters
    ----------
    n : int
        Number of sequences.
    T : int
        Delay (blanks between the last symbol and the recall, delimiter included), ``>= 1``.
    seed : int
        Seed of the numpy generator.
    n_symbols, n_labels : int
        How many symbols to remember and the size of their alphabet.

    Returns
    -------
    tokens, targets : ndarray of int64, shape (n, T + 2 n_symbols)
    """
    check_int("n", n, 1)
    check_int("T", T, 1)
    check_int("n_symbols", n_symbols, 1)
    check_int("n_labels", n_labels, 2)
    rng = np.random.default_rng(seed)
    L = T + 2 * n_symbols
    sym = rng.integers(1, n_labels + 1, size=(n, n_symbols))
    tokens = np.zeros((n, L), dtype=np.int64)
    tokens[:, :n_symbols] = sym
    tokens[:, n_symbols + T - 1] = n_labels + 1
    targets = np.zeros((n, L), dtype=np.int64)
    targets[:, -n_symbols:] = sym
    return tokens, targets


def denoise_task(n: int, T: int, seed: int, n_symbols: int = 10, n_labels: int = 8) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Denoise task: ``n_symbols`` random labels at random distinct positions among ``T``
    steps (blanks elsewhere), the delimiter, then recall the labels in their order of
    appearance during the last ``n_symbols`` steps.

    Parameters
    ----------
    n : int
        Number of sequences.
    T : int
        Length of the noisy segment, ``>= n_symbols``.
    seed : int
        Seed of the numpy generator.
    n_symbols, n_labels : int
        How many symbols to remember and the size of their alphabet.

    Returns
    -------
    tokens, targets : ndarray of int64, shape (n, T + 1 + n_symbols)
    """
    check_int("n", n, 1)
    check_int("n_symbols", n_symbols, 1)
    check_int("T", T, n_symbols)
    check_int("n_labels", n_labels, 2)
    rng = np.random.default_rng(seed)
    L = T + 1 + n_symbols
    sym = rng.integers(1, n_labels + 1, size=(n, n_symbols))
    # distinct sorted positions: the first n_symbols of a random permutation of 0..T-1
    pos = np.sort(np.argsort(rng.random((n, T)), axis=1)[:, :n_symbols], axis=1)
    tokens = np.zeros((n, L), dtype=np.int64)
    np.put_along_axis(tokens, pos, sym, axis=1)
    tokens[:, T] = n_labels + 1
    targets = np.zeros((n, L), dtype=np.int64)
    targets[:, -n_symbols:] = sym
    return tokens, targets
