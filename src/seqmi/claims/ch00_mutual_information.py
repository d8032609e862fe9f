"""Claims of chapter 00 (primer): the binary symmetric chain against its closed forms."""

from __future__ import annotations

from typing import Any

import numpy as np

from seqmi.claims import Claim, decide_within, exact, profile_of

# relative band within which a fitted correlation length counts as the predicted one
XI_TOLERANCE = 0.05
# |z| above which a sampled estimate is incompatible with the exact value (about 1e-4 per
# lag for Student's t with 19 dof, so rarely reached by chance over ~15 lags)
Z_LIMIT = 5.0


def _scale(r: dict[str, Any]) -> str:
    return (f"{profile_of(r)}: {r['n_seq']} chains of {r['length']} bits, q = {r['q']}, "
            f"lags 1–{len(r['lags'])}, exact enumeration at L = {len(r['bipartite_splits']) + 1}")


def xi_interval(r: dict[str, Any], n_draws: int = 2000, seed: int = 0) -> list[float]:
    """95% interval of the fitted ξ, redrawing each estimate within its batch-means error.

    The fit is the chapter's: a line through ``ln Î(τ)`` on the lags with exact MI between
    ``mi_floor`` and ``fit_ceiling``, whose slope is ``-1/ξ`` (Shen 2019 eq. 9).
    """
    lags, est, se = (np.asarray(r[k], dtype=float) for k in ("lags", "estimate", "stderr"))
    exact_mi = np.asarray(r["exact"], dtype=float)
    window = (exact_mi > r["mi_floor"]) & (exact_mi < r["fit_ceiling"])
    draws = np.random.default_rng(seed).normal(est[window], se[window], size=(n_draws, int(window.sum())))
    draws = np.clip(draws, 1e-300, None)
    slopes = np.polyfit(lags[window], np.log(draws).T, 1)[0]
    xi = -1.0 / slopes
    return [float(v) for v in np.percentile(xi, [2.5, 97.5])]


def rules(r: dict[str, Any]) -> list[Claim]:
    """The chapter's claims from its results dict."""
    scale = _scale(r)
    z = float(r["max_abs_z_visible"])
    xi, xi_fit = float(r["xi_predicted"]), float(r["xi_fitted"])
    xi_ci = xi_interval(r)
    dev = float(r["bipartite_max_deviation"])
    return [
        Claim("primer.closed-form.plugin-matches-exact", "closed form (this chapter)",
              "Plug-in I(τ) of sampled chains matches ln 2 − H_b(p_τ) within sampling error",
              "statistical", z, None,
              f"every lag with exact I > {r['mi_floor']:g} has |z| < {Z_LIMIT:g} (z: estimate − exact − "
              "Bartlett floor over the batch-means error)",
              "reproduced" if z < Z_LIMIT else "not reproduced", "", scale,
              f"max |z| = {z:.2f} over {r['n_visible']} lags"),
        Claim("primer.sec3.xi-exponential", "closed form; Shen 2019 Sec. 3",
              "I(τ) decays exponentially, I ∝ e^(−τ/ξ) (eq. 9) with ξ = −1/(2 ln|1−2q|)", "statistical",
              xi_fit, xi_ci,
              f"the 95% interval of the fitted ξ (estimates redrawn within their errors) lies within "
              f"±{XI_TOLERANCE:.0%} of the predicted {xi:.3f}; wholly outside: not reproduced",
              decide_within(xi_ci, (1 - XI_TOLERANCE) * xi, (1 + XI_TOLERANCE) * xi), "", scale,
              f"ξ fitted {xi_fit:.3f} vs predicted {xi:.3f}"),
        Claim("primer.markov.bipartite-equals-i1", "Markov property; Chen et al. 2025 Sec. 4",
              "Bipartite MI of a Markov chain equals I(1) for every split", "exact", dev, None,
              "exact enumeration of all 2^L sequences: max |I_bp(ℓ) − I(1)| < 1e-12 nats",
              exact(dev < 1e-12), "", scale,
              f"max deviation {dev:.1e} nats over {len(r['bipartite_splits'])} splits"),
    ]
