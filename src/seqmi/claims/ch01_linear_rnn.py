"""Claims of chapter 01 (linear RNNs): generating functions, decay rates, Ising chains."""

from __future__ import annotations

from typing import Any

from seqmi.claims import Claim, exact, illustration, profile_of

# |z| above which a sampled covariance is incompatible with a formula (batch-means errors,
# about 100 compared entries)
Z_LIMIT = 5.0
# |z| above which the printed formula is shown wrong while eq. 11's holds
Z_ERRATUM = 10.0


def _scale(r: dict[str, Any]) -> str:
    widths = [s["m"] for s in r["sweep"]]
    return (f"{profile_of(r)}: exact series to t = {r['t_exact']} ({len(r['series_systems'])} systems), "
            f"{len(r['decay_networks'])} decay networks, widths {min(widths)}–{max(widths)}, "
            f"Monte Carlo {r['mc']['n']} sequences to t = {r['mc']['t_max']}, Ising N = {r['ising']['n_spins']}")


def rules(r: dict[str, Any]) -> list[Claim]:
    """The chapter's claims from its results dict."""
    scale = _scale(r)
    tol = float(r["fit_tolerance"])
    systems = r["series_systems"]
    rational = all(s["rational"] for s in systems)
    same = all(s["same_function"] for s in systems)
    series = float(r["series_max_abs_diff"])
    mc, ising, bias = r["mc"], r["ising"], r["bias"]
    z11, zpr = float(mc["max_z_eq11"]), float(mc["max_z_printed"])
    decay = float(r["decay_max_rel_error"])
    two, memo = r["order_two"], r["memorising"]
    two_err = abs(two["rho_fitted"] / two["rho_predicted"] - 1)
    memo_err = abs(memo["rho_fitted"] / memo["rho_predicted"] - 1)
    xi_err = max(r["xi_max_rel_error_exact"], r["xi_max_rel_error_trace"])
    widths = [s["m"] for s in r["sweep"]]
    trace = float(r["trace_over_exact_last_lag_min"])
    xi_ising_err = abs(ising["xi_fitted"] / ising["xi"] - 1)
    dep_lr, dep_nn = min(ising["past_dependence_long_range"]), max(ising["past_dependence_nn"][1:])
    return [
        Claim("shen2019.eq24-35.series-rational", "Shen 2019 eqs. 24–35",
              "The power series of the closed form Σ(z) reproduces the recurrence term by term, and Σ(z) is rational",
              "exact", series, None,
              "exact rational arithmetic: series − recurrence = 0 for every term, Σ(z) rational and equal to the "
              "(I − Mz)⁻¹ form in every system", exact(series == 0 and rational and same), "", scale,
              f"max |series − recurrence| = {series:g} ({len(systems)} systems); rational: {rational}; "
              f"eq. 35 ≡ (I − Mz)⁻¹ form: {same}"),
        Claim("shen2019.eq12.output-convention", "Shen 2019 eqs. 11–12, 15, 35",
              "Eq. 12 (so eqs. 15, 21, 23, 26, 31, 34, 35) follows from o_t = U_o h_{t−1} (eq. 11)",
              "statistical", zpr, None,
              f"sampled cross-covariances against each formula: erratum when eq. 11's recurrence fits "
              f"(|z| < {Z_LIMIT:g}) and the printed eq. 15 does not (|z| > {Z_ERRATUM:g})",
              "erratum" if (zpr > Z_ERRATUM and z11 < Z_LIMIT) else exact(zpr < Z_LIMIT), "", scale,
              f"max |z| = {z11:.1f} for eq. 11's recurrence, {zpr:.0f} for the printed eq. 15: the printed "
              "formulas hold for o_t = U_o U_h h_(t−1)"),
        Claim("shen2019.appA.pole-sets-decay", "Shen 2019 App. A, asymptotic analysis",
              "|Σ_(x_t x_0)| ~ t^(n−1) |z₀|^(−t): the pole nearest the origin sets the decay", "exact",
              decay, None, f"fitted rate within {tol:g} (relative) of 1/|z₀| for every network, order-2 pole included",
              exact(decay < tol and two_err < tol), "", scale,
              f"max rel. error {decay:.1e} over {len(r['decay_networks'])} networks; order-2 pole "
              f"{two['rho_fitted']:.5f} vs {two['rho_predicted']:.5f}"),
        Claim("shen2019.sec4-1.memorising-pole", "Shen 2019 Sec. 4.1, App. A",
              "A pole inside the unit disk makes Σ_(x_t x_0) grow (the network memorises x₀)", "exact",
              memo["rho_fitted"], None, f"1/|z₀| > 1 and the fitted growth within {tol:g} of it",
              exact(memo["rho_predicted"] > 1 and memo_err < tol), "", scale,
              f"ρ = 1/|z₀| = {memo['rho_predicted']:.4f}, fitted growth {memo['rho_fitted']:.4f}"),
        Claim("shen2019.eq41.exact-vs-monte-carlo", "Shen 2019 eq. 41",
              "Exact I(x₀; x_t) (eq. 41) agrees with Monte Carlo", "statistical", mc["mi_max_z"], None,
              f"|z| < {Z_LIMIT:g} at every lag (batch-means errors)", exact(mc["mi_max_z"] < Z_LIMIT), "", scale,
              f"max |z| = {mc['mi_max_z']:.2f} over {mc['t_max']} lags ({mc['n']} sequences)"),
        Claim("shen2019.eq41.xi-from-pole", "Shen 2019 eq. 41 and Sec. 4.1",
              "The MI decays exponentially at the pole's rate, in exact and trace forms; ξ is set by the pole, "
              "not the width", "exact", xi_err, None, f"|ξ_fit/ξ_pole − 1| < {tol:g} for every network",
              exact(xi_err < tol), "", scale,
              f"max |ξ_fit/ξ_pole − 1| = {r['xi_max_rel_error_exact']:.1e} (exact), "
              f"{r['xi_max_rel_error_trace']:.1e} (trace) over {len(r['sweep'])} networks, m = {min(widths)}–{max(widths)}"),
        Claim("shen2019.eq41.trace-form-exact", "Shen 2019 eq. 41",
              "The trace form of eq. 41 becomes exact as the MI decays", "exact", trace, None,
              "trace / exact at the last lag with I > 1e-200 within 1e-6 of 1", exact(abs(trace - 1) < 1e-6), "",
              scale, f"min trace / exact at the last lag: {trace:.10f}"),
        Claim("shen2019.sec4-1.biases-shift-mean", "Shen 2019 Sec. 4.1",
              "Biases change the mean only, not the covariance or the MI", "illustration", bias["cov_diff"], None,
              "illustration of an identity: with the same noise, the biased path minus the unbiased one is a "
              "constant shift, so the sample covariances agree to 1e-9 (eq. 41 has no bias term, so the MI "
              "part holds by construction and is not counted)",
              illustration(True, bias["path_diff"] < 1e-9 and bias["cov_diff"] < 1e-9), "", scale,
              f"max |Δ sample covariance| = {bias['cov_diff']:.1e}; path shift residual {bias['path_diff']:.1e}"),
        Claim("shen2019.eq62.ising-conditional", "Shen 2019 App. G, eq. 62",
              "The nearest-neighbour Boltzmann conditional is eq. 62", "exact", ising["eq62_max_deviation"], None,
              "enumeration over all t and prefixes: max deviation < 1e-12", exact(ising["eq62_max_deviation"] < 1e-12),
              "", scale, f"max deviation {ising['eq62_max_deviation']:.1e} (N = {ising['n_spins']})"),
        Claim("shen2019.eq57.pair-double-count", "Shen 2019 eqs. 56–57, 62",
              "Eq. 57 sums over all ordered pairs i, j (twice eq. 56); eq. 62 holds only with each pair once",
              "exact", ising["eq57_as_printed_deviation"], None,
              "erratum when the conditional built from eq. 57 as printed deviates from eq. 62 by more than 1e-3",
              exact(True, erratum=ising["eq57_as_printed_deviation"] > 1e-3), "", scale,
              f"deviation {ising['eq57_as_printed_deviation']:.3f}"),
        Claim("shen2019.appG.ising-xi", "Shen 2019 App. G; van Hove (Sec. 6)",
              "The nearest-neighbour chain's MI decays exponentially, I ∝ e^(−τ/ξ) (eq. 9) with "
              "ξ = −1/(2 ln|tanh βJ|)", "exact",
              ising["xi_fitted"], None, f"enumerated MI equals the closed form to 1e-12; fitted ξ within {tol:g}",
              exact(ising["mi_max_deviation"] < 1e-12 and xi_ising_err < tol), "", scale,
              f"max |enumeration − closed form| = {ising['mi_max_deviation']:.1e}; ξ fitted "
              f"{ising['xi_fitted']:.4f} vs {ising['xi']:.4f}"),
        Claim("shen2019.appG.long-range-whole-past", "Shen 2019 App. G, Sec. 6",
              "With long-range couplings the conditional depends on the whole past", "exact", dep_lr, None,
              "flipping any past spin moves p(s_N) by > 1e-3 (long range), and by < 1e-12 beyond the last "
              "spin (nearest neighbour)", exact(dep_lr > 1e-3 and dep_nn < 1e-12), "", scale,
              f"min |Δp| {dep_lr:.3f} (long range) vs max {dep_nn:.0e} (nearest neighbour, k ≥ 2)"),
    ]
