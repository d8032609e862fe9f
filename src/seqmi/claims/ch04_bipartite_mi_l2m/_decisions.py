"""The decision functions of chapter 04's statistical claims, and the power statements they share.

Pure functions of arrays: the rules call them on the recorded numbers, the calibrations on
data drawn under each hypothesis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from seqmi.claims import MIN_SEEDS, combine, decide, decide_within
from seqmi.claims.ch04_bipartite_mi_l2m._common import COLLAPSE_RHO, MIN_COLLAPSE_RUNS, Curve, spearman_interval
from seqmi.stats import (Z95, DecayForm, GrowthProfile, decay_form, growth_profile, log_ratio_ci, log_slope, mean_ci,
                         mean_diff_ci, normal_ci, spearman)


def _usable(curve: Curve) -> bool:
    """Whether a curve has the four lengths and finite, positive errors a growth profile needs."""
    lengths, mi, se = curve
    return lengths.size >= 4 and bool(np.all(np.isfinite(mi)) and np.all(np.isfinite(se)) and np.all(se > 0))


def _decide_growth(curve: Curve) -> tuple[str, GrowthProfile | None]:
    """Power law (0 < beta < 1) against logarithmic growth, from the profile interval of beta.

    ``"reproduced"`` when the curve grows (``a > 0``) and beta's interval lies inside
    (0, 1): both logarithmic (beta = 0) and linear growth are rejected; ``"not
    reproduced"`` when it lies wholly outside (0, 1), e.g. below 0 (the estimate
    saturates); else ``"inconclusive"``.
    """
    if not _usable(curve):
        return "inconclusive", None
    prof = growth_profile(*curve)
    verdict = decide_within(prof.ci, 0.0, 1.0)
    if verdict == "reproduced" and (prof.ci[0] == 0.0 or prof.ci[1] == 1.0 or prof.slope <= 0):
        verdict = "inconclusive"  # an interval that touches 0 or 1 rejects neither
    return verdict, prof


def _decide_growths(curves: Sequence[Curve]) -> str:
    """Every curve's :func:`_decide_growth` combined (both estimators, every split)."""
    return combine([_decide_growth(c)[0] for c in curves]) if curves else "inconclusive"


def _exponent_gap(high: Curve, low: Curve) -> tuple[float, list[float]] | None:
    """``beta(high) - beta(low)`` of the weighted log-log slopes, with its normal 95% interval.

    The two slopes' standard errors add in quadrature: the estimates share their chapters
    and are positively correlated, so the interval of the difference is, if anything, too
    wide. ``None`` when a curve has fewer than three positive estimates.
    """
    try:
        (b_hi, s_hi), (b_lo, s_lo) = log_slope(*high), log_slope(*low)
    except ValueError:
        return None
    gap = b_hi - b_lo
    return gap, normal_ci(gap, math.hypot(s_hi, s_lo))


def _decide_exponent_gaps(pairs: Sequence[tuple[Curve, Curve]]) -> tuple[str, list[tuple[float, list[float]] | None]]:
    """Every pair's exponent gap above 0 (each part :func:`~seqmi.claims.decide`), combined."""
    gaps = [_exponent_gap(hi, lo) for hi, lo in pairs]
    parts = ["inconclusive" if g is None else decide(g[1], 0.0, claim_above=True) for g in gaps]
    return combine(parts), gaps


def _decide_decay(mi: Sequence[float], min_lag: int) -> tuple[str, DecayForm | None]:
    """Power law against exponential decay of a two-point MI curve (:func:`seqmi.stats.decay.decay_form`).

    ``"reproduced"`` when the log-likelihood ratio's interval lies above 0 (the offset power
    law fits better) and the power law decays (alpha > 0); ``"not reproduced"`` when the
    interval lies below 0 (the exponential fits better); else ``"inconclusive"``.
    """
    try:
        form = decay_form(mi, min_lag)
    except ValueError:
        return "inconclusive", None
    verdict = decide(form.ci, 0.0, claim_above=True)
    if verdict == "reproduced" and form.alpha <= 0:
        verdict = "inconclusive"
    return verdict, form


def _decide_flat(tf: NDArray[np.float64], ssm: NDArray[np.float64],
                 flat: float) -> tuple[str, list[float], list[float]]:
    """Fig. 4(c, d) over seeds: the Transformer's late/early KL ratio below ``flat`` and the
    small SSM's above the Transformer's (Student-t and Welch intervals).

    Returns the verdict, the Transformer's interval and the difference's.
    """
    tf_ci, gap_ci = mean_ci(tf), mean_diff_ci(ssm, tf)
    if min(tf.size, ssm.size) < MIN_SEEDS:
        return "inconclusive", tf_ci, gap_ci
    return combine([decide(tf_ci, flat, claim_above=False), decide(gap_ci, 0.0, claim_above=True)]), tf_ci, gap_ci


