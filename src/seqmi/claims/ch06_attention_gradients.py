"""Claims of chapter 06: gradient propagation through attention (Kerg et al. 2020).

The supplement's derivations are exact checks. Task accuracies are proportions of held-out
recalled symbols, decided from their Wilson intervals on a batch that no stopping rule saw:
a Copy or Denoise run stops once its own held-out batch reaches 99%, so that batch chose the
reported update and cannot test it (:func:`seqmi.recipes.copy_tasks.fresh_recall`). A claim
whose training budget is far below what the chapter measured RelRNN to need is
inconclusive, with that need as its scale. Fig. 3
(:func:`~seqmi.experiments.ch06_records.gradient_decay`,
:func:`~seqmi.experiments.ch06_records.fig3_contrasts`) and Table 4 are decided by
Student-t intervals over seeds, Fig. 3 only over models past the Denoise plateau; a
decisive run's seeds are fresh ones, as many as a pilot's spread asks for
(:func:`seqmi.stats.power.seeds_to_decide`), and its rules name them
(:func:`~seqmi.experiments.ch06_records.seed_range`). Table 4's DoorKey and RedBlueDoors
rows compare RelLSTM with MemLSTM over seeds, by two one-sided tests at the book's margin
where the paper reports equal rewards; Table 5's RelLSTM column and Fig. 4 at a longer
delay are recall claims over seeds, every seed's Wilson interval above 99%.

Every statistical claim carries its :class:`~seqmi.claims.Design`, and
:func:`calibrations` runs the decision function of each on data made under its h0 and its
h1 at the recorded scale (:mod:`seqmi.claims.calibration`), or at its decisive design
where nothing of it is recorded yet.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from seqmi.claims import (EQUIVALENCE_LEVEL, EQUIVALENCE_MARGIN, MIN_SEEDS, Claim, Design, combine, decide,
                          decide_equivalence, exact, illustration, profile_of, would_decide)
from seqmi.claims.calibration import Calibration
from seqmi.experiments.ch06_records import (FRESH_BATCH, NAMES, RL_PAIRS, SWEPT, fig3_contrasts, gradient_decays,
                                            minigrid_rewards, minigrid_seeds, rl_rewards, seed_range)
from seqmi.stats import (binomial_ci, equivalence_power, equivalence_scale, mean_ci, mean_diff_ci,
                         needed_for_interval, seeds_to_decide, t_power, wilson_power)

TARGET = 0.99  # Table 5 reports 100%; we ask for 99% of the held-out recalled symbols
N_RECALL = 10  # recalled symbols per sequence
# the recall the power of a recall rule is stated against: one error in a thousand symbols
H1_RECALL = 0.999
NEAR_RECALL = 0.995  # and a recall half-way to TARGET, where the held-out batch's size starts to matter
TRANSFER = "trained at T = {short}, tested at T = {long} (length transfer), not trained at T = {long}"
# the authors' training budget (notes/kerg.md): a model that fails with fewer updates gives no
# evidence against Table 5, since RelRNN trained from scratch at T = 100 stays at chance for
# 12,000 updates at learning rates 1e-3 to 1e-2 on Denoise (probes while sizing the reference profile)
PAPER_UPDATES = 200_000
# Table 5's LSTM column: 100% at T = 100, 200, 300; 12% at T = 500, 1000, 2000
PAPER_LSTM_SOLVED, PAPER_LSTM_CHANCE = (100, 200, 300), (500, 1000, 2000)
# recall under this counts as chance for the LSTM row (chance is 1/8 = 12.5%)
LSTM_CHANCE_CEILING = 0.2
CHANCE = 1 / 8  # a recalled symbol guessed among the 8 labels
# Table 4 (MiniGrid): the authors trained every agent for 5,000,000 environment steps
PAPER_ENV_STEPS = 5_000_000
# without memory of the start room's object an agent picks the matching one at the split at best
# half the time: its success rate is at most 1/2 and its reward (1 - 0.9 steps/max_steps on success) below
MEMORYLESS_REWARD = 0.5
# Table 4's rows for the Memory environments: average reward of MemLSTM and RelLSTM
PAPER_MEMORY = {"MiniGrid-MemoryS7-v0": {"full": 0.40, "relevancy": 0.94},
                "MiniGrid-MemoryS13-v0": {"full": 0.24, "relevancy": 0.30}}
# the decisive MiniGrid run: fresh seeds per agent kind, fixed in notebooks/profiles.yml (reference)
# from the pilot's spread before it runs; a recording without its first seed is that pilot
DECISIVE_MINIGRID_SEEDS = 20
# held-out recall from which a Fig. 3 model counts as past the Denoise plateau (chance is 1/8;
# the plateau sits below 0.3, a trained model near 1)
PLATEAU_EXIT = 0.5
# Fig. 3's power is stated against both contrasts at this many decades (the pilot's range gap: +0.56)
FIG3_EFFECT = 0.5
# seconds per update of the reference Fig. 3 sweep: 24 models of 10,000 updates took 52 minutes
# of two cores (notebooks/profiles.yml), what a larger sweep's core-hours are counted at
PROFILE_SECONDS_PER_UPDATE = 0.026
# the power a decisive sample size is stated for
TARGET_POWER = 0.8


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
              illustration(abs(rate - rate_pred) < 1e-3), "", scale,
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
              illustration(sparse_ok), "", scale,
              f"{len(sparse)} (κ, d) pairs: min ratio to λ^(d−1)/κ^d "
              f"{min(x['min_far'] / x['bound'] for x in sparse):.2f}, max drift {max(x['flatness'] for x in sparse):.1e}"),
        _generic_patterns_claim(r),
        Claim("kerg2020.secC.linear-cost", "Kerg et al. 2020 supplement Sec. C (the method; it states no cost)",
              "Our relevancy screening stores O(T) for backward, our full attention O(T²)", "illustration",
              r["cost_exponents"]["relrnn"]["memory"], None,
              "illustration of our code: exponent of the bytes saved for backward below 1.2 for RelRNN, above "
              "1.5 for full attention (the supplement makes no cost claim to reproduce)",
              illustration(r["cost_exponents"]["relrnn"]["memory"] < 1.2
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


def _decide_recall(accuracy: float, symbols: int) -> tuple[str, list[float]]:
    """Recall of at least :data:`TARGET` decided from the Wilson 95% interval over ``symbols``.

    Reproduced when the interval lies above :data:`TARGET`, not reproduced when it lies
    below, else inconclusive; the interval is returned with the verdict.
    """
    ci = binomial_ci(accuracy * symbols, symbols)
    return decide(ci, TARGET), ci


def _recall_power(symbols: int) -> str:
    """The power of :func:`_decide_recall` over ``symbols``, in words (exact binomial)."""
    return (f"{symbols:,} symbols: power {wilson_power(H1_RECALL, symbols, TARGET):.2f} against a recall of "
            f"{H1_RECALL:.1%} ({wilson_power(NEAR_RECALL, symbols, TARGET):.2f} against {NEAR_RECALL:.1%}), size "
            f"{wilson_power(TARGET, symbols, TARGET):.3f} at {TARGET:.0%} (exact binomial)")


def _recall_design(model: str, symbols: int, unit: str) -> Design:
    """The design of a recall claim decided by :func:`_decide_recall`."""
    return Design(h1=f"{model} recalls at least {TARGET:.0%} of the held-out symbols (the paper: 100%)",
                  h0=f"its recall is below {TARGET:.0%} (boundary: exactly {TARGET:.0%})",
                  test=f"Wilson 95% interval of the recall over {symbols:,} held-out symbols wholly above "
                       f"{TARGET:.0%}: reproduced; wholly below: not reproduced",
                  unit=unit + "; the claim is that a model trained this way recalls, one model, not a rate over "
                              "seeds; the symbols are taken as independent",
                  power=_recall_power(symbols))


def _more_symbols(accuracy: float, symbols: int) -> str:
    """What decides a recall whose interval straddles :data:`TARGET`: a larger held-out batch."""
    lo, hi = binomial_ci(accuracy * symbols, symbols)
    need = needed_for_interval(symbols, (hi - lo) / 2, accuracy - TARGET)
    return would_decide(f"≈ {need:,} held-out symbols (the interval's half-width falls as 1/√n), "
                        f"{symbols:,} here")


def _task_claims(r: dict[str, Any]) -> list[Claim]:
    """Table 5 (Copy, with the LSTM column) and the Denoise run."""
    out = [_copy_short(r), _copy_transfer(r)]
    if r["long_run"]["steps"]:
        out.append(_copy_curriculum(r))
    return [*out, _lstm_baseline(r), _denoise_claim(r)]


def _base_scale(r: dict[str, Any]) -> str:
    """The Copy runs' profile and recipe, which every Table 5 row's scale opens with."""
    run = r["copy_run"]
    return f"{profile_of(r)}: Adam lr {run['lr']:g}, batch {run['batch']}"


def _copy_short(r: dict[str, Any]) -> Claim:
    """RelRNN learning Copy at ``copy_length``: the start of the length transfer, no Table 5 length."""
    run, short = r["copy_run"], r["copy_run"]["length"]
    fresh = run.get("fresh")  # absent from results recorded before the fresh batch
    stopped = f"{run['accuracy']:.1%} on the batch it stopped on, after {run['updates']} updates"
    if fresh is not None:
        passed = _decide_recall(fresh["accuracy"], fresh["sequences"] * N_RECALL)[0] == "reproduced"
        value, detail = fresh["accuracy"], f"{fresh['accuracy']:.1%} on the fresh batch; {stopped}"
        check = (f"its recall on {fresh['sequences']} fresh held-out sequences, which the stopping rule never saw, "
                 f"has its Wilson 95% interval above {TARGET:.0%}")
    else:
        passed, value, detail = run["steps_to_99"] is not None, run["accuracy"], stopped
        check = (f"the run stopped at {TARGET:.0%} (recorded before the fresh batch: the batch it stopped on reaches "
                 f"{TARGET:.0%} whenever the run stops, so this can only pass)")
    return Claim("kerg2020.table5.copy-short",
                 f"Kerg et al. 2020 supplement Table 5 (its lengths start at T = {min(PAPER_LSTM_SOLVED)}: "
                 f"T = {short} is the start of our length transfer, not a Table 5 row)",
                 f"RelRNN learns Copy at T = {short}", "illustration", value, None,
                 f"illustration, not a Table 5 row (T = {short} is none of its lengths): passed when {check}",
                 illustration(passed), f"T = {short}; Adam lr {run['lr']:g} instead of Table 6's 2e-4",
                 _base_scale(r) + f", at most {run['max_steps']} updates (stops at {TARGET:.0%})", detail)


def _copy_transfer(r: dict[str, Any]) -> Claim:
    """Table 5 at ``long_length`` by length transfer, tested on fresh sequences there."""
    s, run, long = r["settings"], r["copy_run"], r["long_run"]
    short, T_long = run["length"], long["length"]
    symbols = s["transfer_batch"] * N_RECALL
    verdict, ci = _decide_recall(long["zero_shot"], symbols)
    scale = (_base_scale(r) + f", trained at T = {short} for {run['updates']} updates, tested on "
             f"{s['transfer_batch']} sequences at T = {T_long}")
    if verdict == "not reproduced" and run["steps_to_99"] is None:
        # a model that never learned Copy where it trained says nothing of its recall at a longer delay
        verdict = "inconclusive"
        scale += (f"; it reached {run['accuracy']:.1%} at T = {short} within its {run['max_steps']} updates: "
                  + would_decide(f"a RelRNN that learns Copy at T = {short} (more than {run['max_steps']} updates), "
                                 f"then tested at T = {T_long} as here"))
    elif verdict == "inconclusive":
        scale += "; " + _more_symbols(long["zero_shot"], symbols)
    baselines = "; ".join(f"{k} trained at T = {short}: {v['accuracy']:.1%}" for k, v in r["transfer_training"].items()
                          if k != "relrnn")
    contrast = (f"; the LSTM baseline does not learn Copy even at T = {short}, so Table 5's contrast with it is "
                "absent" if r["transfer_training"].get("lstm", {}).get("steps_to_99", 0) is None else "")
    unit = (f"held-out symbols of one trained RelRNN: {s['transfer_batch']} sequences × {N_RECALL} at T = {T_long}, "
            f"drawn under the transfer test's own seed (the run stopped on another batch, at T = {short})")
    return Claim("kerg2020.table5.copy-long-transfer", "Kerg et al. 2020 supplement Table 5",
                 f"Copy task: RelRNN recalls ≥ 99% at T = {T_long} (trained at T = {short}, zero-shot)",
                 "statistical", long["zero_shot"], ci,
                 f"Wilson 95% interval of the recall at T = {T_long} over {symbols:,} fresh held-out symbols above "
                 f"{TARGET:.0%}; below: not reproduced", verdict, TRANSFER.format(short=short, long=T_long), scale,
                 f"{long['zero_shot']:.1%} at T = {T_long}" + (f"; {baselines}" if baselines else "") + contrast,
                 design=_recall_design(f"RelRNN trained on Copy at T = {short} and tested at T = {T_long}", symbols,
                                       unit))


def _copy_curriculum(r: dict[str, Any]) -> Claim:
    """The model trained at ``copy_length`` trained on at ``long_length``: a stable point, not Table 5's protocol."""
    s, run, long = r["settings"], r["copy_run"], r["long_run"]
    short, T_long = run["length"], long["length"]
    symbols = s["eval_batch"] * N_RECALL
    passed = _decide_recall(long["accuracy"], symbols)[0] == "reproduced"
    hours = PAPER_UPDATES * long["seconds_per_update"] / 3600
    return Claim("kerg2020.table5.copy-long-trained",
                 f"Kerg et al. 2020 supplement Table 5 (its T = {T_long} entry by our curriculum, not its protocol)",
                 f"The Copy solution learnt at T = {short} stays a solution when trained at T = {T_long}",
                 "illustration", long["accuracy"], None,
                 f"illustration, not a Table 5 row: the model already recalls {long['zero_shot']:.1%} at "
                 f"T = {T_long} before these updates, so the check cannot fail for want of learning; passed when "
                 f"the recall after {long['steps']} updates there has its Wilson 95% interval over {symbols:,} "
                 f"held-out symbols above {TARGET:.0%}. Table 5 trains at each T from scratch, which no profile does",
                 illustration(passed),
                 f"curriculum: {long['steps']} updates at T = {T_long} (lr {long['lr']:g}) from the model trained at "
                 f"T = {short}, not from scratch",
                 _base_scale(r) + f", {long['steps']} updates at T = {T_long}; Table 5's protocol, RelRNN from scratch "
                 f"at T = {T_long} for up to {PAPER_UPDATES:,} updates, is ≈ {hours:.1f} h of one core at "
                 f"{long['seconds_per_update']:.3f} s per update",
                 f"{long['accuracy']:.1%} after {long['steps']} updates at T = {T_long} (zero-shot: "
                 f"{long['zero_shot']:.1%})")


