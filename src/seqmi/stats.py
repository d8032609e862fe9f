"""Intervals and sample sizes: the statistics every chapter and claim rule uses.

Intervals are ``[low, high]`` lists of floats. The independent units are what the caller
passes: trained seeds, sequences, documents, held-out symbols. A claim rule
(:mod:`seqmi.claims`) decides a verdict from these intervals; a chapter may compute them
too, but never through a rule module.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
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


def wilson_power(p: float, trials: int, threshold: float, z: float = Z95) -> float:
    """Probability that the Wilson interval of a proportion lies wholly above ``threshold``.

    Exact: the binomial probability, at success rate ``p`` over ``trials`` independent
    trials, of the success counts whose :func:`binomial_ci` has its lower bound above
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

    One group (one standard deviation): the interval of :func:`mean_ci`, whose mean is
    ``effect``; exact, from the noncentral t distribution. Two groups: Welch's interval of
    :func:`mean_diff_ci`, whose difference of means is ``effect``, approximated by the
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
        raise ValueError(f"t_power needs one or two positive standard deviations and n >= 2, got sds={sds!r}, n={n!r}")
    total = sum(variances)
    df = total**2 * (n - 1) / sum(v**2 for v in variances)
    critical = scipy_stats.t.ppf(0.5 + level / 2, df)
    return float(scipy_stats.nct.sf(critical, df, effect / math.sqrt(total / n)))


# ---------------------------------------------------------------- growth and decay forms

# the exponents a growth profile searches: every growth from saturating (beta < 0) through
# logarithmic (0) and sublinear to superlinear; a bound on the grid's edge means "unbounded"
GROWTH_GRID = np.round(np.linspace(-3.0, 3.0, 601), 2)
CHI2_1_95 = 3.841458820694124  # the 95% quantile of chi-square with one degree of freedom


@dataclass(frozen=True)
class GrowthProfile:
    """The exponent of ``I(L) = a (L^beta - 1) / beta + c`` by profile likelihood (:func:`growth_profile`).

    Attributes
    ----------
    beta : float
        The best exponent on the grid (0: logarithmic growth ``a ln L + c``).
    ci : list of float
        Its interval: the exponents whose likelihood-ratio statistic stays below the
        chi-square quantile; a bound on the grid's edge (±3) means unbounded.
    slope : float
        ``a`` at ``beta``: positive when the curve grows.
    chi2 : float
        The weighted residual sum of squares at ``beta``.
    chi2_log : float
        The same at ``beta = 0``, the best logarithmic curve.
    scale : float
        The factor the likelihood ratio was divided by: ``chi2 / (n - 3)`` where the
        curve scatters more than its standard errors say, else 1.
    n : int
        Lengths fitted.
    """

    beta: float
    ci: list[float]
    slope: float
    chi2: float
    chi2_log: float
    scale: float
    n: int


@functools.lru_cache(maxsize=64)
def _growth_basis(lengths: tuple[float, ...]) -> NDArray[np.float64]:
    """``(x^beta - 1) / beta`` (``ln x`` at 0) on ``GROWTH_GRID``, ``x`` the lengths over
    their geometric mean (cached: a calibration fits the same lengths thousands of times)."""
    x = np.log(np.array(lengths) / np.exp(np.log(lengths).mean()))
    b = GROWTH_GRID[:, None]
    safe = np.where(b == 0, 1.0, b)
    basis = np.where(b == 0, x, np.expm1(safe * x) / safe)
    basis.flags.writeable = False
    return basis


