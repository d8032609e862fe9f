"""Claims of chapter 06: gradient propagation through attention (Kerg et al. 2020).

The supplement's derivations are exact checks. Task accuracies are proportions of held-out
recalled symbols, decided from their Wilson intervals; a claim whose training budget is far
below what the chapter measured RelRNN to need is inconclusive, with that need as its scale.
Fig. 3 (:func:`~seqmi.experiments.ch06_records.gradient_decay`,
:func:`~seqmi.experiments.ch06_records.fig3_contrasts`) and Table 4 are decided by
Student-t intervals over seeds; a decisive run's seeds are fresh ones, as many as a pilot's
spread asks for (:func:`seqmi.stats.seeds_to_decide`), and its rules name them
(:func:`~seqmi.experiments.ch06_records.seed_range`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from seqmi.claims import Claim, combine, decide, exact, illustration, profile_of
from seqmi.experiments.ch06_records import (NAMES, SWEPT, fig3_contrasts, gradient_decays, minigrid_rewards,
                                            minigrid_seeds, seed_range)
from seqmi.stats import binomial_ci, mean_ci, mean_diff_ci, seeds_to_decide

TARGET = 0.99  # Table 5 reports 100%; we ask for 99% of the held-out recalled symbols
N_RECALL = 10  # recalled symbols per sequence
TRANSFER = "trained at T = {short}, tested at T = {long} (length transfer), not trained at T = {long}"
# RelRNN's seconds per update at T = 1000 on 2 CPU cores (benchmarks/bench_relrnn.py), for the
# budget of a run at T
SECONDS_PER_UPDATE_T1000 = 0.055
# the authors' training budget (notes/kerg.md): a model that fails with fewer updates gives no
# evidence against Table 5, since RelRNN trained from scratch at T = 100 stays at chance for
# 12,000 updates at learning rates 1e-3 to 1e-2 on Denoise (probes while sizing the reference profile)
PAPER_UPDATES = 200_000
# Table 5's LSTM column: 100% at T = 100, 200, 300; 12% at T = 500, 1000, 2000
PAPER_LSTM_SOLVED, PAPER_LSTM_CHANCE = (100, 200, 300), (500, 1000, 2000)
# recall under this counts as chance for the LSTM row (chance is 1/8 = 12.5%)
LSTM_CHANCE_CEILING = 0.2
# Table 4 (MiniGrid): the authors trained every agent for 5,000,000 environment steps
PAPER_ENV_STEPS = 5_000_000
# without memory of the start room's object an agent picks the matching one at the split at best
# half the time: its success rate is at most 1/2 and its reward (1 - 0.9 steps/max_steps on success) below
MEMORYLESS_REWARD = 0.5
# Table 4's rows for the Memory environments: average reward of MemLSTM and RelLSTM
PAPER_MEMORY = {"MiniGrid-MemoryS7-v0": {"full": 0.40, "relevancy": 0.94},
                "MiniGrid-MemoryS13-v0": {"full": 0.24, "relevancy": 0.30}}
# median held-out recall above which the Fig. 3 models count as past the Denoise plateau
# (chance is 1/8; the plateau sits below 0.3, a trained model near 1)
PLATEAU_EXIT = 0.5


def _exact_claims(r: dict[str, Any]) -> list[Claim]:
    scale = (f"{profile_of(r)}: uniform-attention curves to T = {r['horizon']} (fits from {r['fit_from']}), "
             f"sparse to T = {r['horizon_sparse']}, Lemma 10–12 checks to k = {r['lemma12_ks'][-1]}")
    worst = max(r["decomposition_max_rel_error"].values())
    two_n_eps = float(r["harmonic_2n_eps"][-1])
    rem = {s: np.asarray(v, dtype=float) for s, v in r["lemma12_scaled_remainder"].items()}
    # the scaled remainder keeps growing by at least 90% of its previous step: not O(1/T)
    growing12 = [s for s, v in rem.items() if v[-1] - v[-2] > 0 and v[-1] - v[-2] >= 0.9 * (v[-2] - v[-3])]
    fitted = np.asarray(r["uniform_fitted"], dtype=float)
    supp = np.asarray(r["uniform_supplement"], dtype=float)
    lams = np.asarray(r["uniform_lambdas"], dtype=float)
    prop4_ok = np.abs(fitted - supp) < 0.05
    fit_vs_exact = float(r["uniform_fit_vs_exact_max"])
    n_spectra = len(lams) + len(r["uniform_matrix"])
    sparse = r["sparse_rows"]
    sparse_ok = all(x["min_far"] >= x["bound"] for x in sparse)
    rate, rate_pred = r["no_attention_rate"], r["no_attention_rate_predicted"]
    return [
        Claim("kerg2020.lem1-4.path-decomposition", "Kerg et al. 2020 supplement Lemmas 1-4, Cor. 1, Prop. 1",
              "d s_{t+k}/d h_t = sum of E/F path terms (all attention kinds)", "exact", worst, None,
              "recursion against autograd in float64: max relative difference below 1e-10", exact(worst < 1e-10),
              "", scale, f"max relative |recursion − autograd| = {worst:.1e}"),
        Claim("kerg2020.lem9.w-power-sums", "Kerg et al. 2020 supplement eqs. 150-183",
              "Lemma 9 and Prop. 3: w(s) as polynomial in the power sums, s ≤ 6", "exact", None, None,
              "symbolic identity and brute-force enumeration agree for s ≤ 6", exact(r["w_identities_ok"]), "", scale,
              f"all six hold: {r['w_identities_ok']}"),
        Claim("kerg2020.eq144-149.w4-expansion", "Kerg et al. 2020 supplement eqs. 144-149", "Worked expansion of w(4)",
              "exact", r["w4_printed_rel_error"], None, "erratum when the printed w(4) differs from the exact one",
              exact(True, erratum=abs(r["w4_printed_rel_error"]) > 1e-12), "", scale,
              f"printed w(4) off by {r['w4_printed_rel_error']:.1e} (relative); correct constant −(2S4+S2²)/8"),
        Claim("kerg2020.eq133-137.harmonic", "Kerg et al. 2020 supplement eqs. 133-137",
              "Harmonic sums: H_n = ln n + γ + ε_n, ε_n ~ 1/(2n)", "exact", two_n_eps, None,
              "2n·ε_n within 1e-3 of 1 at the largest n", exact(abs(two_n_eps - 1) < 1e-3), "", scale,
              f"2n·ε_n = {two_n_eps:.6f}"),
        Claim("kerg2020.lem10-11.theta-chi-bounds", "Kerg et al. 2020 supplement eqs. 195, 221",
              "Lemma 10 (θ bounds) and Lemma 11 (χ bounds)", "exact", None, None,
              "both bounds hold at every s ≤ 5 and k checked", exact(r["lemma10_ok"] and r["lemma11_ok"]), "", scale,
              f"Lemma 10: {r['lemma10_ok']}, Lemma 11: {r['lemma11_ok']}"),
        Claim("kerg2020.lem12.chi-remainder", "Kerg et al. 2020 supplement eq. 232 (via eq. 234)",
              "Lemma 12: χ(s) equals its lower sum up to O(1/(t+k))", "exact", None, None,
              "erratum when remainder·T keeps growing with ln T (by ≥ 90% of its previous step) for some s",
              exact(True, erratum=bool(growing12)), "", scale,
              "remainder·T grows by " + ", ".join(f"{r['lemma12_growth_per_log'][s]:.2f}" for s in growing12)
              + f" per unit ln T for s = {growing12}"),
        Claim("kerg2020.appA.no-attention-rate", "Kerg et al. 2020 supplement A (product of V-blocks)",
              "No attention: exponential decay at rate −ln ρ(V)", "illustration", rate, None,
              "illustration: the fitted decay rate of ‖V^k‖ for the chapter's diagonal V within 1e-3 of −ln ρ(V), "
              "which holds for any matrix by Gelfand's formula; it checks our product code, not the paper",
              illustration(False, abs(rate - rate_pred) < 1e-3), "", scale,
              f"rate {rate:.5f} vs {rate_pred:.5f}"),
        Claim("kerg2020.prop4.uniform-diagonal", "Kerg et al. 2020 supplement eq. 248",
              "Prop. 4: (A_T)_ii ≈ c/T + c'·T^(λ−1), uniform attention", "exact", fit_vs_exact, None,
              "erratum when the fitted exponent misses the printed one by more than 0.05 for some λ while it "
              "matches the exact T^(λ/(1−λ)−1) within 0.05",
              exact(bool(prop4_ok.all()), erratum=bool((~prop4_ok).any()) and fit_vs_exact < 0.05), "", scale,
              f"printed exponent within 0.05 only for λ ∈ {lams[prop4_ok].tolist()}; fits within {fit_vs_exact:.1e} "
              f"of the exact one for {n_spectra} spectra"),
        Claim("kerg2020.thm1.uniform-lower-bound", "Kerg et al. 2020 supplement eqs. 264-267",
              "Theorem 1: ‖∂s_T/∂h_t‖ = Ω(T^−η), η = min_i min(1, 1−Re λ_i)", "exact",
              len(r["theorem1_fails"]), None, "the fitted decay exponent at most the bound's + 0.05 for every spectrum",
              exact(not r["theorem1_fails"]), "", scale,
              f"fails for {len(r['theorem1_fails'])} of {n_spectra} spectra (all-negative spectra decay faster than "
              f"1/T); the gradient grows as T^((2λ−1)/(1−λ)) for λ > 1/2 (at λ = {r['growing_lambdas']}), which a "
              "lower bound allows"),
        Claim("kerg2020.thm2.sparse-level", "Kerg et al. 2020 supplement eq. 290",
              "Theorem 2: κ-sparse, depth d: ‖∂s_{t+k}/∂h_t‖ = Ω(1/κ^d), flat in k", "illustration",
              min(x["min_far"] / x["bound"] for x in sparse), None,
              "illustration: the pattern is built so that every distant state is exactly d hops away and one path "
              "carries λ^(d−1)/κ^d, so the level meets the bound by construction; it shows the code, not the theorem",
              illustration(False, sparse_ok), "", scale,
              f"{len(sparse)} (κ, d) pairs: min ratio to λ^(d−1)/κ^d "
              f"{min(x['min_far'] / x['bound'] for x in sparse):.2f}, max drift {max(x['flatness'] for x in sparse):.1e}"),
        _generic_patterns_claim(r),
        Claim("kerg2020.secC.linear-cost", "Kerg et al. 2020 supplement Sec. C (the method; it states no cost)",
              "Our relevancy screening stores O(T) for backward, our full attention O(T²)", "illustration",
              r["cost_exponents"]["relrnn"]["memory"], None,
              "illustration of our code: exponent of the bytes saved for backward below 1.2 for RelRNN, above "
              "1.5 for full attention (the supplement makes no cost claim to reproduce)",
              illustration(False, r["cost_exponents"]["relrnn"]["memory"] < 1.2
                           and r["cost_exponents"]["full"]["memory"] > 1.5), "",
              f"{profile_of(r)}: T ∈ {sorted({int(k.split('/')[1]) for k in r['cost']})}",
              f"saved-tensor exponent: RelRNN {r['cost_exponents']['relrnn']['memory']:.2f}, full "
              f"{r['cost_exponents']['full']['memory']:.2f}; time {r['cost_exponents']['relrnn']['time']:.2f} vs "
              f"{r['cost_exponents']['full']['time']:.2f}"),
    ]


def _generic_patterns_claim(r: dict[str, Any]) -> Claim:
    """Theorem 2's inequality on patterns not built for it, with the depth measured per distance."""
    rows = r["pattern_rows"]
    margin = min(x["min_margin_log"] for x in rows)
    n_random = sum(x["patterns"] for x in rows if x["kind"] == "random")
    kappas = sorted({x["kappa"] for x in rows})
    slopes = [x["loglog_slope"] for x in rows if x["kind"] == "random"]
    rates = [x["rate_per_step"] for x in rows if x["kind"] == "window"]
    return Claim("kerg2020.thm2.generic-patterns", "Kerg et al. 2020 supplement eq. 290 (Theorem 2)",
                 "κ-sparse attention of depth d: ‖∂s_{t+k}/∂h_t‖ ≥ λ^(d−1)/κ^d, on patterns not built for the bound",
                 "exact", float(np.exp(margin)), None,
                 "exact gradient against the bound at the dependency depth measured at every distance, over random "
                 "κ-sparse and sliding-window patterns: never below it (smallest ratio ≥ 1)",
                 exact(margin >= 0.0), "",
                 f"{profile_of(r)}: κ ∈ {kappas}, {n_random} random patterns and one window per κ, "
                 f"T = {r['pattern_horizon']}, V = diag({r['pattern_lams']})",
                 f"smallest ratio to the bound {np.exp(margin):.2f}; the depth grows with distance, so the floor is "
                 f"not flat: random patterns decay as k^({min(slopes):.2f}..{max(slopes):.2f}), windows by "
                 f"e^({min(rates):.3f}..{max(rates):.3f}) per step")


