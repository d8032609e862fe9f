"""Claims of chapter 00 (primer): the binary symmetric chain against its closed forms.

Both statistical claims say that a sampled quantity *matches* a closed form, so each is
decided by two one-sided tests (TOST) with the book's margin, ``EQUIVALENCE_MARGIN``,
on a relative difference: the plug-in estimate against the exact I(τ) at every lag, and
the fitted correlation length against ξ = −1/(2 ln|1−2q|).
"""

from __future__ import annotations

import math

import numpy as np

from seqmi.claims import (EQUIVALENCE_LEVEL, EQUIVALENCE_MARGIN, Claim, Design, combine, decide_equivalence, exact,
                          would_decide)
from seqmi.claims.calibration import Calibration
from seqmi.results.ch00_mutual_information import Results
from seqmi.stats import (correlation_length_interval, equivalence_power, equivalence_scale, equivalence_scale_for_power,
                         log_decay_slope, relative_difference_interval)
from seqmi.theory.markov import bsc_plugin_floor



def _scale(r: Results) -> str:
    return (f"{r.profile}: {r.n_seq} chains of {r.length} bits, q = {r.q}, "
            f"lags 1–{len(r.lags)}, exact enumeration at L = {len(r.bipartite_splits) + 1}")


def _arrays(r: Results) -> dict[str, np.ndarray]:
    """The saved per-lag numbers, with the plug-in floor of each lag's overlapping pairs."""
    out = {"lags": np.asarray(r.lags, dtype=float), "estimate": np.asarray(r.estimate, dtype=float),
           "stderr": np.asarray(r.stderr, dtype=float), "exact": np.asarray(r.exact, dtype=float)}
    out["floor"] = bsc_plugin_floor(r.q, r.n_seq * (r.length - out["lags"]))
    return out


def decide_plugin(estimate: np.ndarray, exact_mi: np.ndarray, floor: np.ndarray, stderr: np.ndarray,
                  dof: float) -> tuple[str, float, list[float]]:
    """Per-lag TOST of the plug-in estimate, less its floor, against the exact I(τ).

    Each lag's 90% t interval of ``(estimate − floor)/exact − 1`` must lie inside
    ``±EQUIVALENCE_MARGIN`` (an intersection–union test: its size is at most 5% whatever
    the correlation between lags); one interval wholly outside refutes the match.

    Returns
    -------
    (str, float, list of float)
        The verdict, the relative difference farthest from 0, and the envelope of the
        lags' intervals.
    """
    lo, hi = relative_difference_interval(estimate - floor, exact_mi, stderr, dof, EQUIVALENCE_LEVEL)
    rel = (estimate - floor) / exact_mi - 1.0
    verdict = combine([decide_equivalence(ci) for ci in zip(lo, hi)])
    return verdict, float(rel[np.argmax(np.abs(rel))]), [float(lo.min()), float(hi.max())]


def decide_xi(lags: np.ndarray, estimate: np.ndarray, stderr: np.ndarray, xi_predicted: float,
              dof: float) -> tuple[str, float, list[float]]:
    """TOST of the fitted correlation length against the predicted one.

    The fit is the chapter's: least squares of ``ln Î(τ)`` on τ, slope ``−1/ξ`` (Shen 2019
    eq. 9). The slope's standard error is bounded by ``Σ|w_τ| s_τ`` (``w`` the least-squares
    weights, ``s_τ = se_τ/Î_τ`` the errors of the logs), which holds however the lags'
    errors are correlated (they are: the lags share their chains). Its 90% t interval,
    mapped through ``−1/slope`` (:func:`seqmi.stats.decay.correlation_length_interval`),
    must give ``ξ_fit/ξ − 1`` inside ``±EQUIVALENCE_MARGIN``.

    Returns
    -------
    (str, float, list of float)
        The verdict, the fitted ξ, and the 90% interval of ``ξ_fit/ξ − 1``.
    """
    xi_fit, ci = correlation_length_interval(lags, estimate, stderr, xi_predicted, dof, EQUIVALENCE_LEVEL)
    return decide_equivalence(ci), xi_fit, ci


def _more_chains(n: int, batches: int, deviation: np.ndarray, half_width: np.ndarray, relative_se: np.ndarray) -> str:
    """What would decide an equivalence left open: chains for power 0.8, and at the measured deviations."""
    dof = batches - 1
    power = equivalence_scale_for_power(relative_se, EQUIVALENCE_MARGIN, dof)
    face = equivalence_scale(deviation, half_width, EQUIVALENCE_MARGIN)
    planned = (f"≈ {math.ceil(power * n)} chains ({power:.1f}× as many, in {batches} batches; the full run "
               "takes seconds) for power 0.8" if power > 1 else
               f"{n} chains on fresh seeds (power {equivalence_power(relative_se, EQUIVALENCE_MARGIN, dof):.2f})")
    return would_decide(
        f"{planned} if the closed form is exact; "
        + (f"≈ {math.ceil(face * n)} chains ({face:.1f}×) were the deviations those measured" if face
           else "none at the measured deviations, one of which already reaches the margin"))


