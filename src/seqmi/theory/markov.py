"""Closed forms for the binary symmetric Markov chain."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from seqmi.validate import check_float, check_lags


def binary_entropy(p: ArrayLike) -> NDArray[np.float64]:
    """Binary entropy ``H_b(p) = -p ln p - (1-p) ln(1-p)`` in nats (``0 ln 0 = 0``)."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(p > 0, p * np.log(p), 0.0) - np.where(p < 1, (1 - p) * np.log1p(-p), 0.0)
    return h


def bsc_two_point_mi(q: float, lags: ArrayLike) -> NDArray[np.float64]:
    """Exact ``I(tau) = ln 2 - H_b((1 - (1 - 2q)^tau) / 2)`` of the binary symmetric chain.

    ``(1 - (1 - 2q)^tau) / 2`` is the probability that an odd number of flips
    happened in ``tau`` steps, i.e. that ``x_{t+tau} != x_t``.

    Parameters
    ----------
    q : float
        Flip probability, ``0 <= q <= 1``.
    lags : array_like of int
        Distances ``tau >= 1``.

    Returns
    -------
    ndarray of float
    """
    check_float("q", q, 0.0, 1.0)
    tau = check_lags(lags)
    p_diff = (1.0 - (1.0 - 2.0 * q) ** tau) / 2.0
    return np.log(2.0) - binary_entropy(p_diff)


def bsc_correlation_length(q: float) -> float:
    """Correlation length ``xi = -1 / (2 ln|1 - 2q|)`` of Shen 2019 eq. (9), ``I(tau) ~ exp(-tau / xi)``.

    At large ``tau``, ``I(tau) ~ c^2 / 2`` with the correlation ``c = (1 - 2q)^tau``, which
    decays with ``zeta = -1 / ln|1 - 2q| = 2 xi``: the MI decays twice as fast.
    Returns ``inf`` for ``q`` in {0, 1} (no decay) and ``0`` for ``q = 1/2``.
    """
    check_float("q", q, 0.0, 1.0)
    r = abs(1.0 - 2.0 * q)
    if r == 1.0:
        return float("inf")
    if r == 0.0:
        return 0.0
    return float(-0.5 / np.log(r))


def bsc_plugin_floor(q: float, n_pairs: ArrayLike) -> NDArray[np.float64]:
    """Expected plug-in estimate of ``I(tau)`` at lags where the true MI has vanished.

    For two binary variables with sample correlation ``r_hat``, the plug-in MI is
    ``r_hat**2 / 2`` to leading order, so its floor is ``Var(r_hat) / 2``. The pairs
    ``(x_t, x_{t+tau})`` of one sequence overlap, and Bartlett's formula gives
    ``Var(r_hat) = sum_k rho_k**2 / N = (1 + r**2) / (1 - r**2) / N`` with the chain's
    autocorrelation ``rho_k = r**|k|``, ``r = 1 - 2q``: independent pairs (``q = 1/2``)
    recover the textbook ``1 / (2N)``.

    Parameters
    ----------
    q : float
        Flip probability, ``0 < q < 1``.
    n_pairs : array_like of int
        Number of pairs counted at each lag.

    Returns
    -------
    ndarray of float
    """
    check_float("q", q, 0.0, 1.0, low_open=True, high_open=True)
    r2 = (1.0 - 2.0 * q) ** 2
    return (1.0 + r2) / (1.0 - r2) / (2.0 * np.asarray(n_pairs, dtype=float))
