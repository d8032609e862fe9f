import json

import numpy as np
import pytest

from seqmi import claims, profiles, report


def _claim(cid: str, verdict: str, statement: str = "c") -> claims.Claim:
    return claims.Claim(cid, "eq. 1", statement, "exact", 0.1, None, "rule", verdict, "", "quick: n = 1")


def test_results_round_trip_and_claims_table(tmp_path, monkeypatch):
    seen = {}

    def rule(chapter, results):
        seen.update(chapter=chapter, results=results)
        return [_claim("x.a", "reproduced", "a | b"), _claim("x.b", "not reproduced")]

    monkeypatch.setattr(claims, "for_chapter", rule)
    monkeypatch.setattr(claims, "rule_hash", lambda chapter: "r1")
    run = report.ChapterRun("xx", tmp_path, "quick")
    run.save_results({"arr": np.arange(3), "x": np.float64(0.5)})
    payload = json.loads((tmp_path / "results.json").read_text())
    assert payload["results"] == {"profile": "quick", "arr": [0, 1, 2], "x": 0.5}
    # the rule sees the numbers as read back from JSON, exactly what tests and the scoreboard see
    assert seen == {"chapter": "xx", "results": payload["results"]}
    assert [c["id"] for c in payload["claims"]] == ["x.a", "x.b"]
    assert all(set(claims.FIELDS) <= set(c) for c in payload["claims"])
    table = report.claims_markdown(payload)
    assert "a \\| b" in table and "**reproduced**" in table and "**not reproduced**" in table
    assert run.claims_table().data == table


def test_numbers_that_do_not_make_the_chapters_record_are_refused_before_anything_is_written(tmp_path):
    from pathlib import Path

    recorded = Path(__file__).resolve().parents[1] / "results" / "full" / "00_mutual_information" / "results.json"
    numbers = json.loads(recorded.read_text())["results"]
    run = report.ChapterRun("00_mutual_information", tmp_path, "quick")
    with pytest.raises(ValueError, match=r"Results has no field\(s\) \['max_lagz'\]"):
        run.save_results({**numbers, "max_lagz": 3})
    assert not (tmp_path / "results.json").exists()
    run.save_results(numbers)
    assert json.loads((tmp_path / "results.json").read_text())["results"] == numbers


def test_a_chapter_run_names_a_known_profile(tmp_path):
    assert report.ChapterRun("xx", tmp_path, profiles.DEFAULT_PROFILE).profile == "interactive"
    with pytest.raises(ValueError, match=r"profile must be one of \['interactive', 'quick', 'reference', "
                                         r"'full'\], got 'huge'"):
        report.ChapterRun("xx", tmp_path, "huge")


def test_the_recorded_and_cpu_profiles_are_named_among_the_profiles():
    assert profiles.RECORDED_PROFILES == ("full", "reference")  # largest first: the scoreboard decides from it
    assert profiles.CPU_PROFILES == ("quick", "reference")
    assert profiles.DEFAULT_PROFILE not in profiles.PROFILES


def test_dumped_json_keeps_every_value_and_puts_number_arrays_on_one_line():
    payload = {"curve": [0.5, -2e-10, float("nan"), None], "runs": [{"xi": [1, 2]}, [3, 4]],
               "text": "a [1,\n 2] string", "empty": {}, "none": []}
    text = report.dump_json(payload)
    assert json.dumps(json.loads(text)) == json.dumps(payload)
    lines = text.splitlines()
    assert '  "curve": [0.5, -2e-10, NaN, null],' in lines and '      "xi": [1, 2]' in lines
    assert '    [3, 4]' in lines and '  "text": "a [1,\\n 2] string",' in lines


def test_unserialisable_result_is_an_error(tmp_path):
    with pytest.raises(TypeError, match="cannot store object"):
        report.save_results(tmp_path, "xx", {"bad": object()}, "quick")


def test_chapter_without_rules_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no claim rules for chapter 'xx'"):
        report.save_results(tmp_path, "xx", {}, "quick")


def test_recorded_dirs_list_full_then_reference(tmp_path, monkeypatch):
    monkeypatch.setattr(claims, "for_chapter", lambda chapter, results: [])
    monkeypatch.setattr(claims, "rule_hash", lambda chapter: "r1")
    assert report.recorded_dirs("xx", tmp_path) == []
    report.save_results(tmp_path / "results" / "reference" / "xx", "xx", {}, "reference")
    assert report.recorded_dirs("xx", tmp_path) == [tmp_path / "results" / "reference" / "xx"]
    report.save_results(tmp_path / "results" / "full" / "xx", "xx", {}, "full")
    assert report.recorded_dirs("xx", tmp_path) == [tmp_path / "results" / p / "xx" for p in ("full", "reference")]


def test_a_figure_is_shown_beside_the_recorded_runs_figures(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from IPython import display as ipd

    shown = []
    monkeypatch.setattr(ipd, "display", lambda obj: shown.append(obj))
    root = tmp_path / "book"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "profiles.yml").write_text("reference: {}\n")
    monkeypatch.setenv(report.ROOT_ENV, str(root))
    run = report.ChapterRun("03_x", tmp_path / "out", "quick")
    recorded = root / "results" / "reference" / "03_x"
    recorded.mkdir(parents=True)
    (recorded / "results.json").write_text(json.dumps({"chapter": "03_x", "results": {}, "claims": []}))
    (recorded / "provenance.json").write_text(json.dumps({"date": "2026-11-26", "device": "cpu",
                                                          "parameters": {}}))
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    fig.savefig(recorded / "fig1.png")
    assert run.show_figure(fig, "fig1") is None
    assert (tmp_path / "out" / "fig1.png").is_file() and len(shown) == 1
    markup = shown[0].data
    # the recorded run's tab first and open, this run's last, both images inline
    assert markup.index("reference run (2026-11-26, cpu)") < markup.index("this run (quick)")
    assert markup.count("data:image/png;base64,") == 2 and "<input checked" in markup
    # a figure that no run recorded is shown alone, as plt.show() shows it
    fig2, _ = plt.subplots()
    monkeypatch.setattr(plt, "show", lambda: shown.append("plt.show"))
    run.show_figure(fig2, "fig2")
    assert shown[-1] == "plt.show"
    # the end-of-chapter recording points to the figure shown in place instead of repeating it
    shown.clear()
    run.show_reference()
    texts = [getattr(obj, "data", "") for obj in shown]
    assert any("`fig1` are shown in place above" in t for t in texts)
    assert not any(type(obj).__name__ == "Image" for obj in shown)