def _plugin_claim(r: Results, scale: str) -> Claim:
    a = _arrays(r)
    visible = a["exact"] > r.mi_floor
    est, ex, floor, se = (a[k][visible] for k in ("estimate", "exact", "floor", "stderr"))
    dof = r.n_batches - 1
    verdict, worst, ci = decide_plugin(est, ex, floor, se, dof)
    lo, hi = relative_difference_interval(est - floor, ex, se, dof, EQUIVALENCE_LEVEL)
    if verdict == "inconclusive":
        scale += "; " + _more_chains(r.n_seq, r.n_batches, (est - floor) / ex - 1.0, (hi - lo) / 2, se / ex)
    outside = int(np.sum((lo <= -EQUIVALENCE_MARGIN) | (hi >= EQUIVALENCE_MARGIN)))
    return Claim(
        "primer.closed-form.plugin-matches-exact", "closed form (this chapter)",
        "Plug-in I(τ) of sampled chains matches ln 2 − H_b(p_τ) within sampling error", "statistical", worst, ci,
        f"TOST at every lag with exact I > {r.mi_floor:g}: the 90% t interval ({dof} dof, batch means) of "
        f"(estimate − floor)/exact − 1 inside ±{EQUIVALENCE_MARGIN:.0%} at every lag: reproduced; one wholly "
        "outside: not reproduced", verdict, "", scale,
        f"{int(visible.sum())} lags; largest relative difference {worst:+.3f}; envelope of the lags' 90% "
        f"intervals [{ci[0]:+.3f}, {ci[1]:+.3f}]; {outside} interval(s) reaching the margin",
        Design(h1=f"the plug-in estimate, less its floor, within {EQUIVALENCE_MARGIN:.0%} of the exact I(τ) at every "
                  f"lag with I > {r.mi_floor:g}",
               h0=f"the estimate misses the closed form by {EQUIVALENCE_MARGIN:.0%} or more at some lag (a wrong "
                  "closed form, or a bias the floor does not remove)",
               test=f"intersection–union TOST: each lag's 90% t interval ({dof} dof) of the relative difference "
                    f"inside ±{EQUIVALENCE_MARGIN:.0%}",
               unit=f"sampled chains, in {r.n_batches} independent batches (batch-means errors)",
               power=f"{r.n_seq} chains: {equivalence_power(se / ex, EQUIVALENCE_MARGIN, dof):.2f} if the "
                     "estimate is unbiased (independent errors; limited by the lags near the threshold, whose "
                     f"relative error reaches {np.max(se / ex):.1%})",
               margin=f"±{EQUIVALENCE_MARGIN:.0%} relative difference (the book's margin)"))


def _xi_claim(r: Results, scale: str) -> Claim:
    a = _arrays(r)
    window = (a["exact"] > r.mi_floor) & (a["exact"] < r.fit_ceiling)
    xi = float(r.xi_predicted)
    dof = r.n_batches - 1
    lags, est, se = a["lags"][window], a["estimate"][window], a["stderr"][window]
    verdict, xi_fit, ci = decide_xi(lags, est, se, xi, dof)
    # the relative error of ξ is that of the slope, whose bound is Σ|w| se/Î
    relative_se = log_decay_slope(lags, est, se)[1] * xi_fit
    if verdict == "inconclusive":
        scale += "; " + _more_chains(r.n_seq, r.n_batches, np.array([xi_fit / xi - 1.0]),
                                     np.array([(ci[1] - ci[0]) / 2]),
                                     np.array([relative_se]))
    return Claim(
        "primer.sec3.xi-exponential", "closed form; Shen 2019 Sec. 3",
        "I(τ) decays exponentially, I ∝ e^(−τ/ξ) (eq. 9) with ξ = −1/(2 ln|1−2q|)", "statistical",
        xi_fit / xi - 1.0, ci,
        f"TOST of the fitted ξ over the {int(window.sum())} lags with {r.mi_floor:g} < I < {r.fit_ceiling:g}: "
        f"the 90% interval of ξ_fit/ξ − 1 (slope error bounded for any correlation between lags, {dof} dof) inside "
        f"±{EQUIVALENCE_MARGIN:.0%}: reproduced; wholly outside: not reproduced",
        verdict, "", scale, f"ξ fitted {xi_fit:.3f} vs predicted {xi:.3f} (relative difference {xi_fit / xi - 1:+.3f})",
        Design(h1=f"the decay length fitted to the estimates within {EQUIVALENCE_MARGIN:.0%} of "
                  f"−1/(2 ln|1−2q|) = {xi:.3f}",
               h0=f"the MI decays with a length {EQUIVALENCE_MARGIN:.0%} or more away from the closed form's (e.g. "
                  "the correlation's length 2ξ, or a slower, non-exponential tail)",
               test="TOST on ξ_fit/ξ − 1: least-squares slope of ln Î on τ, its error bounded by Σ|w| se/Î, 90% "
                    f"t interval ({dof} dof)",
               unit=f"sampled chains, in {r.n_batches} independent batches (batch-means errors)",
               power=f"{r.n_seq} chains: {equivalence_power([relative_se], EQUIVALENCE_MARGIN, dof):.2f} "
                     f"against an exact closed form (relative error of ξ at most {relative_se:.1%})",
               margin=f"±{EQUIVALENCE_MARGIN:.0%} relative difference (the book's margin)"))


