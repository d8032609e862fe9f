"""Intervals and sample sizes: the statistics every chapter and claim rule uses.

Intervals are ``[low, high]`` lists of floats. The independent units are what the caller
passes: trained seeds, sequences, documents, held-out symbols. A claim rule
(:mod:`seqmi.claims`) decides a verdict from these intervals; a chapter may compute them
too, but never through a rule module.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np
from numpy.typing import NDArray

# z of a two-sided 95% interval: the level of every interval the rules build
Z95 = 1.959963984540054


def needed_for_interval(n0: int, half_width: float, effect: float) -> int:
    """Sample size at which an interval of ``half_width`` measured at ``n0`` shrinks below ``|effect|``.

    The half-width falls as ``1/√n``: ``n ≈ n0·(half_width/|effect|)²``, never fewer than
    ``n0 + 1``; with no effect at all, ``100·n0`` (no affordable scale decides it).
    """
    if not (math.isfinite(half_width) and half_width > 0):
        return n0 + 1
    if not (math.isfinite(effect) and abs(effect) > 0):
        return 100 * n0
    return max(n0 + 1, math.ceil(n0 * (half_width / abs(effect)) ** 2))


def needed_samples(n0: int, sd: float, effect: float, z: float = Z95) -> int:
    """Samples that resolve ``effect`` at level ``z``: ``n ≈ n0·(z·σ/δ)²`` with σ measured at ``n0``.

    ``sd`` is the standard error measured with ``n0`` samples; the standard error falls
    as ``1/√n``, so ``n`` samples give ``σ·√(n0/n)``, and the effect is resolved when
    that is ``δ/z``. Never fewer than ``n0 + 1`` (the measured scale did not decide).
    """
    if not (math.isfinite(sd) and sd > 0 and math.isfinite(effect) and effect > 0):
        return n0 + 1
    return max(n0 + 1, math.ceil(n0 * (z * sd / effect) ** 2))


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

    The spread behind :func:`mean_ci` and :func:`mean_diff_ci`, without their t quantile:
    what :func:`needed_samples` scales.
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


def late_early_ratio(position_kl: Any) -> Any:
    """Mean KL over the last quarter of the positions over that of the second quarter.

    The flatness measure of a position-wise KL curve (L2M, Fig. 4a): near 1 when the
    model's error does not grow along the sequence. The first quarter is left out because
    every model starts from the prior there.

    Parameters
    ----------
    position_kl : array_like, shape (..., L)
        ``L >= 4`` positions on the last axis; leading axes (replicates) give a ratio each.

    Returns
    -------
    float for one curve, else an array of the leading shape
    """
    kl = np.asarray(position_kl, dtype=float)
    if kl.ndim == 0 or kl.shape[-1] < 4:
        raise ValueError(f"position_kl must hold curves of at least 4 positions, got shape {kl.shape}")
    q = kl.shape[-1] // 4
    ratio = kl[..., 3 * q:].mean(-1) / kl[..., q:2 * q].mean(-1)
    return float(ratio) if kl.ndim == 1 else ratio


def seeds_to_decide(*groups: Sequence[float] | NDArray[np.float64], threshold: float = 0.0,
                    level: float = 0.95, limit: int = 100_000) -> int | None:
    """Seeds per group at which a Student-t interval would leave ``threshold`` out,
    were the means and spreads those measured on ``groups`` (a pilot's).

    One group: the interval of its mean (:func:`seqmi.stats.mean_ci`); two: Welch's
    interval of the difference of their means (:func:`seqmi.stats.mean_diff_ci`), with
    as many seeds in each. The pilot's effect is taken at face value: where it
    overestimates the effect, the count decides too rarely.

    Parameters
    ----------
    *groups : sequence of float
        One or two groups of at least two values each (one per seed).
    threshold : float
        The value the interval must leave out.
    level : float
        The interval's coverage.
    limit : int
        The largest count tried.

    Returns
    -------
    int or None
        The smallest such count (at least 2), or None where none up to ``limit`` is (an
        effect of zero, or too small for its spread).

    Examples
    --------
    >>> seeds_to_decide([1.0, 2.0, 3.0]), seeds_to_decide([-0.5, 0.5])
    (4, None)
    """
    arrays = [np.asarray(g, dtype=float) for g in groups]
    if len(arrays) not in (1, 2) or min(a.size for a in arrays) < 2:
        raise ValueError(f"seeds_to_decide needs one or two groups of at least two values, got sizes "
                         f"{[a.size for a in arrays]}")
    difference = arrays[0].mean() - (arrays[1].mean() if len(arrays) == 2 else 0.0)
    effect = abs(difference - threshold)
    variances = [float(a.var(ddof=1)) for a in arrays]
    total = sum(variances)
    if effect == 0:
        return None
    if total == 0:
        return 2
    from scipy import stats

    q = 0.5 + level / 2
    # the normal quantile is below every t quantile: the count it gives is a lower bound
    for n in range(max(2, math.floor(stats.norm.ppf(q) ** 2 * total / effect ** 2)), limit + 1):
        # Welch-Satterthwaite degrees of freedom with n seeds per group (n - 1 for one group)
        df = total ** 2 * (n - 1) / sum(v ** 2 for v in variances)
        if stats.t.ppf(q, df) * math.sqrt(total / n) < effect:
            return n
    return None
