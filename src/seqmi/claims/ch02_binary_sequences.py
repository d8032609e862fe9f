"""Claims of chapter 02 (binary sequences): eqs. 43–53 and the estimators' bias.

Each statistical claim here says that a sampled quantity *matches* its design or theory,
so each is decided by two one-sided tests (TOST) with the book's margin
``EQUIVALENCE_MARGIN``:

- estimates against a closed form, point by point, from batch-means errors (Fig. 5a) or
  replicate errors (the estimators' bias, in units of the plug-in bias);
- a property of single fits or single designs (γ̂ recovers γ, the constant MI of eq. 52),
  from the scatter across independently sampled designs: a tolerance interval, which
  tests that a single design lands within the margin, not only their average.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from seqmi.claims import (EQUIVALENCE_LEVEL, EQUIVALENCE_MARGIN, Claim, Design, combine, decide_equivalence, exact,
                          would_decide)
from seqmi.claims.calibration import Calibration
from seqmi.results.ch02_binary_sequences import Results
from seqmi.stats import (equivalence_power, equivalence_scale, equivalence_scale_for_power,
                         relative_difference_interval, t_quantile, tolerance_factor, tolerance_interval)

# eq. 47 is wrong when its MI misses the design by more than half; ours must meet it to 1 %
EQ47_WRONG, EQ47_RIGHT = 0.5, 0.01
# a tolerance interval holds this share of single designs (fits, values of p) ...
CONTENT = 0.90
# ... with this confidence
CONFIDENCE = 0.95
# the JSON key of the saved error of the lag-pooled Grassberger − ψ difference over the groups
# of sequences, in units of 1/(2N); a run recorded without it cannot decide the coincidence
GRASSBERGER_PSI_SE = "bias_grassberger_minus_psi_se"


def _grassberger_psi_se(r: Results) -> float:
    """The saved error of the Grassberger − ψ difference, NaN where the run saved none."""
    return math.nan if r.bias_grassberger_minus_psi_se is None else float(r.bias_grassberger_minus_psi_se)


def _scale(r: Results) -> str:
    g = r.gammas
    return (f"{r.profile}: {r.n_seq} sequences of length {r.length}, lags 1–{r.max_lag}, "
            f"γ = {min(g):g}–{max(g):g} ({len(g)} values); bias: {r.bias_pairs} pairs")


def decide_designed(estimate: np.ndarray, designed: np.ndarray, stderr: np.ndarray, dof: float
                    ) -> tuple[str, float, list[float]]:
    """Point-by-point TOST of estimates against their design (intersection–union).

    Each 90% t interval of ``estimate/designed − 1`` must lie inside ``±EQUIVALENCE_MARGIN``;
    one wholly outside refutes the match.

    Returns
    -------
    (str, float, list of float)
        The verdict, the relative difference farthest from 0, and the envelope of the intervals.
    """
    lo, hi = relative_difference_interval(estimate, designed, stderr, dof, EQUIVALENCE_LEVEL)
    rel = estimate / designed - 1.0
    verdict = combine([decide_equivalence(ci) for ci in zip(lo, hi)])
    return verdict, float(rel[np.argmax(np.abs(rel))]), [float(lo.min()), float(hi.max())]


def decide_recovered(relative_deviation: np.ndarray) -> tuple[str, list[float], list[float]]:
    """Whether single designs land within the margin: a tolerance interval over independent designs.

    ``relative_deviation`` holds one value per independently sampled design (γ̂/γ − 1, or
    an estimate over its closed form, − 1). Reproduced when the tolerance interval
    (``CONTENT`` of designs, ``CONFIDENCE``) lies inside ``±EQUIVALENCE_MARGIN``;
    not reproduced when the 90% t interval of their mean lies wholly outside (a
    systematic miss); otherwise inconclusive.

    Returns
    -------
    (str, list of float, list of float)
        The verdict, the tolerance interval and the 90% interval of the mean.
    """
    tolerance = tolerance_interval(relative_deviation, CONTENT, CONFIDENCE)
    n = len(relative_deviation)
    mean = float(np.mean(relative_deviation))
    half = t_quantile(EQUIVALENCE_LEVEL, n - 1) * float(np.std(relative_deviation, ddof=1)) / math.sqrt(n)
    centre = [mean - half, mean + half]
    if -EQUIVALENCE_MARGIN < tolerance[0] and tolerance[1] < EQUIVALENCE_MARGIN:
        return "reproduced", tolerance, centre
    if decide_equivalence(centre) == "not reproduced":
        return "not reproduced", tolerance, centre
    return "inconclusive", tolerance, centre


def decide_bias(bias: np.ndarray, predicted: np.ndarray, stderr: np.ndarray) -> tuple[str, float, list[float]]:
    """Cell-by-cell TOST of mean estimator errors against first-order theory.

    Errors are in units of the plug-in bias ``(K−1)²/(2N)``; each cell's 90% normal
    interval of ``bias − predicted`` (replicate means) must lie inside
    ``±EQUIVALENCE_MARGIN``; one wholly outside refutes the theory.

    Returns
    -------
    (str, float, list of float)
        The verdict, the difference farthest from 0, and the envelope of the intervals.
    """
    diff = bias - predicted
    half = t_quantile(EQUIVALENCE_LEVEL, math.inf) * stderr
    verdict = combine([decide_equivalence(ci) for ci in zip(diff - half, diff + half)])
    return verdict, float(diff[np.argmax(np.abs(diff))]), [float((diff - half).min()), float((diff + half).max())]


def decide_coincide(psi_gap: float, grassberger_gap: float, grassberger_se: float) -> tuple[str, list[float]]:
    """Whether the three estimators coincide on binary data, in units of ``1/(2N)``.

    ψ − plug-in is a deterministic ``O(1/N²)`` function of the counts: its largest mean
    over lags must lie below the margin. Grassberger − ψ is an alternating term of zero
    mean: the 90% normal interval of its lag-pooled mean (groups of sequences are the
    units) must lie inside ``±EQUIVALENCE_MARGIN`` (TOST). A missing error (NaN) leaves the
    claim inconclusive.

    Returns
    -------
    (str, list of float)
        The verdict and the interval of the Grassberger − ψ difference.
    """
    half = t_quantile(EQUIVALENCE_LEVEL, math.inf) * grassberger_se
    ci = [grassberger_gap - half, grassberger_gap + half]
    if psi_gap >= EQUIVALENCE_MARGIN:
        return "not reproduced", ci
    return decide_equivalence(ci), ci


def _points(r: Results) -> tuple[np.ndarray, ...]:
    """The saved (γ, τ) points with designed I above the floor: estimates, designs, errors, labels."""
    gammas = np.asarray(r.gammas, dtype=float)
    est, des, se, labels = [], [], [], []
    for tau, values in r.estimate_tau.items():
        designed = r.amplitude * int(tau) ** -gammas
        keep = designed > r.mi_floor
        est.append(np.asarray(values, dtype=float)[keep])
        se.append(np.asarray(r.stderr_tau[tau], dtype=float)[keep])
        des.append(designed[keep])
        labels += [f"γ = {g:g}, τ = {tau}" for g in gammas[keep]]
    return np.concatenate(est), np.concatenate(des), np.concatenate(se), np.array(labels)


def _more_sequences(n: int, batches: int, deviation: np.ndarray, half_width: np.ndarray,
                    relative_se: np.ndarray) -> str:
    """What would decide an equivalence left open: sequences for power 0.8, and at the measured deviations."""
    dof = batches - 1
    power = equivalence_scale_for_power(relative_se, EQUIVALENCE_MARGIN, dof)
    face = equivalence_scale(deviation, half_width, EQUIVALENCE_MARGIN)
    return would_decide(
        f"≈ {math.ceil(power * n)} sequences per design ({power:.1f}× as many) for power 0.8 if the design is met; "
        + (f"≈ {math.ceil(face * n)} ({face:.1f}×) were the deviations those measured" if face
           else "none at the measured deviations, one of which already reaches the margin"))


def _designs_needed(relative_deviation: np.ndarray) -> int | None:
    """Independent designs at which the tolerance interval lands inside the margin with probability 0.8,
    were the designs' scatter the measured one (the mean taken as 0)."""
    sd = float(np.std(relative_deviation, ddof=1))
    return next((n for n in range(len(relative_deviation) + 1, 1001) if _tolerance_power(n, sd) >= 0.8), None)


