"""The scoreboard reads each chapter's largest run and counts verdicts per paper."""

import json

from seqmi import claims, report
from seqmi.claims import scoreboard


DESIGN = claims.Design("a power law", "logarithmic growth", "likelihood ratio", "chapters", "0.8 at beta = 0.3")


def _write(folder, verdicts, commit="abc", old=False, profile=None, hashes=("r1", "r1")):
    folder.mkdir(parents=True)
    rows = [claims.Claim(f"shen2019.x.c{i}", "Fig. 1", "s", "statistical", 0.5, [0.1, 0.9], "r", v, "",
                         "quick: n = 1", design=DESIGN).as_dict() for i, v in enumerate(verdicts)]
    if old:
        rows = [{"claim": "s", "source": "Fig. 1", "measured": "0.5", "verdict": "reproduced"}]
    (folder / "results.json").write_text(json.dumps({"chapter": folder.name, "results": {}, "claims": rows,
                                                     "data_rule_hash": hashes[0], "rule_hash": hashes[1]}))
    (folder / "provenance.json").write_text(json.dumps({"commit": commit, "profile": profile or folder.parent.name}))


def test_largest_current_run_wins(tmp_path):
    root, live = tmp_path / "book", tmp_path / "out" / "artifacts"
    _write(root / "results" / "full" / "00_a", ["reproduced"], commit="full000000")
    _write(root / "results" / "reference" / "00_a", ["inconclusive"])
    # decided again by a rule edited after its numbers were first decided
    _write(root / "results" / "reference" / "01_b", ["not reproduced", "inconclusive"], commit="ref1111111",
           hashes=("r0", "r1"))
    _write(live / "01_b", ["reproduced"], profile="quick")
    _write(root / "results" / "full" / "02_c", [], old=True)  # predates the claim record
    _write(live / "02_c", ["erratum"], commit="live222222", profile="quick")
    rows = scoreboard.collect(root, ["00_a", "01_b", "02_c", "03_none"], live)
    assert [(r.chapter, r.origin, r.claim["verdict"]) for r in rows] == [
        ("00_a", "results/full", "reproduced"),
        ("01_b", "results/reference", "not reproduced"), ("01_b", "results/reference", "inconclusive"),
        ("02_c", "live quick run", "erratum")]
    text = scoreboard.markdown(rows, linked={"00_a"})
    assert "4 claims from 3 chapters: 4 exact or statistical" in text
    assert "| Shen 2019 | 1 | 1 | 1 | 1 | 4 | 0 |" in text
    assert [r.rule_changed for r in rows] == [False, True, True, False]
    assert "| {bdg-danger}`not reproduced` † | reference |" in text
    assert "{ref}`00 <claims-00_a>`" in text and "<claims-01_b>" not in text
    assert "results/full (full000000)" in text
    # each row also gives the claim's verdict in the chapter's other current runs
    assert [r.elsewhere for r in rows] == [(("results/reference", "inconclusive"),),
                                           (("live quick run", "reproduced"),), (), ()]
    assert ("read from results/full (full000000). *Scale:* quick: n = 1. *h1:* a power law. *h0:* logarithmic "
            "growth. *test:* likelihood ratio. *unit:* chapters. *power:* 0.8 at beta = 0.3. *Other runs:* "
            "results/reference: inconclusive.") in text
    # the table keeps the columns a reader scans, the paper in one word, the verdict as a
    # badge, inside the block that lets its ids wrap
    assert f":::{{div}} {scoreboard.TABLE_CLASS}\n| id | paper |" in text
    assert "| `shen2019.x.c0` | Shen | statistical | {bdg-success}`reproduced` | full | {ref}`00 <claims-00_a>` |" \
        in text