def _decide_length_growth(ssm_hi: NDArray[np.float64], ssm_lo: NDArray[np.float64], tf_hi: NDArray[np.float64],
                          tf_lo: NDArray[np.float64]) -> tuple[str, float, list[float], list[float]]:
    """Fig. 4(a, b) over seeds: the small SSM's average KL grows from the shortest to the
    longest L (log ratio of the means above 0) by more than the Transformer's.

    Returns the verdict, the SSM's log ratio and its interval, and the difference's interval.
    """
    ssm_est, ssm_ci = log_ratio_ci(ssm_hi, ssm_lo)
    _, gap_ci = log_ratio_ci(ssm_hi, ssm_lo, tf_hi, tf_lo)
    if min(len(g) for g in (ssm_hi, ssm_lo, tf_hi, tf_lo)) < MIN_SEEDS:
        return "inconclusive", ssm_est, ssm_ci, gap_ci
    verdict = combine([decide(ssm_ci, 0.0, claim_above=True), decide(gap_ci, 0.0, claim_above=True)])
    return verdict, ssm_est, ssm_ci, gap_ci


def _decide_collapse(x: NDArray[np.float64], kl: NDArray[np.float64]) -> tuple[str, float, list[float]]:
    """Fig. 4(b): Spearman's correlation of every trained SSM's average KL with its I_bp per
    state dimension, Fisher's 95% interval above :data:`COLLAPSE_RHO`; inconclusive with fewer
    than :data:`MIN_COLLAPSE_RUNS` runs."""
    rho = spearman(x, kl)
    ci = spearman_interval(rho, x.size)
    if x.size < MIN_COLLAPSE_RUNS:
        return "inconclusive", rho, ci
    return decide(ci, COLLAPSE_RHO, claim_above=True), rho, ci


def _decide_excess_growth(pairs: Sequence[tuple[NDArray[np.float64], ...]],
                          spans: Sequence[float]) -> tuple[str, list[tuple[float, list[float]]]]:
    """Thm. 5.4 on trained models: each fixed-state model's summed KL grows from L_min to its
    longest L faster than the Transformer's over the same span.

    ``pairs`` holds ``(model_hi, model_lo, transformer_hi, transformer_lo)`` per-seed sums;
    ``spans`` the ``ln(L_hi / L_min)`` of each. Each difference of growth exponents
    (Welch's interval of the log ratios over ``ln`` of the span) must lie above 0.
    """
    gaps = []
    for (m_hi, m_lo, t_hi, t_lo), span in zip(pairs, spans):
        est, ci = log_ratio_ci(m_hi, m_lo, t_hi, t_lo)
        gaps.append((est / span, [ci[0] / span, ci[1] / span]))
    seeds = min((len(g) for p in pairs for g in p), default=0)
    if not gaps or seeds < MIN_SEEDS:
        return "inconclusive", gaps
    return combine([decide(ci, 0.0, claim_above=True) for _, ci in gaps]), gaps


def _log_ratio_power(effect: float, rels: Sequence[Sequence[float]], n: int | None = None,
                     ns: Sequence[Sequence[int]] | None = None) -> float:
    """Normal approximation of the chance that every Welch interval of a log-ratio contrast
    lies above 0: contrast ``k`` has the true value ``effect`` and groups of relative
    spreads ``rels[k]`` with ``ns[k]`` seeds (or ``n`` each); the product over contrasts
    (a lower bound where they share groups)."""
    from scipy.stats import norm

    out = 1.0
    for k, rel in enumerate(rels):
        sizes = [n] * len(rel) if ns is None else ns[k]
        se = math.sqrt(sum(v**2 / m for v, m in zip(rel, sizes)))
        out *= float(norm.sf(Z95 - effect / se)) if se > 0 else 1.0
    return out


def _seeds_for_power(effect: float, rels: Sequence[Sequence[float]], target: float = 0.8) -> int | None:
    """Seeds per model at which :func:`_log_ratio_power` reaches ``target`` (None beyond 1,000)."""
    return next((n for n in range(2, 1001) if _log_ratio_power(effect, rels, n) >= target), None)


def _decide_fig5(change: float, se: float, n_models: int) -> tuple[str, list[float]]:
    """Fig. 5: the 95% interval over chapters of the gap's change with position above 0,
    held back (inconclusive) below ``MIN_SEEDS`` models per architecture."""
    ci = normal_ci(change, se)
    return (decide(ci, 0.0, claim_above=True) if n_models >= MIN_SEEDS else "inconclusive"), ci


def _amplitude(curve: Curve, beta: float) -> float:
    """The amplitude of ``A L^beta`` nearest a curve (weighted least squares, no offset)."""
    lengths, mi, se = curve
    w, f = 1.0 / se**2, lengths**beta
    return float((w * f) @ mi / ((w * f) @ f))


def _rel_sd(*groups: NDArray[np.float64]) -> float:
    """The pooled relative standard deviation of groups of seed values (1% without spread)."""
    parts = [g.var(ddof=1) / g.mean() ** 2 for g in groups if g.size > 1 and g.mean() != 0]
    pooled = math.sqrt(float(np.mean(parts))) if parts else 0.0
    return pooled if pooled > 0 else 0.01