def _designed_claim(r: Results, scale: str) -> Claim:
    est, des, se, labels = _points(r)
    dof = r.n_batches - 1
    verdict, worst, ci = decide_designed(est, des, se, dof)
    lo, hi = relative_difference_interval(est, des, se, dof, EQUIVALENCE_LEVEL)
    if verdict == "inconclusive":
        scale += "; " + _more_sequences(r.n_seq, r.n_batches, est / des - 1.0, (hi - lo) / 2, se / des)
    taus = ", ".join(r.estimate_tau)
    z = float(np.nanmax(r.max_abs_z))
    return Claim(
        "shen2019.fig5a.designed-power-law", "Shen 2019 App. B, Fig. 5(a)",
        "Designed sequences have I(τ) = A τ^−γ at every distance", "statistical", worst, ci,
        f"TOST at every (γ, τ) the chapter saves (τ = {taus}; A τ^−γ > {r.mi_floor:g}): the 90% t interval "
        f"({dof} dof, batch means) of estimate/design − 1 inside ±{EQUIVALENCE_MARGIN:.0%} at every point: "
        "reproduced; one wholly outside: not reproduced", verdict, "", scale,
        f"{len(est)} points; largest relative difference {worst:+.3f} "
        f"({labels[np.argmax(np.abs(est / des - 1.0))]}); envelope of the 90% intervals [{ci[0]:+.3f}, {ci[1]:+.3f}]; "
        f"over all {r.n_visible} (γ, τ): max |z| = {z:.2f}, max rel. error {r.max_rel_error_all:.3f}",
        Design(h1=f"the estimated I(τ) within {EQUIVALENCE_MARGIN:.0%} of A τ^−γ at every saved (γ, τ) above "
                  f"{r.mi_floor:g}",
               h0=f"the sampler misses the design by {EQUIVALENCE_MARGIN:.0%} or more at some (γ, τ)",
               test=f"intersection–union TOST over the {len(est)} saved points (τ = {taus}; the chapter saves no "
                    f"other distance's error): each 90% t interval ({dof} dof) inside ±{EQUIVALENCE_MARGIN:.0%}",
               unit=f"sampled sequences, in {r.n_batches} independent batches per design (batch-means errors)",
               power=f"{r.n_seq} sequences per design: {equivalence_power(se / des, EQUIVALENCE_MARGIN, dof):.2f} "
                     f"if the design is met (independent errors; relative errors up to {np.max(se / des):.1%})",
               margin=f"±{EQUIVALENCE_MARGIN:.0%} relative difference (the book's margin)"))