def _decide_lstm_column(transfer: dict[int, float], symbols: int) -> str:
    """Table 5's LSTM column: recall above :data:`TARGET` at every tested ``T`` ≤ 300 and below
    :data:`LSTM_CHANCE_CEILING` at every tested ``T`` ≥ 500 (Wilson 95% intervals, all parts).

    Lengths between the two groups are not read; with no length in either group, inconclusive.
    """
    cis = {t: binomial_ci(acc * symbols, symbols) for t, acc in transfer.items()}
    solved = [decide(ci, TARGET) for t, ci in cis.items() if t <= max(PAPER_LSTM_SOLVED)]
    chance = [decide(ci, LSTM_CHANCE_CEILING, claim_above=False) for t, ci in cis.items()
              if t >= min(PAPER_LSTM_CHANCE)]
    return combine(solved + chance) if solved and chance else "inconclusive"


def _lstm_power(lengths: list[int], symbols: int) -> float:
    """Power of :func:`_decide_lstm_column` against :data:`H1_RECALL` where solved and chance beyond."""
    solved = sum(t <= max(PAPER_LSTM_SOLVED) for t in lengths)
    at_chance = sum(t >= min(PAPER_LSTM_CHANCE) for t in lengths)
    # the interval is symmetric under p -> 1 - p: below the ceiling is above 1 - ceiling for the errors
    return (wilson_power(H1_RECALL, symbols, TARGET) ** solved
            * wilson_power(1 - CHANCE, symbols, 1 - LSTM_CHANCE_CEILING) ** at_chance)


def _lstm_baseline(r: dict[str, Any]) -> Claim:
    """Table 5's LSTM column: Copy solved up to T = 300, chance (12%) from T = 500 on."""
    s, run = r["settings"], r["copy_run"]
    short = run["length"]
    symbols = s["transfer_batch"] * N_RECALL
    claim = ("kerg2020.table5.lstm-baseline", "Kerg et al. 2020 supplement Table 5 (LSTM column), Table 6",
             f"The LSTM solves Copy up to T = {max(PAPER_LSTM_SOLVED)} (100%) and falls to chance (12%) from "
             f"T = {min(PAPER_LSTM_CHANCE)} on", "statistical")
    rule = (f"Wilson 95% intervals over {symbols:,} held-out symbols of the LSTM's recall at each tested T: above "
            f"{TARGET:.0%} at every T ≤ {max(PAPER_LSTM_SOLVED)} and below {LSTM_CHANCE_CEILING:.0%} (chance is "
            f"{CHANCE:.1%}) at every T ≥ {min(PAPER_LSTM_CHANCE)}; only for an LSTM that learned Copy where it trained")
    sub = (f"trained at T = {short} and tested at every T (length transfer), not trained at each T as in Table 5; "
           f"Adam lr {run['lr']:g} instead of Table 6's 2e-4")
    scale = f"{profile_of(r)}: LSTM trained at T = {short}, tested on {s['transfer_batch']} sequences per T"
    trained = r["transfer_training"].get("lstm")
    transfer = {int(t): acc for t, acc in r["transfer"].get("lstm", {}).items()}
    detail = "; ".join(f"T = {t}: {acc:.1%}" for t, acc in sorted(transfer.items()))
    lengths = sorted(transfer) or [int(t) for t in r["transfer"]["relrnn"]]
    design = Design(
        h1=f"an LSTM that learned Copy recalls ≥ {TARGET:.0%} at every tested T ≤ {max(PAPER_LSTM_SOLVED)} and "
           f"≤ {LSTM_CHANCE_CEILING:.0%} at every tested T ≥ {min(PAPER_LSTM_CHANCE)} (Table 5: 100% and 12%)",
        h0=f"the column fails at some T: recall exactly {TARGET:.0%} at a T ≤ {max(PAPER_LSTM_SOLVED)} or exactly "
           f"{LSTM_CHANCE_CEILING:.0%} at a T ≥ {min(PAPER_LSTM_CHANCE)} (the boundary), the others as h1",
        test="a Wilson 95% interval at each tested T on the claimed side of its threshold (an intersection-union "
             "test: every part reproduced); any part on the other side: not reproduced",
        unit=f"held-out symbols of one trained LSTM ({s['transfer_batch']} sequences × {N_RECALL} per T, taken as "
             "independent)",
        power=f"{symbols:,} symbols at each of T = {lengths}: power {_lstm_power(lengths, symbols):.2f} against "
              f"{H1_RECALL:.1%} where solved and {CHANCE:.1%} beyond (exact binomial)")
    if trained is None or not transfer:
        return Claim(*claim, None, None, rule, "inconclusive", sub,
                     scale + "; " + would_decide("the LSTM among the transfer_kinds (the reference profile's)"),
                     "no LSTM in this run", design=design)
    if trained["steps_to_99"] is None:
        minutes = PAPER_UPDATES * run["seconds_per_update"] / 60
        return Claim(*claim, None, None, rule, "inconclusive", sub,
                     scale + f"; the LSTM reached {trained['accuracy']:.1%} at T = {short} after "
                     f"{trained['updates']:,} updates: it never learned Copy, so its recall at longer T says nothing "
                     "of length; " + would_decide(
                         f"an LSTM trained to {TARGET:.0%} at T = {short} (Table 6: Adam 2e-4, up to the authors' "
                         f"{PAPER_UPDATES:,} updates, ≈ {minutes:.0f} min of one core at RelRNN's "
                         f"{run['seconds_per_update'] * 1e3:.1f} ms per update there), then tested as here"),
                     detail, design=design)
    verdict = _decide_lstm_column(transfer, symbols)
    if verdict == "inconclusive":
        scale += "; " + would_decide(f"a larger held-out batch at the undecided lengths ({symbols:,} symbols here)")
    return Claim(*claim, None, None, rule, verdict, sub, scale, detail, design=design)


