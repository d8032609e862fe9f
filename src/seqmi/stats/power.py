"""Sample sizes and powers, which say what would decide a claim that its interval leaves open.

A sample size scales a measured interval, or searches the seeds at which a Student-t
interval would leave a threshold out (:func:`seqmi.stats.power.seeds_to_decide`); a power
is the chance that a Wilson or Student-t interval of :mod:`seqmi.stats.intervals` clears
its threshold at a stated effect.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from seqmi.stats.intervals import Z95


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


def seeds_to_decide(*groups: Sequence[float] | NDArray[np.float64], threshold: float = 0.0,
                    level: float = 0.95, limit: int = 100_000) -> int | None:
    """Seeds per group at which a Student-t interval would leave ``threshold`` out,
    were the means and spreads those measured on ``groups`` (a pilot's).

    One group: the interval of its mean (:func:`seqmi.stats.intervals.mean_ci`); two: Welch's
    interval of the difference of their means (:func:`seqmi.stats.intervals.mean_diff_ci`), with
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


def wilson_power(p: float, trials: int, threshold: float, z: float = Z95) -> float:
    """Probability that the Wilson interval of a proportion lies wholly above ``threshold``.

    Exact: the binomial probability, at success rate ``p`` over ``trials`` independent
    trials, of the success counts whose :func:`seqmi.stats.intervals.binomial_ci` has its lower bound above
    ``threshold``. At ``p = threshold`` it is the size of the one-sided test the interval
    makes (at most 2.5% at the 95% level); above, its power. The interval is symmetric
    under ``p -> 1 - p``, so the probability that it lies wholly *below* ``threshold`` is
    ``wilson_power(1 - p, trials, 1 - threshold)``.

    Parameters
    ----------
    p : float
        The true success rate, in [0, 1].
    trials : int
        Independent trials (held-out symbols), at least 1.
    threshold : float
        The value the interval must exceed.
    z : float
        The interval's normal quantile.

    Returns
    -------
    float

    Examples
    --------
    >>> wilson_power(0.99, 2000, 0.99) < 0.025, round(wilson_power(0.999, 5000, 0.99), 6)
    (True, 1.0)
    """
    from scipy import stats as scipy_stats

    if not 0.0 <= p <= 1.0 or trials < 1:
        raise ValueError(f"wilson_power needs p in [0, 1] and trials >= 1, got p={p!r}, trials={trials!r}")
    k = np.arange(trials + 1)
    share = k / trials
    # the lower bound of binomial_ci for every count, increasing in the count
    lower = ((share + z**2 / (2 * trials)) - z * np.sqrt(share * (1 - share) / trials + z**2 / (4 * trials**2))) \
        / (1 + z**2 / trials)
    above = np.flatnonzero(np.minimum(lower, share) > threshold)
    return float(scipy_stats.binom.sf(above[0] - 1, trials, p)) if above.size else 0.0


def t_power(effect: float, sds: Sequence[float], n: int, level: float = 0.95) -> float:
    """Probability that a Student-t interval over ``n`` seeds per group lies wholly above 0.

    One group (one standard deviation): the interval of :func:`seqmi.stats.intervals.mean_ci`, whose mean is
    ``effect``; exact, from the noncentral t distribution. Two groups: Welch's interval of
    :func:`seqmi.stats.intervals.mean_diff_ci`, whose difference of means is ``effect``, approximated by the
    noncentral t with the Welch-Satterthwaite degrees of freedom at the true spreads.

    Parameters
    ----------
    effect : float
        The true mean (one group) or difference of means (two).
    sds : sequence of float
        The true standard deviation of each group's values, one or two of them, positive.
    n : int
        Seeds per group, at least 2.
    level : float
        The interval's coverage (a one-sided test at ``(1 - level) / 2``).

    Returns
    -------
    float

    Examples
    --------
    >>> round(t_power(0.0, [1.0], 10), 4), round(t_power(1.0, [1.0], 10), 2)
    (0.025, 0.8)
    """
    from scipy import stats as scipy_stats

    variances = [float(s) ** 2 for s in sds]
    if len(variances) not in (1, 2) or min(variances) <= 0 or n < 2:
        raise ValueError(f"t_power needs one or two positive standard deviations and n >= 2, got sds={sds!r}, "
                         f"n={n!r}")
    total = sum(variances)
    df = total**2 * (n - 1) / sum(v**2 for v in variances)
    critical = scipy_stats.t.ppf(0.5 + level / 2, df)
    return float(scipy_stats.nct.sf(critical, df, effect / math.sqrt(total / n)))