def _recovered_claim(r: Results, scale: str) -> Claim:
    gammas, hat = np.asarray(r.gammas, dtype=float), np.asarray(r.gamma_hat, dtype=float)
    checked = gammas <= r.gamma_check_max + 1e-12
    rel = hat[checked] / gammas[checked] - 1.0
    verdict, tolerance, centre = decide_recovered(rel)
    n = int(checked.sum())
    if verdict == "inconclusive":
        need = _designs_needed(rel)
        scale += "; " + would_decide(f"≈ {need} designed exponents (each its own {r.n_seq} sequences)" if need
                                     else "no affordable number of designs at the measured scatter")
    return Claim(
        "shen2019.fig5b.gamma-recovered", "Shen 2019 App. D.1, Fig. 5(b)",
        f"Fitted γ̂ recovers γ (for γ ≤ {r.gamma_check_max:g})", "statistical",
        float(rel[np.argmax(np.abs(rel))]), tolerance,
        f"over the {n} designs with γ ≤ {r.gamma_check_max:g}: the tolerance interval of γ̂/γ − 1 "
        f"({CONTENT:.0%} of designs, {CONFIDENCE:.0%} confidence) inside ±{EQUIVALENCE_MARGIN:.0%}: reproduced; the "
        "90% interval of their mean wholly outside: not reproduced", verdict, "", scale,
        f"γ̂/γ − 1 per design {np.round(rel, 3).tolist()}: scatter {np.std(rel, ddof=1):.3f}, mean "
        f"{np.mean(rel):+.4f} (90% [{centre[0]:+.4f}, {centre[1]:+.4f}]); the fit's own intervals (points treated "
        f"as independent) are far narrower, half-width at most {np.max(np.ptp(r.gamma_ci, axis=1)) / 2:.4f}",
        Design(h1=f"a single fit of a single design recovers γ within {EQUIVALENCE_MARGIN:.0%} "
                  f"(at least {CONTENT:.0%} of designs do)",
               h0=f"fits miss γ by {EQUIVALENCE_MARGIN:.0%} or more in over {1 - CONTENT:.0%} of designs (a biased "
                  "or too noisy fit)",
               test=f"normal tolerance interval of γ̂/γ − 1 over the designs ({CONTENT:.0%} content, "
                    f"{CONFIDENCE:.0%} confidence, Howe's factor) inside ±{EQUIVALENCE_MARGIN:.0%}; the scatter "
                    "across designs is the error (the fit's interval treats lags as independent)",
               unit=f"designed exponents, each an independent set of {r.n_seq} sequences ({n} checked)",
               power=f"{n} designs at the measured scatter {np.std(rel, ddof=1):.3f}: "
                     f"{_tolerance_power(n, float(np.std(rel, ddof=1))):.2f}",
               margin=f"±{EQUIVALENCE_MARGIN:.0%} relative difference (the book's margin)"))


