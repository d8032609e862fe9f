"""Entropy and mutual-information estimators (in nats).

Two notions of mutual information run through the book:

- the two-point MI ``I(tau) = I(x_t; x_{t+tau})`` between two symbols a distance
  ``tau`` apart (estimated here from pair counts);
- the bipartite MI ``I(X_{1:l}; Y_{l+1:L})`` between a prefix and the rest of the
  sequence (computed here exactly from a joint probability table).

Entropy estimators, for counts ``n_i`` summing to ``N``, all of the form
``H = ln N - (1/N) sum_i n_i f(n_i)``:

- ``"plugin"``: ``f(n) = ln n`` (the frequencies put into ``-sum p ln p``);
- ``"psi"``: ``f(n) = psi(n)``, Shen 2019 eq. 53;
- ``"grassberger"``: ``f(n) = G(n) = psi(n) + (-1)^n (psi((n+1)/2) - psi(n/2)) / 2``,
  Grassberger's 2003 estimator as used by Chen et al. 2025 (L2M).

Two-point counts come from :mod:`seqmi.pair_counts` (three exact counting methods).

What the estimators return, one convention: the estimate of the whole sample comes
first, as a float (one table, one entropy) or an array over ``tau = 1..max_lag``; its
uncertainty, when asked for, comes second, in the form that its resampling makes:

- :func:`two_point_mi`, :func:`mi_from_joint`, :func:`gaussian_mi`, :func:`entropy`:
  the estimate alone;
- :func:`two_point_mi_with_error`: ``(estimate, stderr)``, the batch-means standard
  error;
- :func:`two_point_mi_batches`: ``(estimate, batches)``, one curve per batch of rows;
- :func:`two_point_mi_bootstrap`: ``(estimate, replicates)``, one curve per resample;
- :func:`two_point_mi_jackknife`: ``(estimate, replicates)``, the curve without each
  block in turn.

Estimates that carry their own terms (a language model's bipartite MI: direct,
corrected, vCLUB) are records, :class:`seqmi.bipartite.BipartiteEstimate`; fits of the
curves are records of :mod:`seqmi.fit`.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import digamma

from seqmi.device import DeviceLike
from seqmi.pair_counts import DENSE_BINS, METHODS, choose_method, compact_rows, pair_counts, symbol_rows
from seqmi.validate import check_choice, check_int

ESTIMATORS = ("plugin", "psi", "grassberger")

# n f(n) is tabulated below this count; larger counts are evaluated directly
_TABLE_SIZE = 1 << 16


def grassberger_g(n: ArrayLike) -> NDArray[np.float64]:
    """Grassberger's ``G(n) = psi(n) + (-1)^n (psi((n+1)/2) - psi(n/2)) / 2``.

    Equal to ``psi(n) + (-1)^n int_0^1 t^(n-1) / (1 + t) dt``; ``G(1) = -1.2704``,
    ``G(2) = G(3) = 0.7296``, and ``G(n) -> ln n`` for large ``n``.

    Parameters
    ----------
    n : array_like of int
        Counts ``>= 1``.

    Returns
    -------
    ndarray of float
    """
    n = np.asarray(n, dtype=np.float64)
    if np.any(n < 1):
        raise ValueError(f"grassberger_g needs counts >= 1, got minimum {n.min()}")
    sign = np.where(np.fmod(n, 2.0) == 0.0, 1.0, -1.0)
    return digamma(n) + 0.5 * sign * (digamma((n + 1.0) / 2.0) - digamma(n / 2.0))


def _f(n: NDArray[np.float64], estimator: str) -> NDArray[np.float64]:
    if estimator == "plugin":
        return np.log(n)
    if estimator == "psi":
        return digamma(n)
    return grassberger_g(n)


@functools.lru_cache(maxsize=None)
def _n_f_table(estimator: str) -> NDArray[np.float64]:
    n = np.arange(_TABLE_SIZE, dtype=np.float64)
    table = np.zeros(_TABLE_SIZE)
    table[1:] = n[1:] * _f(n[1:], estimator)
    return table


def _sum_n_f(counts: NDArray[np.int64], estimator: str) -> NDArray[np.float64]:
    """``sum_i n_i f(n_i)`` along the last axis (``0 f(0) = 0``)."""
    big = counts >= _TABLE_SIZE
    terms = _n_f_table(estimator)[np.where(big, 0, counts)]
    if big.any():
        n = counts[big].astype(np.float64)
        terms[big] = n * _f(n, estimator)
    return terms.sum(axis=-1)


def _entropies(counts: NDArray[np.int64], estimator: str) -> NDArray[np.float64]:
    """Entropy estimates along the last axis of a non-negative integer count array."""
    total = counts.sum(axis=-1)
    return np.log(total) - _sum_n_f(counts, estimator) / total


def entropy(counts: ArrayLike, estimator: str = "grassberger") -> float:
    """Entropy (nats) of a distribution estimated from symbol counts.

    All estimators have the form ``ln N - (1/N) sum_i n_i f(n_i)`` (module docstring).

    Parameters
    ----------
    counts : array_like of int
        Non-negative counts of each symbol; zeros are allowed.
    estimator : {"grassberger", "psi", "plugin"}
        ``"plugin"``: ``-sum p ln p`` with ``p = n / N`` (biased low by about
        ``(K - 1) / (2N)``); ``"psi"``: Shen 2019 eq. 53; ``"grassberger"``:
        Grassberger 2003, the least biased of the three.

    Returns
    -------
    float
    """
    check_choice("estimator", estimator, ESTIMATORS)
    n = np.asarray(counts)
    if n.ndim != 1 or n.size == 0 or not np.issubdtype(n.dtype, np.integer):
        raise ValueError(
            f"counts must be a non-empty 1-D integer array, got dtype {n.dtype} shape {n.shape}")
    if np.any(n < 0):
        raise ValueError("counts must be non-negative")
    if n.sum() == 0:
        raise ValueError("counts must not all be zero")
    return float(_entropies(n.astype(np.int64), estimator))


def mi_from_counts(joint: ArrayLike, estimator: str = "grassberger") -> NDArray[np.float64] | float:
    """Mutual information ``H(X) + H(Y) - H(X, Y)`` estimated from joint counts.

    The marginal counts are the row and column sums of the joint table, so that the
    three entropies are estimated on the same pairs.

    Parameters
    ----------
    joint : array_like of int, shape (..., n_x, n_y)
        Non-negative pair counts; leading axes are independent tables (e.g. lags).
    estimator : {"grassberger", "psi", "plugin"}
        Entropy estimator, see :func:`entropy`.

    Returns
    -------
    float or ndarray of float
        One value per table.
    """
    check_choice("estimator", estimator, ESTIMATORS)
    j = np.asarray(joint)
    if j.ndim < 2 or j.size == 0 or not np.issubdtype(j.dtype, np.integer):
        raise ValueError(f"joint must be an integer array with >= 2 axes, got dtype {j.dtype} shape {j.shape}")
    if np.any(j < 0):
        raise ValueError("joint counts must be non-negative")
    j = j.astype(np.int64, copy=False)
    if np.any(j.sum(axis=(-2, -1)) == 0):
        raise ValueError("every joint table needs at least one pair")
    mi = (_entropies(j.sum(axis=-1), estimator) + _entropies(j.sum(axis=-2), estimator)
          - _entropies(j.reshape(*j.shape[:-2], -1), estimator))
    return float(mi) if np.ndim(mi) == 0 else mi


def two_point_mi(
    seqs: ArrayLike,
    max_lag: int,
    estimator: str = "grassberger",
    *,
    method: str = "auto",
    device: DeviceLike = "cpu",
) -> NDArray[np.float64]:
    """Two-point mutual information ``I(tau)`` for ``tau = 1..max_lag``.

    Parameters
    ----------
    seqs : array_like of int
        One 1-D sequence, or a 2-D array ``(n_sequences, length)`` whose rows are
        independent samples: symbol pairs are never formed across rows. Symbols are
        any non-negative integers.
    max_lag : int
        Largest distance, ``1 <= max_lag < length``.
    estimator : {"grassberger", "psi", "plugin"}
        Entropy estimator applied to the marginal and joint counts.
    method : {"auto", "bincount", "loop", "fft"}
        How pairs are counted (all exact, see :func:`seqmi.pair_counts.lagged_pair_counts`); ``"auto"``
        picks the cheapest for this input.
    device : {"cpu", "cuda", "auto"}
        Where the FFT path runs (torch); the counts are identical on every device.

    Returns
    -------
    ndarray of float, shape (max_lag,)
        ``I(tau) = H(x_t) + H(x_{t+tau}) - H(x_t, x_{t+tau})``, with the marginals
        counted on the same pairs as the joint.
    """
    check_choice("estimator", estimator, ESTIMATORS)
    x, k = compact_rows(seqs)
    check_int("max_lag", max_lag, 1, x.shape[1] - 1)
    check_choice("method", method, METHODS)
    if method == "auto":
        method = choose_method(x.shape[0], x.shape[1], k, max_lag)
    if method != "bincount" or k * k <= DENSE_BINS:
        return mi_from_counts(pair_counts(x, k, max_lag, method, device), estimator)
    # alphabets too large for a dense K^2 table: count the pairs that occur, lag by lag
    out = np.empty(max_lag)
    for lag in range(1, max_lag + 1):
        a, b = x[:, :-lag].ravel(), x[:, lag:].ravel()
        joint = np.unique(a * k + b, return_counts=True)[1]
        out[lag - 1] = (_entropies(np.bincount(a), estimator) + _entropies(np.bincount(b), estimator)
                        - _entropies(joint, estimator))
    return out


def mi_from_joint(joint: ArrayLike) -> float:
    """Exact mutual information (nats) of a two-variable joint probability table.

    Parameters
    ----------
    joint : array_like, shape (n_x, n_y)
        Non-negative probabilities summing to one.

    Returns
    -------
    float
    """
    p = np.asarray(joint, dtype=float)
    if p.ndim != 2:
        raise ValueError(f"joint must be a 2-D table, got shape {p.shape}")
    if np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-9):
        raise ValueError(f"joint must be non-negative and sum to 1, got sum {p.sum()!r}")
    px = p.sum(axis=1, keepdims=True)
    py = p.sum(axis=0, keepdims=True)
    mask = p > 0
    return float((p[mask] * np.log(p[mask] / (px @ py)[mask])).sum())


def two_point_mi_with_error(
    seqs: ArrayLike, max_lag: int, n_batches: int = 10, estimator: str = "grassberger"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-point MI of all rows and its standard error from batch means.

    The rows are split into ``n_batches`` groups; since rows are independent, the
    spread of the per-group estimates gives the standard error of the full estimate,
    ``std(batch estimates) / sqrt(n_batches)``, without assuming anything about the
    correlations between pairs inside one row.

    Parameters
    ----------
    seqs : array_like of int, shape (n_sequences, length)
        Independent rows; at least ``n_batches`` of them.
    max_lag : int
        Largest distance.
    n_batches : int
        Number of groups, ``>= 2``.
    estimator : str
        Passed to :func:`two_point_mi`.

    Returns
    -------
    estimate, stderr : ndarray of float, shape (max_lag,)
    """
    estimate, batches = two_point_mi_batches(seqs, max_lag, n_batches, estimator)
    return estimate, batches.std(axis=0, ddof=1) / np.sqrt(n_batches)


