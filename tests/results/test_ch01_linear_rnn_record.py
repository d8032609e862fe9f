"""Chapter 01's results record: every recording read and written back exactly, bad JSON refused by name."""


import pytest

from seqmi.results import results_type
from seqmi.results.ch01_linear_rnn import MonteCarlo, OrderTwoPoleFit, Results

CHAPTER = "01_linear_rnn"
SYNTHETIC = {
    "profile": "quick", "t_exact": 10, "series_max_abs_diff": 0.0,
    "series_systems": [{"convention": "eq11", "d": 1, "m": 2, "max_abs_diff": 0.0, "same_function": True,
                        "rational": True, "denominator_degree": 2}],
    "decay_networks": [{"d": 1, "m": 2, "rho_predicted": 0.5, "order": 1, "rho_fitted": 0.5, "t_end": 40,
                        "rho_U_h": 0.6, "rho_M": 0.5, "complex_pole": False}],
    "decay_max_rel_error": 1e-4, "fit_tolerance": 0.02,
    "memorising": {"rho_predicted": 1.1, "order": 1, "rho_fitted": 1.1},
    "order_two": {"rho_predicted": 0.9, "order": 2, "rho_fitted": 0.9, "rho_fitted_without_prefactor": 0.91},
    "mc": {"n": 1000, "t_max": 2, "batches": 10, "outputs": 2, "max_z_eq11": 1.5, "max_z_printed": 30.0,
           "rho_predicted": 0.6, "mi_exact": [0.1, 0.04], "mi_sample": [0.1, 0.04], "mi_sample_se": [0.01, 0.01],
           "mi_max_z": 0.5, "logdet_vs_eigen": 1e-16},
    "sweep": [{"r": 0.5, "m": 4, "rho": 0.5, "order": 1, "rho_fit_exact": 0.5, "rho_fit_trace": 0.5, "xi": 0.72,
               "xi_fit_exact": 0.72, "xi_fit_trace": 0.72, "t_fit": 30}],
    "xi_max_rel_error_exact": 1e-3, "xi_max_rel_error_trace": 1e-3, "trace_over_exact_last_lag_min": 1.0,
    "bias": {"path_diff": 1e-15, "cov_diff": 1e-15, "mi_diff": 0.0},
    "ising": {"n_spins": 6, "beta_J": -0.5, "alpha": 1.5, "eq62_max_deviation": 1e-16,
              "eq57_as_printed_deviation": 0.15, "mi_tau": [1, 2], "mi_enumerated": [0.1, 0.02],
              "mi_closed": [0.1, 0.02], "mi_max_deviation": 1e-15, "xi": 0.65, "xi_fitted": 0.65,
              "past_dependence_nn": [0.3, 0.0], "past_dependence_long_range": [0.3, 0.1],
              "mi_long_range": [0.1, 0.05], "mi_nn_from_centre": [0.1, 0.02]},
    "wall_s_in_notebook": 1.5,
}


def test_a_synthetic_run_is_read_and_written_back_exactly():
    r = results_type(CHAPTER).from_json(SYNTHETIC)
    assert isinstance(r.mc, MonteCarlo) and r.mc.t_max == 2 and r.series_systems[0].convention == "eq11"
    assert isinstance(r.order_two, OrderTwoPoleFit) and r.order_two.rho_fitted_without_prefactor == 0.91
    assert r.to_json() == SYNTHETIC


def test_a_misspelt_key_is_refused_by_name():
    with pytest.raises(ValueError, match=r"Results\.mc: MonteCarlo has no field\(s\) \['max_z_eq12'\]"):
        Results.from_json({**SYNTHETIC, "mc": {**SYNTHETIC["mc"], "max_z_eq12": 1.0}})


def test_a_value_of_the_wrong_kind_is_refused_by_name():
    systems = [{**SYNTHETIC["series_systems"][0], "convention": "eq12"}]
    with pytest.raises(ValueError, match=r"Results\.series_systems\[0\]\.convention must be one of "
                                         r"\['eq11', 'printed'\], got 'eq12'"):
        Results.from_json({**SYNTHETIC, "series_systems": systems})