def _denoise_claim(r: dict[str, Any]) -> Claim:
    """Denoise at the largest grid length, on the run with the authors' recipe where recorded."""
    s, run = r["settings"], r["copy_run"]
    T_top = max(r["task_lengths"])
    statement = f"Denoise task: RelRNN reaches 100% (we ask ≥ 99%) at T = {T_top}"
    # Table 5 is the Copy task's; Denoise is Fig. 4 (its curves) with hyper-parameters in Table 7
    source = "Kerg et al. 2020 supplement Fig. 4 (Denoise), Table 7"
    accs = r["task_accuracy"]
    grid = "; ".join(f"{k.split('/')[2]} {v:.1%}" for k, v in accs.items() if k.startswith(f"denoise/{T_top}/"))

    def rule(symbols: int, where: str) -> str:
        return (f"Wilson 95% interval of the held-out recall ({symbols:,} symbols, {where}) above {TARGET:.0%}; "
                f"below, after the authors' {PAPER_UPDATES:,} updates: not reproduced")

    long_run = r.get("denoise_long")  # absent from results recorded before the run with the authors' recipe
    if long_run is None:
        # the grid's runs make a fixed number of updates and are scored once after the last: nothing stops on the batch
        replicates = s.get("task_replicates", 1)
        symbols = s["eval_batch"] * N_RECALL * replicates
        acc = accs[f"denoise/{T_top}/relrnn"]
        verdict, ci = _decide_recall(acc, symbols)
        scale = (_base_scale(r) + f", {r['train_steps']} updates at T ∈ {r['task_lengths']}"
                 + (f", {replicates} runs pooled" if replicates > 1 else ""))
        if verdict == "not reproduced" and r["train_steps"] < PAPER_UPDATES:
            verdict = "inconclusive"
            scale += (f"; {r['train_steps']} updates from scratch, below the authors' {PAPER_UPDATES:,}: a failure "
                      "there is no evidence; " + would_decide(
                          f"RelRNN trained from scratch with the authors' recipe for up to {PAPER_UPDATES:,} updates "
                          "(the reference profile's Denoise run, which left the plateau within 10,000)"))
        elif verdict == "inconclusive":
            scale += "; " + _more_symbols(acc, symbols)
        return Claim(
            "kerg2020.table5.denoise", source, statement, "statistical", acc, ci,
            rule(symbols, "the grid's runs pooled"), verdict,
            f"Adam lr {run['lr']:g}, tanh instead of Table 7's optimiser, rate and non-linearity", scale, grid,
            design=_recall_design(f"RelRNN trained on Denoise at T = {T_top}", symbols,
                                  f"held-out symbols of the grid's RelRNN runs ({s['eval_batch']} sequences × "
                                  f"{N_RECALL} each, {replicates} run(s), scored after a fixed number of updates)"))
    updates, fresh = long_run["updates"], long_run.get("fresh")  # fresh: absent before the fresh batch
    reached = long_run["steps_to_99"]
    scale = (f"{profile_of(r)}: RelRNN alone from scratch at T = {long_run['length']}, width {long_run['hidden']}, "
             f"Adam lr {long_run['lr']:g}, batch {run['batch']}, at most {long_run['max_steps']:,} updates "
             f"(stops at {TARGET:.0%} on its held-out batch)")
    detail = (f"{long_run['accuracy']:.1%} on the batch it stopped on after {updates:,} updates"
              + (" (reached 99%)" if reached is not None else "") + f"; the grid after {r['train_steps']} updates: "
              + grid)
    sequences = fresh["sequences"] if fresh is not None else FRESH_BATCH
    design = _recall_design(
        f"RelRNN trained from scratch on Denoise at T = {long_run['length']} with the authors' recipe",
        sequences * N_RECALL, f"held-out symbols of the trained model: a fresh batch of {sequences} sequences × "
                              f"{N_RECALL} under a seed of its own, which the stopping rule never saw")
    sub = (f"Adam lr {long_run['lr']:g} and tanh (width {long_run['hidden']}) instead of Table 7's optimiser, rate and "
           "non-linearity (the authors' code: RMSprop or Adam at 2e-4 to 1e-3)")
    if fresh is None:
        minutes = updates * long_run["seconds_per_update"] / 60
        value, ci = long_run["accuracy"], binomial_ci(long_run["accuracy"] * s["eval_batch"] * N_RECALL,
                                                      s["eval_batch"] * N_RECALL)
        scale += (f"; recorded before the fresh batch: its {s['eval_batch'] * N_RECALL:,} symbols are those of the "
                  "batch the run stopped on, which chose the reported update (the first evaluation to reach 99%), so "
                  "their interval is no test; " + would_decide(
                      f"the run's recall on a fresh batch of {FRESH_BATCH} sequences, which the chapter now records: "
                      f"the section copy-denoise recorded again, this run ≈ {minutes:.0f} min of one core "
                      f"({updates:,} updates at {long_run['seconds_per_update']:.4f} s)"))
        return Claim("kerg2020.table5.denoise", source, statement, "statistical", value, ci,
                     rule(sequences * N_RECALL, "a fresh batch no stopping rule saw"),
                     "inconclusive", sub, scale, detail, design=design)
    symbols = sequences * N_RECALL
    verdict, ci = _decide_recall(fresh["accuracy"], symbols)
    detail = f"{fresh['accuracy']:.1%} on the fresh batch; " + detail
    if verdict == "not reproduced" and reached is not None:
        verdict = "inconclusive"
        scale += ("; the batch it stopped on reached 99% where the fresh one did not: it stopped too early; "
                  + would_decide(f"the run trained on towards the authors' {PAPER_UPDATES:,} updates (it stopped at "
                                 f"{updates:,})"))
    elif verdict == "not reproduced" and long_run["max_steps"] < PAPER_UPDATES:
        verdict = "inconclusive"
        scale += (f"; {updates:,} updates, below the authors' budget of {PAPER_UPDATES:,}: a failure below it is no "
                  "evidence; " + would_decide(f"the authors' budget of {PAPER_UPDATES:,} updates"))
    elif verdict == "inconclusive":
        scale += "; " + _more_symbols(fresh["accuracy"], symbols)
    return Claim("kerg2020.table5.denoise", source, statement, "statistical", fresh["accuracy"], ci,
                 rule(symbols, "a fresh batch no stopping rule saw"), verdict, sub, scale,
                 detail, design=design)


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


def _past_plateau(recall: dict[str, Any] | None, n: int) -> dict[str, NDArray[np.bool_]]:
    """Per seed, whether every model a Fig. 3 contrast reads has left the Denoise plateau.

    ``rho3_margin`` reads the four models of the rho sweep, ``range_gap`` all eight. A
    model whose held-out recall is below :data:`PLATEAU_EXIT` has not been trained past the
    plateau, and its gradient says little about the trained model's: the seed does not
    enter that contrast. Without recorded recall (``None``) no seed enters.
    """
    if recall is None:
        return {"rho3_margin": np.zeros(n, bool), "range_gap": np.zeros(n, bool)}
    past = {k: np.atleast_1d(np.asarray(v, dtype=float)) >= PLATEAU_EXIT for k, v in recall.items()}
    rho = np.stack([past[f"nu=15,rho={x}"] for x in SWEPT]).all(axis=0)
    nu = np.stack([past[f"nu={x},rho=15"] for x in SWEPT]).all(axis=0)
    return {"rho3_margin": rho, "range_gap": rho & nu}


def _decide_fig3(margins: NDArray[np.float64], gaps: NDArray[np.float64]) -> str:
    """Fig. 3 from the contrasts of the seeds past the plateau: both Student-t 95% intervals
    above 0, reproduced; either below, not reproduced; fewer than :data:`MIN_SEEDS` seeds in
    a contrast, or an interval across 0, inconclusive."""
    if min(len(margins), len(gaps)) < MIN_SEEDS:
        return "inconclusive"
    return combine([decide(mean_ci(margins), 0.0), decide(mean_ci(gaps), 0.0)])


def _fig3_power(sds: tuple[float, float], n: int) -> float:
    """Power of :func:`_decide_fig3` at ``n`` seeds against both contrasts at :data:`FIG3_EFFECT`
    (the two tests taken as independent)."""
    return t_power(FIG3_EFFECT, [sds[0]], n) * t_power(FIG3_EFFECT, [sds[1]], n)


def _first_n(power: Callable[[int], float], limit: int = 10_000) -> int | None:
    """The smallest count from 2 whose ``power(n)`` reaches :data:`TARGET_POWER`, None up to ``limit``."""
    return next((n for n in range(2, limit + 1) if power(n) >= TARGET_POWER), None)


def _fig3_design(sds: tuple[float, float] | None, n: int, entered: int) -> Design:
    power = "one seed per setting: no spread between seeds measured, no power stated"
    if sds is not None and min(sds) > 0:
        n80 = _first_n(lambda m: _fig3_power(sds, m))
        power = (f"{n} seeds per setting past the plateau: power {_fig3_power(sds, n):.2f} against both contrasts at "
                 f"+{FIG3_EFFECT} decades with the recorded spreads (sd {sds[0]:.2f} and {sds[1]:.2f} decades over "
                 f"all {n} seeds); {n80 or 'no affordable count of'} seeds give {TARGET_POWER:.2f}")
    return Design(
        h1="ρ = 3's gradient decays over the input more than every larger ρ's (margin > 0) and ρ moves the decay "
           "more than ν does (range gap > 0)",
        h0="ρ = 3 decays no more than the largest other ρ (margin ≤ 0) or ν moves it at least as much as ρ "
           "(gap ≤ 0); boundary: one contrast's mean exactly 0, the other far above",
        test="per seed, the two contrasts of the decays of its models past the plateau; a Student-t 95% interval of "
             "each contrast's mean over seeds: both above 0, reproduced; either below, not reproduced; fewer than "
             f"{MIN_SEEDS} seeds in a contrast, inconclusive",
        unit=f"independently trained seeds (the 8 settings of a seed share its batches, so the contrasts pair them): "
             f"{n} per setting recorded, {entered} entering both contrasts",
        power=power)