def _accuracy(cid: str, source: str, statement: str, acc: float, n_symbols: int, sub: str, scale: str,
              detail: str, budget_note: str = "") -> Claim:
    """A recall-accuracy claim decided from the Wilson interval of ``acc`` over ``n_symbols``."""
    ci = binomial_ci(acc * n_symbols, n_symbols)
    verdict = decide(ci, TARGET, claim_above=True)
    if verdict == "not reproduced" and budget_note:
        # the budget is below what learning the task was measured to take: no evidence either way
        verdict, scale = "inconclusive", scale + "; " + budget_note
    elif verdict == "inconclusive":
        scale += f"; {n_symbols} symbols leave {TARGET:.0%} inside the interval: needs a larger held-out batch"
    return Claim(cid, source, statement, "statistical", acc, ci,
                 f"Wilson 95% interval of the held-out recall accuracy ({n_symbols} symbols) above {TARGET:.0%}; "
                 "below: not reproduced", verdict, sub, scale, detail)


def _task_claims(r: dict[str, Any]) -> list[Claim]:
    s, run, long = r["settings"], r["copy_run"], r["long_run"]
    short, T_long = run["length"], long["length"]
    eval_symbols = s["eval_batch"] * N_RECALL
    transfer_symbols = s["transfer_batch"] * N_RECALL
    needed = run["steps_to_99"] or run["updates"]
    base_scale = f"{profile_of(r)}: Adam lr {run['lr']:g}, batch {run['batch']}"
    baselines = "; ".join(f"{k} trained at T = {short}: {v['accuracy']:.1%}" for k, v in r["transfer_training"].items()
                          if k != "relrnn")
    contrast = ("; the LSTM baseline does not learn Copy even at T = "
                f"{short}, so Table 5's contrast with it is absent" if
                r["transfer_training"].get("lstm", {}).get("steps_to_99", 0) is None else "")
    T_top = max(r["task_lengths"])
    out = [
        _accuracy("kerg2020.table5.copy-short", "Kerg et al. 2020 supplement Table 5",
                  f"Copy task: RelRNN reaches 100% (we ask ≥ 99%) at T = {short}", run["accuracy"], eval_symbols,
                  f"T = {short} instead of Table 5's 100 to 2,000; Adam lr {run['lr']:g} instead of Table 6's 2e-4",
                  base_scale + f", at most {run['max_steps']} updates (stops at 99%)",
                  f"{run['accuracy']:.1%} after {run['updates']} updates"),
        _accuracy("kerg2020.table5.copy-long-transfer", "Kerg et al. 2020 supplement Table 5",
                  f"Copy task: RelRNN recalls ≥ 99% at T = {T_long} (trained at T = {short}, zero-shot)",
                  long["zero_shot"], transfer_symbols, TRANSFER.format(short=short, long=T_long),
                  base_scale + f", trained at T = {short} for {run['updates']} updates, tested on "
                  f"{s['transfer_batch']} sequences at T = {T_long}",
                  f"{long['zero_shot']:.1%} at T = {T_long}" + (f"; {baselines}" if baselines else "") + contrast),
    ]
    if long["steps"]:
        out.append(_accuracy("kerg2020.table5.copy-long-trained", "Kerg et al. 2020 supplement Table 5",
                             f"Copy task: RelRNN trained at T = {T_long} reaches 100% (we ask ≥ 99%)",
                             long["accuracy"], eval_symbols,
                             f"curriculum: {long['steps']} updates at T = {T_long} (lr {long['lr']:g}) from the model "
                             f"trained at T = {short}, not from scratch",
                             base_scale + f", {long['steps']} updates at T = {T_long}",
                             f"{long['accuracy']:.1%} after {long['steps']} updates at T = {T_long}"))
    else:
        minutes = needed * SECONDS_PER_UPDATE_T1000 * T_long / 1000 / 60
        out.append(Claim("kerg2020.table5.copy-long-trained", "Kerg et al. 2020 supplement Table 5",
                         f"Copy task: RelRNN trained at T = {T_long} reaches 100% (we ask ≥ 99%)", "statistical",
                         None, None, f"Wilson 95% interval of the held-out recall accuracy of a model trained at "
                         f"T = {T_long} above {TARGET:.0%}", "inconclusive", "",
                         base_scale + f"; not trained at T = {T_long} in this profile: needs ≥ {needed} updates there "
                         f"(what T = {short} took), ≈ {minutes:.0f} min at {SECONDS_PER_UPDATE_T1000} s per update",
                         "no run trained at this T"))
    out.append(_lstm_baseline(r))
    budget = (f"{r['train_steps']} updates from scratch, the paper's budget {PAPER_UPDATES:,} (Copy alone took "
              f"RelRNN {needed} updates at T = {short}): a failure below that budget is no evidence")
    accs = r["task_accuracy"]
    # independent runs, each scored on its own held-out batch: their symbols pool
    replicates = s.get("task_replicates", 1)
    runs = f", {replicates} runs pooled" if replicates > 1 else ""
    grid = "; ".join(f"{k.split('/')[2]} {v:.1%}" for k, v in accs.items() if k.startswith(f"denoise/{T_top}/"))
    statement = f"Denoise task: RelRNN reaches 100% (we ask ≥ 99%) at T = {T_top}"
    # Table 5 is the Copy task's; Denoise is Fig. 4 (its curves) with hyper-parameters in Table 7
    denoise_source = "Kerg et al. 2020 supplement Fig. 4 (Denoise), Table 7"
    long_run = r.get("denoise_long")  # absent from results recorded before the run with the authors' recipe
    reached = (long_run or {}).get("steps_to_99")  # the update at which that run reached 99%, if it did
    if long_run is None:
        out.append(_accuracy("kerg2020.table5.denoise", denoise_source, statement,
                             accs[f"denoise/{T_top}/relrnn"], eval_symbols * replicates,
                             f"Adam lr {run['lr']:g}, tanh instead of Table 7's optimiser, rate and non-linearity",
                             base_scale + f", {r['train_steps']} updates at T ∈ {r['task_lengths']}{runs}", grid,
                             budget_note=budget if r["train_steps"] < PAPER_UPDATES else ""))
    else:
        out.append(_accuracy(
            "kerg2020.table5.denoise", denoise_source, statement, long_run["accuracy"],
            eval_symbols, f"Adam lr {long_run['lr']:g} and tanh (width {long_run['hidden']}) instead of Table 7's "
            "optimiser, rate and non-linearity (the authors' code: RMSprop or Adam at 2e-4 to 1e-3)",
            f"{profile_of(r)}: RelRNN alone from scratch at T = {long_run['length']}, width {long_run['hidden']}, "
            f"Adam lr {long_run['lr']:g}, batch {run['batch']}, at most {long_run['max_steps']:,} updates "
            "(stops at 99%)",
            f"{long_run['accuracy']:.1%} after {long_run['updates']:,} updates"
            + (" (reached 99%)" if reached is not None else "")
            + f"; the grid after {r['train_steps']} updates: {grid}",
            budget_note=(f"{long_run['updates']:,} updates, below the authors' budget of {PAPER_UPDATES:,}: a failure "
                         "below it is no evidence" if long_run["max_steps"] < PAPER_UPDATES else "")))
    return out