def _tolerance_power(n: int, sd: float) -> float:
    """Probability that the tolerance interval of ``n`` unbiased designs of scatter ``sd`` lands inside the margin
    (the mean's own scatter left out)."""
    from scipy import stats as scipy_stats

    k = tolerance_factor(n, CONTENT, CONFIDENCE)
    return float(scipy_stats.chi2.cdf((n - 1) * (EQUIVALENCE_MARGIN / (k * sd)) ** 2, n - 1))


def _constant_claim(r: Results, scale: str) -> Claim:
    p, ex, est = (np.asarray(v, dtype=float) for v in (r.rep_p, r.rep_exact_far, r.rep_estimate_far_mean))
    # at p = 1/2 eq. 52 gives I = 0 at every τ: no relative difference, and nothing that fails to decay
    dependent = ex > 0
    rel = est[dependent] / ex[dependent] - 1.0
    verdict, tolerance, centre = decide_recovered(rel)
    if verdict == "inconclusive":
        need = _designs_needed(rel)
        scale += "; " + would_decide(f"≈ {need} values of p (each its own sequences)" if need
                                     else "no affordable number of values of p at the measured scatter")
    n = int(dependent.sum())
    return Claim(
        "shen2019.eq52.constant-mi", "Shen 2019 App. C, eq. 52, Fig. 4",
        "Repetitive 01/10 sequences have constant I(τ), eq. 52", "statistical",
        float(rel[np.argmax(np.abs(rel))]), tolerance,
        f"over the {n} values of p with I > 0: the tolerance interval of (mean estimate over τ = 2..{r.rep_max_lag})"
        f"/eq. 52 − 1 ({CONTENT:.0%} of values, {CONFIDENCE:.0%} confidence) inside ±{EQUIVALENCE_MARGIN:.0%}: "
        "reproduced; the 90% interval of their mean wholly outside: not reproduced", verdict, "", scale,
        f"relative difference per p {dict(zip(np.round(p[dependent], 3).tolist(), np.round(rel, 4).tolist()))}; "
        f"at p = 1/2 (I = 0) mean estimate {est[~dependent].tolist()}; over every p and τ ≥ 2: max |z| = "
        f"{r.rep_max_abs_z:.2f}, max |error| {r.rep_max_abs_error:.1e} nats",
        Design(h1=f"for each p, I(τ) over τ = 2..{r.rep_max_lag} equals eq. 52's constant within "
                  f"{EQUIVALENCE_MARGIN:.0%} (at least {CONTENT:.0%} of values of p)",
               h0=f"the estimated level misses eq. 52 by {EQUIVALENCE_MARGIN:.0%} or more for over "
                  f"{1 - CONTENT:.0%} of values of p",
               test=f"normal tolerance interval over the values of p ({CONTENT:.0%} content, {CONFIDENCE:.0%} "
                    f"confidence) of the τ-averaged relative difference inside ±{EQUIVALENCE_MARGIN:.0%}; the "
                    "chapter saves the τ-average per p and no error of it, so the scatter across values of p is the "
                    "error, and constancy lag by lag is not tested",
               unit=f"values of p, each an independent set of sequences ({n} with I > 0)",
               power=f"{n} values of p at the measured scatter {np.std(rel, ddof=1):.4f}: "
                     f"{_tolerance_power(n, float(np.std(rel, ddof=1))):.2f}",
               margin=f"±{EQUIVALENCE_MARGIN:.0%} relative difference (the book's margin)"))