def _fig3_claim(r: dict[str, Any]) -> Claim:
    """Fig. 3 decided by Student-t intervals over seeds of two contrasts of gradient decays."""
    run = _fig3_run(r)
    decays = gradient_decays(r["gradient_profiles"], run["length"])
    contrasts = fig3_contrasts(decays)
    n = len(contrasts["rho3_margin"])
    # absent from results recorded before the sweep kept each model's recall
    recall = {k: np.atleast_1d(np.asarray(v, dtype=float)) for k, v in r["gradient_accuracy"].items()} \
        if "gradient_accuracy" in r else None
    past = _past_plateau(recall, n)
    entered = {k: v[past[k]] for k, v in contrasts.items()}
    verdict = _decide_fig3(entered["rho3_margin"], entered["range_gap"])
    sds = (float(contrasts["rho3_margin"].std(ddof=1)), float(contrasts["range_gap"].std(ddof=1))) if n > 1 else None
    batches = run["held_out_batches"]
    seeds = seed_range(run["first_seed"], n)
    scale = (f"{profile_of(r)}: {run['steps']:,} updates per setting, {seeds}, T = {run['length']}, each profile "
             f"averaged over {batches} held-out batch{'es' if batches > 1 else ''} of {run['held_out_sequences']} "
             "sequences")
    few = min(v.size for v in entered.values()) < MIN_SEEDS
    if n < 2:
        scale += "; " + would_decide(f"≥ {MIN_SEEDS} seeds per (ρ, ν) past the Denoise plateau: one seed measures "
                                     "no spread between seeds")
    elif verdict == "inconclusive":
        need = [seeds_to_decide(v) for v in contrasts.values()]
        if None in need:
            seeds_text = "more seeds than any affordable count (a contrast's recorded mean is too close to 0)"
        else:
            hours = 8 * max(need) * run["steps"] * PROFILE_SECONDS_PER_UPDATE / 3600
            seeds_text = (f"≈ {max(need)} seeds per setting at the means and spreads of all {n} recorded seeds "
                          f"({8 * max(need)} models of ≥ {run['steps']:,} updates, ≈ {hours:.0f} core-hours at "
                          f"{PROFILE_SECONDS_PER_UPDATE} s per update)")
        if recall is None:
            scale += "; " + would_decide("the sweep rerun with each model's held-out recall (section fig3), then "
                                         + seeds_text)
        elif few:
            rho3_past = int((recall["nu=15,rho=3"] >= PLATEAU_EXIT).sum())
            scale += (f"; {entered['rho3_margin'].size} and {entered['range_gap'].size} of {n} seeds have every model "
                      f"of a contrast past the plateau (recall ≥ {PLATEAU_EXIT:.0%}), fewer than {MIN_SEEDS}; "
                      + would_decide(f"ρ = 3 models trained past the Denoise plateau (after {run['steps']:,} updates "
                                     f"{rho3_past} of {n} were), then " + seeds_text))
        else:
            scale += "; " + would_decide(seeds_text)
    mean_decay = {k: float(v.mean()) for k, v in decays.items()}
    by_rho = "/".join(f"{mean_decay[f'nu=15,rho={x}']:+.2f}" for x in SWEPT)
    by_nu = "/".join(f"{mean_decay[f'nu={x},rho=15']:+.2f}" for x in SWEPT)
    margin = entered["rho3_margin"]
    every = {k: (float(v.mean()), mean_ci(v)) for k, v in contrasts.items()}
    labels = {"rho3_margin": "ρ = 3's margin", "range_gap": "range gap"}
    shown = [f"{labels[k]} {m:+.2f}" + (f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if n >= 2 else "")
             for k, (m, ci) in every.items()]
    detail = (f"mean decay in decades, ρ = 3/8/18/25: {by_rho}; ν = 3/8/18/25: {by_nu}; over all {n} seeds, plateau "
              "ones included: " + ", ".join(shown))
    if recall is not None:
        detail += (f"; held-out recall median {np.median(np.concatenate(list(recall.values()))):.1%} "
                   f"(ρ = 3: {np.median(recall['nu=15,rho=3']):.1%}, {recall['nu=15,rho=3'].min():.0%} to "
                   f"{recall['nu=15,rho=3'].max():.0%})")
    else:
        detail += "; recall not recorded"
    return Claim(
        "kerg2020.fig3.rho-destabilises", "Kerg et al. 2020 supplement Fig. 3",
        "Small ρ destabilises gradient propagation; ν has less leverage than ρ", "statistical",
        float(margin.mean()) if margin.size else None, mean_ci(margin) if margin.size >= 2 else None,
        f"per seed ({seeds}; the 8 settings of a seed share its training batches): the decay of "
        "log10 ‖∇_{h_t}L‖ over the input (the fall of its least-squares line against the distance, on each "
        "model's profile averaged over its held-out batches) of ρ = 3 minus the largest other ρ's, and the range "
        "of the decays over ρ minus that over ν; a seed enters a contrast only when each model it reads is past the "
        f"Denoise plateau (held-out recall ≥ {PLATEAU_EXIT:.0%}); with ≥ {MIN_SEEDS} seeds in each, both Student-t "
        "95% intervals above 0: reproduced, either below: not reproduced. The value is ρ = 3's mean margin over "
        "the seeds that enter",
        verdict, f"RelRNN (the authors' RNN variant) on Denoise at T = {run['length']}, not MemLSTM at T = 1000",
        scale, detail, design=_fig3_design(sds, n, int(past["range_gap"].sum())))


def _decide_table4(groups: tuple[NDArray[np.float64], ...], threshold: float) -> tuple[str, list[float]]:
    """A Table 4 comparison over seeds, with its 95% interval.

    One group: its mean reward (Student-t interval); two: the difference of their means
    (Welch's interval). Reproduced when the interval lies above ``threshold``, not
    reproduced when below, inconclusive otherwise or with fewer than :data:`MIN_SEEDS`
    seeds in a group.
    """
    lo, hi = mean_ci(groups[0]) if len(groups) == 1 else mean_diff_ci(*groups)
    ci = [float(lo), float(hi)]
    if min(len(g) for g in groups) < MIN_SEEDS:
        return "inconclusive", ci
    return decide(ci, threshold), ci


# Table 4's memory rows: the claim, whether it reads the training environment (MemoryS7) or the
# last tested one (MemoryS13), whether it compares with the baseline, and the paper's effect
# (RelLSTM's reward above the memoryless one, or above MemLSTM's)
TABLE4 = (
    ("kerg2020.table4.memory-solved", "RelLSTM trained on MemoryS7 earns a reward that needs memory of the start room "
     f"(paper: {PAPER_MEMORY['MiniGrid-MemoryS7-v0']['relevancy']:.2f})", "train", False,
     PAPER_MEMORY["MiniGrid-MemoryS7-v0"]["relevancy"] - MEMORYLESS_REWARD),
    ("kerg2020.table4.memory-train", "On MemoryS7, RelLSTM's reward is above the baseline's (paper: "
     f"{PAPER_MEMORY['MiniGrid-MemoryS7-v0']['relevancy']:.2f} vs MemLSTM "
     f"{PAPER_MEMORY['MiniGrid-MemoryS7-v0']['full']:.2f})", "train", True,
     PAPER_MEMORY["MiniGrid-MemoryS7-v0"]["relevancy"] - PAPER_MEMORY["MiniGrid-MemoryS7-v0"]["full"]),
    ("kerg2020.table4.memory-transfer", "Trained on MemoryS7 and tested on MemoryS13, RelLSTM's reward is above the "
     f"baseline's (paper: {PAPER_MEMORY['MiniGrid-MemoryS13-v0']['relevancy']:.2f} vs MemLSTM "
     f"{PAPER_MEMORY['MiniGrid-MemoryS13-v0']['full']:.2f})", "test", True,
     PAPER_MEMORY["MiniGrid-MemoryS13-v0"]["relevancy"] - PAPER_MEMORY["MiniGrid-MemoryS13-v0"]["full"]),
)


def _table4_groups(mg: dict[str, Any], env: str, paired: bool) -> tuple[NDArray[np.float64], ...]:
    """RelLSTM's rewards on ``env``, one per seed, and the baseline's when ``paired``."""
    base = "full" if "full" in mg["kinds"] else "lstm"
    rel = minigrid_rewards(mg, "relevancy", env)
    return (rel, minigrid_rewards(mg, base, env)) if paired else (rel,)


def _table4_design(effect: float, paired: bool, groups: tuple[NDArray[np.float64], ...] | None) -> Design:
    threshold = 0.0 if paired else MEMORYLESS_REWARD
    what = "RelLSTM's mean reward minus the baseline's" if paired else "RelLSTM's mean reward"
    sds = [float(g.std(ddof=1)) for g in groups] if groups and min(len(g) for g in groups) > 1 else None
    if sds and min(sds) > 0:
        n = min(len(g) for g in groups)
        n80 = _first_n(lambda m: t_power(effect, sds, m))
        power = (f"{n} seeds per kind: power {t_power(effect, sds, n):.2f} against the paper's {effect:+.2f} at the "
                 f"recorded spreads (sd {', '.join(f'{x:.3f}' for x in sds)}); the decisive run's "
                 f"{DECISIVE_MINIGRID_SEEDS}: {t_power(effect, sds, DECISIVE_MINIGRID_SEEDS):.2f}; "
                 f"{n80 or 'no affordable count of'} seeds give {TARGET_POWER:.2f}")
    else:
        power = (f"no spread between seeds recorded here: the decisive run trains {DECISIVE_MINIGRID_SEEDS} seeds per "
                 "kind")
    return Design(
        h1=f"{what} above {threshold:g} (the paper's {effect:+.2f} above it)",
        h0=(f"{what} at most {threshold:g}" + (" (no better than the baseline)" if paired else
                                               " (what an agent without memory of the start room earns)")
            + f"; boundary: exactly {threshold:g}"),
        test=(("Welch" if paired else "Student-t") + f" 95% interval over seeds wholly above {threshold:g}: "
              f"reproduced; wholly below, after the authors' {PAPER_ENV_STEPS:,} environment steps: not reproduced"),
        unit="independently trained agents (seeds), each tested on fresh layouts; seeds of two kinds are not paired",
        power=power)