def growth_profile(lengths: Sequence[float], mi: Sequence[float], se: Sequence[float],
                   level: float = 0.95) -> GrowthProfile:
    """Power law against logarithmic growth: the exponent of ``a (L^beta - 1) / beta + c``.

    The family holds logarithmic growth (``beta = 0``: ``a ln L + c``), every power law
    with an offset (``beta > 0``) and saturating growth (``beta < 0``), so "power law
    rather than logarithmic" is a test of ``beta = 0`` inside it. Given ``beta`` the
    model is linear in ``(a, c)``: weighted least squares with the estimates' standard
    errors (independent Gaussian errors of known variance), and the profile over a grid
    of exponents (``GROWTH_GRID``) gives the likelihood-ratio interval of ``beta``.
    Where the curve scatters about its best fit more than its standard errors allow
    (``chi2 > n - 3``), the statistic is divided by ``chi2 / (n - 3)`` (Birge's ratio),
    which widens the interval and never narrows it.

    Parameters
    ----------
    lengths : sequence of float
        The lengths ``L > 0``, at least four.
    mi : sequence of float
        The estimates ``I(L)`` (any sign).
    se : sequence of float
        Their standard errors, positive.
    level : float
        The interval's coverage.

    Returns
    -------
    GrowthProfile

    Examples
    --------
    >>> L = np.array([16, 32, 64, 128, 256])
    >>> p = growth_profile(L, 2 * L ** 0.5 + 1, np.full(5, 0.1))
    >>> p.beta, 0 < p.ci[0] < 0.5 < p.ci[1] < 1
    (0.5, True)
    >>> growth_profile(L, np.log(L) - 2, np.full(5, 0.01)).beta
    0.0
    """
    from scipy.stats import chi2 as chi2dist

    L, y, s = (np.asarray(v, dtype=float) for v in (lengths, mi, se))
    if not (L.ndim == 1 and L.shape == y.shape == s.shape and L.size >= 4):
        raise ValueError(f"growth_profile needs lengths, mi and se of one length, at least 4, got {L.shape}, "
                         f"{y.shape}, {s.shape}")
    if np.any(L <= 0) or np.any(s <= 0) or not np.all(np.isfinite(y)):
        raise ValueError("growth_profile needs positive lengths and standard errors and finite estimates")
    w = 1.0 / s**2
    f = _growth_basis(tuple(L.tolist()))  # (grid, n)
    fc = f - (f @ w)[:, None] / w.sum()
    yc = y - (w @ y) / w.sum()
    sff, sfy = (fc**2) @ w, fc @ (w * yc)
    chi2 = (w * yc**2).sum() - sfy**2 / sff
    best = int(np.argmin(chi2))
    scale = max(1.0, float(chi2[best]) / (L.size - 3)) if L.size > 3 else 1.0
    quantile = CHI2_1_95 if level == 0.95 else float(chi2dist.ppf(level, 1))
    inside = GROWTH_GRID[(chi2 - chi2[best]) / scale <= quantile]
    zero = int(np.flatnonzero(GROWTH_GRID == 0)[0])
    return GrowthProfile(float(GROWTH_GRID[best]), [float(inside.min()), float(inside.max())],
                         float(sfy[best] / sff[best]), float(chi2[best]), float(chi2[zero]), scale, int(L.size))


def growth_power(lengths: Sequence[float], se: Sequence[float], amplitude: float, beta: float,
                 level: float = 0.95) -> float:
    """Power of :func:`growth_profile` to tell ``amplitude L^beta`` from logarithmic growth.

    The likelihood-ratio statistic of ``beta = 0`` is, for Gaussian errors of known
    variance, noncentral chi-square with one degree of freedom; its noncentrality is the
    weighted distance from the power law to the nearest logarithmic curve. The power is
    the chance it exceeds the quantile, whichever side (a lower bound on the chance that
    the interval excludes 0 on the power law's side, to the other side's tiny share).

    Parameters
    ----------
    lengths, se : sequence of float
        The lengths and the standard errors of the estimates there.
    amplitude, beta : float
        The power law ``amplitude L^beta``.
    level : float
        The interval's coverage.

    Returns
    -------
    float

    Examples
    --------
    >>> L = np.array([16, 32, 64, 128, 256])
    >>> round(growth_power(L, np.full(5, 1.0), 3.0, 0.5), 2) > 0.9
    True
    """
    from scipy import stats as scipy_stats

    L, s = np.asarray(lengths, dtype=float), np.asarray(se, dtype=float)
    w = 1.0 / s**2
    y = amplitude * L**beta
    X = np.stack([np.log(L), np.ones_like(L)], axis=1)
    coef = np.linalg.lstsq(X * np.sqrt(w)[:, None], y * np.sqrt(w), rcond=None)[0]
    noncentrality = float((w * (y - X @ coef) ** 2).sum())
    return float(scipy_stats.ncx2.sf(scipy_stats.chi2.ppf(level, 1), 1, noncentrality))