def two_point_mi_batches(
    seqs: ArrayLike, max_lag: int, n_batches: int = 10, estimator: str = "grassberger"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-point MI of all rows, and of each of ``n_batches`` groups of them.

    The groups' curves are the batch means behind :func:`two_point_mi_with_error`: the
    standard error of any statistic of the curve that is linear in it (a mean over a range
    of lags, a difference of two such means) is the spread of that statistic over the
    groups divided by ``sqrt(n_batches)``.

    Returns
    -------
    estimate : ndarray of float, shape (max_lag,)
    batches : ndarray of float, shape (n_batches, max_lag)
    """
    x = symbol_rows(seqs)
    check_int("n_batches", n_batches, 2, x.shape[0])
    estimate = two_point_mi(x, max_lag, estimator)
    return estimate, np.stack([two_point_mi(part, max_lag, estimator) for part in np.array_split(x, n_batches)])


#: The most count entries (tables x lags x K^2) the bootstrap may hold; 2^27 int64 take 1 GiB.
BOOTSTRAP_MAX_ENTRIES = 1 << 27


def _block_pair_counts(seqs: ArrayLike, max_lag: int, n_blocks: int) -> NDArray[np.int64]:
    """Pair counts ``(n_blocks, max_lag, K, K)`` of the rows cut into ``n_blocks`` groups."""
    x, k = compact_rows(seqs)
    check_int("max_lag", max_lag, 1, x.shape[1] - 1)
    check_int("n_blocks", n_blocks, 2, x.shape[0])
    # the groups' tables and one more (a replicate's, or their sum) are held at once
    entries = (n_blocks + 1) * max_lag * k * k
    if entries > BOOTSTRAP_MAX_ENTRIES:
        raise ValueError(f"{n_blocks} groups of {k} symbols at {max_lag} lags keep {entries:,} counts "
                         f"((n_blocks + 1) x max_lag x K^2), more than {BOOTSTRAP_MAX_ENTRIES:,}; lower "
                         "n_blocks or max_lag, or use two_point_mi_with_error")
    parts = np.array_split(x, n_blocks)
    method = choose_method(parts[0].shape[0], x.shape[1], k, max_lag)
    return np.stack([pair_counts(part, k, max_lag, method) for part in parts])


def two_point_mi_bootstrap(
    seqs: ArrayLike, max_lag: int, n_boot: int = 200, n_blocks: int = 100, seed: int = 0,
    estimator: str = "grassberger",
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-point MI of all rows and its bootstrap replicates over the rows.

    The rows are independent samples, so resampling them with replacement gives the
    sampling distribution of the whole curve ``I(1..max_lag)``, the strong correlation
    between neighbouring lags included; a fit made on every replicate then has an
    interval that a regression on the lags (which treats them as independent) does not
    give. The rows are cut into ``n_blocks`` groups whose pair counts are taken once;
    a replicate draws ``n_blocks`` groups with replacement and sums their counts (with
    one row per group this is the plain bootstrap over rows).

    Parameters
    ----------
    seqs : array_like of int, shape (n_sequences, length)
        Independent rows; at least ``n_blocks`` of them.
    max_lag : int
        Largest distance.
    n_boot : int
        Bootstrap replicates, ``>= 1``.
    n_blocks : int
        Groups of rows, ``>= 2``.
    seed : int
        Seed of the resampling.
    estimator : str
        Passed to :func:`mi_from_counts`.

    Returns
    -------
    estimate : ndarray of float, shape (max_lag,)
        :func:`two_point_mi` of all rows.
    replicates : ndarray of float, shape (n_boot, max_lag)

    Raises
    ------
    ValueError
        When the blocks' count tables would exceed ``BOOTSTRAP_MAX_ENTRIES`` entries (large
        alphabets: fewer blocks, or :func:`two_point_mi_with_error`).
    """
    check_choice("estimator", estimator, ESTIMATORS)
    check_int("n_boot", n_boot, 1)
    blocks = _block_pair_counts(seqs, max_lag, n_blocks)
    weights = np.random.default_rng(seed).multinomial(n_blocks, np.full(n_blocks, 1 / n_blocks), size=n_boot)
    # one replicate's count table at a time: only the blocks' tables are kept (large alphabets)
    replicates = np.stack([mi_from_counts(np.tensordot(w, blocks, axes=1), estimator) for w in weights])
    return mi_from_counts(blocks.sum(axis=0), estimator), replicates


def two_point_mi_jackknife(
    seqs: ArrayLike, max_lag: int, n_blocks: int = 20, estimator: str = "grassberger",
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-point MI of all rows and its delete-one-block jackknife replicates.

    The rows are cut into ``n_blocks`` groups whose pair counts are taken once; replicate
    ``j`` is the estimate on every group but ``j``. Unlike a bootstrap, no row is counted
    twice, so the entropy estimator's bias correction sees the counts it was made for: a
    bootstrap of a few long blocks repeats text, inflates the counts and flattens the curve
    at distances where the bias dominates. For one long text, cut it into equal rows
    first (pairs across a cut are lost).

    Parameters
    ----------
    seqs : array_like of int, shape (n_sequences, length)
        Independent rows; at least ``n_blocks`` of them.
    max_lag : int
        Largest distance.
    n_blocks : int
        Groups of rows, ``>= 2``.
    estimator : str
        Passed to :func:`mi_from_counts`.

    Returns
    -------
    estimate : ndarray of float, shape (max_lag,)
        :func:`two_point_mi` of all rows.
    replicates : ndarray of float, shape (n_blocks, max_lag)
        The estimate without each group in turn.

    Raises
    ------
    ValueError
        When the groups' count tables would exceed ``BOOTSTRAP_MAX_ENTRIES`` entries.
    """
    check_choice("estimator", estimator, ESTIMATORS)
    blocks = _block_pair_counts(seqs, max_lag, n_blocks)
    total = blocks.sum(axis=0)
    return mi_from_counts(total, estimator), np.stack([mi_from_counts(total - b, estimator) for b in blocks])


def gaussian_mi(cov: ArrayLike, idx_x: ArrayLike, idx_y: ArrayLike) -> float:
    """Exact mutual information (nats) between two blocks of a multivariate Gaussian.

    ``I(X; Y) = (ln det S_xx + ln det S_yy - ln det S_(x,y)) / 2``, each log-determinant
    taken from a Cholesky factor (twice the sum of the log-diagonal), which stays finite
    and accurate for blocks of thousands of variables where ``det`` over- or underflows.

    Parameters
    ----------
    cov : array_like, shape (n, n)
        Symmetric positive-definite covariance matrix.
    idx_x, idx_y : array_like of int
        Disjoint, non-empty index sets of the two blocks.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``cov`` is not square and symmetric, the blocks overlap, are empty or out of
        range, or a block's covariance is not positive definite.
    """
    s = np.asarray(cov, dtype=float)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"cov must be a square matrix, got shape {s.shape}")
    if not np.allclose(s, s.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(s).max())):
        raise ValueError("cov must be symmetric")
    ix, iy = (np.unique(np.asarray(i, dtype=np.int64).ravel()) for i in (idx_x, idx_y))
    n = s.shape[0]
    for name, idx in (("idx_x", ix), ("idx_y", iy)):
        if idx.size == 0 or idx.min() < 0 or idx.max() >= n:
            raise ValueError(f"{name} must be a non-empty set of indices in [0, {n - 1}]")
    common = np.intersect1d(ix, iy)
    if common.size:
        raise ValueError(f"idx_x and idx_y overlap at indices {common[:10].tolist()}")
    both = np.concatenate([ix, iy])
    return 0.5 * (_logdet_pd(s[np.ix_(ix, ix)]) + _logdet_pd(s[np.ix_(iy, iy)])
                  - _logdet_pd(s[np.ix_(both, both)]))


def _logdet_pd(matrix: NDArray[np.float64]) -> float:
    try:
        factor = np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError as err:
        raise ValueError(f"covariance block of size {matrix.shape[0]} is not positive definite") from err
    return float(2.0 * np.log(np.diag(factor)).sum())