def _lstm_baseline(r: dict[str, Any]) -> Claim:
    """Table 5's LSTM column: Copy solved up to T = 300, chance (12%) from T = 500 on."""
    s, short = r["settings"], r["copy_run"]["length"]
    symbols = s["transfer_batch"] * N_RECALL
    claim = ("kerg2020.table5.lstm-baseline", "Kerg et al. 2020 supplement Table 5 (LSTM column), Table 6",
             f"The LSTM solves Copy up to T = {max(PAPER_LSTM_SOLVED)} (100%) and falls to chance (12%) from "
             f"T = {min(PAPER_LSTM_CHANCE)} on", "statistical")
    rule = (f"Wilson 95% intervals over {symbols} held-out symbols of the LSTM's recall at each tested T: above "
            f"{TARGET:.0%} at every T ≤ {max(PAPER_LSTM_SOLVED)} and below {LSTM_CHANCE_CEILING:.0%} (chance is "
            f"{1 / 8:.1%}) at every T ≥ {min(PAPER_LSTM_CHANCE)}; only for an LSTM that learned Copy where it trained")
    sub = (f"trained at T = {short} and tested at every T (length transfer), not trained at each T as in Table 5; "
           f"Adam lr {r['copy_run']['lr']:g} instead of Table 6's 2e-4")
    scale = f"{profile_of(r)}: LSTM trained at T = {short}, tested on {s['transfer_batch']} sequences per T"
    trained = r["transfer_training"].get("lstm")
    transfer = {int(t): acc for t, acc in r["transfer"].get("lstm", {}).items()}
    detail = "; ".join(f"T = {t}: {acc:.1%}" for t, acc in sorted(transfer.items()))
    if trained is None or not transfer:
        return Claim(*claim, None, None, rule, "inconclusive", sub, scale + "; needs the LSTM in transfer_kinds",
                     "no LSTM in this run")
    if trained["steps_to_99"] is None:
        return Claim(*claim, None, None, rule, "inconclusive", sub,
                     scale + f"; the LSTM reached {trained['accuracy']:.1%} at T = {short} after {trained['updates']:,} "
                     "updates: it never learned Copy, so its recall at longer T says nothing of length; needs an LSTM "
                     f"trained to {TARGET:.0%} (Table 6: Adam 2e-4)", detail)
    cis = {t: binomial_ci(acc * symbols, symbols) for t, acc in transfer.items()}
    parts = [decide(ci, TARGET) for t, ci in cis.items() if t <= max(PAPER_LSTM_SOLVED)]
    parts += [decide(ci, LSTM_CHANCE_CEILING, claim_above=False) for t, ci in cis.items()
              if t >= min(PAPER_LSTM_CHANCE)]
    return Claim(*claim, None, None, rule, combine(parts), sub, scale, detail)