def _bias_cells(r: Results) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Every (estimator, K) cell: mean error, first-order prediction and error, in units of (K−1)²/(2N)."""
    k = np.asarray(r.alphabets, dtype=float)
    bias, pred, se, labels = [], [], [], []
    for est, values in r.alphabet_bias.items():
        bias.append(np.asarray(values, dtype=float))
        se.append(np.asarray(r.alphabet_se[est], dtype=float))
        # the plug-in keeps all of (K−1)²/(2N); the corrections leave 1/(2N)
        pred.append(np.ones_like(k) if est == "plugin" else 1.0 / (k - 1) ** 2)
        labels += [f"{est} K = {int(kk)}" for kk in k]
    return np.concatenate(bias), np.concatenate(pred), np.concatenate(se), labels


def _bias_claim(r: Results, scale: str) -> Claim:
    bias, pred, se, labels = _bias_cells(r)
    verdict, worst, ci = decide_bias(bias, pred, se)
    half = t_quantile(EQUIVALENCE_LEVEL, math.inf) * se
    if verdict == "inconclusive":
        power = equivalence_scale_for_power(se, EQUIVALENCE_MARGIN, math.inf)
        face = equivalence_scale(bias - pred, half, EQUIVALENCE_MARGIN)
        scale += "; " + would_decide(
            f"{power:.1f}× the chapter's replicates per alphabet (bias_replicates; about 2 s of CPU per 20 000) for "
            "power 0.8 if first-order theory holds; " + (f"{face:.1f}× were the deviations those measured" if face
                                            else "none at the measured deviations"))
    open_cells = [lab for lab, lo, hi in zip(labels, bias - pred - half, bias - pred + half)
                  if not (-EQUIVALENCE_MARGIN < lo and hi < EQUIVALENCE_MARGIN)]
    k = np.asarray(r.alphabets)
    plug = np.asarray(r.alphabet_bias["plugin"])
    g = np.asarray(r.alphabet_bias["grassberger"])
    return Claim(
        "shen2019.eq53.estimator-bias", "Shen 2019 App. D.1, eq. 53; Grassberger 2003; this book",
        "Plug-in MI is biased by (K−1)²/(2N); eq. 53 and Grassberger leave only 1/(2N)", "statistical", worst, ci,
        f"TOST in every (estimator, K) cell: the 90% interval of mean error − first-order prediction, in units of "
        f"the plug-in bias (K−1)²/(2N), inside ±{EQUIVALENCE_MARGIN:g}: reproduced; one wholly outside: not "
        "reproduced", verdict, "", scale,
        f"plug-in {plug.min():.2f}–{plug.max():.2f}; Grassberger at K = {int(k[0])}: {g[0]:.2f}, at K = "
        f"{int(k[-1])}: {g[-1]:.3f} (units of (K−1)²/(2N)); largest difference from theory {worst:+.3f}; cells "
        f"not inside the margin: {open_cells or 'none'}",
        Design(h1="the plug-in's mean error is (K−1)²/(2N) and the corrected ones' 1/(2N), each within "
                  f"{EQUIVALENCE_MARGIN:.0%} of the plug-in bias, at every K",
               h0=f"some estimator's bias differs from first-order theory by {EQUIVALENCE_MARGIN:.0%} of the "
                  "plug-in bias or more at some K",
               test=f"intersection–union TOST over {len(bias)} cells: each 90% normal interval of the replicate "
                    f"mean's difference inside ±{EQUIVALENCE_MARGIN:g} (units of (K−1)²/(2N))",
               unit=f"independent samples of {r.bias_pairs} pairs (the chapter's replicates per alphabet)",
               power=f"at the saved errors: {equivalence_power(se, EQUIVALENCE_MARGIN, math.inf):.2f} if "
                     f"first-order theory holds (largest error {se.max():.3f}, at K = 2)",
               margin=f"±{EQUIVALENCE_MARGIN:g} of the plug-in bias (K−1)²/(2N): the book's margin taken relative "
                      "to the bias the corrections remove, since their residual 1/(2N) is a vanishing fraction of "
                      "it at large K (a margin relative to the residual would ask 0.0004 of the plug-in bias at "
                      "K = 16)"))


def _groups_needed(groups: int, gap: float, se: float) -> int:
    """Groups of sequences that would put the Grassberger − ψ interval inside the margin, at the measured difference.

    ``se`` is the difference's error over ``groups`` groups; it shrinks as one over the square root of the groups.
    """
    return math.ceil(groups * (t_quantile(EQUIVALENCE_LEVEL, math.inf) * se / (EQUIVALENCE_MARGIN - abs(gap))) ** 2)


def _coincide_claim(r: Results, scale: str) -> Claim:
    psi = float(r.bias_psi_vs_plugin)
    pooled = r.bias_pooled_units_of_1_over_2N
    gap = float(pooled.grassberger - pooled.psi)
    se = _grassberger_psi_se(r)
    verdict, ci = decide_coincide(psi, gap, se)
    ci = None if math.isnan(se) else ci
    groups = r.n_seq // r.bias_group
    if verdict == "inconclusive":
        scale += "; " + would_decide(
            f"the chapter saving the standard error of the lag-pooled Grassberger − ψ difference over its {groups} "
            f"groups of sequences (as '{GRASSBERGER_PSI_SE}'; it computes the differences already, so one full run "
            "of about a minute)" if math.isnan(se) else
            f"≈ {_groups_needed(groups, gap, se)} "
            "groups of sequences, were the difference the one measured")
    return Claim(
        "book.binary.estimators-coincide", "this book (first-order expansion)",
        "On binary data the three estimators coincide", "statistical", gap, ci,
        f"in units of 1/(2N): the largest mean ψ − plug-in over lags below {EQUIVALENCE_MARGIN:g} (a deterministic "
        f"O(1/N²) term), and the 90% interval of the lag-pooled Grassberger − ψ difference inside "
        f"±{EQUIVALENCE_MARGIN:g} (TOST)", verdict, "", scale,
        f"max |ψ − plug-in| {psi:.4f} × 1/(2N); Grassberger − ψ pooled over lags {gap:+.5f} × 1/(2N)"
        + ("" if math.isnan(se) else f" ± {se:.4f}")
        + f"; Grassberger − ψ max |z| over lags {r.bias_grassberger_vs_psi_max_z:.2f}",
        Design(h1=f"on binary counts the estimators' means differ by less than {EQUIVALENCE_MARGIN:g} × 1/(2N) (the "
                  "first-order corrections cancel)",
               h0=f"Grassberger's alternating term, or the ψ correction, shifts the mean by {EQUIVALENCE_MARGIN:g} × "
                  "1/(2N) or more",
               test=f"TOST on the lag-pooled Grassberger − ψ difference (90% normal interval inside "
                    f"±{EQUIVALENCE_MARGIN:g}); ψ − plug-in, deterministic given the counts, below the margin",
               unit=f"groups of {r.bias_group} sequences ({groups} groups)",
               power="none at the recorded run: it saves no error of the Grassberger − ψ difference" if math.isnan(se)
                     else f"{groups} groups: {equivalence_power([se], EQUIVALENCE_MARGIN, math.inf):.2f} if the "
                          "estimators coincide",
               margin=f"±{EQUIVALENCE_MARGIN:g} × 1/(2N): the book's margin relative to the iid plug-in bias, the "
                      "size of the corrections compared"))


def rules(r: Results) -> list[Claim]:
    """The chapter's claims from its results record."""
    scale = _scale(r)
    eq47 = r.eq47
    printed, ours = float(eq47.printed_ratio[-1]), float(eq47.our_ratio[-1])
    return [
        Claim("shen2019.eq46.sign-mi", "Shen 2019 App. B, eqs. 43–46",
              "Thresholded correlated Gaussians share I(θ) of eq. 46 (from eqs. 43–45)", "exact",
              r.orthant_max_error, None,
              "sympy: eq. 43 with eq. 44 minus eq. 46 simplifies to 0; the orthant probability matches scipy's "
              "bivariate normal CDF to 1e-6", exact(r.eq46_residual == "0" and r.orthant_max_error < 1e-6),
              "", scale, f"sympy residual {r.eq46_residual}; orthant vs scipy CDF {r.orthant_max_error:.0e}"),
        Claim("shen2019.appB.expansion-2c2-pi2", "Shen 2019 App. B",
              "Small-correlation expansion I(c) = 2c²/π² + o(c²)", "exact", r.expansion_leading, None,
              "sympy series: leading coefficient equals 2/π² to 1e-12",
              exact(abs(r.expansion_leading - 2 / np.pi**2) < 1e-12), "", scale,
              f"leading coefficient {r.expansion_leading:.12f} (2/π² = {2 / np.pi ** 2:.12f})"),
        Claim("shen2019.eq47.printed-prefactor", "Shen 2019 App. B, eq. 47",
              "Eq. 47, c(d) = √(A/2π)·d^(−γ/2) as printed, gives I(d) = A d^(−γ)", "exact", printed, None,
              f"erratum when I/(A d^−γ) from the printed prefactor misses 1 by more than {EQ47_WRONG:g} at "
              f"d = {eq47.d[-1]:.0e} while π√(A/2) meets it within {EQ47_RIGHT:.0%}",
              exact(abs(printed - 1) < EQ47_RIGHT,
                    erratum=abs(printed - 1) > EQ47_WRONG and abs(ours - 1) < EQ47_RIGHT),
              "", scale,
              f"printed: I ≈ A d^(−γ)/π³, ratio {printed:.4f} (1/π³ = {np.pi ** -3:.4f}); π√(A/2): {ours:.4f} "
              f"(γ = {eq47.gamma:g})"),
        _designed_claim(r, scale),
        _recovered_claim(r, scale),
        _constant_claim(r, scale),
        _bias_claim(r, scale),
        _coincide_claim(r, scale),
    ]


