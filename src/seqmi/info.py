"""Entropy and mutual-information estimators (in nats).

Two notions of mutual information run through the book:

- the two-point MI ``I(tau) = I(x_t; x_{t+tau})`` between two symbols a distance
  ``tau`` apart (estimated here from pair counts);
- the bipartite MI ``I(X_{1:l}; Y_{l+1:L})`` between a prefix and the rest of the
  sequence (computed here exactly from a joint probability table).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from seqmi.validate import check_choice, check_int

ESTIMATORS = ("plugin",)


def entropy(counts: ArrayLike, estimator: str = "plugin") -> float:
    """Entropy (nats) of a distribution estimated from symbol counts.

    Parameters
    ----------
    counts : array_like of int
        Non-negative counts of each symbol; zeros are allowed.
    estimator : {"plugin"}
        ``"plugin"``: ``-sum p ln p`` with ``p = n / N``.

    Returns
    -------
    float
    """
    check_choice("estimator", estimator, ESTIMATORS)
    n = np.asarray(counts)
    if n.size == 0 or not np.issubdtype(n.dtype, np.integer):
        raise ValueError(f"counts must be a non-empty integer array, got dtype {n.dtype} size {n.size}")
    if np.any(n < 0):
        raise ValueError("counts must be non-negative")
    total = n.sum()
    if total == 0:
        raise ValueError("counts must not all be zero")
    p = n[n > 0] / total
    return float(-(p * np.log(p)).sum())


def two_point_mi(seqs: ArrayLike, max_lag: int, estimator: str = "plugin") -> NDArray[np.float64]:
    """Two-point mutual information ``I(tau)`` for ``tau = 1..max_lag``.

    Parameters
    ----------
    seqs : array_like of int
        One 1-D sequence, or a 2-D array ``(n_sequences, length)`` whose rows are
        independent samples: symbol pairs are never formed across rows.
    max_lag : int
        Largest distance, ``1 <= max_lag < length``.
    estimator : {"plugin"}
        Entropy estimator applied to the marginal and joint counts.

    Returns
    -------
    ndarray of float, shape (max_lag,)
        ``I(tau) = H(x_t) + H(x_{t+tau}) - H(x_t, x_{t+tau})``, with the marginals
        counted on the same pairs as the joint.
    """
    check_choice("estimator", estimator, ESTIMATORS)
    x = _as_symbol_rows(seqs)
    length = x.shape[1]
    check_int("max_lag", max_lag, 1, length - 1)
    k = int(x.max()) + 1
    out = np.empty(max_lag)
    for lag in range(1, max_lag + 1):
        a = x[:, :-lag].ravel()
        b = x[:, lag:].ravel()
        joint = np.bincount(a * k + b, minlength=k * k)
        out[lag - 1] = (
            entropy(np.bincount(a, minlength=k), estimator)
            + entropy(np.bincount(b, minlength=k), estimator)
            - entropy(joint, estimator)
        )
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


def _as_symbol_rows(seqs: ArrayLike) -> NDArray[np.int64]:
    x = np.asarray(seqs)
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2 or x.size == 0:
        raise ValueError(f"seqs must be a non-empty 1-D or 2-D array, got shape {x.shape}")
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"seqs must hold integer symbols, got dtype {x.dtype}")
    if x.min() < 0:
        raise ValueError(f"symbols must be non-negative integers, got minimum {x.min()}")
    if x.shape[1] < 2:
        raise ValueError(f"sequences must have length >= 2, got {x.shape[1]}")
    return x.astype(np.int64, copy=False)


def two_point_mi_with_error(
    seqs: ArrayLike, max_lag: int, n_batches: int = 10, estimator: str = "plugin"
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
    x = _as_symbol_rows(seqs)
    check_int("n_batches", n_batches, 2, x.shape[0])
    estimate = two_point_mi(x, max_lag, estimator)
    batches = np.stack([two_point_mi(part, max_lag, estimator) for part in np.array_split(x, n_batches)])
    return estimate, batches.std(axis=0, ddof=1) / np.sqrt(n_batches)


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