def _table4_claims(r: dict[str, Any]) -> list[Claim]:
    """Table 4's Memory rows: RelLSTM uses memory, and beats the baseline in training and after transfer."""
    source = "Kerg et al. 2020 supplement Table 4"
    mg = r.get("minigrid")  # absent from results recorded before the MiniGrid sweep
    if mg is None:
        return [Claim(cid, source, statement, "statistical", None, None, "mean reward over seeds", "inconclusive", "",
                      f"{profile_of(r)}: not run in this recording; " + would_decide(
                          f"the MiniGrid sweep (section table4): {DECISIVE_MINIGRID_SEEDS} seeds per kind, as the "
                          "reference profile trains them"), "no MiniGrid run",
                      design=_table4_design(effect, paired, None))
                for cid, statement, _, paired, effect in TABLE4]
    n, seeds = mg["replicates"], minigrid_seeds(mg)
    base = "full" if "full" in mg["kinds"] else "lstm"
    steps = int(np.mean([mg["runs"][f"relevancy/{i}"]["env_steps"][-1] for i in seeds]))
    named = seed_range(seeds.start, n)
    scale = (f"{profile_of(r)}: PPO, {mg['updates']} rollouts of {mg['n_envs']} episodes (≈ {steps:,} environment "
             f"steps per RelLSTM run), {named}, {mg['eval_episodes']} test episodes per environment")
    sub = ("memory core of 64 units, ν = ρ = 5 as the authors; actions restricted to turn/forward (the Memory tasks "
           "ignore the other four); PPO written for whole episodes")
    if base == "lstm":
        sub += "; the baseline is a plain LSTM, not the paper's MemLSTM"
    train_env, test_env = mg["train_env"], mg["test_envs"][-1]
    detail = "; ".join(f"{NAMES[k]}: reward {minigrid_rewards(mg, k, train_env).mean():.2f} / "
                       f"{minigrid_rewards(mg, k, test_env).mean():.2f}, success "
                       f"{minigrid_rewards(mg, k, train_env, 'success').mean():.0%} / "
                       f"{minigrid_rewards(mg, k, test_env, 'success').mean():.0%}" for k in mg["kinds"])
    detail += f" (on {train_env.split('-')[1]} / {test_env.split('-')[1]}, means over seeds)"
    # the pilot was recorded before the sweep's seeds were fixed ahead of its run
    pilot = "first_seed" not in mg
    core_hours = DECISIVE_MINIGRID_SEEDS * np.mean([sum(mg["runs"][f"{k}/{i}"].get("busy_s", 0.0) for k in mg["kinds"])
                                                    for i in seeds]) / 3600
    out = []
    for cid, statement, where, paired, effect in TABLE4:
        env = train_env if where == "train" else test_env
        groups = _table4_groups(mg, env, paired)
        threshold = 0.0 if paired else MEMORYLESS_REWARD
        verdict, ci = _decide_table4(groups, threshold)
        value = float(groups[0].mean() - (groups[1].mean() if paired else 0.0))
        rule = ((f"Welch 95% interval over {named} of RelLSTM's minus {NAMES[base]}'s mean reward on {env} above 0"
                 if paired else f"Student-t 95% interval over {named} of RelLSTM's mean reward on {env} above "
                 f"{MEMORYLESS_REWARD} (the best an agent without memory of the start room can do)")
                + f"; with ≥ {MIN_SEEDS} seeds per kind")
        need = seeds_to_decide(*groups, threshold=threshold) if n > 1 else None
        count = f"≈ {need} seeds per kind at these means and spreads" if need else \
            "more seeds than any affordable count at these means and spreads"
        if pilot:
            alone = verdict + (f", {count}" if verdict == "inconclusive" else "")
            note = (f"; these {n} seeds are the pilot: its seed count was raised after an interval was seen, so it "
                    f"cannot decide (by its interval alone: {alone}); " + would_decide(
                        f"the decisive run the reference profile configures: {DECISIVE_MINIGRID_SEEDS} fresh seeds per "
                        f"kind, none of the pilot's (≈ {core_hours:.0f} core-hours at the pilot's training time per "
                        "seed)"))
            verdict = "inconclusive"
        elif n < MIN_SEEDS:
            note = (f"; {n} seed(s) per kind, fewer than {MIN_SEEDS}; " + would_decide(
                f"≥ {MIN_SEEDS} seeds per kind (the reference profile trains {DECISIVE_MINIGRID_SEEDS})"))
        elif verdict == "not reproduced" and steps < PAPER_ENV_STEPS:
            verdict = "inconclusive"
            note = (f"; below the authors' {PAPER_ENV_STEPS:,} environment steps a failure is no evidence; "
                    + would_decide(f"agents trained for the authors' {PAPER_ENV_STEPS:,} environment steps (the full "
                                   "profile's 10,000 rollouts)"))
        elif verdict == "inconclusive":
            note = "; " + would_decide(count + (f" at this budget (the authors trained for {PAPER_ENV_STEPS:,} "
                                                "steps)" if steps < PAPER_ENV_STEPS else ""))
        else:
            note = ""
        out.append(Claim(cid, source, statement, "statistical", value, ci if n >= 2 else None, rule, verdict, sub,
                         scale + note, detail, design=_table4_design(effect, paired, groups)))
    return out


# ---------------------------------------------------------------- Table 4's DoorKey and RedBlueDoors rows

# Table 4's average rewards of the pairs the chapter trains: on the small room trained on, and on
# the large one the agents are tested on unchanged (MemLSTM "full", RelLSTM "relevancy")
PAPER_RL = {"DoorKey": {"train": {"full": 0.94, "relevancy": 0.93}, "test": {"full": 0.31, "relevancy": 0.44}},
            "RedBlueDoors": {"train": {"full": 0.97, "relevancy": 0.97}, "test": {"full": 0.95, "relevancy": 0.95}}}
# the rows: claim, pair, room read, and the test: "above" (RelLSTM's mean reward above MemLSTM's, a
# Welch interval) or "match" (within the book's margin of it, two one-sided tests)
RL_ROWS = (("kerg2020.table4.doorkey-train", "DoorKey", "train", "match"),
           ("kerg2020.table4.doorkey-transfer", "DoorKey", "test", "above"),
           ("kerg2020.table4.redbluedoors-train", "RedBlueDoors", "train", "match"),
           ("kerg2020.table4.redbluedoors-transfer", "RedBlueDoors", "test", "match"))
# the decisive transfer run's seeds per kind and pair, fixed before it runs: no pilot has been run, so
# the count is sized at an assumed spread (RL_ASSUMED_SD) for power 0.8 against DoorKey's +0.13
DECISIVE_RL_SEEDS = 11
# the standard deviation between seeds of an agent's mean reward assumed before any was measured
RL_ASSUMED_SD = 0.10
# the reference size of each pair, (rollouts, episodes per rollout), and the core-seconds of one
# seed of both kinds there, measured with one thread beside three to five other jobs on two cores
# (upper bounds). DoorKey: the first 40 rollouts of 64 episodes took 210 s (RelLSTM, 216,560 steps)
# and 1,185 s (MemLSTM); the other 260, of solved episodes of about 12 steps, at the same cost per
# step; the tests, 100 episodes per room, 40 s (RelLSTM) and 1,140 s (MemLSTM, 4 at a time, 45.5 s
# each). RedBlueDoors: 3.3 and 15.7 ms per step over its first rollouts of 16 episodes (MemLSTM's
# 16 took 5.5 GB: 64 would not fit), about 0.37 million steps of those and 0.53 million of episodes
# of about 30 steps after, at 1 and 2 ms per step, and the tests of the 8x8 room
RL_REFERENCE = {"DoorKey": (300, 64, 3100.0), "RedBlueDoors": (1200, 16, 8900.0)}
RL_UNIT = "independently trained agents (seeds), each tested on fresh layouts; seeds of two kinds are not paired"
RL_SUBSTITUTION = ("forward also picks up a key, or opens a closed door, ahead of the agent (it chooses among turn "
                   "left, turn right and forward; the paper's agents had MiniGrid's seven actions); memory core of "
                   "64 units, ν = ρ = 5 as the authors; PPO written for whole episodes")


def _room(env: str) -> str:
    """``"MiniGrid-DoorKey-5x5-v0"`` as ``"DoorKey-5x5"``."""
    return env.split("-", 1)[1].rsplit("-", 1)[0]


def _decide_match(rel: NDArray[np.float64], base: NDArray[np.float64]) -> tuple[str, list[float]]:
    """RelLSTM's mean reward within :data:`~seqmi.claims.EQUIVALENCE_MARGIN` of MemLSTM's, by two one-sided tests.

    The interval is Welch's 90% interval of the difference of the mean rewards divided by
    MemLSTM's mean reward (the relative difference). Inside ``±margin``: reproduced; wholly
    outside: not reproduced; otherwise, with fewer than :data:`MIN_SEEDS` seeds in a group,
    or with MemLSTM's mean reward not above 0 (no relative difference), inconclusive.
    """
    ref = float(np.mean(base))
    if ref <= 0:
        return "inconclusive", [-math.inf, math.inf]
    lo, hi = mean_diff_ci(rel, base, level=EQUIVALENCE_LEVEL)
    ci = [lo / ref, hi / ref]
    if min(len(rel), len(base)) < MIN_SEEDS:
        return "inconclusive", ci
    return decide_equivalence(ci), ci


def _decide_rl(test: str, rel: NDArray[np.float64], base: NDArray[np.float64]) -> tuple[str, list[float]]:
    """A transfer row's decision: :func:`_decide_match`, or RelLSTM above MemLSTM (:func:`_decide_table4`)."""
    return _decide_match(rel, base) if test == "match" else _decide_table4((rel, base), 0.0)


def _rl_power(test: str, effect: float, sds: Sequence[float], n: int, level: float) -> float:
    """Power of a transfer row at ``n`` seeds per kind, the kinds' sds ``sds``, MemLSTM at ``level``.

    ``"above"``: against the paper's ``effect`` (noncentral t); ``"match"``: against equal
    rewards (:func:`seqmi.stats.equivalence.equivalence_power`, Welch's degrees of freedom at equal
    spreads, MemLSTM's mean taken as exact).
    """
    if test == "above":
        return t_power(effect, sds, n)
    relative_se = math.sqrt(sum(s * s for s in sds) / n) / level
    return equivalence_power([relative_se], EQUIVALENCE_MARGIN, 2 * n - 2)


def _rl_design(test: str, pair: str, where: str, sds: Sequence[float] | None, n: int | None,
               level: float) -> Design:
    paper = PAPER_RL[pair][where]
    effect = paper["relevancy"] - paper["full"]
    spread = (f"the recorded spreads (sd {', '.join(f'{x:.3f}' for x in sds)})" if sds else
              f"an assumed sd of {RL_ASSUMED_SD} per kind (no spread measured yet)")
    sds = list(sds) if sds else [RL_ASSUMED_SD, RL_ASSUMED_SD]
    against = f"the paper's {effect:+.2f}" if test == "above" else "equal rewards"
    counts = sorted({DECISIVE_RL_SEEDS, *([n] if n and n >= 2 else [])})
    power = "; ".join(f"{m} seeds per kind: power {_rl_power(test, effect, sds, m, level):.2f}" for m in counts)
    power += f" against {against} at {spread}, MemLSTM's reward at {level:.2f}"
    if test == "above":
        return Design(
            h1=f"RelLSTM's mean reward above MemLSTM's (the paper's {effect:+.2f})",
            h0="RelLSTM's mean reward at most MemLSTM's (no better); boundary: equal",
            test=("Welch 95% interval over seeds of the difference of the mean rewards wholly above 0: reproduced; "
                  f"wholly below, after the authors' {PAPER_ENV_STEPS:,} environment steps: not reproduced"),
            unit=RL_UNIT, power=power)
    return Design(
        h1=f"RelLSTM's mean reward within {EQUIVALENCE_MARGIN:.0%} of MemLSTM's (the paper: {paper['relevancy']:.2f} "
           f"vs {paper['full']:.2f})",
        h0=f"they differ by at least {EQUIVALENCE_MARGIN:.0%} of MemLSTM's mean reward; boundary: exactly that",
        test=("two one-sided tests: Welch's 90% interval of the difference of the mean rewards, over MemLSTM's mean, "
              f"inside ±{EQUIVALENCE_MARGIN:.0%}: reproduced; wholly outside, after the authors' "
              f"{PAPER_ENV_STEPS:,} environment steps: not reproduced"),
        unit=RL_UNIT, power=power, margin=f"±{EQUIVALENCE_MARGIN:.0%} relative difference (the book's margin)")


