"""The scoreboard reads each chapter's largest run and counts verdicts per paper."""

import json
import shutil

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


HEADER = ("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
          "    format_version: 0.13\nkernelspec:\n  display_name: Python 3\n  language: python\n"
          "  name: python3\n---\n\n# A\n")


def _chapter(root, *cells):
    """``notebooks/00_a.md`` of ``(tags, source)`` code cells, after a parameters and a setup cell."""
    cells = ((["parameters"], "seed: int = 0\nsteps: int = 10\nsize: int = 1\nrate: int = 0\nout_dir: str = '.'"),
             (["setup"], "results = {}\nnew_settings = dict(size=size)"), *cells)
    text = HEADER + "".join(f"\n```{{code-cell}} ipython3\n:tags: {tags}\n\n{source}\n```\n" for tags, source in cells)
    (root / "notebooks" / "00_a.md").write_text(text)


def _recorded(root, profile_text, provenance, numbers):
    (root / "notebooks").mkdir(parents=True, exist_ok=True)
    (root / "notebooks" / "profiles.yml").write_text(profile_text)
    folder = root / "results" / "reference" / "00_a"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps({"chapter": "00_a", "results": numbers, "claims": []}))
    (folder / "provenance.json").write_text(json.dumps(provenance))
    return folder


OLD_CELLS = ((["section-old"], "results['old'] = seed * steps"),)
# the section added after the recording: it reads `size` through the setup cell
NEW_CELL = (["section-new"], "results['new'] = new_settings['size']")
RAN = {"commit": "x", "profile": "reference", "parameters": {"seed": 0, "steps": 10}, "sections_run": ["old"]}


def test_a_parameter_only_a_section_never_run_reads_does_not_make_a_recording_stale(tmp_path):
    root = tmp_path / "book"
    folder = _recorded(root, "reference:\n  00_a: {steps: 10, size: 5}\n", RAN, {"old": 0})
    _chapter(root, *OLD_CELLS, NEW_CELL)
    assert report.stale_parameters(folder, root) == []
    # read also by a cell outside every section (every whole run ran it): stale
    _chapter(root, *OLD_CELLS, NEW_CELL, ([], "print(new_settings)"))
    assert report.stale_parameters(folder, root) == ["size"]
    # read also by a section the recording ran: stale
    _chapter(root, (["section-old"], "results['old'] = seed * steps * size"), NEW_CELL)
    assert report.stale_parameters(folder, root) == ["size"]


def test_a_section_tagged_after_the_recording_ran_its_cells_counts_as_run(tmp_path):
    # the recording holds the new section's number: its cells ran in it, untagged then
    root = tmp_path / "book"
    folder = _recorded(root, "reference:\n  00_a: {steps: 10, size: 5}\n", RAN, {"old": 0, "new": 1})
    _chapter(root, *OLD_CELLS, NEW_CELL)
    assert report.stale_parameters(folder, root) == ["size"]


def test_a_changed_value_is_stale_whichever_sections_read_it(tmp_path):
    root = tmp_path / "book"
    folder = _recorded(root, "reference:\n  00_a: {steps: 20, size: 5, rate: 2}\n",
                       {**RAN, "parameters": {"seed": 0, "steps": 10, "size": 3}}, {"old": 0})
    _chapter(root, *OLD_CELLS, (["section-new"], "results['new'] = new_settings['size'] * rate"))
    # `size` ran with 3 though only the section never run reads it today; `rate`, new, is passed over
    assert report.stale_parameters(folder, root) == ["steps", "size"]


def test_a_recording_that_does_not_say_which_sections_it_ran_is_judged_as_before(tmp_path):
    root = tmp_path / "book"
    folder = _recorded(root, "reference:\n  00_a: {steps: 10, size: 5}\n",
                       {k: v for k, v in RAN.items() if k != "sections_run"}, {"old": 0})
    _chapter(root, *OLD_CELLS, NEW_CELL)
    assert report.stale_parameters(folder, root) == ["size"]


def test_merging_a_section_adds_it_to_the_sections_a_recording_ran(tmp_path, monkeypatch):
    from seqmi import book

    monkeypatch.setattr(claims, "for_chapter", lambda chapter, results: [])
    monkeypatch.setattr(claims, "rule_hash", lambda chapter: "r1")
    root = tmp_path / "book"
    folder = _recorded(root, "reference:\n  00_a: {size: 5}\n", RAN, {"old": 0})
    _chapter(root, *OLD_CELLS, NEW_CELL)
    executed = tmp_path / "executed"
    executed.mkdir()
    (executed / "section.json").write_text(json.dumps({"new": 5}))
    (executed / "provenance.json").write_text(json.dumps(
        {"commit": "y", "profile": "reference", "parameters": {"seed": 0, "steps": 10, "size": 5},
         "sections_run": ["new"]}))
    book.merge_section(root, "reference", "00_a", "new", executed)
    assert json.loads((folder / "provenance.json").read_text())["sections_run"] == ["old", "new"]
    # a recording that never said which sections it ran still does not: it stays judged as before
    legacy = {k: v for k, v in RAN.items() if k != "sections_run"}
    (folder / "provenance.json").write_text(json.dumps(legacy))
    book.merge_section(root, "reference", "00_a", "new", executed)
    assert "sections_run" not in json.loads((folder / "provenance.json").read_text())
    # one begun from the section ran that section alone
    shutil.rmtree(folder)
    book.merge_section(root, "reference", "00_a", "new", executed)
    assert json.loads((folder / "provenance.json").read_text())["sections_run"] == ["new"]


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


def test_a_reclaim_that_moved_no_claim_keeps_the_first_rules():
    """Rules rewritten without moving a verdict, value or interval still decide as the first did."""
    moved = [{"id": "x", "before": "reproduced", "after": "inconclusive"}]
    base = {"data_rule_hash": "a", "rule_hash": "c"}
    assert not scoreboard.rule_changed({**base, "reclaims": [
        {"from_rule": "a", "to_rule": "b", "moved": []}, {"from_rule": "b", "to_rule": "c", "moved": []}]})
    # a moved claim breaks the chain, even when later rewrites move nothing
    assert scoreboard.rule_changed({**base, "reclaims": [
        {"from_rule": "a", "to_rule": "b", "moved": moved}, {"from_rule": "b", "to_rule": "c", "moved": []}]})
    # a chain that does not start at the first rules says nothing about them
    assert scoreboard.rule_changed({**base, "reclaims": [{"from_rule": "b", "to_rule": "c", "moved": []}]})
    assert scoreboard.rule_changed({"rule_hash": "c"})
    assert not scoreboard.rule_changed({"data_rule_hash": "c", "rule_hash": "c"})
