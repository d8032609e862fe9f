"""The thresholds, effects and readings of the results that chapter 04's claim groups share.

The Fig. 4(b) thresholds, the effects each calibration's h1 states, and the readings of
the results record (the Fig. 4 arrays, the bound sweep's pairs, the text's curves) that both
the rules and the calibrations take.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from seqmi.experiments.ch04_records import bound_groups, collapse_points
from seqmi.results.ch04_bipartite_mi_l2m import BipartiteCurve, OffsetFit, Results
from seqmi.stats import late_early_ratio, spearman_ci

CLEAR_COLLAPSE = 0.95  # the rank correlation a clear collapse would show (Fig. 4(b))
COLLAPSE_RHO = 0.8  # Fig. 4(b)'s rule: the Spearman correlation's interval above this
# Fisher's interval of a Spearman correlation holds from about ten pairs on (a perfect
# ranking of four runs would otherwise pass: 1 in 24 by chance alone)
MIN_COLLAPSE_RUNS = 10
# the rule's standard error of atanh(ρ) is this over √(n − 3) (√1.06 to two digits)
COLLAPSE_SE_FACTOR = 1.03

# The effects each calibration's h1 states (the paper's hypotheses at a realistic size):
# a power law L^0.5 for the bipartite MI (our SmolLM2 exponent, inside L2M's range), an
# exponent gap of 0.1 between estimators and of 0.2 for lzma (L2M App. A.II, A.VI), a small
# SSM whose late/early KL ratio is 1.5 against a flat Transformer's 1.0 (Fig. 4(c)), an SSM
# whose KL grows 1.5 times as much with L as the Transformer's (Fig. 4(a, b)), a KL
# proportional to (I/d)^0.5 (Fig. 4(b)), a fixed state whose summed KL grows as L^0.3 more
# than the Transformer's (Thm. 5.4), and a gap that grows by 0.02 nats (Fig. 5).
H1_BETA = 0.5
H1_EXPONENT_GAP = 0.1
H1_LZMA_GAP = 0.2
H1_SSM_LATE_EARLY = 1.5
H1_LENGTH_FACTOR = 1.5
H1_COLLAPSE_POWER = 0.5
H1_EXCESS_EXPONENT = 0.3
H1_GAP_CHANGE = 0.02

Curve = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]  # lengths, estimates, errors


def spearman_interval(rho: float, n: int) -> list[float]:
    """Fisher's 95% interval of a Spearman correlation over ``n`` pairs as the rule states it (se 1.03/√(n−3)).

    :func:`seqmi.stats.rank.spearman_ci` with the standard-error factor ``COLLAPSE_SE_FACTOR``.
    """
    return spearman_ci(rho, n, se_factor=COLLAPSE_SE_FACTOR)


def _fig4_arrays(r: Results) -> dict[str, Any]:
    """The per-seed numbers the Fig. 4 rules read: late/early ratios at the longest L, the
    average KL at both ends of L (Transformer: largest width; SSM: smallest), and every
    Mamba run's I_bp per state dimension with its average KL."""
    s, runs = r.l2m_settings, r.l2m_runs
    L_max, L_min = max(s.l2m_lengths), min(s.l2m_lengths)
    w_small, w_large = min(s.model_widths), max(s.model_widths)

    def curves(b: str, w: int, L: int) -> NDArray[np.float64]:
        run = runs[f"{b}/d={w}/L={L}"]
        seeds = [run.position_kl] if run.position_kl_replicates is None else run.position_kl_replicates
        return np.atleast_2d(np.asarray(seeds, dtype=float))

    def average(b: str, w: int, L: int) -> NDArray[np.float64]:
        run = runs[f"{b}/d={w}/L={L}"]
        return np.asarray([run.average_kl] if run.average_kl_replicates is None else run.average_kl_replicates,
                          dtype=float)

    x, kl, Ls = collapse_points(runs)
    return {"tf_ratio": np.atleast_1d(late_early_ratio(curves("transformer", w_large, L_max))),
            "ssm_ratio": np.atleast_1d(late_early_ratio(curves("mamba", w_small, L_max))),
            "tf_hi": average("transformer", w_large, L_max), "tf_lo": average("transformer", w_large, L_min),
            "ssm_hi": average("mamba", w_small, L_max), "ssm_lo": average("mamba", w_small, L_min),
            "collapse_x": x, "collapse_kl": kl, "collapse_L": Ls}