def _rl_seeds_needed(test: str, rel: NDArray[np.float64], base: NDArray[np.float64], ci: list[float]) -> int | None:
    """Seeds per kind at which a transfer row's interval would decide, at these means and spreads."""
    n = min(len(rel), len(base))
    if test == "above":
        return seeds_to_decide(rel, base)
    mid, half = (ci[0] + ci[1]) / 2, (ci[1] - ci[0]) / 2
    # the interval narrows as 1/sqrt(n): inside the margin, or wholly outside it
    factor = (equivalence_scale([mid], [half], EQUIVALENCE_MARGIN) if abs(mid) < EQUIVALENCE_MARGIN else
              (half / (abs(mid) - EQUIVALENCE_MARGIN)) ** 2 if abs(mid) > EQUIVALENCE_MARGIN else None)
    return None if factor is None else max(n + 1, math.ceil(n * factor))


def _rl_hours(seeds: int, per_seed_s: float) -> str:
    """``seeds`` of both kinds at ``per_seed_s`` core-seconds each, in core-hours."""
    return (f"≈ {seeds * per_seed_s / 3600:.1f} core-hours at {per_seed_s / 60:.0f} core-minutes per seed of both "
            "kinds")


def _rl_not_run(r: dict[str, Any], pair: str, why: str) -> str:
    rollouts, episodes, per_seed = RL_REFERENCE[pair]
    return (f"{profile_of(r)}: not yet run at this scale: {why}; " + would_decide(
        f"the section table4-transfer with {pair}: {DECISIVE_RL_SEEDS} seeds of MemLSTM and of RelLSTM, "
        f"{rollouts} rollouts of {episodes} episodes each ({_rl_hours(DECISIVE_RL_SEEDS, per_seed)}, from measured "
        "step times)"))


def _rl_claims(r: dict[str, Any]) -> list[Claim]:
    """Table 4's DoorKey and RedBlueDoors rows: RelLSTM against MemLSTM on the small room and after transfer."""
    source = "Kerg et al. 2020 supplement Table 4 and App. B"
    rl = r.get("rl_transfer")  # absent from recordings made before the transfer sweep
    out = []
    for cid, pair, where, test in RL_ROWS:
        train_env, test_env = RL_PAIRS[pair]
        env = train_env if where == "train" else test_env
        paper = PAPER_RL[pair][where]
        verb = "is above" if test == "above" else "matches"
        statement = ((f"On {_room(train_env)}" if where == "train" else
                      f"Trained on {_room(train_env)} and tested on {_room(test_env)}")
                     + f", RelLSTM's reward {verb} MemLSTM's (paper: {paper['relevancy']:.2f} vs {paper['full']:.2f})")
        rule = ((f"Welch 95% interval over seeds of RelLSTM's minus MemLSTM's mean reward on {_room(env)} above 0"
                 if test == "above" else
                 f"Welch 90% interval over seeds of RelLSTM's minus MemLSTM's mean reward on {_room(env)}, over "
                 f"MemLSTM's, inside ±{EQUIVALENCE_MARGIN:.0%} (two one-sided tests)")
                + f"; with ≥ {MIN_SEEDS} seeds per kind")
        if rl is None or pair not in rl["pairs"] or not {"full", "relevancy"} <= set(rl["kinds"]):
            why = ("this recording has no transfer sweep" if rl is None else
                   f"this recording's transfer sweep has no {pair} agents" if pair not in rl["pairs"] else
                   "this recording's transfer sweep has no MemLSTM or no RelLSTM")
            out.append(Claim(cid, source, statement, "statistical", None, None, rule, "inconclusive", RL_SUBSTITUTION,
                             _rl_not_run(r, pair, why), f"no {pair} agents",
                             design=_rl_design(test, pair, where, None, None, paper["full"])))
            continue
        seeds = range(rl["first_seed"], rl["first_seed"] + rl["replicates"])
        named = seed_range(seeds.start, len(seeds))
        rel, base = (rl_rewards(rl, pair, k, env) for k in ("relevancy", "full"))
        n = len(seeds)
        verdict, ci = _decide_rl(test, rel, base)
        steps = int(np.mean([rl["runs"][f"{pair}/relevancy/{i}"]["env_steps"][-1] for i in seeds]))
        per_seed = float(np.mean([sum(rl["runs"][f"{pair}/{k}/{i}"]["busy_s"] for k in ("full", "relevancy"))
                                  for i in seeds]))
        scale = (f"{profile_of(r)}: PPO on {_room(train_env)}, {rl['updates']} rollouts of {rl['n_envs']} episodes "
                 f"(≈ {steps:,} environment steps per RelLSTM run), {named}, {rl['eval_episodes']} test episodes "
                 "per room")
        if n < MIN_SEEDS:
            rollouts, episodes, reference_s = RL_REFERENCE[pair]
            scale += f"; {n} seed(s) per kind, fewer than {MIN_SEEDS}; " + would_decide(
                f"{DECISIVE_RL_SEEDS} seeds per kind of {rollouts} rollouts of {episodes} episodes "
                f"({_rl_hours(DECISIVE_RL_SEEDS, reference_s)}, from measured step times)")
        elif verdict == "not reproduced" and steps < PAPER_ENV_STEPS:
            verdict = "inconclusive"
            scale += (f"; below the authors' {PAPER_ENV_STEPS:,} environment steps a failure is no evidence; "
                      + would_decide(f"agents trained for the authors' {PAPER_ENV_STEPS:,} environment steps"))
        elif verdict == "inconclusive":
            need = _rl_seeds_needed(test, rel, base, ci)
            scale += "; " + would_decide(
                f"≈ {need} seeds per kind at these means and spreads ({_rl_hours(need, per_seed)} as here)" if need
                else "no affordable count of seeds: the difference sits at the threshold")
        value = float(rel.mean() - base.mean()) / (float(base.mean()) if test == "match" else 1.0)
        detail = "; ".join(f"{NAMES[k]}: reward {rl_rewards(rl, pair, k, train_env).mean():.2f} / "
                           f"{rl_rewards(rl, pair, k, test_env).mean():.2f}, success "
                           f"{rl_rewards(rl, pair, k, train_env, 'success').mean():.0%} / "
                           f"{rl_rewards(rl, pair, k, test_env, 'success').mean():.0%}" for k in rl["kinds"])
        detail += f" (on {_room(train_env)} / {_room(test_env)}, means over seeds)"
        # one seed measures no spread: the design is then stated at the assumed one and the paper's level
        sds = [float(g.std(ddof=1)) for g in (rel, base)] if n > 1 else None
        level = float(base.mean()) if n > 1 else paper["full"]
        out.append(Claim(cid, source, statement, "statistical", value, ci if n >= 2 else None,
                         rule + f" ({named})", verdict, RL_SUBSTITUTION, scale, detail,
                         design=_rl_design(test, pair, where, sds, n, level)))
    return out


# ---------------------------------------------------------------- Table 5's RelLSTM column, Fig. 4 at T >= 200

# the RelLSTM and Fig. 4 runs of the reference profile: seeds, fixed before they run
DECISIVE_RECALL_SEEDS = 3
# one RelLSTM on Copy: core-seconds per update at T = 10 (it reached 99% after 800 updates) and
# for its test on 500 sequences at T = 1000 (100 and 200 sequences took 14.7 and 20.9 s), measured
# with one thread beside three to five other jobs on two cores (upper bounds)
RELLSTM_UPDATE_S, RELLSTM_TEST_S = 0.196, 40.0
# RelRNN on Denoise at T = 200, width 128: core-seconds per update, measured as above (0.105 s at
# T = 100 side by side, where the reference run recorded 0.017 s on a core of its own)
FIG4_UPDATE_S = 0.166


def _decide_recall_seeds(recalls: Sequence[float], symbols: int) -> tuple[str, list[float]]:
    """Recall of at least :data:`TARGET` by every seed, each from its Wilson 95% interval over ``symbols``.

    An intersection-union test: reproduced when at least :data:`MIN_SEEDS` seeds are given
    and every interval lies above :data:`TARGET`, not reproduced when one lies below (with at
    least :data:`MIN_SEEDS` seeds), else inconclusive. Its size is at most one interval's.
    The interval returned is the lowest seed's.
    """
    parts = [_decide_recall(a, symbols) for a in recalls]
    if not parts:
        return "inconclusive", [-math.inf, math.inf]
    lowest = min(range(len(parts)), key=lambda i: recalls[i])
    if len(parts) < MIN_SEEDS:
        return "inconclusive", parts[lowest][1]
    return combine([v for v, _ in parts]), parts[lowest][1]


def _recall_seeds_design(model: str, symbols: int, n: int, unit: str) -> Design:
    """The design of a recall claim decided over seeds by :func:`_decide_recall_seeds`.

    Its power is stated at ``n`` seeds (0 below :data:`MIN_SEEDS`, which decide nothing) and
    at the decisive run's :data:`DECISIVE_RECALL_SEEDS`.
    """
    one = wilson_power(H1_RECALL, symbols, TARGET)
    power = "; ".join(f"{m} seed{'s' if m > 1 else ''} of {symbols:,} symbols: power "
                      f"{one ** m if m >= MIN_SEEDS else 0.0:.2f}"
                      for m in sorted({n, DECISIVE_RECALL_SEEDS}))
    return Design(h1=f"every {model} recalls at least {TARGET:.0%} of its held-out symbols (the paper: 100%)",
                  h0=f"some seed's recall is below {TARGET:.0%} (boundary: one seed at exactly {TARGET:.0%}, the "
                     "others above)",
                  test=f"a Wilson 95% interval over each seed's {symbols:,} held-out symbols (an intersection-union "
                       f"test over ≥ {MIN_SEEDS} seeds): every one above {TARGET:.0%}, reproduced; one below, not "
                       "reproduced",
                  unit=unit, power=f"{power} against a recall of {H1_RECALL:.1%} by every seed, size at most "
                                   f"{wilson_power(TARGET, symbols, TARGET):.3f} (exact binomial)")