def _fig3_run(r: dict[str, Any]) -> dict[str, Any]:
    """The Fig. 3 sweep's settings: ``steps``, ``length``, ``first_seed``, ``held_out_batches``
    and ``held_out_sequences``.

    Recorded with the sweep as ``fig3_settings``; results recorded before then kept them in
    the chapter's ``settings``, with seeds from 0 and one held-out batch of 32 sequences.
    """
    if "fig3_settings" in r:
        return r["fig3_settings"]
    s = r["settings"]
    return {"steps": s["profile_steps"], "length": s["profile_length"], "first_seed": 0, "held_out_batches": 1,
            "held_out_sequences": 32}


def _plateau_note(r: dict[str, Any], n: int) -> str:
    """How far the Denoise plateau is, from the chapter's other runs where the results hold them."""
    long_run = r.get("denoise_long")  # absent from results recorded before the run with the authors' recipe
    reached = (long_run or {}).get("steps_to_99")  # the update at which that run reached 99%, if it did
    if reached is not None:
        hours = 8 * n * reached * long_run["seconds_per_update"] / 3600
        return (f": the authors' recipe left it by {reached:,} updates (the Denoise run above), so {n} seeds of the "
                f"8 settings take ≈ {hours:.1f} h of one core")
    copy_run = r.get("copy_run")  # absent from a recording of the Fig. 3 section alone
    return f" (≥ {copy_run['steps_to_99'] or copy_run['updates']} updates)" if copy_run else ""


