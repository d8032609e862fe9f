"""Confidence intervals over independent units, each a ``[low, high]`` list of floats.

The independent units are what the caller passes: trained seeds, sequences, documents,
held-out symbols. Groups of units are never paired: two groups' seeds are different
models, so a difference or a ratio takes each group's spread over its own units. Here:
normal, bootstrap and Wilson intervals; Student-t intervals over seeds of a mean, a
difference of means (Welch's), any linear contrast of group means and the slope of group
means, with their spread and quantile; ratios of means (on the log scale), of geometric
means and of a mean to a measured reference; the jackknife's Student-t interval.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np
from numpy.typing import NDArray

# z of a two-sided 95% interval: the level of every interval the rules build
Z95 = 1.959963984540054


def normal_ci(mean: float, se: float, z: float = Z95) -> list[float]:
    """``mean ± z·se`` as ``[low, high]``."""
    return [float(mean - z * se), float(mean + z * se)]


def bootstrap_ci(samples: Sequence[float] | np.ndarray, statistic: Callable[..., Any] = np.mean,
                 n_resamples: int = 2000, seed: int = 0, level: float = 0.95) -> list[float]:
    """Percentile bootstrap interval of ``statistic`` over ``samples`` (scipy's bootstrap).

    The samples are the independent units (restarts, sequences, documents). With fewer
    than two samples, or all equal, the interval degenerates to the point value.
    """
    from scipy import stats as scipy_stats

    data = np.asarray(samples, dtype=float)
    point = float(statistic(data))
    if data.size < 2 or np.ptp(data) == 0:
        return [point, point]
    res = scipy_stats.bootstrap((data,), statistic, n_resamples=n_resamples, confidence_level=level,
                                method="percentile", random_state=np.random.default_rng(seed))
    return [float(res.confidence_interval.low), float(res.confidence_interval.high)]


def binomial_ci(successes: float, trials: int, z: float = Z95) -> list[float]:
    """Wilson score interval of a proportion (accuracy over ``trials`` held-out symbols)."""
    if trials <= 0:
        return [0.0, 1.0]
    p = successes / trials
    denom = 1 + z**2 / trials
    centre = (p + z**2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2)) / denom
    # clamped to include p: at p = 0 or 1 the formula misses it by rounding (1e-16)
    return [max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))]


def standard_error(*groups: Sequence[float] | np.ndarray) -> float:
    """Standard error over independent samples (seeds) of a mean (one group) or of a
    difference of means (two groups, Welch's); infinite with fewer than two samples in a group.

    The spread behind :func:`seqmi.stats.intervals.mean_ci` and
    :func:`seqmi.stats.intervals.mean_diff_ci`, without their t quantile: what
    :func:`seqmi.stats.power.needed_samples` scales.
    """
    arrays = [np.asarray(g, dtype=float) for g in groups]
    if not arrays or min(a.size for a in arrays) < 2:
        return math.inf
    return math.sqrt(sum(a.var(ddof=1) / a.size for a in arrays))


def mean_ci(samples: Sequence[float] | np.ndarray, level: float = 0.95) -> list[float]:
    """Student-t interval of the mean of independent ``samples`` (seeds, restarts).

    With fewer than two samples there is no spread to measure: ``[-inf, inf]``.
    """
    from scipy import stats as scipy_stats

    x = np.asarray(samples, dtype=float)
    if x.size < 2:
        return [-math.inf, math.inf]
    half = scipy_stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    return [float(x.mean() - half), float(x.mean() + half)]


def mean_diff_ci(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray,
                 level: float = 0.95) -> list[float]:
    """Welch interval of ``mean(a) - mean(b)`` for two independent groups of samples.

    The degrees of freedom are Welch-Satterthwaite's; with fewer than two samples in a
    group, ``[-inf, inf]``.
    """
    from scipy import stats as scipy_stats

    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size < 2 or y.size < 2:
        return [-math.inf, math.inf]
    vx, vy = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    se = math.sqrt(vx + vy)
    diff = float(x.mean() - y.mean())
    if se == 0:
        return [diff, diff]
    dof = (vx + vy) ** 2 / (vx**2 / (x.size - 1) + vy**2 / (y.size - 1))
    half = scipy_stats.t.ppf(0.5 + level / 2, dof) * se
    return [diff - half, diff + half]


# t_quantile's answers: the rules call it inside their calibrations thousands of times
_T_QUANTILES: dict[tuple[float, float], float] = {}


def t_quantile(level: float, dof: float) -> float:
    """Quantile of a two-sided Student-t interval at ``level`` with ``dof`` degrees of freedom.

    Remembered per ``(level, dof)``; an infinite ``dof`` gives the normal quantile.

    Examples
    --------
    >>> round(t_quantile(0.90, 19), 4), round(t_quantile(0.95, math.inf), 4)
    (1.7291, 1.96)
    """
    key = (float(level), float(dof))
    if key not in _T_QUANTILES:
        from scipy import stats as scipy_stats

        if not 0.0 < level < 1.0 or not dof > 0:
            raise ValueError(f"t_quantile needs 0 < level < 1 and dof > 0, got level={level!r}, dof={dof!r}")
        q = 0.5 + level / 2
        _T_QUANTILES[key] = float(scipy_stats.norm.ppf(q) if math.isinf(dof) else scipy_stats.t.ppf(q, dof))
    return _T_QUANTILES[key]


def contrast_ci(groups: Sequence[Sequence[float] | NDArray[np.float64]], weights: Sequence[float],
                level: float = 0.95) -> list[float]:
    """Student-t interval of a linear contrast ``sum_i w_i mean(group_i)`` of independent groups.

    Each group's mean carries its own variance (``var_i / n_i``), and the degrees of
    freedom are Welch-Satterthwaite's: one group with weight 1 is
    :func:`seqmi.stats.intervals.mean_ci`, two with weights ``(1, -1)`` are
    :func:`seqmi.stats.intervals.mean_diff_ci`, and weights ``(x_i - x̄) / Σ(x - x̄)²`` give
    the slope of the group means against ``x`` (:func:`seqmi.stats.intervals.slope_ci`). The
    groups are independent units (seeds of different models), never paired.

    Parameters
    ----------
    groups : sequence of sequences of float
        The values of each group (one per seed).
    weights : sequence of float
        One weight per group.
    level : float
        The interval's coverage.

    Returns
    -------
    list of two floats
        ``[-inf, inf]`` when a group has fewer than two values, ``[nan, nan]`` when a value
        is not finite, the point value twice when no group varies.

    Examples
    --------
    >>> a, b = [4.0, 5.0, 6.0], [1.0, 2.0, 3.0]
    >>> contrast_ci([a, b], [1.0, -1.0]) == mean_diff_ci(a, b)
    True
    """
    from scipy import special

    arrays = [np.asarray(g, dtype=float).ravel() for g in groups]
    w = [float(v) for v in weights]
    if not arrays or len(w) != len(arrays):
        raise ValueError(f"contrast_ci needs one weight per group, got {len(arrays)} groups and weights "
                         f"{weights!r}")
    if min(a.size for a in arrays) < 2:
        return [-math.inf, math.inf]
    # a sum is finite only when every value is; the sums and dot products keep this fast on a
    # few seeds, where a calibration calls it thousands of times
    sums = [float(a.sum()) for a in arrays]
    if not all(math.isfinite(v) for v in sums):
        return [math.nan, math.nan]
    means = [v / a.size for v, a in zip(sums, arrays)]
    estimate = sum(wi * m for wi, m in zip(w, means))
    parts = [wi**2 * float((a - m) @ (a - m)) / (a.size - 1) / a.size for wi, a, m in zip(w, arrays, means)]
    variance = sum(parts)
    if variance == 0:
        return [estimate, estimate]
    df = variance**2 / sum(v**2 / (a.size - 1) for v, a in zip(parts, arrays))
    half = float(special.stdtrit(df, 0.5 + level / 2)) * math.sqrt(variance)
    return [estimate - half, estimate + half]


def slope_ci(x: Sequence[float], groups: Sequence[Sequence[float] | NDArray[np.float64]],
             level: float = 0.95) -> tuple[float, list[float]]:
    """Least-squares slope of the group means against ``x``, and its interval over the groups' units.

    The slope of per-group means is a linear contrast of them
    (:func:`seqmi.stats.intervals.contrast_ci`): its interval resamples nothing, and takes
    each group's spread over its own units (seeds of one width), so units of different
    groups are never paired.

    Parameters
    ----------
    x : sequence of float
        One abscissa per group, at least two distinct.
    groups : sequence of sequences of float
        The values at each ``x`` (independent units).
    level : float
        The interval's coverage.

    Returns
    -------
    slope : float
    ci : list of two floats

    Examples
    --------
    >>> slope, ci = slope_ci([0.0, 1.0, 2.0], [[0.9, 1.1], [1.9, 2.1], [2.9, 3.1]])
    >>> round(slope, 6), ci[0] < 1.0 < ci[1]
    (1.0, True)
    """
    xs = np.asarray(x, dtype=float)
    if xs.shape != (len(groups),) or np.ptp(xs) == 0:
        raise ValueError(f"slope_ci needs one abscissa per group, at least two distinct, got x={x!r}")
    weights = (xs - xs.mean()) / ((xs - xs.mean()) ** 2).sum()
    slope = float(sum(wi * np.mean(g) for wi, g in zip(weights, groups)))
    return slope, contrast_ci(groups, weights, level)


def log_ratio_ci(high: Sequence[float], low: Sequence[float], ref_high: Sequence[float] | None = None,
                 ref_low: Sequence[float] | None = None, level: float = 0.95) -> tuple[float, list[float]]:
    """Interval of ``ln(mean(high) / mean(low))``, or of its difference from a reference's.

    Every group is its own independent sample (seeds of different configurations are never
    paired): each log mean has the delta method's variance ``var / (n mean^2)``, the
    variances add, and Student's t takes the Welch-Satterthwaite degrees of freedom over
    the groups.

    Parameters
    ----------
    high, low : sequence of float
        Positive values (one per seed) of the two configurations compared.
    ref_high, ref_low : sequence of float, optional
        A reference's; the interval is then of the difference of the two log ratios.
    level : float
        The interval's coverage.

    Returns
    -------
    (estimate, [low, high])
        ``[-inf, inf]`` when a group has fewer than two values.

    Examples
    --------
    >>> est, ci = log_ratio_ci([2.0, 2.2, 1.8], [1.0, 1.1, 0.9])
    >>> round(est, 4), ci[0] > 0
    (0.6931, True)
    """
    from scipy.special import stdtrit

    groups = [np.asarray(g, dtype=float) for g in (high, low, ref_high, ref_low) if g is not None]
    if len(groups) not in (2, 4) or any(g.size == 0 or g.min() <= 0 for g in groups):
        raise ValueError("log_ratio_ci needs two or four groups of positive values")
    sizes = [g.size for g in groups]
    means = [float(g.sum()) / n for g, n in zip(groups, sizes)]
    logs = [math.log(mu) for mu in means]
    estimate = logs[0] - logs[1] - (logs[2] - logs[3] if len(groups) == 4 else 0.0)
    if min(sizes) < 2:
        return estimate, [-math.inf, math.inf]
    # each log mean's variance by the delta method: var / (n mean^2)
    parts = [float(((g - mu) ** 2).sum()) / (n - 1) / (n * mu**2) for g, mu, n in zip(groups, means, sizes)]
    total = sum(parts)
    if total == 0:
        return estimate, [estimate, estimate]
    df = total**2 / sum(p**2 / (n - 1) for p, n in zip(parts, sizes))
    half = float(stdtrit(df, 0.5 + level / 2)) * math.sqrt(total)
    return estimate, [estimate - half, estimate + half]


def jackknife_ci(estimate: float, replicates: Sequence[float] | NDArray[np.float64],
                 level: float = 0.95) -> list[float]:
    """Student-t interval of ``estimate`` with the standard error of its delete-one jackknife replicates.

    The replicates are the estimate recomputed with each of ``n`` blocks left out in turn;
    the jackknife standard error is ``√((n-1)/n · Σ(θ_i - θ̄)²)`` and the interval
    ``estimate ± t(n-1)·se``, centred on the estimate from every block.

    Parameters
    ----------
    estimate : float
        The statistic computed on every block.
    replicates : sequence of float
        The statistic without each block, at least two.
    level : float
        The interval's coverage.

    Returns
    -------
    list of two floats

    Raises
    ------
    ValueError
        With fewer than two replicates, or replicates that are not one sequence.

    Examples
    --------
    >>> [round(v, 4) for v in jackknife_ci(1.0, [0.9, 1.0, 1.1])]
    [0.5032, 1.4968]
    """
    theta = np.asarray(replicates, dtype=float)
    if theta.ndim != 1 or theta.size < 2:
        raise ValueError(f"jackknife_ci needs a sequence of at least 2 replicates, got shape {theta.shape}")
    n = theta.size
    half = t_quantile(level, n - 1)
    se = float(np.sqrt((n - 1) / n * ((theta - theta.mean()) ** 2).sum()))
    return [estimate - half * se, estimate + half * se]


def geometric_ratio_ci(a: Sequence[float] | NDArray[np.float64], b: Sequence[float] | NDArray[np.float64],
                       level: float = 0.95) -> tuple[float, list[float]]:
    """The relative difference of two groups' geometric means, ``gm(a) / gm(b) - 1``, and its interval.

    Welch's interval of ``mean(ln a) - mean(ln b)`` (:func:`seqmi.stats.intervals.contrast_ci`),
    exponentiated: exact for log-normal units, whose spread grows with their level.

    Parameters
    ----------
    a, b : sequence of float
        Positive values of two independent groups (one per seed), never paired.
    level : float
        The interval's coverage.

    Returns
    -------
    (estimate, [low, high])
        NaN throughout when a value is not finite and positive; ``[-inf, inf]`` (as
        :func:`seqmi.stats.intervals.contrast_ci`) when a group has fewer than two values.

    Examples
    --------
    >>> est, ci = geometric_ratio_ci([2.0, 2.2, 1.8], [1.0, 1.1, 0.9])
    >>> round(est, 4), ci[0] > 0
    (1.0, True)
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not (np.isfinite(a).all() and np.isfinite(b).all() and (a > 0).all() and (b > 0).all()):
        return math.nan, [math.nan, math.nan]
    la, lb = np.log(a), np.log(b)
    lo, hi = contrast_ci([la, lb], [1.0, -1.0], level)
    return math.expm1(la.mean() - lb.mean()), [math.expm1(lo), math.expm1(hi)]


def ratio_to_reference_ci(values: Sequence[float] | NDArray[np.float64], reference: float,
                          reference_se: float, level: float = 0.95) -> tuple[float, list[float]]:
    """``mean(values) / reference - 1`` and its interval, the reference's own standard error included.

    The delta method on the log ratio: ``ln mean`` has the variance ``var / (n mean²)``, the
    reference's log ``(se / reference)²``, and Student's t takes the Welch-Satterthwaite
    degrees of freedom with the reference's (a bootstrap over many sequences) taken as
    infinite.

    Parameters
    ----------
    values : sequence of float
        Independent units (one per seed).
    reference, reference_se : float
        The value compared with, positive, and its standard error.
    level : float
        The interval's coverage.

    Returns
    -------
    (estimate, [low, high])
        NaN throughout with fewer than two values, a value that is not finite, or a mean
        or reference that is not positive.

    Examples
    --------
    >>> est, ci = ratio_to_reference_ci([1.1, 1.2, 1.3], 1.0, 0.01)
    >>> round(est, 4), [round(v, 3) for v in ci]
    (0.2, [-0.013, 0.46])
    """
    from scipy import special

    x = np.asarray(values, dtype=float)
    if x.size < 2 or not (np.isfinite(x).all() and x.mean() > 0 and reference > 0):
        return math.nan, [math.nan, math.nan]
    est = math.log(x.mean() / reference)
    own = x.var(ddof=1) / (x.size * x.mean() ** 2)
    total = own + (reference_se / reference) ** 2
    df = total**2 * (x.size - 1) / own**2 if own > 0 else math.inf
    half = float(special.stdtrit(df, 0.5 + level / 2)) * math.sqrt(total)
    return math.expm1(est), [math.expm1(est - half), math.expm1(est + half)]
