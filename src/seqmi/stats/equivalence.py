"""Intervals of relative differences, the scale and power of a TOST, and tolerance intervals.

"Matches" is decided by two one-sided tests (TOST): every interval of a relative
difference (:func:`seqmi.stats.equivalence.relative_difference_interval`) inside
``±margin``. What would decide one left open is the factor by which the sample must grow,
at the measured deviations or for a stated power. "A single draw lands in the band" is
decided by a normal tolerance interval (:func:`seqmi.stats.equivalence.tolerance_interval`).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from seqmi.stats.intervals import t_quantile


def relative_difference_interval(estimate: Sequence[float] | np.ndarray, reference: Sequence[float] | np.ndarray,
                                 stderr: Sequence[float] | np.ndarray, dof: float,
                                 level: float = 0.90) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Student-t intervals of the relative differences ``estimate / reference - 1``, point by point.

    ``stderr`` is the standard error of each estimate, measured with ``dof`` degrees of
    freedom (batch means over ``n`` independent batches: ``n - 1``); the reference is
    exact. At the default 90% an interval inside ``(-margin, margin)`` is two one-sided
    tests at 5% of a relative difference of at least ``margin`` (TOST).

    Parameters
    ----------
    estimate, reference, stderr : array_like
        Same shape; ``reference`` nonzero.
    dof : float
        Degrees of freedom of the standard errors (``math.inf``: known errors).
    level : float
        Coverage of each interval.

    Returns
    -------
    (ndarray, ndarray)
        The lower and upper bounds.

    Examples
    --------
    >>> lo, hi = relative_difference_interval([1.02, 0.5], [1.0, 0.5], [0.01, 0.05], 19)
    >>> np.round(lo, 4).tolist(), np.round(hi, 4).tolist()
    ([0.0027, -0.1729], [0.0373, 0.1729])
    """
    est, ref, se = (np.asarray(a, dtype=float) for a in (estimate, reference, stderr))
    if np.any(ref == 0):
        raise ValueError("relative_difference_interval needs a nonzero reference")
    half = t_quantile(level, dof) * se / np.abs(ref)
    rel = est / ref - 1.0
    return rel - half, rel + half


def equivalence_scale(deviation: Sequence[float] | np.ndarray, half_width: Sequence[float] | np.ndarray,
                      margin: float) -> float | None:
    """Factor by which a sample must grow for every interval to lie inside ``(-margin, margin)``,
    were the deviations those measured.

    Each interval is ``deviation ± half_width``; its half-width falls as ``1/√n`` (batch
    means over a fixed number of batches keep their degrees of freedom). The measured
    deviations are taken at face value, as a pilot's: where they overestimate the true
    ones, the factor is too large.

    Returns
    -------
    float or None
        The smallest factor (at least 1), or None where a deviation is already at least
        the margin (no sample size shows equivalence).

    Examples
    --------
    >>> round(equivalence_scale([0.02, -0.073], [0.03, 0.05], 0.10), 2), equivalence_scale([0.12], [0.01], 0.10)
    (3.43, None)
    """
    dev, half = np.abs(np.asarray(deviation, dtype=float)), np.asarray(half_width, dtype=float)
    if np.any(dev >= margin):
        return None
    return max(1.0, float(np.max((half / (margin - dev)) ** 2)))


def equivalence_power(relative_se: Sequence[float] | np.ndarray, margin: float, dof: float,
                      level: float = 0.90) -> float:
    """Probability that every interval of a point-by-point TOST lies inside ``±margin``
    when every true relative difference is 0.

    The intervals are :func:`seqmi.stats.equivalence.relative_difference_interval`'s.

    The estimates' errors are independent normals of standard deviation ``relative_se``
    (relative to the reference), and each interval's half-width is ``t·relative_se`` with
    the t quantile of ``dof`` degrees of freedom (the noise of the measured errors is left
    out). Positively correlated errors only raise the probability.

    Examples
    --------
    >>> round(equivalence_power([0.02, 0.03], 0.10, 19), 3), equivalence_power([0.06], 0.10, 19)
    (0.89, 0.0)
    """
    from scipy import stats as scipy_stats

    s = np.asarray(relative_se, dtype=float)
    room = margin - t_quantile(level, dof) * s
    if np.any(room <= 0):
        return 0.0
    return float(np.prod(2 * scipy_stats.norm.cdf(room / s) - 1))


