"""The one Spearman correlation, its permutation test, and Fisher's interval, power and sample size.

:func:`seqmi.stats.rank.spearman` is the book's one Spearman correlation (average ranks for
ties, the statistic of ``scipy.stats.spearmanr``). A decision on few units belongs to
the exact permutation test (:func:`seqmi.stats.rank.spearman_permutation_test`); Fisher's
``z = atanh(ρ)``, with the variance ``1.06 / (n - 3)`` of Fieller, Hartley and Pearson
(1957), gives the interval, the power and the pairs needed on more.
"""

from __future__ import annotations

import functools
import math
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

# the standard error of atanh(ρ) of a Spearman correlation over n pairs is this over √(n - 3)
# (variance 1.06 / (n - 3): Fieller, Hartley and Pearson 1957)
FISHER_SE_FACTOR = math.sqrt(1.06)
# the fewest pairs a permutation test of ρ ranks (two pairs have one ρ of each sign)
MIN_RANK_PAIRS = 3
# |ρ| is clipped below 1 before atanh, which is infinite at a perfect ranking
_RHO_CLIP = 0.999999


def _ranks(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Ranks 1..n, ties at their average rank (scipy's ``rankdata``, which is slow on a few values)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    if np.any(ordered[1:] == ordered[:-1]):
        from scipy import stats as scipy_stats

        return scipy_stats.rankdata(values)
    ranks = np.empty(values.size)
    ranks[order] = np.arange(1, values.size + 1)
    return ranks


def _pairs(x: Sequence[float] | NDArray[np.float64], y: Sequence[float] | NDArray[np.float64], caller: str,
           least: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``x`` and ``y`` as float arrays, checked: two equal-length sequences of at least ``least`` values."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1 or xs.size < least:
        raise ValueError(f"{caller} needs two equal-length sequences of at least {least} values, "
                         f"got shapes {xs.shape} and {ys.shape}")
    return xs, ys


def _centred_ranks(x: NDArray[np.float64],
                   y: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """The ranks of ``x`` and ``y`` less their mean, and the product of their norms (0 where one is constant)."""
    rx, ry = _ranks(x), _ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    return rx, ry, math.sqrt((rx**2).sum() * (ry**2).sum())


def _rank_correlation(rx: NDArray[np.float64], ry: NDArray[np.float64], norm: float) -> NDArray[np.float64]:
    """Pearson's correlation of the centred ranks ``rx`` with ``ry`` (one vector, or one per row)."""
    return ry @ rx / norm


def spearman(x: Sequence[float] | NDArray[np.float64], y: Sequence[float] | NDArray[np.float64]) -> float:
    """Spearman's correlation of paired values: Pearson's correlation of their ranks.

    Ties take their average rank, as in ``scipy.stats.spearmanr``, whose statistic this
    is (to rounding: a perfect ranking gives exactly ±1).

    Parameters
    ----------
    x, y : sequence of float
        The paired values, at least one pair.

    Returns
    -------
    float
        NaN where ``x`` or ``y`` is constant (one pair included).

    Raises
    ------
    ValueError
        When ``x`` and ``y`` are not two sequences of one length, at least 1.

    Examples
    --------
    >>> spearman([1, 2, 3, 4], [1, 3, 2, 4]), spearman([1, 2, 3], [5, 5, 5])
    (0.8, nan)
    """
    rx, ry, norm = _centred_ranks(*_pairs(x, y, "spearman", 1))
    return float(_rank_correlation(rx, ry, norm)) if norm > 0 else math.nan


@functools.lru_cache(maxsize=16)
def _permutations(n: int, resamples: int, seed: int) -> NDArray[np.int64]:
    """Every permutation of ``n`` items when there are at most ``resamples``, else ``resamples`` drawn ones.

    Cached: a calibration calls the test thousands of times at one size.
    """
    import itertools

    if math.factorial(n) <= resamples:
        return np.array(list(itertools.permutations(range(n))), dtype=np.int64)
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((resamples, n)), axis=1)


def spearman_permutation_test(x: Sequence[float] | NDArray[np.float64],
                              y: Sequence[float] | NDArray[np.float64], resamples: int = 2000,
                              seed: int = 0) -> tuple[float, float, float]:
    """Spearman's ρ of paired values and its permutation p-values, one for each direction.

    Under no association every pairing of ``x`` with ``y`` is equally likely, so the null
    distribution of ρ is that of ρ over the permutations of ``y``: exact (every
    permutation) when there are at most ``resamples`` of them, else ``resamples`` drawn
    with ``seed``, and the p-value counts the observed pairing among them,
    ``(1 + #{ρ_perm <= ρ}) / (1 + resamples)``, so that a test at level α rejects at most
    a fraction α of the time. Ties take average ranks; ρ is :func:`seqmi.stats.rank.spearman`'s.

    Parameters
    ----------
    x, y : sequence of float
        The paired values (independent units), at least ``MIN_RANK_PAIRS`` (3) pairs.
    resamples : int
        Drawn permutations when not all are enumerated.
    seed : int
        Seed of the drawn permutations (the same ones for every call of one size).

    Returns
    -------
    rho : float
        NaN, with both p-values 1, where ``x`` or ``y`` is constant.
    p_less : float
        The p-value of ρ < 0 (the fraction of the null at or below ρ).
    p_greater : float
        The p-value of ρ > 0.

    Raises
    ------
    ValueError
        When ``x`` and ``y`` are not two sequences of one length, at least 3.

    Examples
    --------
    >>> rho, p_less, p_greater = spearman_permutation_test([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])
    >>> rho, round(p_less, 4), p_greater
    (-1.0, 0.0083, 1.0)
    """
    xs, ys = _pairs(x, y, "spearman_permutation_test", MIN_RANK_PAIRS)
    rx, ry, norm = _centred_ranks(xs, ys)
    if norm == 0:
        return math.nan, 1.0, 1.0
    rho = float(_rank_correlation(rx, ry, norm))
    perms = _permutations(xs.size, resamples, seed)
    null = _rank_correlation(rx, ry[perms], norm)
    # an exact enumeration holds the observed pairing; drawn permutations add it once
    drawn = 0 if math.factorial(xs.size) <= resamples else 1
    tol = 1e-12  # equal sums of rank products in another order differ by rounding
    p_less = (drawn + np.count_nonzero(null <= rho + tol)) / (drawn + len(perms))
    p_greater = (drawn + np.count_nonzero(null >= rho - tol)) / (drawn + len(perms))
    return rho, float(p_less), float(p_greater)


def spearman_ci(rho: float, n: int, level: float = 0.95, se_factor: float = FISHER_SE_FACTOR) -> list[float]:
    """Fisher-z interval of a Spearman correlation ``rho`` over ``n`` independent units.

    ``atanh(rho)`` is taken as normal with standard error ``se_factor / √(n - 3)``: by
    default the variance ``1.06 / (n - 3)`` of Fieller, Hartley and Pearson (1957). ``rho``
    is clipped to ``±0.999999`` first, so that a perfect ranking has a finite ``z``. The
    interval describes the estimate's spread; a decision on few units belongs to an exact
    test (:func:`seqmi.stats.rank.spearman_permutation_test`).

    Parameters
    ----------
    rho : float
        The correlation.
    n : int
        The units (pairs) it was computed over.
    level : float
        The interval's coverage.
    se_factor : float
        The standard error of ``atanh(rho)`` times ``√(n - 3)``.

    Returns
    -------
    list of two floats
        ``[-1, 1]`` with ``n <= 3`` or a ``rho`` that is not finite.

    Examples
    --------
    >>> [round(v, 3) for v in spearman_ci(-0.5, 30)]
    [-0.734, -0.16]
    """
    from scipy import stats as scipy_stats

    if n <= 3 or not math.isfinite(rho):
        return [-1.0, 1.0]
    z = math.atanh(max(-_RHO_CLIP, min(_RHO_CLIP, rho)))
    half = scipy_stats.norm.ppf(0.5 + level / 2) * (se_factor / math.sqrt(n - 3))
    return [math.tanh(z - half), math.tanh(z + half)]


def spearman_power(rho: float, n: int, alpha: float = 0.05, se_factor: float = FISHER_SE_FACTOR) -> float:
    """Power of a one-sided test at ``alpha`` of no rank correlation against ``rho``, over ``n`` units.

    Fisher's ``z``: ``atanh(ρ)·√(n - 3)/se_factor`` against the normal quantile of ``1 - alpha``.
    The permutation test has about this power on a bivariate normal.

    Parameters
    ----------
    rho : float
        The true correlation.
    n : int
        Units (pairs).
    alpha : float
        The one-sided level.
    se_factor : float
        As :func:`seqmi.stats.rank.spearman_ci`.

    Returns
    -------
    float
        0 with ``n <= 3``.

    Examples
    --------
    >>> round(spearman_power(-0.5, 30), 2), spearman_power(0.5, 3)
    (0.87, 0.0)
    """
    from scipy import stats as scipy_stats

    if n <= 3:
        return 0.0
    shift = math.atanh(abs(rho)) * (math.sqrt(n - 3) / se_factor)
    return float(scipy_stats.norm.cdf(shift - scipy_stats.norm.ppf(1 - alpha)))


def spearman_pairs_needed(rho: float, threshold: float = 0.0, alpha: float = 0.025, power: float = 0.5,
                          se_factor: float = FISHER_SE_FACTOR) -> int:
    """Units over which a one-sided Fisher-z test puts a Spearman correlation ``rho`` above ``threshold``.

    ``n = 3 + ⌈(se_factor (z_(1-alpha) + z_power) / (atanh ρ - atanh ρ0))²⌉``. The defaults
    ask when the lower bound of :func:`seqmi.stats.rank.spearman_ci`'s 95% interval, at its expected place,
    clears ``threshold`` (a power of one half); ``power=0.8`` with ``alpha=0.05`` is a
    one-sided 5% test at power 0.8.

    Parameters
    ----------
    rho : float
        The true correlation, above ``threshold`` and below 1.
    threshold : float
        The correlation to exclude (``ρ0``), above -1.
    alpha : float
        The one-sided level.
    power : float
        The chance of exclusion aimed for.
    se_factor : float
        As :func:`seqmi.stats.rank.spearman_ci`.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Unless ``-1 < threshold < rho < 1``.

    Examples
    --------
    >>> spearman_pairs_needed(0.95, 0.8), spearman_pairs_needed(0.5, alpha=0.05, power=0.8)
    (11, 25)
    """
    from scipy import stats as scipy_stats

    if not -1.0 < threshold < rho < 1.0:
        raise ValueError(f"spearman_pairs_needed needs -1 < threshold < rho < 1, got rho={rho!r}, "
                         f"threshold={threshold!r}")
    z = scipy_stats.norm.ppf(1 - alpha) + scipy_stats.norm.ppf(power)
    return 3 + math.ceil((se_factor * z / (math.atanh(rho) - math.atanh(threshold))) ** 2)
