"""Power law against exponential decay of a curve, and the correlation length of an exponential.

:func:`seqmi.stats.decay.decay_form` compares an offset power law with an offset
exponential fitted to a two-point MI curve by their log-likelihood ratio.
:func:`seqmi.stats.decay.log_decay_slope` is the least-squares slope of ``ln I(τ)`` on
``τ``, with a bound on its error that holds however the lags are correlated, and
:func:`seqmi.stats.decay.correlation_length_interval` the interval of the correlation
length ``ξ = -1/slope`` it gives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from seqmi.stats.intervals import t_quantile


@dataclass(frozen=True)
class DecayForm:
    """Power law against exponential decay of a two-point MI curve (:func:`seqmi.stats.decay.decay_form`).

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


def log_decay_slope(lags: Sequence[float] | NDArray[np.float64],
                    estimate: Sequence[float] | NDArray[np.float64],
                    stderr: Sequence[float] | NDArray[np.float64]) -> tuple[float, float]:
    """Least-squares slope of ``ln Î(τ)`` on ``τ``, and a bound on its standard error.

    The slope is ``Σ w_τ ln Î_τ`` with the least-squares weights ``w``; the bound is
    ``Σ |w_τ| s_τ``, ``s_τ = se_τ / Î_τ`` the errors of the logs (the delta method). It holds
    however the lags' errors are correlated (they are when the lags share their
    sequences), and is attained when they are perfectly correlated with the signs of ``w``.

    Parameters
    ----------
    lags : sequence of float
        The lags ``τ``, at least two distinct.
    estimate, stderr : sequence of float
        The estimates ``Î(τ)`` (positive, else the slope is NaN) and their standard errors.

    Returns
    -------
    (slope, bound)

    Raises
    ------
    ValueError
        When the three sequences differ in shape or the lags are not two distinct values or more.

    Examples
    --------
    >>> tau = np.arange(1.0, 6.0)
    >>> slope, bound = log_decay_slope(tau, np.exp(-tau / 2), 0.01 * np.exp(-tau / 2))
    >>> round(slope, 6), round(bound, 4)
    (-0.5, 0.006)
    """
    lags, estimate, stderr = (np.asarray(v, dtype=float) for v in (lags, estimate, stderr))
    one_length = lags.ndim == 1 and lags.shape == estimate.shape == stderr.shape
    if not (one_length and lags.size >= 2 and np.ptp(lags) > 0):
        raise ValueError(f"log_decay_slope needs lags, estimate and stderr of one length, with at least two "
                         f"distinct lags, got shapes {lags.shape}, {estimate.shape}, {stderr.shape}")
    x = lags - lags.mean()
    weights = x / (x ** 2).sum()
    return float(weights @ np.log(estimate)), float(np.abs(weights) @ (stderr / estimate))


def correlation_length_interval(lags: Sequence[float] | NDArray[np.float64],
                                estimate: Sequence[float] | NDArray[np.float64],
                                stderr: Sequence[float] | NDArray[np.float64], reference: float, dof: float,
                                level: float = 0.95) -> tuple[float, list[float]]:
    """The correlation length ``ξ`` of ``I(τ) ∝ e^(-τ/ξ)`` and the interval of ``ξ / reference - 1``.

    ``ξ = -1/slope`` of :func:`seqmi.stats.decay.log_decay_slope` (Shen 2019, eq. 9). The
    slope's Student-t interval with ``dof`` degrees of freedom takes its bound as the
    standard error, and ``-1/slope`` maps it to ``ξ``: decreasing in the slope's magnitude,
    so a slope interval that reaches 0 gives no upper bound (``inf``).

    Parameters
    ----------
    lags, estimate, stderr : sequence of float
        As :func:`seqmi.stats.decay.log_decay_slope`.
    reference : float
        The length compared with (a closed form's), positive.
    dof : float
        Degrees of freedom of the standard errors (batch means over ``n`` batches: ``n - 1``).
    level : float
        The interval's coverage.

    Returns
    -------
    (xi, [low, high])
        The fitted ``ξ`` (``inf`` when the curve does not decay) and the interval of
        ``ξ / reference - 1``.

    Examples
    --------
    >>> tau = np.arange(1.0, 6.0)
    >>> xi, ci = correlation_length_interval(tau, np.exp(-tau / 2), 0.01 * np.exp(-tau / 2), 2.0, 19)
    >>> round(xi, 6), ci[0] < 0 < ci[1] < 0.05
    (2.0, True)
    """
    slope, bound = log_decay_slope(lags, estimate, stderr)
    half = t_quantile(level, dof) * bound
    low, high = slope - half, slope + half
    ci = [-1.0 / (low * reference) - 1.0, -1.0 / (high * reference) - 1.0 if high < 0 else math.inf]
    return (-1.0 / slope if slope < 0 else math.inf), ci
