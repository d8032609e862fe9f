"""The exponent of a growing MI curve and its power, log-log slopes, and the flatness of a KL profile.

:func:`seqmi.stats.growth.growth_profile` tells a power law from logarithmic growth by the
profile likelihood of the exponent ``beta`` of ``a (L^beta - 1) / beta + c``, and
:func:`seqmi.stats.growth.growth_power` gives its power; :func:`seqmi.stats.growth.log_slope`
is the weighted log-log slope of ``I ~ L^beta``; :func:`seqmi.stats.growth.late_early_ratio`
the late over early mean of a position-wise KL curve.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

# the exponents a growth profile searches: every growth from saturating (beta < 0) through
# logarithmic (0) and sublinear to superlinear; a bound on the grid's edge means "unbounded"
GROWTH_GRID = np.round(np.linspace(-3.0, 3.0, 601), 2)
CHI2_1_95 = 3.841458820694124  # the 95% quantile of chi-square with one degree of freedom


@dataclass(frozen=True)
class GrowthProfile:
    """The exponent of ``I(L) = a (L^beta - 1) / beta + c`` by profile likelihood.

    The result of :func:`seqmi.stats.growth.growth_profile`.

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
    """Power of the growth profile to tell ``amplitude L^beta`` from logarithmic growth.

    The test is :func:`seqmi.stats.growth.growth_profile`'s.

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