def _fig3_claim(r: dict[str, Any]) -> Claim:
    """Fig. 3 decided by Student-t intervals over seeds of two contrasts of gradient decays."""
    run = _fig3_run(r)
    decays = gradient_decays(r["gradient_profiles"], run["length"])
    contrasts = fig3_contrasts(decays)
    n = len(contrasts["rho3_margin"])
    cis = {k: mean_ci(v) for k, v in contrasts.items()}
    means = {k: float(v.mean()) for k, v in contrasts.items()}
    verdict = combine([decide(ci, 0.0) for ci in cis.values()])
    # absent from results recorded before the sweep kept each model's recall
    recall = {k: np.atleast_1d(v) for k, v in r.get("gradient_accuracy", {}).items()}
    median_recall = float(np.median(np.concatenate(list(recall.values())))) if recall else 0.0
    batches = run["held_out_batches"]
    seeds = seed_range(run["first_seed"], n)
    scale = (f"{profile_of(r)}: {run['steps']:,} updates per setting, {seeds}, T = {run['length']}, each profile "
             f"averaged over {batches} held-out batch{'es' if batches > 1 else ''} of {run['held_out_sequences']} "
             "sequences")
    if median_recall < PLATEAU_EXIT:
        verdict = "inconclusive"
        few = "" if n >= 3 else "≥ 3 seeds per (ρ, ν) of "
        scale += f"; needs {few}models trained past the Denoise plateau{_plateau_note(r, n)}"
    elif verdict == "inconclusive" and n < 2:
        scale += "; needs ≥ 3 seeds per (ρ, ν): one seed measures no spread between seeds"
    elif verdict == "inconclusive":
        need = [seeds_to_decide(contrasts[k]) for k, ci in cis.items() if decide(ci, 0.0) == "inconclusive"]
        scale += ("; a contrast's mean is too close to 0 for any affordable number of seeds" if None in need
                  else f"; its intervals ask for ≈ {max(need)} seeds per setting")
    mean_decay = {k: float(v.mean()) for k, v in decays.items()}
    by_rho = "/".join(f"{mean_decay[f'nu=15,rho={x}']:+.2f}" for x in SWEPT)
    by_nu = "/".join(f"{mean_decay[f'nu={x},rho=15']:+.2f}" for x in SWEPT)
    gap = cis["range_gap"]
    return Claim(
        "kerg2020.fig3.rho-destabilises", "Kerg et al. 2020 supplement Fig. 3",
        "Small ρ destabilises gradient propagation; ν has less leverage than ρ", "statistical",
        means["rho3_margin"], cis["rho3_margin"] if n >= 2 else None,
        f"per seed ({seeds}; the 8 settings of a seed share its training batches): the decay of "
        "log10 ‖∇_{h_t}L‖ over the input (the fall of its least-squares line against the distance, on each "
        "model's profile averaged over its held-out batches) of ρ = 3 minus the largest other ρ's, and the range "
        "of the decays over ρ minus that over ν; both Student-t 95% intervals above 0: reproduced, either below: "
        "not reproduced; only for models past the Denoise plateau",
        verdict, f"RelRNN (the authors' RNN variant) on Denoise at T = {run['length']}, not MemLSTM at T = 1000",
        scale, f"mean decay in decades, ρ = 3/8/18/25: {by_rho}; ν = 3/8/18/25: {by_nu}; range gap "
        f"{means['range_gap']:+.2f}" + (f" [{gap[0]:+.2f}, {gap[1]:+.2f}]" if n >= 2 else "")
        + (f"; median held-out recall {median_recall:.1%} (ρ = 3: {np.median(recall['nu=15,rho=3']):.1%})"
           if recall else "; recall not recorded"))