def calibrations(r: Results) -> list[Calibration]:
    """The chapter's TOST and tolerance rules on data drawn at the saved scale (:mod:`seqmi.claims.calibration`).

    Point estimates are their true value plus a normal error of the saved size, with
    batch-means errors scattered as ``√(χ²/dof)``; a design's relative deviation is a normal
    draw of the scatter measured across the saved designs.
    """
    dof = r.n_batches - 1
    est, des, se, _ = _points(r)
    best = int(np.argmin(se / des))
    # h0 at its least favourable point: the margin missed at the best-measured point only
    missed = des.copy()
    missed[best] *= 1.0 + EQUIVALENCE_MARGIN

    def designed(hypothesis: str, rng: np.random.Generator) -> str:
        truth = missed if hypothesis == "h0" else des
        draw = truth + rng.normal(0.0, se)
        return decide_designed(draw, des, se * np.sqrt(rng.chisquare(dof, se.size) / dof), dof)[0]

    gammas, hat = np.asarray(r.gammas, dtype=float), np.asarray(r.gamma_hat, dtype=float)
    checked = gammas <= r.gamma_check_max + 1e-12
    gamma_rel = hat[checked] / gammas[checked] - 1.0
    p, ex, mean_est = (np.asarray(v, dtype=float) for v in (r.rep_p, r.rep_exact_far, r.rep_estimate_far_mean))
    level_rel = mean_est[ex > 0] / ex[ex > 0] - 1.0
    # h0 of a tolerance rule at its boundary: unbiased designs scattered so widely that a share
    # 1 − CONTENT of them miss the margin
    boundary_sd = EQUIVALENCE_MARGIN / t_quantile(CONTENT, math.inf)

    def recovered(deviations: np.ndarray) -> Any:
        sd = float(np.std(deviations, ddof=1))

        def verdict(hypothesis: str, rng: np.random.Generator) -> str:
            draw = rng.normal(0.0, boundary_sd if hypothesis == "h0" else sd, deviations.size)
            return decide_recovered(draw)[0]
        return verdict

    bias, pred, bias_se, _ = _bias_cells(r)
    cell = int(np.argmin(bias_se))
    shifted = pred.copy()
    shifted[cell] += EQUIVALENCE_MARGIN

    def estimator_bias(hypothesis: str, rng: np.random.Generator) -> str:
        truth = shifted if hypothesis == "h0" else pred
        return decide_bias(truth + rng.normal(0.0, bias_se), pred, bias_se)[0]

    psi = float(r.bias_psi_vs_plugin)
    g_se = _grassberger_psi_se(r)

    def coincide(hypothesis: str, rng: np.random.Generator) -> str:
        truth = EQUIVALENCE_MARGIN if hypothesis == "h0" else 0.0
        return decide_coincide(psi, truth + rng.normal(0.0, g_se), g_se)[0]

    n_designs, n_p = int(checked.sum()), level_rel.size
    return [
        Calibration("shen2019.fig5a.designed-power-law",
                    f"{len(est)} saved (γ, τ) points, their batch-means errors ({r.n_seq} sequences, "
                    f"{r.n_batches} batches)",
                    f"the estimate {EQUIVALENCE_MARGIN:.0%} above the design at the best-measured point, exact "
                    "elsewhere", "every estimate unbiased", designed),
        Calibration("shen2019.fig5b.gamma-recovered", f"{n_designs} designs, one γ̂/γ − 1 each",
                    f"unbiased fits scattered with sd {boundary_sd:.3f}, so that {1 - CONTENT:.0%} miss by "
                    f"{EQUIVALENCE_MARGIN:.0%} or more",
                    f"unbiased fits with the scatter measured across designs, {np.std(gamma_rel, ddof=1):.3f}",
                    recovered(gamma_rel)),
        Calibration("shen2019.eq52.constant-mi",
                    f"{n_p} values of p with I > 0, one τ-averaged relative difference each",
                    f"unbiased levels scattered with sd {boundary_sd:.3f}, so that {1 - CONTENT:.0%} miss by "
                    f"{EQUIVALENCE_MARGIN:.0%} or more",
                    f"unbiased levels with the scatter measured across p, {np.std(level_rel, ddof=1):.4f}",
                    recovered(level_rel)),
        Calibration("shen2019.eq53.estimator-bias", f"{len(bias)} (estimator, K) cells, their replicate errors",
                    f"the best-measured cell {EQUIVALENCE_MARGIN:g} of the plug-in bias off first-order theory, "
                    "the others on it", "every cell on first-order theory", estimator_bias),
        Calibration("book.binary.estimators-coincide",
                    "the lag-pooled Grassberger − ψ difference with its saved error (the recorded run saves none: "
                    "then the rule never decides)" if math.isnan(g_se) else
                    f"the lag-pooled Grassberger − ψ difference, error {g_se:.4f} × 1/(2N)",
                    f"Grassberger − ψ = {EQUIVALENCE_MARGIN:g} × 1/(2N); ψ − plug-in as measured",
                    "Grassberger − ψ = 0; ψ − plug-in as measured", coincide),
    ]