def _rellstm_claim(r: dict[str, Any]) -> Claim:
    """Table 5's RelLSTM column at a Table 5 length, by length transfer, over seeds."""
    run = r.get("rellstm_copy")  # absent from recordings made before the RelLSTM sweep
    source = "Kerg et al. 2020 supplement Table 5 (RelLSTM column)"
    T_test = run["test_length"] if run else 1000
    statement = f"Copy task: RelLSTM recalls ≥ 99% at T = {T_test} (Table 5: 100% at every T from 100 to 2000)"
    unit = "independently trained RelLSTMs (seeds), each tested on fresh sequences under a seed of its own"
    if run is None:
        symbols = FRESH_BATCH * N_RECALL
        hours = DECISIVE_RECALL_SEEDS * (5000 * RELLSTM_UPDATE_S + RELLSTM_TEST_S) / 3600
        return Claim("kerg2020.table5.rellstm-transfer", source, statement, "statistical", None, None,
                     f"per seed, the Wilson 95% interval of the recall at T = {T_test} over {symbols:,} fresh held-out "
                     f"symbols above {TARGET:.0%}; ≥ {MIN_SEEDS} seeds that learned Copy where they trained",
                     "inconclusive", TRANSFER.format(short=10, long=T_test) + "; Adam lr 1e-2",
                     f"{profile_of(r)}: not yet run at this scale: this recording has no RelLSTM sweep; "
                     + would_decide(
                         f"the section rellstm at the reference profile: {DECISIVE_RECALL_SEEDS} RelLSTMs trained on "
                         f"Copy at T = 10 (up to 5,000 updates at {RELLSTM_UPDATE_S * 1e3:.0f} ms) and tested on "
                         f"{FRESH_BATCH} sequences at T = {T_test} ({RELLSTM_TEST_S:.0f} s each): at most "
                         f"≈ {hours:.1f} core-hours, measured"),
                     "no RelLSTM run",
                     design=_recall_seeds_design("RelLSTM that learned Copy", symbols, DECISIVE_RECALL_SEEDS, unit))
    runs = [run["runs"][str(i)] for i in range(run["first_seed"], run["first_seed"] + run["replicates"])]
    short, symbols = run["copy_length"], run["test_batch"] * N_RECALL
    learned = [x for x in runs if x["steps_to_99"] is not None]
    recalls = [x["test"]["accuracy"] for x in learned]
    verdict, ci = _decide_recall_seeds(recalls, symbols)
    named = seed_range(run["first_seed"], run["replicates"])
    scale = (f"{profile_of(r)}: Adam lr {run['lr']:g}, batch {run['batch']}, trained at T = {short} for at most "
             f"{run['max_steps']:,} updates (stops at {TARGET:.0%}), {named}, tested on {run['test_batch']} sequences "
             f"at T = {T_test}")
    seconds = float(np.mean([x["seconds_per_update"] for x in runs]))
    if len(learned) < MIN_SEEDS:
        scale += (f"; {len(learned)} of {len(runs)} learned Copy at T = {short} (a model that did not says nothing of "
                  "its recall at a longer delay); " + would_decide(
                      f"≥ {MIN_SEEDS} RelLSTMs that learn Copy at T = {short} (more updates or seeds: the authors "
                      f"allow {PAPER_UPDATES:,}, ≈ {PAPER_UPDATES * seconds / 3600:.1f} core-hours per seed at "
                      f"{seconds * 1e3:.0f} ms per update), then tested as here"))
    elif verdict == "inconclusive":
        scale += "; " + _more_symbols(min(recalls), symbols)
    detail = "; ".join(f"seed {i}: {x['fresh']['accuracy']:.1%} at T = {short} after {x['updates']:,} updates"
                       + (f", {x['test']['accuracy']:.2%} at T = {T_test}" if x["steps_to_99"] is not None else
                          " (did not reach 99%)")
                       for i, x in zip(range(run["first_seed"], run["first_seed"] + run["replicates"]), runs))
    return Claim("kerg2020.table5.rellstm-transfer", source, statement, "statistical",
                 min(recalls) if recalls else None, ci if recalls else None,
                 f"per seed that learned Copy at T = {short} ({named}), the Wilson 95% interval of its recall at "
                 f"T = {T_test} over {symbols:,} fresh held-out symbols above {TARGET:.0%}: every one above with ≥ "
                 f"{MIN_SEEDS} seeds, reproduced; one below, not reproduced. The value is the lowest seed's recall",
                 verdict, TRANSFER.format(short=short, long=T_test) + f"; Adam lr {run['lr']:g}, width "
                 f"{run['hidden']}, ν = 10, ρ = 15 (the authors' Copy defaults for RelRNN)", scale, detail,
                 design=_recall_seeds_design("RelLSTM that learned Copy", symbols, max(run["replicates"], 1), unit))


def _fig4_claim(r: dict[str, Any]) -> Claim:
    """Fig. 4's Denoise curves at a delay of 200 or more: RelRNN from scratch, over seeds."""
    run = r.get("denoise_fig4")  # absent from recordings made before the Fig. 4 sweep
    source = "Kerg et al. 2020 supplement Fig. 4 (bottom right: Denoise, RelRNN), Table 7"
    T = run["length"] if run else 200
    statement = (f"Denoise task: RelRNN's cross-entropy falls to the solution at T = {T} (Fig. 4: curves for "
                 "T = 100 to 2000); we ask held-out recall ≥ 99%")
    unit = ("independently trained RelRNNs (seeds), each scored on a fresh batch under a seed of its own, which the "
            "stopping rule never saw")
    sub = "Adam and tanh (width 128) instead of Table 7's RMSprop, rate 2e-4 and modReLU"
    if run is None:
        symbols = FRESH_BATCH * N_RECALL
        hours = DECISIVE_RECALL_SEEDS * PAPER_UPDATES * FIG4_UPDATE_S / 3600
        return Claim("kerg2020.fig4.denoise-long", source, statement, "statistical", None, None,
                     f"per seed, the Wilson 95% interval of the recall on a fresh batch ({symbols:,} symbols) above "
                     f"{TARGET:.0%}; ≥ {MIN_SEEDS} seeds", "inconclusive", sub,
                     f"{profile_of(r)}: not yet run at this scale: this recording has no Fig. 4 run; " + would_decide(
                         f"the section fig4 at the reference profile: {DECISIVE_RECALL_SEEDS} RelRNNs trained from "
                         f"scratch on Denoise at T = {T} for up to the authors' {PAPER_UPDATES:,} updates, stopping "
                         f"at {TARGET:.0%}: at most ≈ {hours:.1f} core-hours at {FIG4_UPDATE_S * 1e3:.0f} ms per "
                         "update, measured; two cores give it"),
                     "no Fig. 4 run",
                     design=_recall_seeds_design("RelRNN trained on Denoise", symbols, DECISIVE_RECALL_SEEDS, unit))
    seeds = range(run["first_seed"], run["first_seed"] + run["replicates"])
    runs = [run["runs"][str(i)] for i in seeds]
    symbols = runs[0]["fresh"]["sequences"] * N_RECALL
    recalls = [x["fresh"]["accuracy"] for x in runs]
    verdict, ci = _decide_recall_seeds(recalls, symbols)
    named = seed_range(seeds.start, len(seeds))
    scale = (f"{profile_of(r)}: RelRNN from scratch at T = {T}, width {run['hidden']}, Adam lr {run['lr']:g}, "
             f"at most {run['max_steps']:,} updates (stops at {TARGET:.0%} on its held-out batch), {named}")
    failed = [x for x, a in zip(runs, recalls) if _decide_recall(a, symbols)[0] == "not reproduced"]
    seconds = float(np.mean([x["seconds_per_update"] for x in runs]))
    budget = (f"the authors' {PAPER_UPDATES:,} updates per seed (≈ {PAPER_UPDATES * seconds / 3600:.1f} core-hours "
              f"each at {seconds * 1e3:.0f} ms per update)")
    if len(runs) < MIN_SEEDS:
        scale += f"; {len(runs)} seed(s), fewer than {MIN_SEEDS}; " + would_decide(
            f"{DECISIVE_RECALL_SEEDS} seeds trained for up to " + budget)
    elif verdict == "not reproduced" and any(x["steps_to_99"] is not None for x in failed):
        verdict = "inconclusive"
        scale += ("; a run whose own batch reached 99% fell short on the fresh one: it stopped too early; "
                  + would_decide("those runs trained on towards " + budget))
    elif verdict == "not reproduced" and run["max_steps"] < PAPER_UPDATES:
        verdict = "inconclusive"
        scale += ("; below the authors' budget a failure is no evidence; " + would_decide(budget))
    elif verdict == "inconclusive":
        scale += "; " + _more_symbols(min(recalls), symbols)
    detail = "; ".join(f"seed {i}: {x['fresh']['accuracy']:.1%} on the fresh batch after {x['updates']:,} updates"
                       + (" (reached 99%)" if x["steps_to_99"] is not None else "") for i, x in zip(seeds, runs))
    return Claim("kerg2020.fig4.denoise-long", source, statement, "statistical", min(recalls), ci,
                 f"per seed ({named}), the Wilson 95% interval of the recall on a fresh batch ({symbols:,} symbols, "
                 f"none the stopping rule saw) above {TARGET:.0%}: every one above with ≥ {MIN_SEEDS} seeds, "
                 f"reproduced; one below after the authors' {PAPER_UPDATES:,} updates, not reproduced. The value is "
                 "the lowest seed's recall", verdict, sub, scale, detail,
                 design=_recall_seeds_design("RelRNN trained on Denoise", symbols, len(runs), unit))


def _rl_calibrations(r: dict[str, Any]) -> list[Calibration]:
    """:func:`_decide_rl` on normal rewards: the recorded seeds and spreads, or the decisive design's.

    MemLSTM at its recorded mean reward (the paper's where none is recorded); RelLSTM at the
    boundary of h0 (equal, or ``1 - margin`` times MemLSTM's) or at h1 (the paper's effect
    above, or equal). A recording with fewer than two seeds measures no spread: the rule is
    calibrated at the decisive run's seeds and the assumed spread instead.
    """
    rl = r.get("rl_transfer")
    out = []
    for cid, pair, where, test in RL_ROWS:
        train_env, test_env = RL_PAIRS[pair]
        env = train_env if where == "train" else test_env
        paper = PAPER_RL[pair][where]
        ran = (rl is not None and pair in rl["pairs"] and {"full", "relevancy"} <= set(rl["kinds"])
               and rl["replicates"] >= 2)
        if ran:
            rel, base = (rl_rewards(rl, pair, k, env) for k in ("relevancy", "full"))
            # a spread of 0 (every seed alike) would make any interval a point: floor it at 0.01
            n, level, sds = len(rel), float(base.mean()), [max(float(g.std(ddof=1)), 0.01) for g in (rel, base)]
            scale = (f"{n} seeds per kind on {_room(env)} (as recorded), rewards normal with the recorded sd "
                     f"{', '.join(f'{x:.3f}' for x in sds)}")
        else:
            n, level, sds = DECISIVE_RL_SEEDS, paper["full"], [RL_ASSUMED_SD, RL_ASSUMED_SD]
            scale = (f"{n} seeds per kind on {_room(env)} (the decisive design; no spread recorded), rewards normal "
                     f"with the assumed sd {RL_ASSUMED_SD}")
        effect = paper["relevancy"] - paper["full"]
        h0_shift = -EQUIVALENCE_MARGIN * level if test == "match" else 0.0
        h1_shift = 0.0 if test == "match" else effect

        def verdict(hypothesis: str, rng: np.random.Generator, level: float = level, sds: list[float] = sds,
                    n: int = n, shift: tuple[float, float] = (h0_shift, h1_shift), test: str = test) -> str:
            rel = rng.normal(level + shift[hypothesis == "h1"], sds[0], n)
            return _decide_rl(test, rel, rng.normal(level, sds[1], n))[0]

        h0 = (f"RelLSTM's mean reward {EQUIVALENCE_MARGIN:.0%} below MemLSTM's ({level:.2f})" if test == "match" else
              f"RelLSTM's mean reward equal to MemLSTM's ({level:.2f})")
        h1 = (f"RelLSTM's mean reward equal to MemLSTM's ({level:.2f})" if test == "match" else
              f"RelLSTM's mean reward {effect:+.2f} above MemLSTM's ({level:.2f}; the paper's difference)")
        out.append(Calibration(cid, scale, h0, h1, verdict))
    return out


