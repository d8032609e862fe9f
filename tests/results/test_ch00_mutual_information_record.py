"""Chapter 00's results record: every recording read and written back exactly, bad JSON refused by name."""


import pytest

from seqmi.results import results_type
from seqmi.results.ch00_mutual_information import Results

CHAPTER = "00_mutual_information"
SYNTHETIC = {
    "profile": "quick", "q": 0.1, "n_seq": 40, "n_batches": 4, "length": 50, "mi_floor": 0.001,
    "fit_ceiling": 0.05, "lags": [1, 2], "estimate": [0.2, 0.1], "stderr": [0.01, 0.01], "exact": [0.19, 0.1],
    "n_visible": 2, "max_abs_error_visible": 0.01, "max_abs_z_visible": 1.0, "xi_predicted": 2.24,
    "xi_fitted": 2.2, "bipartite_splits": [1, 2], "bipartite_mi": [0.19, 0.19], "bipartite_max_deviation": 0,
}


def test_a_synthetic_run_is_read_and_written_back_exactly():
    r = results_type(CHAPTER).from_json(SYNTHETIC)
    assert isinstance(r, Results) and r.lags == [1, 2] and r.bipartite_max_deviation == 0
    assert r.to_json() == SYNTHETIC


def test_a_misspelt_key_is_refused_by_name():
    with pytest.raises(ValueError, match=r"Results has no field\(s\) \['xi_fit'\]"):
        Results.from_json({**SYNTHETIC, "xi_fit": 2.2})


def test_a_value_of_the_wrong_kind_is_refused_by_name():
    with pytest.raises(ValueError, match=r"Results\.lags\[1\] must be an integer, got float 2\.5"):
        Results.from_json({**SYNTHETIC, "lags": [1, 2.5]})
