"""Fits of mutual-information decay curves: power law, correlation length, offset power law.

Every fit returns a frozen dataclass. A fitted quantity is named by the book's notation
(``xi``, ``gamma``; L2M's ``alpha``), its interval ``ci`` when the fit has one quantity
(:class:`PowerLawFit`, :class:`CorrelationLengthFit`) or ``<name>_ci`` when it has
several (:class:`DecayFits`, :class:`OffsetFit`); the fits that chapters record are
recorded field by field (``dataclasses.asdict``, :meth:`OffsetFit.record`).

Shen 2019 fits ``I(tau) = A tau^(-gamma)`` (binary sequences, text) and
``I(tau) = I0 exp(-tau / xi)`` (RNN samples) by least squares on the logarithm, using
only points above a threshold (``1e-3``) where the estimator's bias and noise are small
compared with the signal. Chen et al. 2025 (L2M) instead keep every distance and absorb
the estimator's distance-independent bias in a constant: ``I(d) = A d^(-alpha) + C``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, stats

from seqmi.stats import jackknife_ci
from seqmi.validate import check_float


@dataclass(frozen=True)
class PowerLawFit:
    """``I(tau) = amplitude * tau^(-exponent)`` fitted on the points above a threshold.

    Attributes
    ----------
    exponent : float
        The fitted decay exponent ``gamma``.
    ci : tuple of float
        Its confidence interval (level given to the fit, 95% by default).
    amplitude : float
        ``A``.
    n_points : int
        Number of points used.
    """

    exponent: float
    ci: tuple[float, float]
    amplitude: float
    n_points: int


@dataclass(frozen=True)
class CorrelationLengthFit:
    """``I(tau) = i0 * exp(-tau / xi)`` fitted on the points above a threshold.

    Attributes
    ----------
    xi : float
        Correlation length (``inf`` if the fitted slope is not negative).
    ci : tuple of float
        Confidence interval of ``xi``; the upper end is ``inf`` when the slope's
        interval reaches zero.
    i0 : float
        Amplitude.
    n_points : int
        Number of points used.
    """

    xi: float
    ci: tuple[float, float]
    i0: float
    n_points: int


@dataclass(frozen=True)
class OffsetPowerLawFit:
    """``I(d) = amplitude * d^(-exponent) + offset`` with ``0 < offset < min I`` (L2M).

    Attributes
    ----------
    exponent : float
        ``alpha``.
    amplitude : float
        ``A``.
    offset : float
        ``C``, the distance-independent part (mostly estimator bias).
    residual : float
        The minimised sum of squares in log space.
    """

    exponent: float
    amplitude: float
    offset: float
    residual: float


def _points(lags: ArrayLike, mi: ArrayLike, threshold: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    tau = np.asarray(lags, dtype=float)
    y = np.asarray(mi, dtype=float)
    if tau.shape != y.shape or tau.ndim != 1:
        raise ValueError(f"lags and mi must be 1-D of equal length, got shapes {tau.shape} and {y.shape}")
    if np.any(tau <= 0):
        raise ValueError("lags must be positive")
    check_float("threshold", threshold, 0.0)
    keep = np.isfinite(y) & (y > threshold)
    if keep.sum() < 3:
        raise ValueError(f"need at least 3 points with mi > {threshold:g} to fit, got {int(keep.sum())}")
    return tau[keep], y[keep]


def _slope_ci(x: NDArray[np.float64], y: NDArray[np.float64], confidence: float):
    res = stats.linregress(x, y)
    half = stats.t.ppf(0.5 + confidence / 2, len(x) - 2) * res.stderr
    return res.slope, res.intercept, (res.slope - half, res.slope + half)


def fit_power_law(lags: ArrayLike, mi: ArrayLike, threshold: float = 1e-3,
                  confidence: float = 0.95) -> PowerLawFit:
    """Least-squares fit of ``ln I = ln A - gamma ln tau`` on the points with ``I > threshold``.

    The confidence interval is the slope's, from its standard error and Student's t
    with ``n - 2`` degrees of freedom (points treated as independent, as in Shen 2019).

    Parameters
    ----------
    lags : array_like
        Distances ``tau > 0``.
    mi : array_like
        Mutual information at those distances.
    threshold : float
        Only points with ``mi > threshold`` are used (at least 3).
    confidence : float
        Level of the interval, in ``(0, 1)``.

    Returns
    -------
    PowerLawFit
    """
    check_float("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    tau, y = _points(lags, mi, threshold)
    slope, intercept, (lo, hi) = _slope_ci(np.log(tau), np.log(y), confidence)
    return PowerLawFit(float(-slope), (float(-hi), float(-lo)), float(np.exp(intercept)), len(tau))


def fit_correlation_length(lags: ArrayLike, mi: ArrayLike, threshold: float = 1e-3,
                           confidence: float = 0.95) -> CorrelationLengthFit:
    """Least-squares fit of ``ln I = ln I0 - tau / xi`` on the points with ``I > threshold``.

    ``xi`` is the correlation length of Shen 2019 eq. (9), the decay length of the mutual
    information itself, as everywhere in seqmi and the book (a correlation ``c`` decays
    with its own length ``zeta``; where ``I ~ c^2``, ``xi = zeta / 2``).

    Parameters
    ----------
    lags : array_like
        Distances ``tau > 0``.
    mi : array_like
        Mutual information at those distances.
    threshold : float
        Only points with ``mi > threshold`` are used (at least 3).
    confidence : float
        Level of the interval, in ``(0, 1)``.

    Returns
    -------
    CorrelationLengthFit
    """
    check_float("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    tau, y = _points(lags, mi, threshold)
    slope, intercept, (lo, hi) = _slope_ci(tau, np.log(y), confidence)

    def xi_of(s: float) -> float:
        return float(-1.0 / s) if s < 0 else float("inf")

    return CorrelationLengthFit(xi_of(slope), (xi_of(lo), xi_of(hi)), float(np.exp(intercept)), len(tau))


def fit_power_law_with_offset(lags: ArrayLike, mi: ArrayLike) -> OffsetPowerLawFit:
    """L2M's bias-corrected fit ``I(d) = A d^(-alpha) + C`` with ``0 < C < min I``.

    Minimises ``sum_d [ln(I(d) - C) - (ln A - alpha ln d)]^2``: for a fixed ``C`` this
    is a linear least-squares problem, so only ``C`` is searched (a grid, then a
    bounded scalar minimisation around the best grid point).

    Parameters
    ----------
    lags : array_like
        Distances ``d > 0`` (at least 3).
    mi : array_like
        Positive mutual-information estimates at those distances.

    Returns
    -------
    OffsetPowerLawFit
    """
    d, y = _points(lags, mi, 0.0)
    if len(d) != np.asarray(lags).size:
        raise ValueError("every mi value must be positive for the offset fit")
    log_d = np.log(d)
    top = float(y.min())

    def solve(c: float) -> tuple[float, float, float]:
        z = np.log(y - c)
        slope, intercept = np.polyfit(log_d, z, 1)
        return float(((z - intercept - slope * log_d) ** 2).sum()), float(slope), float(intercept)

    # C spans many decades below min I when the bias is small: search ln(1 - C / min I)
    grid = top * (1.0 - np.geomspace(1.0, 1e-6, 400))
    costs = [solve(c)[0] for c in grid]
    best = int(np.argmin(costs))
    lo = grid[max(best - 1, 0)]
    hi = grid[min(best + 1, len(grid) - 1)]
    res = optimize.minimize_scalar(lambda c: solve(c)[0], bounds=(lo, hi), method="bounded",
                                   options={"xatol": 1e-12 * top})
    c = float(res.x) if res.fun < costs[best] else float(grid[best])
    cost, slope, intercept = solve(c)
    return OffsetPowerLawFit(-slope, float(np.exp(intercept)), c, cost)


@dataclass(frozen=True)
class OffsetFit:
    """L2M's offset fit of a two-point MI curve with its intervals (:func:`two_point_offset_fit`).

    Attributes
    ----------
    alpha, alpha_ci : float, list of float
        The exponent (L2M's ``alpha``; the book's ``gamma``) and its 95% interval given ``C``.
    offset, amplitude : float
        ``C`` and ``A``.
    r2 : float
        ``r^2`` of the log-log line of ``I - C``.
    min_lag : int
        First distance of the fit.
    alpha_jack_ci, offset_jack_ci : list of float or None
        Jackknife 95% intervals of ``alpha`` and ``C`` (None without replicates).
    n_jackknife : int or None
        Jackknife replicates.
    """

    alpha: float
    alpha_ci: list[float]
    offset: float
    amplitude: float
    r2: float
    min_lag: int
    alpha_jack_ci: list[float] | None = None
    offset_jack_ci: list[float] | None = None
    n_jackknife: int | None = None

    def record(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict, the jackknife's only when it ran (the recorded form)."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def two_point_offset_fit(mi: ArrayLike, min_lag: int,
                         jackknife: ArrayLike | None = None) -> OffsetFit:
    """L2M's offset fit of a two-point MI curve ``mi[d - 1] = I(d)``, with intervals.

    Fits ``I(d) = A d^(-alpha) + C`` from ``d = min_lag`` on (:func:`fit_power_law_with_offset`),
    then refits ``I - C`` by a straight line in log-log space with ``C`` held fixed for a 95%
    interval of ``alpha`` (an interval *given* ``C``: it ignores the uncertainty of ``C``).
    With the delete-one-block ``jackknife`` replicates of the curve
    (:func:`seqmi.info.two_point_mi_jackknife`, which keep the correlation between
    neighbouring distances) every replicate is fitted too, and the jackknife standard error
    gives Student-t 95% intervals of ``alpha`` and ``C`` from the joint fit
    (:func:`seqmi.stats.intervals.jackknife_ci`).

    Parameters
    ----------
    mi : array_like, shape (max_lag,)
        The estimate ``I(1..max_lag)``.
    min_lag : int
        First distance of the fit.
    jackknife : array_like, shape (n_blocks, max_lag), optional
        The curve without each block in turn.

    Returns
    -------
    OffsetFit
        With its jackknife intervals when ``jackknife`` is given.

    Raises
    ------
    ValueError
        When ``min_lag`` leaves fewer than 3 distances, there are fewer than 2 replicates,
        the replicates' distances differ from the curve's, or a replicate has a distance
        whose MI is not positive.
    """
    y = np.asarray(mi, dtype=float)
    lags = np.arange(1, y.size + 1)
    sel = lags >= min_lag
    if sel.sum() < 3:
        raise ValueError(f"min_lag={min_lag} leaves fewer than 3 of the {y.size} distances to fit")
    fit = fit_power_law_with_offset(lags[sel], y[sel])
    given_c = fit_power_law(lags[sel], y[sel] - fit.offset, threshold=0.0)
    r = np.corrcoef(np.log(lags[sel]), np.log(y[sel] - fit.offset))[0, 1]
    out = OffsetFit(alpha=fit.exponent, alpha_ci=list(given_c.ci), offset=fit.offset, amplitude=fit.amplitude,
                    r2=float(r * r), min_lag=int(min_lag))
    if jackknife is None:
        return out
    reps = np.atleast_2d(np.asarray(jackknife, dtype=float))
    if reps.shape[1] != y.size:
        raise ValueError(f"jackknife replicates have {reps.shape[1]} distances, the curve {y.size}")
    fits = [fit_power_law_with_offset(lags[sel], rep[sel]) for rep in reps]
    jack = {key: jackknife_ci(value, [getattr(f, name) for f in fits])
            for key, name, value in (("alpha_jack_ci", "exponent", fit.exponent),
                                     ("offset_jack_ci", "offset", fit.offset))}
    return replace(out, **jack, n_jackknife=len(fits))


@dataclass(frozen=True)
class DecayFits:
    """Both fits of one curve ``I(tau)`` (:func:`decay_fits`): exponential (``xi``) and power law (``gamma``).

    Recorded as it is (``dataclasses.asdict``): its fields are the keys of the
    chapters' results.

    Attributes
    ----------
    n_fit_points : int
        Points above the threshold.
    ci_method : str
        ``"regression"``, or the bootstrap's replicates the intervals came from.
    xi, xi_ci : float, list of float
        Correlation length and its 95% interval.
    gamma, gamma_ci : float, list of float
        Power-law exponent and its 95% interval.
    exp_rss, pow_rss : float
        Residual sums of squares of both fits of ``ln I`` on the same points.
    form_ci : list of float
        95% interval of ``ln(pow_rss / exp_rss)`` over the replicates (NaN without).
    """

    n_fit_points: int
    ci_method: str
    xi: float
    xi_ci: list[float]
    gamma: float
    gamma_ci: list[float]
    exp_rss: float
    pow_rss: float
    form_ci: list[float]


def decay_fits(mi: ArrayLike, threshold: float, replicates: ArrayLike | None = None) -> DecayFits:
    """Exponential and power-law fits of ``I(tau)``, ``tau = 1..len(mi)``, above ``threshold``.

    Returns the correlation length ``xi`` and exponent ``gamma`` with 95% intervals, and
    the residual sums of squares of both fits of ``ln I`` on the same points
    (``exp_rss < pow_rss``: the decay looks exponential rather than algebraic). NaN
    everywhere when fewer than 3 points exceed the threshold.

    The intervals (``ci_method``) are the regression's, which treats the lags as
    independent points and is far too narrow for a long-memory curve, unless
    ``replicates`` (bootstrap curves over the sampled rows,
    :func:`seqmi.info.two_point_mi_bootstrap`) are given. Then every replicate is fitted
    on its own points above the threshold, and the intervals are the 2.5 and 97.5
    percentiles of the fitted decay rate ``1/xi`` (inverted: a rate interval reaching 0
    gives ``xi`` up to infinity), of ``gamma``, and of ``form = ln(pow_rss / exp_rss)``
    (``form_ci``, positive: the exponential fits better; NaN without replicates).
    """
    mi = np.asarray(mi, dtype=float)
    out: dict[str, Any] = {"n_fit_points": int((np.isfinite(mi) & (mi > threshold)).sum()), "ci_method": "regression"}
    nan = float("nan")
    fit = _fits(mi, threshold)
    if fit is None:
        return DecayFits(**out, xi=nan, xi_ci=[nan, nan], gamma=nan, gamma_ci=[nan, nan], exp_rss=nan, pow_rss=nan,
                         form_ci=[nan, nan])
    lags = np.arange(1, len(mi) + 1)
    xi = fit_correlation_length(lags, mi, threshold)
    pl = fit_power_law(lags, mi, threshold)
    xi_ci, gamma_ci, form_ci = list(xi.ci), list(pl.ci), [nan, nan]
    if replicates is not None:
        reps = np.array([_fits(curve, threshold) or (nan, nan, nan, nan) for curve in np.asarray(replicates, float)])
        rate, gamma, exp_rss, pow_rss = reps.T
        lo, hi = np.nanpercentile(rate, [2.5, 97.5])
        xi_ci = [1 / hi if hi > 0 else float("inf"), 1 / lo if lo > 0 else float("inf")]
        gamma_ci = [float(v) for v in np.nanpercentile(gamma, [2.5, 97.5])]
        form_ci = [float(v) for v in np.nanpercentile(np.log(pow_rss / exp_rss), [2.5, 97.5])]
        out["ci_method"] = f"bootstrap over rows ({len(reps)} replicates)"
    return DecayFits(**out, xi=xi.xi, xi_ci=xi_ci, gamma=pl.exponent, gamma_ci=gamma_ci, exp_rss=fit[2],
                     pow_rss=fit[3], form_ci=form_ci)


def _fits(curve: np.ndarray, threshold: float) -> tuple[float, float, float, float] | None:
    """Decay rate ``1/xi``, exponent ``gamma`` and both fits' RSS of ``ln I`` above ``threshold``.

    ``None`` under 3 points. Least squares as in :func:`seqmi.fit.fit_correlation_length`
    and :func:`seqmi.fit.fit_power_law`, without their intervals: cheap enough for every
    bootstrap replicate.
    """
    lags = np.arange(1, len(curve) + 1, dtype=float)
    keep = np.isfinite(curve) & (curve > threshold)
    if keep.sum() < 3:
        return None
    t, y = lags[keep], np.log(curve[keep])
    (slope, _), exp_rss = np.polyfit(t, y, 1, full=True)[:2]
    (power, _), pow_rss = np.polyfit(np.log(t), y, 1, full=True)[:2]
    # an exact fit leaves no residual array
    return float(-slope), float(-power), float(exp_rss.sum()), float(pow_rss.sum())