def rules(r: Results) -> list[Claim]:
    """The chapter's claims from its results record."""
    scale = _scale(r)
    dev = float(r.bipartite_max_deviation)
    return [
        _plugin_claim(r, scale),
        _xi_claim(r, scale),
        Claim("primer.markov.bipartite-equals-i1", "Markov property; Chen et al. 2025 Sec. 4",
              "Bipartite MI of a Markov chain equals I(1) for every split", "exact", dev, None,
              "exact enumeration of all 2^L sequences: max |I_bp(ℓ) − I(1)| < 1e-12 nats",
              exact(dev < 1e-12), "", scale,
              f"max deviation {dev:.1e} nats over {len(r.bipartite_splits)} splits"),
    ]


def calibrations(r: Results) -> list[Calibration]:
    """The two TOST rules, on estimates drawn with the saved standard errors (:mod:`seqmi.claims.calibration`).

    An estimate is drawn as the true value plus a normal error of the saved size, and its
    standard error as the saved one times ``√(χ²/dof)`` (batch means over independent batches).
    """
    a = _arrays(r)
    dof = r.n_batches - 1
    visible = a["exact"] > r.mi_floor
    ex, floor, se = a["exact"][visible], a["floor"][visible], a["stderr"][visible]
    # h0 of the plug-in rule at its least favourable point: the margin missed at the best-measured
    # lag only (a miss at a noisier lag, or at several, is refuted more often)
    best = int(np.argmin(se / ex))
    shifted = ex.copy()
    shifted[best] *= 1.0 + EQUIVALENCE_MARGIN

    def plugin(hypothesis: str, rng: np.random.Generator) -> str:
        truth = shifted if hypothesis == "h0" else ex
        est = truth + floor + rng.normal(0.0, se)
        se_hat = se * np.sqrt(rng.chisquare(dof, se.size) / dof)
        return decide_plugin(est, ex, floor, se_hat, dof)[0]

    window = (a["exact"] > r.mi_floor) & (a["exact"] < r.fit_ceiling)
    lags, wex, wse = a["lags"][window], a["exact"][window], a["stderr"][window]
    xi = float(r.xi_predicted)
    # h0: a pure exponential through the window's first point whose length is the margin longer
    slower = wex[0] * np.exp(-(lags - lags[0]) / (xi * (1.0 + EQUIVALENCE_MARGIN)))
    x = lags - lags.mean()
    direction = np.sign(x)

    def xi_rule(hypothesis: str, rng: np.random.Generator) -> str:
        truth = slower if hypothesis == "h0" else wex
        # one error shared by every lag, signed to tilt the slope: the correlation at which
        # the rule's bound on the slope's error is attained (the least favourable case)
        est = truth + wse * direction * rng.normal() + a["floor"][window]
        se_hat = wse * math.sqrt(rng.chisquare(dof) / dof)
        return decide_xi(lags, est, se_hat, xi, dof)[0]

    scale = (f"{int(visible.sum())} lags with I > {r.mi_floor:g}, the saved batch-means errors "
             f"({r.n_seq} chains, {r.n_batches} batches)")
    return [
        Calibration("primer.closed-form.plugin-matches-exact", scale,
                    f"the estimate {EQUIVALENCE_MARGIN:.0%} above the exact I(τ) at the best-measured lag, exact "
                    "elsewhere; independent errors",
                    "the estimate unbiased at every lag (exact I plus the floor); independent errors", plugin),
        Calibration("primer.sec3.xi-exponential",
                    f"the {int(window.sum())} lags of the ξ fit, the saved errors, one error shared by every lag",
                    f"a pure exponential with ξ {EQUIVALENCE_MARGIN:.0%} longer than predicted",
                    "the chain's exact I(τ)", xi_rule),
    ]