def equivalence_scale_for_power(relative_se: Sequence[float] | np.ndarray, margin: float, dof: float,
                                power: float = 0.80, level: float = 0.90) -> float:
    """Factor by which a sample must grow for a TOST's power to reach ``power``.

    The power is :func:`seqmi.stats.equivalence.equivalence_power`'s.

    The relative errors fall as ``1/√n`` and the degrees of freedom stay (a fixed number of
    batches). Found by bisection on the factor, to 1%.

    Examples
    --------
    >>> round(equivalence_scale_for_power([0.05], 0.10, 19), 1)
    2.3
    """
    s = np.asarray(relative_se, dtype=float)
    if equivalence_power(s, margin, dof, level) >= power:
        return 1.0
    low, high = 1.0, 2.0
    while equivalence_power(s / math.sqrt(high), margin, dof, level) < power:
        low, high = high, 2 * high
    while high / low > 1.01:
        mid = math.sqrt(low * high)
        low, high = (mid, high) if equivalence_power(s / math.sqrt(mid), margin, dof, level) < power else (low, mid)
    return high


# tolerance_factor's answers, per (n, content, confidence): calibrations ask for a few thousand times
_TOLERANCE_FACTORS: dict[tuple[int, float, float], float] = {}


def tolerance_factor(n: int, content: float = 0.90, confidence: float = 0.95) -> float:
    """Howe's factor ``k`` of a two-sided normal tolerance interval ``mean ± k·s`` over ``n`` draws.

    ``k = √((n-1)(1 + 1/n) z² / χ²)``, ``z`` the normal quantile at ``(1 + content)/2`` and
    ``χ²`` the ``1 - confidence`` quantile with ``n - 1`` degrees of freedom; within about
    1% of the exact factor for ``n ≥ 3`` (0.6% at ``n = 10``, 0.02% at ``n = 4``).

    References
    ----------
    Howe, W. G. (1969). Two-sided tolerance limits for normal populations, some
    improvements. Journal of the American Statistical Association 64, 610–620.

    Examples
    --------
    >>> round(tolerance_factor(10), 3), round(tolerance_factor(4), 3)
    (2.838, 5.37)
    """
    key = (int(n), float(content), float(confidence))
    if key not in _TOLERANCE_FACTORS:
        from scipy import stats as scipy_stats

        if n < 3 or not (0.0 < content < 1.0 and 0.0 < confidence < 1.0):
            raise ValueError(f"tolerance_factor needs n >= 3 and content, confidence in (0, 1), got n={n!r}, "
                             f"content={content!r}, confidence={confidence!r}")
        _TOLERANCE_FACTORS[key] = math.sqrt((n - 1) * (1 + 1 / n) * scipy_stats.norm.ppf((1 + content) / 2) ** 2
                                            / scipy_stats.chi2.ppf(1 - confidence, n - 1))
    return _TOLERANCE_FACTORS[key]


def tolerance_interval(samples: Sequence[float] | np.ndarray, content: float = 0.90,
                       confidence: float = 0.95) -> list[float]:
    """Two-sided normal tolerance interval: it holds ``content`` of the population with ``confidence``.

    ``mean ± k·s`` with the ``k`` of :func:`seqmi.stats.equivalence.tolerance_factor`. Where
    the interval lies inside a band, at least ``content`` of the population does, at level
    ``1 - confidence``: the test of "a single draw lands in the band", where a mean's
    interval only tests the centre.

    Parameters
    ----------
    samples : array_like
        At least three independent draws (e.g. one fit per independently sampled design).
    content, confidence : float
        In (0, 1).

    Returns
    -------
    list of two floats

    Examples
    --------
    >>> [round(v, 3) for v in tolerance_interval([0.0, 0.01, -0.01, 0.02, -0.02, 0.0, 0.01, -0.01, 0.0, 0.0])]
    [-0.033, 0.033]
    """
    x = np.asarray(samples, dtype=float)
    if x.size < 3:
        raise ValueError(f"tolerance_interval needs at least 3 samples, got {x.size}")
    half = tolerance_factor(x.size, content, confidence) * float(x.std(ddof=1))
    return [float(x.mean() - half), float(x.mean() + half)]
