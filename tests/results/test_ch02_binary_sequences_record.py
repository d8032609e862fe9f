"""Chapter 02's results record: every recording read and written back exactly, bad JSON refused by name."""


import pytest

from seqmi.results import results_type
from seqmi.results.ch02_binary_sequences import EstimatorMeans, Results

CHAPTER = "02_binary_sequences"
ESTIMATORS = {"plugin": [1.0, 1.0], "psi": [1.0, 0.25], "grassberger": [1.0, 0.25]}
SYNTHETIC = {
    "profile": "quick", "amplitude": 0.1, "n_seq": 40, "n_batches": 4, "length": 50, "max_lag": 20,
    "mi_floor": 0.001, "gammas": [0.2, 1.0], "gamma_hat": [0.21, 0.98], "gamma_ci": [[0.2, 0.22], [0.95, 1.01]],
    "n_fit_points": [20, 8], "max_rel_error": [0.05, float("nan")], "max_abs_z": [1.2, 0.8],
    "estimate_tau": {"1": [0.1, 0.1], "2": [0.087, 0.05]}, "stderr_tau": {"1": [0.01, 0.01], "2": [0.01, 0.01]},
    "eq46_residual": "0", "orthant_max_error": 1e-17, "expansion_leading": 0.2026, "bias_group": 4,
    "bias_gamma": 0.5, "bias_pooled_units_of_1_over_2N": {"plugin": -3.0, "psi": -3.0, "grassberger": -2.99},
    "bias_psi_vs_plugin": 0.001, "bias_grassberger_vs_psi_max_z": 2.0,
    "alphabets": [2, 3], "alphabet_bias": ESTIMATORS, "alphabet_se": ESTIMATORS, "bias_pairs": 2000,
    "rep_p": [0.1, 0.5], "rep_exact_far": [0.3, 0.0], "rep_estimate_far_mean": [0.3, 0.0], "rep_max_abs_z": 2.0,
    "rep_max_abs_error": 0.001, "rep_max_lag": 10, "gamma_check_max": 1, "n_visible": 30,
    "max_rel_error_all": 0.1,
    "eq47": {"d": [1.0, 10.0], "gamma": 0.5, "printed_ratio": [0.03, 0.032], "our_ratio": [0.99, 1.0]},
}


def test_a_synthetic_run_is_read_and_written_back_exactly():
    r = results_type(CHAPTER).from_json(SYNTHETIC)
    assert r.bias_pooled_units_of_1_over_2N == EstimatorMeans(plugin=-3.0, psi=-3.0, grassberger=-2.99)
    assert r.stderr_tau["2"] == [0.01, 0.01] and r.gamma_ci[1] == [0.95, 1.01]
    # a run recorded before the error of the Grassberger − ψ difference was saved lacks it, and stays without it
    assert r.bias_grassberger_minus_psi_se is None and r.to_json() == SYNTHETIC
    saved = {**SYNTHETIC, "bias_grassberger_minus_psi_se": 0.01}
    assert Results.from_json(saved).to_json() == saved


def test_a_misspelt_key_is_refused_by_name():
    pooled = {"plugin": -3.0, "psi": -3.0, "grassbeger": -2.99}
    with pytest.raises(ValueError, match=r"Results\.bias_pooled_units_of_1_over_2N: EstimatorMeans has no "
                                         r"field\(s\) \['grassbeger'\]"):
        Results.from_json({**SYNTHETIC, "bias_pooled_units_of_1_over_2N": pooled})


def test_a_value_of_the_wrong_kind_is_refused_by_name():
    with pytest.raises(ValueError, match=r"Results\.estimate_tau\.2 must be a list, got float"):
        Results.from_json({**SYNTHETIC, "estimate_tau": {"1": [0.1, 0.1], "2": 0.087}})