def test_each_claim_comes_from_the_largest_run_that_computed_it(tmp_path):
    # a full recording begun with one section holds only the first claim of the chapter
    root = tmp_path / "book"
    _write(root / "results" / "full" / "00_a", ["reproduced"], commit="full000000")
    _write(root / "results" / "reference" / "00_a", ["inconclusive", "not reproduced", "inconclusive"],
           commit="ref1111111")
    rows = scoreboard.collect(root, ["00_a"], None)
    assert [(r.claim["id"], r.origin, r.commit, r.claim["verdict"], r.elsewhere) for r in rows] == [
        ("shen2019.x.c0", "results/full", "full000000", "reproduced", (("results/reference", "inconclusive"),)),
        ("shen2019.x.c1", "results/reference", "ref1111111", "not reproduced", ()),
        ("shen2019.x.c2", "results/reference", "ref1111111", "inconclusive", ())]
    assert "3 claims from 1 chapters:" in scoreboard.markdown(rows, linked=set())


def test_a_stale_recording_never_overrides_a_current_one(tmp_path):
    root, live = tmp_path / "book", tmp_path / "out" / "artifacts"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "profiles.yml").write_text(
        "full:\n  00_a: {steps: 1000, cache_dir: c}\nreference:\n  00_a: {steps: 100}\n")
    _write(root / "results" / "full" / "00_a", ["inconclusive"], commit="full000000")  # ran 20 steps
    _write(root / "results" / "reference" / "00_a", ["reproduced"], commit="ref1111111")
    _write(live / "00_a", ["not reproduced"], profile="quick")
    for profile, steps in (("full", 20), ("reference", 100)):
        prov = root / "results" / profile / "00_a" / "provenance.json"
        # execution-only parameters (the cache) never make a recording stale
        prov.write_text(json.dumps({"commit": "x", "profile": profile, "parameters": {"steps": steps}}))
    assert report.stale_parameters(root / "results" / "full" / "00_a", root) == ["steps"]
    assert report.stale_parameters(root / "results" / "reference" / "00_a", root) == []
    rows = scoreboard.collect(root, ["00_a"], live)
    assert [(r.origin, r.claim["verdict"], r.elsewhere) for r in rows] == [
        ("results/reference", "reproduced",
         (("results/full (stale)", "inconclusive"), ("live quick run", "not reproduced")))]


def test_a_section_recorded_since_counts_with_its_own_parameters(tmp_path):
    root = tmp_path / "book"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "profiles.yml").write_text("reference:\n  00_a: {steps: 100, docs: 50}\n")
    folder = root / "results" / "reference" / "00_a"
    _write(folder, ["reproduced"])
    prov = {"commit": "x", "profile": "reference", "parameters": {"steps": 100, "docs": 10},
            "sections": {"text": {"parameters": {"steps": 100, "docs": 50}, "reads": ["docs"]}}}
    (folder / "provenance.json").write_text(json.dumps(prov))
    assert report.stale_parameters(folder, root) == []
    prov["sections"]["text"]["parameters"]["docs"] = 20
    (folder / "provenance.json").write_text(json.dumps(prov))
    assert report.stale_parameters(folder, root) == ["docs"]
    # a section holds today's value of every parameter, but vouches only for those it reads
    prov["sections"]["text"].update(parameters={"steps": 100, "docs": 50}, reads=["steps"])
    (folder / "provenance.json").write_text(json.dumps(prov))
    assert report.stale_parameters(folder, root) == ["docs"]


def test_of_two_stale_recordings_the_one_nearer_todays_profile_comes_first(tmp_path):
    root = tmp_path / "book"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "profiles.yml").write_text(
        "full:\n  00_a: {steps: 1000, seeds: 5, lr: 0.1}\nreference:\n  00_a: {steps: 100, seeds: 5, lr: 0.1}\n")
    _write(root / "results" / "full" / "00_a", ["inconclusive"])
    _write(root / "results" / "reference" / "00_a", ["reproduced"])
    # the full recording predates three of today's values, the reference one one of them
    for profile, params in (("full", {"steps": 20, "seeds": 1, "lr": 0.2}), ("reference", {"steps": 100, "seeds": 3,
                                                                                           "lr": 0.1})):
        prov = root / "results" / profile / "00_a" / "provenance.json"
        prov.write_text(json.dumps({"commit": "x", "profile": profile, "parameters": params}))
    rows = scoreboard.collect(root, ["00_a"], None)
    assert [(r.origin, r.claim["verdict"], r.elsewhere) for r in rows] == [
        ("results/reference (stale)", "reproduced", (("results/full (stale)", "inconclusive"),))]
