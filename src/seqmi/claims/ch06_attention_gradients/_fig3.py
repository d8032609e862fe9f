"""Chapter 06's Fig. 3 claim, decided over the seeds past the Denoise plateau.

Small rho destabilises gradient propagation, and nu has less leverage than rho.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from seqmi.claims import MIN_SEEDS, Claim, Design, combine, decide, would_decide
from seqmi.claims.ch06_attention_gradients._common import TARGET_POWER, _first_n
from seqmi.experiments.ch06_records import SWEPT, fig3_contrasts, gradient_decays, seed_range
from seqmi.results.ch06_attention_gradients import Fig3Settings, Results
from seqmi.stats import mean_ci, seeds_to_decide, t_power

# held-out recall from which a Fig. 3 model counts as past the Denoise plateau (chance is 1/8;
# the plateau sits below 0.3, a trained model near 1)
PLATEAU_EXIT = 0.5
# Fig. 3's power is stated against both contrasts at this many decades (the pilot's range gap: +0.56)
FIG3_EFFECT = 0.5
# seconds per update of the reference Fig. 3 sweep: 24 models of 10,000 updates took 52 minutes
# of two cores (notebooks/profiles.yml), what a larger sweep's core-hours are counted at
PROFILE_SECONDS_PER_UPDATE = 0.026


def _fig3_run(r: Results) -> Fig3Settings:
    """The Fig. 3 sweep's settings.

    Recorded with the sweep as ``fig3_settings``; results recorded before then kept them in
    the chapter's ``settings``, with seeds from 0 and one held-out batch of 32 sequences.
    """
    if r.fig3_settings is not None:
        return r.fig3_settings
    s = r.settings
    return Fig3Settings(steps=s.profile_steps, length=s.profile_length, first_seed=0, held_out_batches=1,
                        held_out_sequences=32)


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


def _fig3_claim(r: Results) -> Claim:
    """Fig. 3 decided by Student-t intervals over seeds of two contrasts of gradient decays."""
    run = _fig3_run(r)
    decays = gradient_decays(r.gradient_profiles, run.length)
    contrasts = fig3_contrasts(decays)
    n = len(contrasts["rho3_margin"])
    # absent from results recorded before the sweep kept each model's recall
    recall = {k: np.atleast_1d(np.asarray(v, dtype=float)) for k, v in r.gradient_accuracy.items()} \
        if r.gradient_accuracy is not None else None
    past = _past_plateau(recall, n)
    entered = {k: v[past[k]] for k, v in contrasts.items()}
    verdict = _decide_fig3(entered["rho3_margin"], entered["range_gap"])
    sds = (float(contrasts["rho3_margin"].std(ddof=1)), float(contrasts["range_gap"].std(ddof=1))) if n > 1 else None
    batches = run.held_out_batches
    seeds = seed_range(run.first_seed, n)
    scale = (f"{r.profile}: {run.steps:,} updates per setting, {seeds}, T = {run.length}, each profile "
             f"averaged over {batches} held-out batch{'es' if batches > 1 else ''} of {run.held_out_sequences} "
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
            hours = 8 * max(need) * run.steps * PROFILE_SECONDS_PER_UPDATE / 3600
            seeds_text = (f"≈ {max(need)} seeds per setting at the means and spreads of all {n} recorded seeds "
                          f"({8 * max(need)} models of ≥ {run.steps:,} updates, ≈ {hours:.0f} core-hours at "
                          f"{PROFILE_SECONDS_PER_UPDATE} s per update)")
        if recall is None:
            scale += "; " + would_decide("the sweep rerun with each model's held-out recall (section fig3), then "
                                         + seeds_text)
        elif few:
            rho3_past = int((recall["nu=15,rho=3"] >= PLATEAU_EXIT).sum())
            scale += (f"; {entered['rho3_margin'].size} and {entered['range_gap'].size} of {n} seeds have every model "
                      f"of a contrast past the plateau (recall ≥ {PLATEAU_EXIT:.0%}), fewer than {MIN_SEEDS}; "
                      + would_decide(f"ρ = 3 models trained past the Denoise plateau (after {run.steps:,} updates "
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
        verdict, f"RelRNN (the authors' RNN variant) on Denoise at T = {run.length}, not MemLSTM at T = 1000",
        scale, detail, design=_fig3_design(sds, n, int(past["range_gap"].sum())))