def _table4_claims(r: dict[str, Any]) -> list[Claim]:
    """Table 4's Memory rows: RelLSTM uses memory, and beats the baseline in training and after transfer."""
    source = "Kerg et al. 2020 supplement Table 4"
    ids = ("kerg2020.table4.memory-solved", "kerg2020.table4.memory-train", "kerg2020.table4.memory-transfer")
    s7, s13 = PAPER_MEMORY["MiniGrid-MemoryS7-v0"], PAPER_MEMORY["MiniGrid-MemoryS13-v0"]
    statements = ("RelLSTM trained on MemoryS7 earns a reward that needs memory of the start room "
                  f"(paper: {s7['relevancy']:.2f})",
                  f"On MemoryS7, RelLSTM's reward is above the baseline's (paper: {s7['relevancy']:.2f} vs MemLSTM "
                  f"{s7['full']:.2f})",
                  "Trained on MemoryS7 and tested on MemoryS13, RelLSTM's reward is above the baseline's "
                  f"(paper: {s13['relevancy']:.2f} vs MemLSTM {s13['full']:.2f})")
    mg = r.get("minigrid")  # absent from results recorded before the MiniGrid sweep
    if mg is None:
        return [Claim(cid, source, st, "statistical", None, None, "mean reward over seeds", "inconclusive", "",
                      f"{profile_of(r)}: not run in this recording", "no MiniGrid run")
                for cid, st in zip(ids, statements)]
    n, train_env, test_env = mg["replicates"], mg["train_env"], mg["test_envs"][-1]
    base = "full" if "full" in mg["kinds"] else "lstm"
    steps = int(np.mean([mg["runs"][f"relevancy/{i}"]["env_steps"][-1] for i in minigrid_seeds(mg)]))
    seeds = seed_range(minigrid_seeds(mg).start, n)
    scale = (f"{profile_of(r)}: PPO, {mg['updates']} rollouts of {mg['n_envs']} episodes (≈ {steps:,} environment "
             f"steps per RelLSTM run), {seeds}, {mg['eval_episodes']} test episodes per environment")
    sub = ("memory core of 64 units, ν = ρ = 5 as the authors; actions restricted to turn/forward (the Memory tasks "
           "ignore the other four); PPO written for whole episodes")
    if base == "lstm":
        sub += "; the baseline is a plain LSTM, not the paper's MemLSTM"
    detail = "; ".join(f"{NAMES[k]}: reward {minigrid_rewards(mg, k, train_env).mean():.2f} / "
                       f"{minigrid_rewards(mg, k, test_env).mean():.2f}, success "
                       f"{minigrid_rewards(mg, k, train_env, 'success').mean():.0%} / "
                       f"{minigrid_rewards(mg, k, test_env, 'success').mean():.0%}" for k in mg["kinds"])
    detail += f" (on {train_env.split('-')[1]} / {test_env.split('-')[1]}, means over seeds)"
    rel_train, rel_test = minigrid_rewards(mg, "relevancy", train_env), minigrid_rewards(mg, "relevancy", test_env)
    base_train, base_test = minigrid_rewards(mg, base, train_env), minigrid_rewards(mg, base, test_env)
    parts = [(rel_train.mean(), mean_ci(rel_train), MEMORYLESS_REWARD, (rel_train,),
              f"Student-t 95% interval over {seeds} of RelLSTM's mean reward on {train_env} above "
              f"{MEMORYLESS_REWARD} (the best an agent without memory of the start room can do)"),
             (rel_train.mean() - base_train.mean(), mean_diff_ci(rel_train, base_train), 0.0, (rel_train, base_train),
              f"Welch 95% interval over {seeds} of RelLSTM's minus {NAMES[base]}'s mean reward on {train_env} "
              "above 0"),
             (rel_test.mean() - base_test.mean(), mean_diff_ci(rel_test, base_test), 0.0, (rel_test, base_test),
              f"Welch 95% interval over {seeds} of RelLSTM's minus {NAMES[base]}'s mean reward on {test_env} "
              "above 0")]
    out = []
    for cid, statement, (value, ci, threshold, groups, rule) in zip(ids, statements, parts):
        verdict, note = decide(ci, threshold), ""
        if n < 2:
            note = "; one seed measures no spread between seeds: needs ≥ 3"
        elif verdict == "not reproduced" and steps < PAPER_ENV_STEPS:
            verdict, note = "inconclusive", (f"; below the authors' {PAPER_ENV_STEPS:,} environment steps a failure is "
                                             "no evidence")
        elif verdict == "inconclusive":
            need = seeds_to_decide(*groups, threshold=threshold)
            note = (f"; its interval asks for ≈ {need} seeds" if need else
                    "; its mean is too close to the threshold for any affordable number of seeds")
            if steps < PAPER_ENV_STEPS:
                note += f" at this budget (the authors trained for {PAPER_ENV_STEPS:,} steps)"
        if "first_seed" not in mg and verdict != "inconclusive":
            # recorded before the sweep's seeds were fixed ahead of its run: its seed count was
            # raised after an inconclusive interval, so it is the pilot, not a decisive run
            note += (f"; {verdict} by its interval, held back: these seeds were chosen after looking (a pilot); the "
                     "decisive run trains fresh seeds at the size fixed in profiles.yml")
            verdict = "inconclusive"
        out.append(Claim(cid, source, statement, "statistical", float(value), ci if n >= 2 else None, rule, verdict,
                         sub, scale + note, detail))
    return out


def rules(r: dict[str, Any]) -> list[Claim]:
    """The chapter's claims from its results dict.

    Each group of claims is decided when its numbers are present: a whole run has them
    all, a recording begun with the Fig. 3 section (:func:`seqmi.book.record_section`)
    only that section's. A whole run (its ``settings``) without the MiniGrid sweep still
    lists Table 4's claims, as not run.
    """
    groups = (("decomposition_max_rel_error", _exact_claims), ("copy_run", _task_claims),
              ("gradient_profiles", lambda x: [_fig3_claim(x)]), ("settings", _table4_claims))
    return [claim for key, group in groups if key in r for claim in group(r)]
