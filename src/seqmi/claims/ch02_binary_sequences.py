"""Claims of chapter 02 (binary sequences): eqs. 43–53 and the estimators' bias."""

from __future__ import annotations

from typing import Any

import numpy as np

from seqmi.claims import Claim, exact, profile_of

# |z| above which an estimate is incompatible with its design (batch means, 19 dof, ~1e3 lags)
Z_LIMIT = 5.0
# eq. 47 is wrong when its MI misses the design by more than half; ours must meet it to 1 %
EQ47_WRONG, EQ47_RIGHT = 0.5, 0.01


def _scale(r: dict[str, Any]) -> str:
    g = r["gammas"]
    return (f"{profile_of(r)}: {r['n_seq']} sequences of length {r['length']}, lags 1–{r['max_lag']}, "
            f"γ = {min(g):g}–{max(g):g} ({len(g)} values); bias: {r['bias_pairs']} pairs")


def _gamma_verdict(r: dict[str, Any]) -> tuple[str, float]:
    """All checked γ̂ intervals inside ±tolerance: reproduced; one wholly outside: not reproduced."""
    gammas, hat, ci = (np.asarray(r[k], dtype=float) for k in ("gammas", "gamma_hat", "gamma_ci"))
    tol = float(r["gamma_tolerance"])
    checked = gammas <= r["gamma_check_max"] + 1e-12
    lo, hi = ci[checked, 0] - gammas[checked], ci[checked, 1] - gammas[checked]
    dev = float(np.abs(hat - gammas)[checked].max())
    if np.any((hi < -tol) | (lo > tol)):
        return "not reproduced", dev
    if np.all((lo >= -tol) & (hi <= tol)):
        return "reproduced", dev
    return "inconclusive", dev