def log_slope(lengths: Sequence[float], mi: Sequence[float], se: Sequence[float]) -> tuple[float, float]:
    """The exponent of a power law ``I ~ L^beta``: the weighted log-log slope and its standard error.

    Weighted least squares of ``ln I`` on ``ln L`` with weights ``(I / se)^2`` (the delta
    method's variance of ``ln I``), over the positive estimates; the standard error is
    multiplied by Birge's ratio ``sqrt(chi2 / (n - 2))`` where the points scatter more
    than their errors say (never shrunk). This is the exponent L2M reads off its log-log
    plots, with the per-length errors as the noise model.

    Parameters
    ----------
    lengths, mi, se : sequence of float
        Lengths, estimates and their standard errors; at least three estimates positive.

    Returns
    -------
    (slope, standard error)

    Examples
    --------
    >>> L = np.array([16.0, 32, 64, 128])
    >>> b, s = log_slope(L, 3 * L ** 0.7, 0.01 * 3 * L ** 0.7)
    >>> round(b, 6), s < 0.01
    (0.7, True)
    """
    L, y, s = (np.asarray(v, dtype=float) for v in (lengths, mi, se))
    keep = y > 0
    if keep.sum() < 3:
        raise ValueError(f"log_slope needs at least three positive estimates, got {int(keep.sum())}")
    x, z, w = np.log(L[keep]), np.log(y[keep]), (y[keep] / s[keep]) ** 2
    xc = x - (w @ x) / w.sum()
    sxx = (w * xc**2).sum()
    slope = float((w * xc) @ z / sxx)
    resid = z - (w @ z) / w.sum() - slope * xc
    chi2 = float((w * resid**2).sum())
    birge = max(1.0, chi2 / (x.size - 2)) if x.size > 2 else 1.0
    return slope, math.sqrt(birge / sxx)


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


@dataclass(frozen=True)
class DecayForm:
    """Power law against exponential decay of a two-point MI curve (:func:`decay_form`).

    Attributes
    ----------
    llr : float
        Mean log-likelihood ratio per distance, power law over exponential (positive: the
        power law fits better).
    ci : list of float
        Its interval, from the ratio's means over contiguous ranges of distance.
    alpha, amplitude, offset : float
        The power law ``A d^-alpha + C``.
    xi, amplitude_exp, offset_exp : float
        The exponential ``A e^(-d/xi) + C`` (``xi`` infinite when the fit does not decay).
    n : int
        Distances fitted.
    """

    llr: float
    ci: list[float]
    alpha: float
    amplitude: float
    offset: float
    xi: float
    amplitude_exp: float
    offset_exp: float
    n: int


# offsets C searched below min I: C = min I (1 - g), g from 1 down to 1e-5, log-spaced
DECAY_OFFSETS = np.concatenate([[1.0], np.geomspace(1.0, 1e-5, 80)[1:]])


def _offset_profile(y: NDArray[np.float64], x: NDArray[np.float64]) -> tuple[float, NDArray[np.float64],
                                                                              NDArray[np.float64]]:
    """Least squares of ``ln(I - C)`` on ``[1, x]`` with ``C`` profiled: (C, coefficients, residuals)."""
    cs = y.min() * (1.0 - DECAY_OFFSETS)
    z = np.log(y[None, :] - cs[:, None])  # (offsets, n)
    xc = x - x.mean()
    slopes = (z @ xc) / (xc @ xc)
    resid = z - z.mean(axis=1, keepdims=True) - slopes[:, None] * xc
    best = int(np.argmin((resid**2).sum(axis=1)))
    return float(cs[best]), np.array([z[best].mean() - slopes[best] * x.mean(), slopes[best]]), resid[best]


# contiguous ranges of distance whose mean log-likelihood ratios give decay_form's interval
DECAY_BLOCKS = 10


