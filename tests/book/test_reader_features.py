"""What readers of an executable book expect: run boxes, downloads, a citation file."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

import seqmi
from seqmi import book, claims

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = book.chapters(ROOT)
PAPERS = ("shen2019", "chen2025l2m", "kerg2020", "nandakumar2025")


def _box_root(tmp_path: Path) -> Path:
    """A book root with one chapter, three profiles and two recorded runs."""
    root = tmp_path / "root"
    (root / "notebooks").mkdir(parents=True)
    shutil.copy2(book.chapter_path(ROOT, CHAPTERS[0]), root / "notebooks" / f"{CHAPTERS[0]}.md")
    (root / "notebooks" / "profiles.yml").write_text(f"full: {{{CHAPTERS[0]}: {{}}}}\nreference: {{{CHAPTERS[0]}: {{}}}}\n")
    runs = {root / "_build" / "quick" / "artifacts": {"wall_s": 12.3, "device": "cpu", "date": "2026-01-02"},
            root / "results" / "full": {"wall_s": 840.0, "device": "cuda (NVIDIA H100)", "date": "2026-01-01"}}
    for folder, prov in runs.items():
        (folder / CHAPTERS[0]).mkdir(parents=True)
        (folder / CHAPTERS[0] / "provenance.json").write_text(json.dumps({**prov, "machine": "x86_64, 2 CPU cores"}))
    return root


def test_run_box_reads_profiles_and_recorded_runs(tmp_path):
    root = _box_root(tmp_path)
    box = book.run_box(root, CHAPTERS[0], "quick")
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in box.splitlines() if line.startswith("| ") and "---" not in line}
    assert list(rows) == ["profile", "quick", "reference", "full"]
    short = CHAPTERS[0][:2]
    assert f"`python -m seqmi.book execute --profile PROFILE --only {short}`" in box
    # folded, under a title that gives every profile's recorded time
    assert box.splitlines()[:2] == [":::{admonition} Run this chapter: quick 12 s, reference not recorded, "
                                    "full 14 min on a GPU", ":class: tip, dropdown"]
    assert rows["quick"] == ["12 s, cpu, 2 cores, 2026-01-02", "no"]
    assert rows["full"] == ["14 min, NVIDIA H100, 2026-01-01", "yes"]
    assert rows["reference"] == ["not recorded", "no"]  # sized for two CPU cores
    # building the full book: its own run comes from this build, quick is then not recorded
    (root / "_build" / "full" / "artifacts" / CHAPTERS[0]).mkdir(parents=True)
    full_box = book.run_box(root, CHAPTERS[0], "full")
    assert "| quick | not recorded | no |" in full_box


def test_run_box_gives_a_resumed_runs_total_and_its_passes(tmp_path):
    root = _box_root(tmp_path)
    folder = root / "results" / "reference" / CHAPTERS[0]
    folder.mkdir(parents=True)
    passes = [{"wall_s": w} for w in (2998.0, 2937.0, 2826.0, 1501.2)]
    folder.joinpath("provenance.json").write_text(json.dumps(
        {"wall_s": 1501.2, "passes": passes, "device": "cpu", "machine": "x86_64, 2 CPU cores", "date": "2026-11-26"}))
    box = book.run_box(root, CHAPTERS[0], "quick")
    assert "| reference | 2.9 h in 4 passes, cpu, 2 cores, 2026-11-26 | no |" in box


def test_an_execution_records_its_passes_until_no_point_is_pending(tmp_path, monkeypatch):
    # the chapter's sweeps log what they left pending; a pass that leaves some is continued
    # by the next execution with the same parameters, and the provenance lists every pass
    import seqmi.passes

    pending = iter([3, 0])

    def fake_run(notebook, executed, parameters, root):
        seqmi.passes.log_sweep("binary", 1, next(pending), 1, 0.5)
        executed.write_text("{}")

    monkeypatch.setattr(book._running, "run_notebook", fake_run)
    out = tmp_path / "out"
    for expected in (1, 2):
        book.execute(ROOT, "quick", [CHAPTERS[0]], out=out)
        prov = json.loads((out / "artifacts" / CHAPTERS[0] / "provenance.json").read_text())
        assert len(prov["passes"]) == expected
    assert [p["pending"] for p in prov["passes"]] == [3, 0]
    assert seqmi.passes.SWEEP_LOG_ENV not in __import__("os").environ

def test_run_box_goes_under_the_title(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title\n\nFirst paragraph."),
                                         nbformat.v4.new_code_cell("x = 1")])
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    book._stage_chapter(path, tmp_path / "staged.ipynb", ":::{admonition} Run this chapter\nbody\n:::")
    cells = json.loads((tmp_path / "staged.ipynb").read_text())["cells"]
    assert "".join(cells[0]["source"]) == "# Title\n\n:::{admonition} Run this chapter\nbody\n:::\n\nFirst paragraph."
    assert "".join(cells[1]["source"]) == "x = 1"



def test_a_folded_cell_is_labelled_by_its_first_comment(tmp_path):
    import nbformat

    def code(source, tags):
        return nbformat.v4.new_code_cell(source, metadata={"tags": tags})

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Title"),
        code("# Set-up: the libraries {and} threads\nimport os", ["setup", "hide-input"]),
        code("n: int = 3  # size", ["parameters", "hide-input"]),  # the parameter cells: named
        code("# Parameters\nn = 4", ["injected-parameters", "hide-input"]),
        code("z = 0", ["hide-input"]),  # no comment first: the default toggle
        code("# Solution: a hint\nx = 1", ["hide-cell"]),  # a solution's toggle gives nothing away
        code("# shown\ny = 2", [])])
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    book._stage_chapter(path, tmp_path / "staged.ipynb", ":::{admonition} Run this chapter\nbody\n:::")
    cells = json.loads((tmp_path / "staged.ipynb").read_text())["cells"]
    prompts = [c["metadata"].get("mystnb", {}).get("code_prompt_show") for c in cells[1:]]
    assert prompts == ["Set-up: the libraries {{and}} threads", book.PARAMETER_LABELS["parameters"],
                       book.PARAMETER_LABELS["injected-parameters"], None, None, None]
    assert "Set-up: the libraries {{and}} threads".format() == "Set-up: the libraries {and} threads"

def test_citation_file_matches_the_book_and_cites_the_papers():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert cff["title"] == config["title"]
    assert cff["version"] == seqmi.__version__
    bib = (ROOT / "book" / "references.bib").read_text()
    titles = {key: re.search(r"@\w+\{" + key + r",.*?title\s*=\s*\{(.*?)\},\n", bib, re.S).group(1) for key in PAPERS}
    cited = [ref["title"] for ref in cff["references"]]
    for key, title in titles.items():
        plain = re.sub(r"[{}$]", "", title)
        assert plain in cited, f"CITATION.cff does not cite {key} ({plain})"
    intro = (ROOT / "book" / "intro.md").read_text()
    how = intro[intro.index("## How to cite"):]
    for key in (*PAPERS, "seqmi2026"):
        assert key in how, f"the introduction's How to cite does not cite {key}"


@pytest.mark.book
def test_chapter_pages_have_run_box_and_both_downloads(book_run):
    html = book_run.html().parent
    for chapter in CHAPTERS:
        page = (html / "notebooks" / f"{chapter}.html").read_text()
        # the article's title, then at once the box (the page's first </h1> is the print table of contents)
        # folded (a dropdown) under a title that gives each profile's recorded time
        assert re.search(r'<article .*?</h1>\s*<div class="tip dropdown admonition">\s*'
                         r'<p class="admonition-title">Run this chapter: quick \d', page, re.S), \
            f"{chapter}: no run box right under the title"
        sources = dict(re.findall(r'<a href="(\.\./_sources/notebooks/[^"]+\.(md|ipynb))"', page))
        downloads = {suffix: (html / "notebooks" / href).resolve() for href, suffix in sources.items()}
        assert set(downloads) == {"md", "ipynb"}, f"{chapter}: download menu offers {sorted(downloads)}"
        assert downloads["md"].read_text() == book.chapter_path(ROOT, chapter).read_text()
        executed = json.loads(downloads["ipynb"].read_text())
        assert any(cell.get("outputs") for cell in executed["cells"]), f"{chapter}: the .ipynb is not executed"


def test_reclaim_decides_recorded_claims_again_and_keeps_their_history(tmp_path):
    from seqmi.report import decided

    root = _box_root(tmp_path)
    shutil.copy2(ROOT / "_toc.yml", root / "_toc.yml")
    numbers = json.loads((ROOT / "results" / "full" / CHAPTERS[0] / "results.json").read_text())["results"]
    today = decided(CHAPTERS[0], numbers)
    first = today["claims"][0]
    # recorded before rules were hashed, one verdict since changed by its rule
    stale = {"chapter": CHAPTERS[0], "results": numbers,
             "claims": [{**first, "verdict": "inconclusive", "scale": "old"}, *today["claims"][1:]]}
    target = root / "results" / "full" / CHAPTERS[0] / "results.json"
    target.write_text(json.dumps(stale))
    [(path, moved)] = book.reclaim(root, "full")
    assert path == target and moved == [{"id": first["id"],
                                         "before": {"kind": first["kind"], "verdict": "inconclusive",
                                                    "value": first["value"], "ci": first["ci"]},
                                         "after": {k: first[k] for k in ("kind", "verdict", "value", "ci")}}]
    again = json.loads(target.read_text())
    # numbers untouched, claims as today's rules decide them, and the data's rules unknown
    assert {k: again[k] for k in ("results", "claims", "rule_hash")} == {k: today[k] for k in ("results", "claims",
                                                                                               "rule_hash")}
    assert again["data_rule_hash"] == claims.UNHASHED
    assert again["reclaims"][0]["moved"] == moved and again["reclaims"][0]["to_rule"] == today["rule_hash"]
    # decided again with the same rules: nothing moved, nothing added to the history
    assert book.reclaim(root, "full") == [(target, [])]
    assert json.loads(target.read_text())["reclaims"] == again["reclaims"]
    with pytest.raises(book.BookError, match="unknown profile 'ful'"):
        book.reclaim(root, "ful")