def rules(r: dict[str, Any]) -> list[Claim]:
    """The chapter's claims from its results dict."""
    scale = _scale(r)
    z = float(np.nanmax(r["max_abs_z"]))
    gamma_verdict, gamma_dev = _gamma_verdict(r)
    k = np.asarray(r["alphabets"], dtype=float)
    bias = {e: np.asarray(v, dtype=float) for e, v in r["alphabet_bias"].items()}
    se = {e: np.asarray(v, dtype=float) for e, v in r["alphabet_se"].items()}
    alpha_ok = bool(np.all(np.abs(bias["plugin"] - 1) < Z_LIMIT * se["plugin"])
                    and all(np.all(np.abs(bias[e] - 1 / (k - 1) ** 2) < Z_LIMIT * se[e]) for e in ("psi", "grassberger")))
    psi, g_z = float(r["bias_psi_vs_plugin"]), float(r["bias_grassberger_vs_psi_max_z"])
    eq47 = r["eq47"]
    printed, ours = float(eq47["printed_ratio"][-1]), float(eq47["our_ratio"][-1])
    return [
        Claim("shen2019.eq46.sign-mi", "Shen 2019 App. B, eqs. 43–46",
              "Thresholded correlated Gaussians share I(θ) of eq. 46 (from eqs. 43–45)", "exact",
              r["orthant_max_error"], None,
              "sympy: eq. 43 with eq. 44 minus eq. 46 simplifies to 0; the orthant probability matches scipy's "
              "bivariate normal CDF to 1e-6", exact(r["eq46_residual"] == "0" and r["orthant_max_error"] < 1e-6),
              "", scale, f"sympy residual {r['eq46_residual']}; orthant vs scipy CDF {r['orthant_max_error']:.0e}"),
        Claim("shen2019.appB.expansion-2c2-pi2", "Shen 2019 App. B",
              "Small-correlation expansion I(c) = 2c²/π² + o(c²)", "exact", r["expansion_leading"], None,
              "sympy series: leading coefficient equals 2/π² to 1e-12",
              exact(abs(r["expansion_leading"] - 2 / np.pi**2) < 1e-12), "", scale,
              f"leading coefficient {r['expansion_leading']:.12f} (2/π² = {2 / np.pi ** 2:.12f})"),
        Claim("shen2019.eq47.printed-prefactor", "Shen 2019 App. B, eq. 47",
              "Eq. 47, c(d) = √(A/2π)·d^(−γ/2) as printed, gives I(d) = A d^(−γ)", "exact", printed, None,
              f"erratum when I/(A d^−γ) from the printed prefactor misses 1 by more than {EQ47_WRONG:g} at "
              f"d = {eq47['d'][-1]:.0e} while π√(A/2) meets it within {EQ47_RIGHT:.0%}",
              exact(abs(printed - 1) < EQ47_RIGHT, erratum=abs(printed - 1) > EQ47_WRONG and abs(ours - 1) < EQ47_RIGHT),
              "", scale,
              f"printed: I ≈ A d^(−γ)/π³, ratio {printed:.4f} (1/π³ = {np.pi ** -3:.4f}); π√(A/2): {ours:.4f} "
              f"(γ = {eq47['gamma']:g})"),
        Claim("shen2019.fig5a.designed-power-law", "Shen 2019 App. B, Fig. 5(a)",
              "Designed sequences have I(τ) = A τ^−γ at every distance", "statistical", z, None,
              f"|z| < {Z_LIMIT:g} at every (γ, τ) with A τ^−γ > {r['mi_floor']:g} (batch-means errors)",
              exact(z < Z_LIMIT), "", scale,
              f"max |z| = {z:.2f}, max rel. error {r['max_rel_error_all']:.3f} over {r['n_visible']} (γ, τ)"),
        Claim("shen2019.fig5b.gamma-recovered", "Shen 2019 App. D.1, Fig. 5(b)",
              f"Fitted γ̂ recovers γ (within {r['gamma_tolerance']:g} for γ ≤ {r['gamma_check_max']:g})",
              "statistical", gamma_dev, None,
              f"every checked γ̂'s 95% interval within ±{r['gamma_tolerance']:g} of γ: reproduced; one wholly "
              "outside: not reproduced; else inconclusive", gamma_verdict, "", scale,
              f"max |γ̂ − γ| = {gamma_dev:.3f} (γ ≤ {r['gamma_check_max']:g})"),
        Claim("shen2019.eq52.constant-mi", "Shen 2019 App. C, eq. 52, Fig. 4",
              "Repetitive 01/10 sequences have constant I(τ), eq. 52", "statistical", r["rep_max_abs_z"], None,
              f"|z| < {Z_LIMIT:g} at every p and τ ≥ 2", exact(r["rep_max_abs_z"] < Z_LIMIT), "", scale,
              f"max |z| = {r['rep_max_abs_z']:.2f} over {len(r['rep_p'])} values of p, τ = 2..{r['rep_max_lag']}"),
        Claim("shen2019.eq53.estimator-bias", "Shen 2019 App. D.1, eq. 53; Grassberger 2003; this book",
              "Plug-in MI is biased by (K−1)²/(2N); eq. 53 and Grassberger leave only 1/(2N)", "statistical",
              float(bias["grassberger"][-1]), None,
              f"every alphabet size within {Z_LIMIT:g} standard errors of first-order theory",
              exact(alpha_ok), "", scale,
              f"plug-in {bias['plugin'].min():.2f}–{bias['plugin'].max():.2f}; Grassberger at K = {int(k[0])}: "
              f"{bias['grassberger'][0]:.2f}, at K = {int(k[-1])}: {bias['grassberger'][-1]:.3f} (units of (K−1)²/(2N))"),
        Claim("book.binary.estimators-coincide", "this book (first-order expansion)",
              "On binary data the three estimators coincide", "statistical", psi, None,
              f"|ψ − plug-in| < 0.01 × 1/(2N) and Grassberger − ψ within |z| < {Z_LIMIT:g}",
              exact(psi < 0.01 and g_z < Z_LIMIT), "", scale,
              f"max |ψ − plug-in| {psi:.4f} × 1/(2N); Grassberger − ψ max |z| {g_z:.2f}"),
    ]
