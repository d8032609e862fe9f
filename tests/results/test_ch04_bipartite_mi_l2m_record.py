"""Chapter 04's results record: every recording and a synthetic run read and written back exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from seqmi import claims
from seqmi.results.ch04_bipartite_mi_l2m import BoundRun, GrowthFit, Results

CHAPTER = "04_bipartite_mi_l2m"
TEXT_LENGTHS = [16, 32, 64, 128, 256]


def _gaussian() -> dict:
    """The exact families' numbers (whole run), the sub-volume exponent log_4 3 and JSON integers where floats go."""
    beta = math.log(3) / math.log(4)
    sub = [0.5 * 3.0**k for k in range(4)]
    log = [0.3 + 0.05 * k for k in range(4)]

    def split(ratio: int) -> dict:
        return {"ell": [L // ratio for L in (16, 64, 256, 1024)], "subvolume": sub, "logarithmic": log,
                "subvolume_beta": beta, "subvolume_beta_ci": [beta - 0.001, beta + 0.001],
                "subvolume_ratios": [3, 3.0, 3.0], "subvolume_local_exponent": beta, "log_steps": [0.05] * 3,
                "log_slope_per_ln_L": 0.036, "log_local_exponent": 0.05}

    return {
        "toy_vocab": 4, "toy_two_point": [math.log(4)] * 3, "toy_bipartite": [math.log(4)] * 3, "toy_max_deviation": 0,
        "layers": [2, 3, 4, 5], "lengths": [16, 64, 256, 1024], "alpha_theory": 1.678, "beta_theory": beta,
        "bipartite_mi": {"subvolume/mix": sub, "logarithmic/mix": log}, "two_point_far_rel_diff": 0.0,
        "two_point_far": {"subvolume": [0.1, 0.01, 0.001, 1e-4], "logarithmic": [0.1, 0.01, 0.001, 1e-4]},
        "alpha_fit": 1.679, "alpha_ci": [1.67, 1.69], "beta_fit": beta, "beta_ci": [beta - 0.001, beta + 0.001],
        "bipartite_ratios": [3.0] * 3, "bipartite_ratios_overwrite": [2.9] * 3, "log_family_steps": [0.05] * 3,
        "log_family_local_exponent": 0.05, "cross_rank": {"subvolume": [4, 10, 28, 82], "logarithmic": [4, 5, 6, 7]},
        "split_ratios": [2, 3, 4], "split_lengths": [16, 64, 256, 1024], "split_dense_check": 1e-14,
        "gaussian_splits": {str(r): split(r) for r in (2, 3, 4)},
        "split_argmax_fraction": {"subvolume": 0.5, "logarithmic": 0.5},
        "split_over_equal": {"subvolume": {"3": 0.9, "4": 0.8}, "logarithmic": {"3": 0.95, "4": 0.9}},
        "state_sizes": {"mamba d=16": {"16": 32, "1024": 32}, "transformer d=16": {"16": 256, "1024": 16384}},
        "crossover_length": {"mamba d=16": {"float32": 3.4e4, "1 nat": 688.7}},
        "mi_per_dim_slope_transformer": beta - 1, "mi_per_dim_slope_ssm": beta,
    }


def _text() -> dict:
    """The text section with one pretrained model: power-law curves over 100 chapters, one fit left null."""
    d = np.arange(1, 201)
    fit = {"mi": (0.1 * d**-1.2 * (1 + 0.03 * np.sin(1.7 * d)) + 5e-5).tolist(), "alpha": 1.2,
           "alpha_ci": [1.1, 1.3], "offset": 5e-5, "amplitude": 0.1, "r2": 0.85, "min_lag": 4}
    lengths = np.array(TEXT_LENGTHS, dtype=float)

    def curve(scale: float, beta: float, ratio: int | None = None) -> dict:
        estimates = [{"mi": float(v), "stderr": 0.2, "h_first": 2.0 * L, "h_second": 2.0 * L, "n": 100}
                     for v, L in zip(scale * lengths**beta, TEXT_LENGTHS)]
        out = {"lengths": TEXT_LENGTHS, "estimates": estimates, "fit": {"beta": beta, "ci": [0.4, 0.6], "n_points": 5}}
        return out if ratio is None else {**out, "ell": [L // ratio for L in TEXT_LENGTHS]}

    smol = "SmolLM2-135M"
    bipartite = {f"{smol}/direct_raw": {**curve(12, 0.5), "fit": None}, f"{smol}/direct": curve(10, 0.5),
                 f"{smol}/vclub": curve(9, 0.5), "lzma/compression": curve(5, 0.8)}
    return {
        "text_two_point": {**fit, "lags": d.tolist(), "alpha_jack_ci": [1.0, 1.4], "offset_jack_ci": [0.0, 1e-4],
                           "n_jackknife": 20, "chars": 400000},
        "text_bipartite": bipartite,
        "text_char_model": {"n_params": 108287, "valid_loss": 1.18, "two_gram_entropy": 2.9},
        "smollm2": {"transformers": "5.23.0", "bos_id": 0, "chars_per_token": 4.1, "two_gram_entropy": 9.2},
        "two_gram_relative_change": {smol: [0.3, 0.2, 0.15, 0.1, 0.05]},
        "generated_two_point": {f"{smol}, T = 1": fit, f"{smol}, T = 0.7": fit}, "sample_chars": 12000,
        "text_bipartite_splits": {f"{smol}/{r}/{e}": curve(10 if e == "direct" else 9, 0.5, r)
                                  for r in (2, 3, 4) for e in ("direct", "vclub")},
        "figure5": {"tf_params": 1000, "ssm_params": 1010, "ssm_width": 80, "tf_position_nll": [1.0] * 8,
                    "ssm_position_nll": [1.1] * 8, "gap_change": 0.01, "gap_change_se": 0.004, "gap_late": 0.1,
                    "n_docs": 100, "n_windows": 400, "windows_per_doc": 4, "tf_valid_loss": 1.18,
                    "ssm_valid_loss": 1.13},
        "settings": {"char_steps": 60, "char_folds": 0, "text_docs": 48, "smol_docs": 6},
    }


def _exact_states() -> dict:
    """The l2m-exact section: both families' exact linear states."""
    beta = math.log(3) / math.log(4)
    sub = {"lengths": [64, 256, 1024], "bipartite_mi": [2.863, 8.651, 26.013], "rank": [16, 49, 148],
           "d_needed": {"0.01": [10, 31, 92]}, "excess": {"4": [1.5, 7.1, 24.2]}}
    log = {"lengths": [64, 256, 1024, 4096, 16384, 65536], "bipartite_mi": [0.4] * 6, "rank": [5] * 6,
           "d_needed": {"0.01": [3, 4, 5, 6, 7, 9]}, "excess": {}}
    return {"l2m_exact": {"states": {"subvolume": sub, "logarithmic": log}, "beta": beta, "eps": [0.01], "dims": [4],
                          "d_exponent": {"0.01": 0.792}, "excess_exponent": {"4": 0.80},
                          "collapse": {"spearman": 1.0, "n_points": 3, "max_spread": 0.0},
                          "excess_per_position": [0.047, 0.055, 0.047]}}


def _fig4() -> dict:
    """The fig4 section: three seeds per model, the SSM's KL rising with position and doubling with L."""
    def run(level: float, slopes: list[float], L: int, width: int) -> dict:
        curves = [level * (1 + s * np.linspace(0, 1, L)) for s in slopes]
        return {"state_size": width, "n_params": 1000, "bipartite_mi": float(L),
                "position_kl": np.mean(curves, 0).tolist(), "average_kl": float(np.mean(curves)),
                "final_train_loss": 1.0, "average_kl_replicates": [float(c.mean()) for c in curves],
                "position_kl_replicates": [c.tolist() for c in curves]}

    runs = {}
    for L, level in ((16, 1.0), (64, 2.0)):
        runs[f"transformer/d=8/L={L}"] = run(1.0, [0.0, 0.02, 0.04], L, 8 * L)
        runs[f"mamba/d=4/L={L}"] = run(level, [1.0, 1.1, 1.2], L, 64)
    return {"l2m_settings": {"l2m_lengths": [16, 64], "model_widths": [4, 8], "model_layers": 1, "flat_ratio": 1.25,
                             "train_steps": 10, "batch": 4, "token_dim": 2},
            "l2m_runs": runs, "late_early_ratio": {"transformer d=8": 1.02, "mamba d=4": 2.0},
            "kl_growth": {"transformer d=8": 1.0, "mamba d=4": 2.0}, "ssm_collapse_spearman": 0.9,
            "l2m_context_free_kl": {str(L): {"mean": 10.0, "curve": [10.0] * L} for L in (16, 64)}}


def _bound() -> dict:
    """The l2m-bound section: fixed-state models whose summed KL grows as L, a flat Transformer."""
    runs = []
    for b, size, bound, base in (("linear", 4, {16: 2.0, 64: 8.0}, 3.0), ("mamba", 8, {16: 0.0, 64: 0.5}, 2.0),
                                 ("transformer", 16, {16: 0.0, 64: 0.0}, None)):
        for L in (16, 64):
            for s in range(3):
                kl = (1.0 if base is None else base * L / 16) * (1 + 0.02 * s)
                runs.append({"backbone": b, "size": size, "L": L, "seed": s, "position_kl": [0.1] * L, "sum_kl": kl,
                             "bound": bound[L], "bipartite_mi": 12.0, "context_free_sum": 10.0 * L,
                             "state_size": size, "final_train_loss": 0.5, "steps": 100, "n_params": 1000,
                             "wall_s": 1, "device": "cpu"})
    return {"bound_runs": runs,
            "bound_settings": {"linear_states": [4], "mamba_width": 8, "transformer_width": 16, "head_width": 32,
                               "layers": 1, "copies": 4, "steps": 100, "batch": 8, "lr": 0.01, "lengths": [16, 64],
                               "mamba_max_length": 64, "seeds": [0, 1, 2]}}


def _synthetic() -> dict:
    """A small run of every section, as the chapter saves it."""
    return {"profile": "quick", **_gaussian(), **_text(), **_exact_states(), **_fig4(), **_bound()}


def test_a_synthetic_run_is_read_and_written_back_exactly_and_decided():
    data = _synthetic()
    r = Results.from_json(data)
    assert r.to_json() == data
    assert r.text_bipartite["SmolLM2-135M/direct_raw"].fit is None
    assert r.text_bipartite["SmolLM2-135M/direct"].fit == GrowthFit(beta=0.5, ci=[0.4, 0.6], n_points=5)
    assert r.bound_runs[0] == BoundRun(**data["bound_runs"][0])
    assert r.l2m_exact.states.logarithmic.d_needed["0.01"][-1] == 9 and r.figure5.n_seeds is None
    decided = claims.for_chapter(CHAPTER, r)
    assert len(decided) == 26 and all(c.kind != "statistical" or c.design is not None for c in decided)


def test_a_recording_begun_from_one_section_holds_that_section_alone():
    data = {"profile": "full", **_fig4()}
    for run in data["l2m_runs"].values():  # a record made before the seeds were pooled
        del run["average_kl_replicates"], run["position_kl_replicates"]
    r = Results.from_json(data)
    assert r.to_json() == data and r.lengths is None and r.bound_runs is None
    assert r.l2m_runs["mamba/d=4/L=64"].average_kl_replicates is None
    assert [c.id for c in claims.for_chapter(CHAPTER, r)] == [
        "chen2025.fig4cd.position-kl-flat", "chen2025.fig4ab.ssm-degrades-with-length",
        "chen2025.fig4b.ssm-kl-collapse"]


@pytest.mark.parametrize("change, message", [
    ({"lenghts": [16, 64]}, r"Results has no field\(s\) \['lenghts'\]"),
    ({"figure5": {**_text()["figure5"], "n_window": 400}},
     r"Results\.figure5: Figure5 has no field\(s\) \['n_window'\]"),
    ({"bound_runs": [{**_bound()["bound_runs"][0], "backbone": "lstm"}]},
     r"Results\.bound_runs\[0\]\.backbone must be one of \['linear', 'mamba', 'transformer'\], got 'lstm'"),
    ({"l2m_runs": {"mamba/d=4/L=16": {**_fig4()["l2m_runs"]["mamba/d=4/L=16"], "state_size": 64.5}}},
     r"Results\.l2m_runs\.mamba/d=4/L=16\.state_size must be an integer, got float 64\.5"),
    ({"text_bipartite": {"lzma/compression": {"lengths": [16], "estimates": [], "fit": {"beta": "0.8", "ci": [],
                                                                                      "n_points": 1}}}},
     r"Results\.text_bipartite\.lzma/compression\.fit\.beta must be a number, got str"),
])
def test_a_bad_key_or_value_is_refused_naming_it(change, message):
    with pytest.raises(ValueError, match=message):
        Results.from_json({**_synthetic(), **change})