def _recall_seeds_calibration(claim_id: str, symbols: int, n: int, scale: str) -> Calibration:
    """:func:`_decide_recall_seeds` on ``n`` seeds of ``symbols`` independent symbols each."""

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        rates = [TARGET if hypothesis == "h0" and i == 0 else H1_RECALL for i in range(n)]
        return _decide_recall_seeds([rng.binomial(symbols, p) / symbols for p in rates], symbols)[0]

    return Calibration(claim_id, scale, f"one seed recalls each symbol with probability {TARGET:.0%} (the boundary), "
                                        f"the others {H1_RECALL:.1%}",
                       f"every seed recalls each symbol with probability {H1_RECALL:.1%}", verdict)


def _recall_seeds_calibrations(r: dict[str, Any]) -> list[Calibration]:
    """The RelLSTM and Fig. 4 rules at the recorded seeds and symbols, or at the decisive design's.

    One per rule whose claim :func:`rules` lists: a whole run's, or its section's.
    """
    out = []
    for cid, key in (("kerg2020.table5.rellstm-transfer", "rellstm_copy"), ("kerg2020.fig4.denoise-long",
                                                                             "denoise_fig4")):
        if "settings" not in r and key not in r:
            continue
        run = r.get(key)
        # the RelLSTM rule reads the seeds that learned Copy where they trained
        counted = (None if run is None else run["replicates"] if key == "denoise_fig4" else
                   sum(x["steps_to_99"] is not None for x in run["runs"].values()))
        if run is None or counted < MIN_SEEDS:
            n, symbols = DECISIVE_RECALL_SEEDS, FRESH_BATCH * N_RECALL
            where = f"the decisive design: no recording of {MIN_SEEDS} seeds"
        else:
            first = run["runs"][str(run["first_seed"])]
            n = counted
            symbols = (run["test_batch"] if key == "rellstm_copy" else first["fresh"]["sequences"]) * N_RECALL
            where = "as recorded"
        out.append(_recall_seeds_calibration(cid, symbols, n, f"{n} seeds of {symbols:,} independent held-out "
                                                              f"symbols each ({where})"))
    return out


def rules(r: dict[str, Any]) -> list[Claim]:
    """The chapter's claims from its results dict.

    Each group of claims is decided when its numbers are present: a whole run has them
    all, a recording begun with the Fig. 3 section (:func:`seqmi.book.record_section`)
    only that section's. A whole run (its ``settings``) without the MiniGrid sweep still
    lists Table 4's claims, as not run; so with the transfer, RelLSTM and Fig. 4 runs, whose
    rows a recording of their section alone also gets.
    """
    groups = ((("decomposition_max_rel_error",), _exact_claims), (("copy_run",), _task_claims),
              (("settings", "rellstm_copy"), lambda x: [_rellstm_claim(x)]),
              (("settings", "denoise_fig4"), lambda x: [_fig4_claim(x)]),
              (("gradient_profiles",), lambda x: [_fig3_claim(x)]), (("settings", "rl_transfer"), _rl_claims),
              (("settings",), _table4_claims))
    return [claim for keys, group in groups if any(k in r for k in keys) for claim in group(r)]


def _recall_calibration(claim_id: str, symbols: int, scale: str) -> Calibration:
    """:func:`_decide_recall` on ``symbols`` independent symbols recalled at the boundary and at :data:`H1_RECALL`."""

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        p = TARGET if hypothesis == "h0" else H1_RECALL
        return _decide_recall(rng.binomial(symbols, p) / symbols, symbols)[0]

    return Calibration(claim_id, scale, f"each of the {symbols:,} symbols recalled with probability {TARGET:.0%}",
                       f"each recalled with probability {H1_RECALL:.1%}", verdict)


def _lstm_calibration(lengths: list[int], symbols: int) -> Calibration:
    """:func:`_decide_lstm_column` at the recorded lengths, the first chance length at its ceiling under h0."""
    at_chance = [t for t in lengths if t >= min(PAPER_LSTM_CHANCE)]
    h1 = {t: CHANCE if t >= min(PAPER_LSTM_CHANCE) else H1_RECALL for t in lengths}
    h0 = {**h1, **({at_chance[0]: LSTM_CHANCE_CEILING} if at_chance else {})}

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        rates = h0 if hypothesis == "h0" else h1
        return _decide_lstm_column({t: rng.binomial(symbols, p) / symbols for t, p in rates.items()}, symbols)

    return Calibration(
        "kerg2020.table5.lstm-baseline", f"{symbols:,} independent held-out symbols at each of T = {lengths}, as "
        "recorded, of an LSTM that learned Copy",
        f"recall {H1_RECALL:.1%} at T ≤ {max(PAPER_LSTM_SOLVED)} and {CHANCE:.1%} beyond, but exactly "
        f"{LSTM_CHANCE_CEILING:.0%} at T = {at_chance[0] if at_chance else '-'} (the column's ceiling)",
        f"recall {H1_RECALL:.1%} at T ≤ {max(PAPER_LSTM_SOLVED)} and chance ({CHANCE:.1%}) from "
        f"T = {min(PAPER_LSTM_CHANCE)} on", verdict)


def _task_calibrations(r: dict[str, Any]) -> list[Calibration]:
    s, long = r["settings"], r["long_run"]
    transfer = s["transfer_batch"] * N_RECALL
    out = [_recall_calibration("kerg2020.table5.copy-long-transfer", transfer,
                               f"{transfer:,} held-out symbols at T = {long['length']} "
                               f"({s['transfer_batch']} sequences, as recorded) of one trained RelRNN")]
    lengths = sorted(int(t) for t in (r["transfer"].get("lstm") or r["transfer"]["relrnn"]))
    out.append(_lstm_calibration(lengths, transfer))
    long_run = r.get("denoise_long")
    if long_run is None:
        symbols = s["eval_batch"] * N_RECALL * s.get("task_replicates", 1)
        where = "the grid's RelRNN runs pooled, as recorded"
    else:
        sequences = long_run["fresh"]["sequences"] if "fresh" in long_run else FRESH_BATCH
        symbols = sequences * N_RECALL
        where = (f"a fresh batch of {sequences} sequences" + ("" if "fresh" in long_run else
                                                              ", the one the chapter now records"))
    out.append(_recall_calibration("kerg2020.table5.denoise", symbols, f"{symbols:,} held-out symbols ({where})"))
    return out


def _fig3_calibration(r: dict[str, Any]) -> list[Calibration]:
    """:func:`_decide_fig3` on normal contrasts with the recorded spreads, every model past the plateau."""
    contrasts = fig3_contrasts(gradient_decays(r["gradient_profiles"], _fig3_run(r)["length"]))
    n = len(contrasts["rho3_margin"])
    if n < 2:
        return []  # one seed measures no spread to simulate with
    sd_margin, sd_gap = (float(contrasts[k].std(ddof=1)) for k in ("rho3_margin", "range_gap"))

    def verdict(hypothesis: str, rng: np.random.Generator) -> str:
        # h0 at its boundary: the margin's mean 0 while the gap, far above 0, cannot save the verdict
        margin, gap = (0.0, 10 * sd_gap) if hypothesis == "h0" else (FIG3_EFFECT, FIG3_EFFECT)
        return _decide_fig3(rng.normal(margin, sd_margin, n), rng.normal(gap, sd_gap, n))

    return [Calibration(
        "kerg2020.fig3.rho-destabilises",
        f"{n} seeds per setting (as recorded), every model past the plateau; each seed's two contrasts normal and "
        f"independent, sd {sd_margin:.2f} and {sd_gap:.2f} decades (over all recorded seeds)",
        f"ρ = 3's margin of mean 0 (no more decay than the largest other ρ), the range gap at {10 * sd_gap:.1f} "
        "decades", f"both contrasts at +{FIG3_EFFECT} decades", verdict)]


def _table4_calibrations(r: dict[str, Any]) -> list[Calibration]:
    """:func:`_decide_table4` on normal rewards with the recorded spreads, at the recorded seeds per kind."""
    mg = r["minigrid"]
    out = []
    for cid, _, where, paired, effect in TABLE4:
        env = mg["train_env"] if where == "train" else mg["test_envs"][-1]
        groups = _table4_groups(mg, env, paired)
        n = min(len(g) for g in groups)
        if n < 2:
            continue  # one seed measures no spread to simulate with
        sds = [float(g.std(ddof=1)) for g in groups]
        # the baseline at its recorded mean; RelLSTM at the boundary (h0) or the paper's effect above it (h1)
        floor = float(groups[1].mean()) if paired else MEMORYLESS_REWARD

        def verdict(hypothesis: str, rng: np.random.Generator, floor: float = floor, sds: list[float] = sds,
                    n: int = n, effect: float = effect, paired: bool = paired) -> str:
            rel = rng.normal(floor + (effect if hypothesis == "h1" else 0.0), sds[0], n)
            groups = (rel, rng.normal(floor, sds[1], n)) if paired else (rel,)
            return _decide_table4(groups, 0.0 if paired else MEMORYLESS_REWARD)[0]

        against = "the baseline's" if paired else "the memoryless reward"
        out.append(Calibration(
            cid, f"{n} seeds per kind on {env} (as recorded), rewards normal with the recorded sd "
                 f"{', '.join(f'{x:.3f}' for x in sds)}",
            f"RelLSTM's mean reward equal to {against} ({floor:.2f})",
            f"RelLSTM's mean reward {effect:+.2f} above {against} (the paper's)", verdict))
    return out


def calibrations(results: dict[str, Any]) -> list[Calibration]:
    """The chapter's statistical rules, each run on data made under its h0 and its h1.

    One :class:`~seqmi.claims.calibration.Calibration` per statistical claim whose numbers
    ``results`` holds, at their recorded scale: the recall rules over the recorded numbers
    of held-out symbols (Denoise over the fresh batch it is decided on), Fig. 3 and Table 4
    over the recorded seeds with the recorded spreads. A claim with no numbers here, or
    with one seed (no spread to simulate with), has none; except the transfer, RelLSTM and
    Fig. 4 rows, calibrated at their decisive design where nothing of theirs is recorded.
    """
    out = _task_calibrations(results) if "copy_run" in results else []
    if "gradient_profiles" in results:
        out += _fig3_calibration(results)
    if results.get("minigrid"):
        out += _table4_calibrations(results)
    if "settings" in results or "rl_transfer" in results:
        out += _rl_calibrations(results)
    return out + _recall_seeds_calibrations(results)
