"""Chapter 05's results record: every recording and a synthetic run read and written back exactly."""

from __future__ import annotations


import pytest

from seqmi import claims
from seqmi.results.ch05_ngram_ssm import Results, SeedClustering

SETTINGS = ("ssm_paper", "ssm_tuned", "rnn_paper", "rnn_tuned")


def _synthetic() -> dict:
    """A small run of every section, two seeds, as the chapter saves it (JSON integers where it writes floats)."""
    window = {"max_logit_change_older_words": 0.0, "max_tv_change_older_words": 0.0, "max_tv_change_third_word": 0.99,
              "window": 3.0, "relative_norm_power_n_minus_2": 0.04, "relative_norm_power_n_minus_1": 0}
    spectrum = {"spectral_radius": 0.9, "n_outside": 0, "fraction_inside": 1, "effective_window": 66.0}
    seeds = {"explained": [0.92, 0.9], "null_mean": [0.0086, 0.0086], "p_value": [0.0099, 0.0099]}
    return {
        "profile": "quick", "n_sentences": 7980, "n_contexts": 145, "paper_table_same_set": True,
        "paper_table_same_order": True, "n_starting_sequences": 16774,
        "construction_grid": [{"eps": 0.1, "embed_dim": 8, "max_tv": 0.049, "hidden_size": 145, "rank": 145,
                               "condition_number": 1.3e4, "nilpotency_index": None}],
        "worst_tv_over_eps": 0.49,
        "conditioning_scan": [{"embed_dim": 1, "ranks": [145], "condition_numbers": [1e6],
                               "smallest_singular_values": [1e-3], "min_coordinate_gaps": [0.01],
                               "max_logit_errors": [1e-12]}],
        "median_condition_number": [1e6],
        "window_checks": {"ssm": window, "rnn": window},
        "random_languages": [{"n": 2, "embed_dim": 1, "n_rules": 259, "n_sentences": 582, "hidden_size": 259,
                              "window": 1, "max_tv": 0.005}],
        "random_eps": 0.01,
        "size_scan": [{"n_rules": 39, "embed_dim": 1, "rank": 39, "condition_number": 6e3, "max_logit_error": 1e-13,
                       "max_tv": 0.005}],
        "rnn_grid": [{"embed_dim": 8, "eps": 1e-4, "hidden_size": 145, "max_tv": 5e-5, "rank": 145,
                      "condition_number": float("inf"), "W_cubed_is_zero": True}],
        "piece_counting": [{"hidden": 1, "max_pieces": 2, "max_sign_changes": 0, "bound_holds": True}],
        "n_points": 4, "memorisation_error": 1e-14, "memorisation_sign_changes": 3,
        "memorisation_fits": [
            {"hidden": 1, "max_error": [1, 1.5], "sign_errors": [1, 2], "min_sign_errors": 1,
             "from_construction": False, "wrong_points": [[2], [1, 3]]},
            {"hidden": 4, "max_error": [1e-12, 0.5], "sign_errors": [0, 0], "min_sign_errors": 0,
             "from_construction": True, "wrong_points": [[], []]}],
        "memorisation_training": {"restarts": 2, "steps": 100, "lr": 0.01},
        "training": {"n_train": 40, "epochs": 25, "n_seeds": 2, "paper_lr": 0.001, "tuned_lr": 0.1, "embed_dim": 64,
                     "hidden_size": 145, "accuracy": {k: [1, 0.98] for k in SETTINGS},
                     "final_loss": {k: [0.1, 0.2] for k in SETTINGS}},
        "small_embeddings": [{"embed_dim": 1, "lr": lr, "seed": s, "diverged": lr > 0.05, "accuracy": 0.9 * (lr < 0.05)}
                             for lr in (0.01, 0.1) for s in range(2)],
        "small_lr_selection": [{"lr": lr, "seed": 0, "diverged": False, "accuracy": 0.95} for lr in (0.01, 0.1)],
        "lipschitz": {"lags": [0, 1, 8], "norms": {k: [[1, 0.6, 0.01]] * 2 for k in ("ssm", "rnn")},
                      "contraction": {k: [0.6, 0.62] for k in ("ssm", "rnn")},
                      "window": {"ssm": [float("inf")] * 2, "rnn": [12.5, 13.0]}},
        "spectra": {"ssm": [spectrum] * 2, "rnn": [spectrum] * 2},
        "window_tol": 0.001, "influence_by_lag": {"ssm": [1, 0.5, 0.01], "rnn": [1, 0.4, 0.001]},
        "explained_by_last_trigram": {"constructed_ssm": 1},
        "trigram_clustering": {"permutations": 100, "ssm_tuned": seeds, "rnn_tuned": seeds, "ssm_paper": seeds},
    }


def test_a_synthetic_run_is_read_and_written_back_exactly_and_decided():
    data = _synthetic()
    r = Results.from_json(data)
    assert r.to_json() == data
    assert r.trigram_clustering.ssm_tuned == SeedClustering(**data["trigram_clustering"]["ssm_tuned"])
    assert r.construction_grid[0].nilpotency_index is None and r.explained_by_last_trigram.trained_ssm is None
    assert len(claims.for_chapter("05_ngram_ssm", r)) == 17


def test_a_run_recorded_before_the_per_seed_clustering_keeps_seed_0s_fractions():
    data = {k: v for k, v in _synthetic().items() if k != "trigram_clustering"}
    data["explained_by_last_trigram"] = {"constructed_ssm": 1.0, "trained_ssm": 0.911, "trained_rnn": 0.984}
    r = Results.from_json(data)
    assert r.to_json() == data and r.trigram_clustering is None and r.explained_by_last_trigram.trained_rnn == 0.984


@pytest.mark.parametrize("change, message", [
    ({"trigram_clustering": {"permutations": 100, "ssm_tuned": {}, "rnn_tuned": {}, "ssm_paper": {}, "extra": 1}},
     r"Results\.trigram_clustering: TrigramClustering has no field\(s\) \['extra'\]"),
    ({"memorisation_training": {"restarts": 2.5, "steps": 100, "lr": 0.01}},
     r"Results\.memorisation_training\.restarts must be an integer, got float 2\.5"),
    ({"spectra": {"ssm": [{"spectral_radius": "0.9", "n_outside": 0, "fraction_inside": 1.0,
                           "effective_window": 3.0}]}},
     r"Results\.spectra\.ssm\[0\]\.spectral_radius must be a number, got str"),
])
def test_a_bad_key_or_value_is_refused_naming_it(change, message):
    with pytest.raises(ValueError, match=message):
        Results.from_json({**_synthetic(), **change})
