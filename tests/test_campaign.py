"""The queue of decisive runs: planning a section's points, ordering runs, working through them."""

import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import papermill
import pytest
import yaml

from seqmi import campaign
from seqmi.campaign import DecisiveRun, Plan, PlannedPoint, decisive_runs, plan, queue
from seqmi.ledger import Ledger
from seqmi.sweep import plan_points, run_sweep

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "99_tiny"
SECTION_CODE = """\
def square(point, checkpoint_dir):
    return {"square": point[1] ** 2}

sweep = run_sweep([("a", i) for i in range(n_points)], square, cache_dir=cache_dir or None,
                  ledger=ledger_dir or None, spec={"n": n_points}, name="tiny", progress=False)
if sweep.pending:
    raise RuntimeError(str(sweep))
results["squares"] = [r["square"] for r in sweep.done.values()]"""


def tiny_book(tmp_path: Path) -> Path:
    """A one-chapter book whose section ``main`` sweeps six points into its ledger at the reference profile."""
    root = tmp_path / "book"
    (root / "notebooks").mkdir(parents=True)
    (root / "_toc.yml").write_text(f"format: jb-book\nroot: intro\nchapters:\n  - file: notebooks/{CHAPTER}\n")
    (root / "notebooks" / "profiles.yml").write_text(
        f"reference:\n  {CHAPTER}:\n    ledger_dir: results/points/{CHAPTER}\n")
    (root / "notebooks" / "campaign.yml").write_text(yaml.safe_dump({"runs": [{
        "name": "tiny-main", "chapter": CHAPTER, "profile": "reference", "section": "main",
        "decides": ["tiny.claim"], "pilot_core_s": {"tiny": {"a": 60.0}}}]}))
    cells = [":tags: [parameters]\n\nn_points: int = 6  # points\nledger_dir: str = \"\"  # ledger\n"
             "cache_dir: str = \"\"  # cache\nseed: int = 0  # seed\nout_dir: str = \".\"  # output",
             ":tags: [setup]\n\nfrom seqmi import report\nfrom seqmi.sweep import run_sweep\nresults = {}",
             "raise RuntimeError('not in the section: never runs')",
             f":tags: [section-main]\n\n{SECTION_CODE}"]
    (root / "notebooks" / f"{CHAPTER}.md").write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
        "    format_version: 0.13\nkernelspec:\n  display_name: Python 3\n  language: python\n"
        "  name: python3\n---\n\n# Tiny\n\n"
        + "\n\n".join(f"```{{code-cell}} ipython3\n{c}\n```" for c in cells) + "\n")
    return root


def run_here(notebook, executed, parameters, root):
    """Execute a notebook's code cells in this process (papermill's part: the parameters after their cell)."""
    namespace: dict = {}
    here = os.getcwd()
    os.chdir(root)
    try:
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            try:
                exec(cell.source, namespace)
            except Exception as err:
                raise papermill.PapermillExecutionError(0, 0, cell.source, type(err).__name__, str(err), [])
            if "parameters" in cell.metadata.get("tags", []):
                namespace.update(parameters)
    finally:
        os.chdir(here)
        plan_points(None)


def finish_points(root: Path, n: int) -> None:
    """Finish the first ``n`` of the section's points into its ledger, as an earlier run would."""
    here = os.getcwd()
    os.chdir(root)
    try:
        run_sweep([("a", i) for i in range(n)], lambda p, _: {"square": p[1] ** 2}, cache_dir=None,
                  spec={"n": 6}, name="tiny", progress=False, ledger=f"results/points/{CHAPTER}")
    finally:
        os.chdir(here)


def test_a_plan_lists_stored_and_pending_points_and_computes_none(tmp_path):
    root = tiny_book(tmp_path)
    (run,) = decisive_runs(root)
    first = plan(root, run, execute=run_here)
    assert [p.label for p in first.pending] == [f"a_{i}" for i in range(6)]
    assert all(p.core_s == 60.0 for p in first.points)  # the pilot's, until the ledger measures
    assert not (root / "results").exists()  # nothing was computed
    finish_points(root, 3)
    second = plan(root, run, execute=run_here)
    assert [p.stored for p in second.points] == [True] * 3 + [False] * 3
    # the ledger's own times replace the pilot's
    measured = [e["seconds"] for e in Ledger(root / "results" / "points" / CHAPTER).entries()]
    assert second.pending[0].core_s == pytest.approx(sum(measured) / 3)
    text = campaign.describe([second], root)
    assert "3 of 6 points pending" in text and "tiny a_5" in text and "99_tiny 3 points" in text


