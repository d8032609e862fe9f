"""Fits of mutual-information decay curves: power law, correlation length, offset power law.

Shen 2019 fits ``I(tau) = A tau^(-gamma)`` (binary sequences, text) and
``I(tau) = I0 exp(-tau / xi)`` (RNN samples) by least squares on the logarithm, using
only points above a threshold (``1e-3``) where the estimator's bias and noise are small
compared with the signal. Chen et al. 2025 (L2M) instead keep every distance and absorb
the estimator's distance-independent bias in a constant: ``I(d) = A d^(-alpha) + C``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, stats

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


def two_point_offset_fit(mi: ArrayLike, min_lag: int,
                         jackknife: ArrayLike | None = None) -> dict[str, float | int | list[float]]:
    """L2M's offset fit of a two-point MI curve ``mi[d - 1] = I(d)``, with intervals.

    Fits ``I(d) = A d^(-alpha) + C`` from ``d = min_lag`` on (:func:`fit_power_law_with_offset`),
    then refits ``I - C`` by a straight line in log-log space with ``C`` held fixed for a 95%
    interval of ``alpha`` (an interval *given* ``C``: it ignores the uncertainty of ``C``).
    With the delete-one-block ``jackknife`` replicates of the curve
    (:func:`seqmi.info.two_point_mi_jackknife`, which keep the correlation between
    neighbouring distances) every replicate is fitted too, and the jackknife standard error
    gives Student-t 95% intervals of ``alpha`` and ``C`` from the joint fit.

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
    dict
        ``alpha``, ``alpha_ci``, ``offset`` (``C``), ``amplitude`` (``A``), ``r2`` (of the
        log-log line of ``I - C``) and ``min_lag``; with jackknife replicates also
        ``alpha_jack_ci``, ``offset_jack_ci`` and ``n_jackknife``.

    Raises
    ------
    ValueError
        When ``min_lag`` leaves fewer than 3 distances, the replicates' distances differ
        from the curve's, or a replicate has a distance whose MI is not positive.
    """
    y = np.asarray(mi, dtype=float)
    lags = np.arange(1, y.size + 1)
    sel = lags >= min_lag
    if sel.sum() < 3:
        raise ValueError(f"min_lag={min_lag} leaves fewer than 3 of the {y.size} distances to fit")
    fit = fit_power_law_with_offset(lags[sel], y[sel])
    given_c = fit_power_law(lags[sel], y[sel] - fit.offset, threshold=0.0)
    r = np.corrcoef(np.log(lags[sel]), np.log(y[sel] - fit.offset))[0, 1]
    out: dict[str, float | int | list[float]] = {
        "alpha": fit.exponent, "alpha_ci": list(given_c.ci), "offset": fit.offset, "amplitude": fit.amplitude,
        "r2": float(r * r), "min_lag": int(min_lag)}
    if jackknife is None:
        return out
    reps = np.atleast_2d(np.asarray(jackknife, dtype=float))
    if reps.shape[1] != y.size:
        raise ValueError(f"jackknife replicates have {reps.shape[1]} distances, the curve {y.size}")
    fits = [fit_power_law_with_offset(lags[sel], rep[sel]) for rep in reps]
    n = len(fits)
    half = float(stats.t.ppf(0.975, n - 1))
    for key, name, value in (("alpha_jack_ci", "exponent", fit.exponent), ("offset_jack_ci", "offset", fit.offset)):
        theta = np.array([getattr(f, name) for f in fits])
        se = float(np.sqrt((n - 1) / n * ((theta - theta.mean()) ** 2).sum()))
        out[key] = [value - half * se, value + half * se]
    out["n_jackknife"] = n
    return out
