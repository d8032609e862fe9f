import json

import numpy as np
import pytest

from seqmi import claims, report


def _claim(cid: str, verdict: str, statement: str = "c") -> claims.Claim:
    return claims.Claim(cid, "eq. 1", statement, "exact", 0.1, None, "rule", verdict, "", "quick: n = 1")


def test_results_round_trip_and_claims_table(tmp_path, monkeypatch):
    seen = {}

    def rule(chapter, results):
        seen.update(chapter=chapter, results=results)
        return [_claim("x.a", "reproduced", "a | b"), _claim("x.b", "not reproduced")]

    monkeypatch.setattr(claims, "for_chapter", rule)
    monkeypatch.setenv(report.PROFILE_ENV, "quick")
    report.save_results(tmp_path, "xx", {"arr": np.arange(3), "x": np.float64(0.5)})
    payload = json.loads((tmp_path / "results.json").read_text())
    assert payload["results"] == {"profile": "quick", "arr": [0, 1, 2], "x": 0.5}
    # the rule sees the numbers as read back from JSON, exactly what tests and the scoreboard see
    assert seen == {"chapter": "xx", "results": payload["results"]}
    assert [c["id"] for c in payload["claims"]] == ["x.a", "x.b"]
    assert all(set(claims.FIELDS) <= set(c) for c in payload["claims"])
    table = report.claims_markdown(payload)
    assert "a \\| b" in table and "**reproduced**" in table and "**not reproduced**" in table
    assert report.claims_table(tmp_path).data == table


def test_unserialisable_result_is_an_error(tmp_path):
    with pytest.raises(TypeError, match="cannot store object"):
        report.save_results(tmp_path, "xx", {"bad": object()})


def test_chapter_without_rules_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no claim rules for chapter 'xx'"):
        report.save_results(tmp_path, "xx", {})


def test_recorded_dirs_list_full_then_reference(tmp_path, monkeypatch):
    monkeypatch.setattr(claims, "for_chapter", lambda chapter, results: [])
    assert report.recorded_dirs("xx", tmp_path) == []
    report.save_results(tmp_path / "results" / "reference" / "xx", "xx", {})
    assert report.recorded_dirs("xx", tmp_path) == [tmp_path / "results" / "reference" / "xx"]
    report.save_results(tmp_path / "results" / "full" / "xx", "xx", {})
    assert report.recorded_dirs("xx", tmp_path) == [tmp_path / "results" / p / "xx" for p in ("full", "reference")]