def test_a_section_without_a_sweep_cannot_be_planned(tmp_path):
    root = tiny_book(tmp_path)
    chapter = root / "notebooks" / f"{CHAPTER}.md"
    chapter.write_text(chapter.read_text().replace(SECTION_CODE, "results['x'] = 1"))
    with pytest.raises(RuntimeError, match="ran no sweep"):
        plan(root, decisive_runs(root)[0], execute=run_here)


def _plan(name: str, decides: int, core_s: list[float], stored: int = 0) -> Plan:
    run = DecisiveRun(name=name, chapter="03", profile="reference", section="s",
                      decides=tuple(f"c{i}" for i in range(decides)))
    points = tuple(PlannedPoint(sweep="s", label=f"p{i}", key=f"k{i}", kind="k", stored=i < stored, core_s=c)
                   for i, c in enumerate(core_s))
    return Plan(run=run, points=points)


def test_the_queue_puts_most_claims_per_core_hour_first_and_drops_finished_runs():
    cheap = _plan("cheap", 1, [600.0])  # 1 claim in 1/6 core-hour: 6 per core-hour
    broad = _plan("broad", 4, [3600.0, 3600.0])  # 4 claims in 2 core-hours: 2 per core-hour
    done = _plan("done", 9, [5.0], stored=1)
    assert [p.run.name for p in queue([broad, done, cheap])] == ["cheap", "broad"]
    assert cheap.per_core_hour == pytest.approx(6.0) and broad.core_hours == pytest.approx(2.0)


def test_a_decisive_run_checks_its_record():
    with pytest.raises(ValueError, match="'reference' or 'full'"):
        DecisiveRun(name="x", chapter="03", profile="quick", section="s", decides=("c",))
    with pytest.raises(ValueError, match="names the claims it decides"):
        DecisiveRun(name="x", chapter="03", profile="reference", section="s", decides=())


def test_the_registered_runs_name_claims_sections_and_ledgers_that_exist():
    from seqmi.book import profile_overrides, section_notebook

    for run in decisive_runs(ROOT):
        section_notebook(ROOT, run.chapter, run.section)  # raises if the section is missing
        assert profile_overrides(ROOT, run.chapter, run.profile)["ledger_dir"] == f"results/points/{run.chapter}"
        recorded = json.loads((ROOT / "results" / run.profile / run.chapter / "results.json").read_text())
        ids = {c["id"] for c in recorded["claims"]}
        assert set(run.decides) <= ids, f"{run.name}: {sorted(set(run.decides) - ids)} are no recorded claims"


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.mark.book
def test_work_finishes_a_run_commits_its_ledger_and_records_it(tmp_path, monkeypatch):
    """Half the points committed by an earlier machine; `work` computes the rest in a child run."""
    from seqmi import claims

    root = tiny_book(tmp_path)
    (root / ".gitignore").write_text("_build/\n")
    git(root, "init", "-q")
    git(root, "config", "user.email", "a@b.c")
    git(root, "config", "user.name", "a")
    finish_points(root, 3)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "a book and half a run")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    shutil.rmtree(root)
    monkeypatch.setattr(claims, "for_chapter", lambda chapter, results: [])
    monkeypatch.setattr(claims, "rule_hash", lambda chapter: "r")
    lines = campaign.work(clone, hours=0.1, commit_every_s=3600)
    assert lines == ["tiny-main: 3 points finished, 0 pending (exit status 0); recorded"]
    # the clone computed only the three points its ledger lacked
    entries = list(Ledger(clone / "results" / "points" / CHAPTER).entries())
    commits = {e["point"][1]: e["commit"] for e in entries}
    first = git(clone, "rev-list", "--max-parents=0", "HEAD").strip()
    assert all(commits[i] == first for i in (3, 4, 5)) and len(entries) == 6
    assert not git(clone, "status", "--porcelain")  # ledger and recording committed
    recorded = json.loads((clone / "results" / "reference" / CHAPTER / "results.json").read_text())
    assert recorded["results"]["squares"] == [i * i for i in range(6)]
    # the listing says the run is recorded, not that it waits to be
    run, = campaign.decisive_runs(clone)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", campaign.recorded_on(clone, run))
    text = campaign.describe([campaign.plan(clone, run)], clone)
    assert "tiny-main: all 6 points stored; recorded (" in text and "record it" not in text


def test_a_run_of_unknown_cost_goes_to_the_end_of_the_queue():
    unknown = _plan("unknown", 9, [600.0, None])
    known = _plan("known", 1, [36000.0])
    assert math.isnan(unknown.per_core_hour)
    assert [p.run.name for p in queue([unknown, known])] == ["known", "unknown"]
