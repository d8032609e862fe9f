import json

import numpy as np
import pytest

from seqmi import report


def test_results_round_trip_and_claims_table(tmp_path):
    claims = [report.Claim("a | b", "eq. 1", "0.1", report.verdict(True)),
              report.Claim("c", "Fig. 2", "0.2", report.verdict(False))]
    report.save_results(tmp_path, "xx", {"arr": np.arange(3), "x": np.float64(0.5)}, claims)
    payload = json.loads((tmp_path / "results.json").read_text())
    assert payload["results"] == {"arr": [0, 1, 2], "x": 0.5}
    table = report.claims_markdown(payload)
    assert "a \\| b" in table and "**reproduced**" in table and "**not reproduced**" in table
    assert report.claims_table(tmp_path).data == table


def test_claim_rejects_unknown_verdict():
    with pytest.raises(ValueError, match="verdict must be one of"):
        report.Claim("x", "y", "z", "sort of")


def test_unserialisable_result_is_an_error(tmp_path):
    with pytest.raises(TypeError, match="cannot store object"):
        report.save_results(tmp_path, "xx", {"bad": object()}, [])


def test_reference_dir_only_when_recorded(tmp_path):
    assert report.reference_dir("xx", tmp_path) is None
    (tmp_path / "results" / "full" / "xx").mkdir(parents=True)
    report.save_results(tmp_path / "results" / "full" / "xx", "xx", {}, [])
    assert report.reference_dir("xx", tmp_path) == tmp_path / "results" / "full" / "xx"