def decay_form(mi: Sequence[float], min_lag: int, level: float = 0.95) -> DecayForm:
    """Power law ``A d^-alpha + C`` against exponential ``A e^(-d/xi) + C`` for a two-point MI curve.

    Both forms are fitted as L2M fits the first (App. A.VII): least squares of
    ``ln(I(d) - C)`` from ``d = min_lag`` on, the offset ``0 <= C < min I`` (the
    estimator's bias) profiled for each form. The per-distance log-likelihood ratio of the
    two fits (Gaussian errors of ``ln(I - C)``, each form with its own variance) has mean
    ``ln(RSS_exp / RSS_pow) / 2`` (Vuong's statistic). Neighbouring distances share the
    text's counts, so the distances are not independent: the interval is Student's t over
    the means of ``DECAY_BLOCKS`` contiguous ranges of distance (batch means), which
    keeps the correlation within a range and counts a range whose misfit differs from the
    others' as spread. The fit stops before the first estimate that is not positive.

    Parameters
    ----------
    mi : sequence of float
        ``mi[d - 1] = I(d)``.
    min_lag : int
        First distance fitted.
    level : float
        The interval's coverage.

    Returns
    -------
    DecayForm

    Raises
    ------
    ValueError
        With fewer than ``2 * DECAY_BLOCKS`` positive distances from ``min_lag`` on.

    Examples
    --------
    >>> d = np.arange(1, 201)
    >>> wiggle = 1 + 0.02 * np.sin(d * 1.7)
    >>> decay_form(0.1 * d ** -1.0 * wiggle + 1e-4, 4).ci[0] > 0
    True
    >>> decay_form(0.1 * np.exp(-d / 20) * wiggle + 1e-4, 4).ci[1] < 0
    True
    """
    from scipy.special import stdtrit

    y = np.asarray(mi, dtype=float)
    d = np.arange(1, y.size + 1, dtype=float)
    y, d = y[min_lag - 1:], d[min_lag - 1:]
    bad = np.flatnonzero(~(y > 0))
    if bad.size:
        y, d = y[: bad[0]], d[: bad[0]]
    if y.size < 2 * DECAY_BLOCKS:
        raise ValueError(f"decay_form needs at least {2 * DECAY_BLOCKS} positive distances from {min_lag} on, "
                         f"got {y.size}")
    c_pow, coef_pow, e_pow = _offset_profile(y, np.log(d))
    c_exp, coef_exp, e_exp = _offset_profile(y, d)
    v_pow, v_exp = (e_pow**2).mean(), (e_exp**2).mean()
    m = 0.5 * math.log(v_exp / v_pow) - e_pow**2 / (2 * v_pow) + e_exp**2 / (2 * v_exp)
    # the means of DECAY_BLOCKS contiguous ranges, as np.array_split cuts them
    starts = np.array([k * (m.size // DECAY_BLOCKS) + min(k, m.size % DECAY_BLOCKS) for k in range(DECAY_BLOCKS)])
    blocks = np.add.reduceat(m, starts) / np.diff(np.append(starts, m.size))
    half = float(stdtrit(DECAY_BLOCKS - 1, 0.5 + level / 2) * blocks.std(ddof=1)) / math.sqrt(DECAY_BLOCKS)
    llr = float(m.mean())
    xi = -1.0 / coef_exp[1] if coef_exp[1] < 0 else math.inf
    return DecayForm(llr, [llr - half, llr + half], float(-coef_pow[1]), float(math.exp(coef_pow[0])), c_pow,
                     float(xi), float(math.exp(coef_exp[0])), c_exp, int(y.size))


def contrast_ci(groups: Sequence[Sequence[float] | NDArray[np.float64]], weights: Sequence[float],
                level: float = 0.95) -> list[float]:
    """Student-t interval of a linear contrast ``sum_i w_i mean(group_i)`` of independent groups.

    Each group's mean carries its own variance (``var_i / n_i``), and the degrees of
    freedom are Welch-Satterthwaite's: one group with weight 1 is :func:`mean_ci`, two
    with weights ``(1, -1)`` are :func:`mean_diff_ci`, and weights ``(x_i - x̄) / Σ(x - x̄)²``
    give the slope of the group means against ``x`` (:func:`slope_ci`). The groups are
    independent units (seeds of different models), never paired.

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
    >>> contrast_ci([[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]], [1.0, -1.0]) == mean_diff_ci([4.0, 5.0, 6.0], [1.0, 2.0, 3.0])
    True
    """
    from scipy import special

    arrays = [np.asarray(g, dtype=float).ravel() for g in groups]
    w = [float(v) for v in weights]
    if not arrays or len(w) != len(arrays):
        raise ValueError(f"contrast_ci needs one weight per group, got {len(arrays)} groups and weights {weights!r}")
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

    The slope of per-group means is a linear contrast of them (:func:`contrast_ci`): its
    interval resamples nothing, and takes each group's spread over its own units (seeds
    of one width), so units of different groups are never paired.

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


def spearman_permutation_test(x: Sequence[float] | NDArray[np.float64], y: Sequence[float] | NDArray[np.float64],
                              resamples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Spearman's ρ of paired values and its permutation p-values, one for each direction.

    Under no association every pairing of ``x`` with ``y`` is equally likely, so the null
    distribution of ρ is that of ρ over the permutations of ``y``: exact (every
    permutation) when there are at most ``resamples`` of them, else ``resamples`` drawn
    with ``seed``, and the p-value counts the observed pairing among them,
    ``(1 + #{ρ_perm <= ρ}) / (1 + resamples)``, so that a test at level α rejects at most
    a fraction α of the time. Ties take average ranks.

    Parameters
    ----------
    x, y : sequence of float
        The paired values (independent units), at least three pairs.
    resamples : int
        Drawn permutations when not all are enumerated.
    seed : int
        Seed of the drawn permutations (the same ones for every call of one size).

    Returns
    -------
    rho : float
    p_less : float
        The p-value of ρ < 0 (the fraction of the null at or below ρ).
    p_greater : float
        The p-value of ρ > 0.

    Examples
    --------
    >>> rho, p_less, p_greater = spearman_permutation_test([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])
    >>> rho, round(p_less, 4), p_greater
    (-1.0, 0.0083, 1.0)
    """
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1 or xs.size < 3:
        raise ValueError(f"spearman_permutation_test needs two equal-length sequences of at least 3 values, "
                         f"got shapes {xs.shape} and {ys.shape}")
    rx, ry = _ranks(xs), _ranks(ys)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    norm = math.sqrt((rx**2).sum() * (ry**2).sum())
    if norm == 0:
        return math.nan, 1.0, 1.0
    perms = _permutations(xs.size, resamples, seed)
    rho = float(rx @ ry / norm)
    null = ry[perms] @ rx / norm
    # an exact enumeration holds the observed pairing; drawn permutations add it once
    drawn = 0 if math.factorial(xs.size) <= resamples else 1
    tol = 1e-12  # equal sums of rank products in another order differ by rounding
    p_less = (drawn + np.count_nonzero(null <= rho + tol)) / (drawn + len(perms))
    p_greater = (drawn + np.count_nonzero(null >= rho - tol)) / (drawn + len(perms))
    return rho, float(p_less), float(p_greater)


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


def relative_difference_interval(estimate: Sequence[float] | np.ndarray, reference: Sequence[float] | np.ndarray, stderr: Sequence[float] | np.ndarray, dof: float,
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


def equivalence_scale(deviation: Sequence[float] | np.ndarray, half_width: Sequence[float] | np.ndarray, margin: float) -> float | None:
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

    ``mean ± k·s`` with :func:`tolerance_factor`'s ``k``. Where the interval lies inside a
    band, at least ``content`` of the population does, at level ``1 - confidence``: the
    test of "a single draw lands in the band", where a mean's interval only tests the
    centre.

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


def equivalence_power(relative_se: Sequence[float] | np.ndarray, margin: float, dof: float,
                      level: float = 0.90) -> float:
    """Probability that every interval of :func:`relative_difference_interval` lies inside ``±margin``
    when every true relative difference is 0.

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
    """Factor by which a sample must grow for :func:`equivalence_power` to reach ``power``.

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


def spearman_ci(rho: float, n: int, level: float = 0.95) -> list[float]:
    """Fisher-z interval of a Spearman correlation ``rho`` over ``n`` independent units.

    The variance of ``atanh(rho)`` is taken as ``1.06 / (n - 3)`` (Fieller, Hartley and
    Pearson 1957). The interval describes the estimate's spread; a decision on few units
    belongs to an exact test (:func:`spearman_permutation_test`). With ``n <= 3`` or a
    ``rho`` that is not finite, the interval is ``[-1, 1]``.

    Examples
    --------
    >>> [round(v, 3) for v in spearman_ci(-0.5, 30)]
    [-0.734, -0.16]
    """
    from scipy import stats as scipy_stats

    if n <= 3 or not math.isfinite(rho):
        return [-1.0, 1.0]
    z = math.atanh(max(-0.9999, min(0.9999, rho)))
    half = scipy_stats.norm.ppf(0.5 + level / 2) * math.sqrt(1.06 / (n - 3))
    return [math.tanh(z - half), math.tanh(z + half)]