Model = tuple[str, int]  # (backbone, state size or width)


def _excess_pairs(r: Results) -> tuple[list[Model], dict[Model, int], int,
                                              dict[Model, tuple[Model, tuple[NDArray[np.float64], ...]]]]:
    """The models of the bound sweep, each model's longest L, L_min, and per fixed-state
    model the Transformer it is compared with and the per-seed summed KLs ``(model at its
    longest L, model at L_min, Transformer at that L, Transformer at L_min)``: each
    configuration's own seeds."""
    groups = bound_groups(r.bound_runs)
    L_min = min(L for _, _, L in groups)
    models = sorted({(b, size) for b, size, _ in groups})
    top = {m: max(L for b, size, L in groups if (b, size) == m) for m in models}

    def sums(b: str, size: int, L: int) -> NDArray[np.float64]:
        return np.array([rec.sum_kl for rec in groups[(b, size, L)]])

    tf = [m for m in models if m[0] == "transformer"]
    pairs = {}
    for m in (m for m in models if m[0] != "transformer" and top[m] > L_min):
        for t in (t for t in tf if (*t, top[m]) in groups):
            pairs[m] = (t, (sums(*m, top[m]), sums(*m, L_min), sums(*t, top[m]), sums(*t, L_min)))
    return models, top, L_min, pairs


def _curve(entry: BipartiteCurve | None) -> Curve | None:
    """``(lengths, estimates, standard errors)`` of a recorded bipartite curve."""
    if entry is None:
        return None
    est = entry.estimates
    return (np.asarray(entry.lengths, dtype=float), np.array([e.mi for e in est], dtype=float),
            np.array([e.stderr for e in est], dtype=float))


def _docs(r: Results, model: str) -> int:
    entry = r.text_bipartite.get(f"{model}/direct") or r.text_bipartite.get(f"{model}/vclub")
    return int(entry.estimates[0].n) if entry and entry.estimates else 0


def _text_models(r: Results) -> list[tuple[str, str]]:
    """The model-based estimators recorded: ``(model, slug)``."""
    return [(m, "char" if m.startswith("char") else "smollm2") for m in ("char Transformer", "SmolLM2-135M")
            if f"{m}/direct" in r.text_bipartite]


def _equal_split_curves(r: Results, model: str) -> dict[str, Curve | None]:
    return {est: _curve(r.text_bipartite.get(f"{model}/{est}")) for est in ("direct", "vclub")}


def _unequal_split_curves(r: Results, model: str) -> dict[str, Curve | None]:
    return {f"L/l = {ratio} {est}": _curve(r.text_bipartite_splits.get(f"{model}/{ratio}/{est}"))
            for ratio in r.split_ratios if ratio != 2 for est in ("direct", "vclub")}


def _lzma_pairs(r: Results) -> dict[str, tuple[Curve | None, Curve | None]]:
    """lzma's curve against each model's direct curve (the exponent L2M says it overestimates)."""
    lz = _curve(r.text_bipartite.get("lzma/compression"))
    return {m: (lz, _curve(r.text_bipartite.get(f"{m}/direct"))) for m, _ in _text_models(r)}


def _generated_curve(r: Results) -> tuple[str, OffsetFit] | None:
    """The SmolLM2 sample set whose temperature is nearest 1 (Shen samples at T = 1)."""
    gen = r.generated_two_point
    smol = sorted((name for name in gen if name.startswith("SmolLM2")),
                  key=lambda name: abs(float(name.rsplit("=", 1)[1]) - 1.0))
    return (smol[0], gen[smol[0]]) if smol else None
