"""The book pipeline: chapter rules, the CLI, the staged build and its failure modes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from seqmi import book, profiles, report

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = book.chapters(ROOT)


def test_toc_lists_chapters_that_exist():
    assert CHAPTERS, "the _toc.yml lists no chapter"
    for chapter in CHAPTERS:
        assert book.chapter_path(ROOT, chapter).is_file()
        assert chapter[:2].isdigit() and chapter[2] == "_"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_parameters_cell_rules(chapter):
    params = book.declared_parameters(book.read_chapter(ROOT, chapter))
    for name in book.REQUIRED_PARAMETERS:
        assert name in params, f"{chapter} does not declare {name!r}"
    assert params["device"].default == "auto"
    assert params["profile"].default == profiles.DEFAULT_PROFILE  # a run by hand; the executor sets it
    for p in params.values():
        assert p.help, f"{chapter}: parameter {p.name} has no `# help` comment"
        assert type(p.default).__name__ == p.type, f"{chapter}: {p.name} annotated {p.type}, default {p.default!r}"


def test_profiles_only_set_declared_parameters():
    table = report.profile_table(ROOT)
    assert set(table) <= set(book.PROFILES)
    for profile, chapters in table.items():
        assert set(chapters) <= set(CHAPTERS), f"{profile} names unknown chapters"
        for chapter, overrides in chapters.items():
            book.check_overrides(ROOT, chapter, overrides)
            assert "out_dir" not in overrides and "profile" not in overrides


def test_undeclared_or_mistyped_override_is_rejected():
    with pytest.raises(book.BookError, match=r"undeclared parameter\(s\) \['n_sqe'\]"):
        book.check_overrides(ROOT, CHAPTERS[0], {"n_sqe": 3})
    with pytest.raises(book.BookError, match="not of the declared type"):
        book.check_overrides(ROOT, CHAPTERS[0], {"seed": "zero"})


def test_execute_passes_each_chapter_its_profile_and_lets_nothing_override_it(tmp_path, monkeypatch):
    passed = []
    monkeypatch.setattr(book._running, "run_notebook", lambda notebook, executed, parameters, root: passed.append(parameters))
    book.execute(ROOT, "quick", [CHAPTERS[0]], out=tmp_path)
    assert passed[0]["profile"] == "quick"
    provenance = json.loads((tmp_path / "artifacts" / CHAPTERS[0] / "provenance.json").read_text())
    assert provenance["profile"] == "quick" and "profile" not in provenance["parameters"]
    with pytest.raises(book.BookError, match="profile is set by execute"):
        book.execute(ROOT, "quick", [CHAPTERS[0]], {"profile": "full"}, out=tmp_path)
    assert len(passed) == 1


def test_overrides_from_the_command_line_are_typed_like_papermill():
    got = book.cli_overrides(pairs=[["max_lag", "40"], ["q", "0.2"], ["device", "cpu"], ["flag", "True"]],
                             raw=[["name", "40"]], yaml_texts=["max_lag: 10\nradii: [0.5, 0.9]"])
    assert got == {"max_lag": 40, "radii": [0.5, 0.9], "q": 0.2, "device": "cpu", "flag": True, "name": "40"}
    with pytest.raises(book.BookError, match="expected a mapping of parameter names"):
        book.cli_overrides(yaml_texts=["- 1"])


def test_bad_override_names_what_is_allowed():
    chapter = "00_mutual_information"
    with pytest.raises(book.BookError, match=r"undeclared parameter\(s\) \['max_lagg'\]; declared: n_seq: int"):
        book.check_overrides(ROOT, chapter, {"max_lagg": 40}, "-p")
    with pytest.raises(book.BookError, match="max_lag='forty' is not of the declared type int; max_lag must be an int"):
        book.check_overrides(ROOT, chapter, {"max_lag": "forty"}, "-p")
    with pytest.raises(book.BookError, match=r"device='gpu' is not allowed; device must be one of \"auto\", \"cpu\""):
        book.check_overrides(ROOT, chapter, {"device": "gpu"}, "-p")
    # papermill types `-p q 1` as an int: a float parameter takes it as 1.0
    assert book.check_overrides(ROOT, chapter, {"q": 1, "max_lag": 40}, "-p") == {"q": 1.0, "max_lag": 40}
    proc = subprocess.run([sys.executable, "-m", "seqmi.book", "execute", "--only", "00", "-p", "max_lag", "4.5"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1 and "max_lag=4.5 is not of the declared type int" in proc.stderr


def test_list_agrees_with_papermill_help_notebook(tmp_path):
    import jupytext
    import papermill

    listed = subprocess.run([sys.executable, "-m", "seqmi.book", "list"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    for chapter in CHAPTERS:
        ipynb = tmp_path / f"{chapter}.ipynb"
        jupytext.write(book.read_chapter(ROOT, chapter), ipynb)
        inferred = papermill.inspect_notebook(str(ipynb))
        ours = book.declared_parameters(book.read_chapter(ROOT, chapter))
        assert list(inferred) == list(ours), f"{chapter}: parameter names differ from papermill's"
        for name, p in inferred.items():
            assert (p["inferred_type_name"], p["default"], p["help"]) == \
                (ours[name].type, ours[name].literal, ours[name].help), f"{chapter}.{name}"
            line = f"  {name}: {p['inferred_type_name']} (default {p['default']})  {p['help']}"
            assert line in listed.splitlines(), f"`list` does not show {line!r}"
    # the papermill command line itself, on one chapter
    proc = subprocess.run([str(Path(sys.executable).with_name("papermill")), "--help-notebook",
                           str(tmp_path / f"{CHAPTERS[0]}.ipynb")], capture_output=True, text=True, check=True)
    assert "device: str (default \"auto\")" in proc.stdout
    assert 'allowed: one of "auto", "cpu", "cuda"' in listed


def test_parameters_cell_must_come_first():
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x: int = 1")])
    with pytest.raises(book.BookError, match="tagged 'parameters'"):
        book.declared_parameters(nb)
    nb.cells[0].metadata["tags"] = ["parameters"]
    nb.cells[0].source = "x = 1"
    with pytest.raises(book.BookError, match="only `name: type = literal`"):
        book.declared_parameters(nb)


def test_cli_rejects_unknown_chapter_and_profile():
    with pytest.raises(book.BookError, match="unknown chapter 'nope'; known chapters"):
        book.select(ROOT, ["nope"])
    assert book.select(ROOT, [CHAPTERS[0][:2]]) == [CHAPTERS[0]]
    proc = subprocess.run([sys.executable, "-m", "seqmi.book", "execute", "--only", "99"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1 and "unknown chapter '99'" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "seqmi.book", "execute", "--profile", "huge"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "invalid choice: 'huge'" in proc.stderr


def test_no_notebook_is_committed():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(["git", "ls-files", "*.ipynb"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
    assert tracked == ""


@pytest.mark.book
def test_staged_book_builds_with_every_chapter(book_run):
    index = book_run.html()
    html = index.parent
    assert index.is_file()
    for chapter in CHAPTERS:
        page = html / "notebooks" / f"{chapter}.html"
        assert page.is_file(), f"{chapter} was not rendered"
        text = page.read_text()
        assert "<img" in text, f"{chapter} shows no figure"
        # the claims table is a Markdown output: it must render as a table, not as pipes
        assert re.search(r"<th[^>]*>(<p>)?\s*verdict\s*(</p>)?</th>", text), f"{chapter}: no rendered claims table"
        assert "| claim | source |" not in text, f"{chapter}: claims table left as raw Markdown"
        # no output shows a path of the machine that ran it; the cell papermill injects is folded
        assert "PosixPath(" not in text, f"{chapter} shows a local path"
        assert re.search(r'class="cell tag_injected-parameters tag_hide-input[^"]*"', text), chapter
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert "cdn.jsdelivr" not in (html / "book" / "intro.html").read_text()


def _tiny_book(tmp_path: Path, chapter_code: str, prose: str = "Some text.") -> Path:
    """A two-page book (prose + one chapter) sharing this repo's config and MathJax."""
    root = tmp_path / "tiny"
    (root / "book").mkdir(parents=True)
    (root / "notebooks").mkdir()
    shutil.copy2(ROOT / "_config.yml", root / "_config.yml")
    shutil.copytree(ROOT / "_static", root / "_static")
    shutil.copy2(ROOT / "book" / "references.bib", root / "book" / "references.bib")
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n"
                                   "  - file: notebooks/00_tiny\n")
    (root / "book" / "intro.md").write_text(f"# Tiny\n\n{prose}\n")
    (root / "notebooks" / "profiles.yml").write_text("full: {}\n")
    (root / "notebooks" / "00_tiny.md").write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n    format_version: 0.13\n"
        "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n"
        "# Tiny chapter\n\n```{code-cell} ipython3\n:tags: [parameters]\n\n"
        "seed: int = 0  # seed\ndevice: str = \"auto\"  # device\nout_dir: str = \".\"  # output\n```\n\n"
        f"```{{code-cell}} ipython3\n{chapter_code}\n```\n")
    return root


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "seqmi.book", "--root", str(root), *args],
                          capture_output=True, text=True)


@pytest.mark.book
def test_failing_chapter_fails_the_build(tmp_path):
    root = _tiny_book(tmp_path, 'raise RuntimeError("chapter is broken")')
    executed = _cli(root, "execute")
    assert executed.returncode == 1 and "chapter(s) failed: 00_tiny" in executed.stderr
    built = _cli(root, "build")
    assert built.returncode == 1
    assert "00_tiny: execution failed: RuntimeError: chapter is broken" in built.stderr
    assert not (root / "_build" / "quick" / "book").exists()


@pytest.mark.book
def test_broken_reference_fails_the_build(tmp_path):
    root = _tiny_book(tmp_path, "print('fine')", prose="See {doc}`missing_page`.")
    assert _cli(root, "execute").returncode == 0
    built = _cli(root, "build")
    assert built.returncode == 1
    assert "missing_page" in built.stdout + built.stderr
    ok = _tiny_book(tmp_path / "ok", "print('fine')")
    assert _cli(ok, "execute").returncode == 0
    built = _cli(ok, "build")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]


def test_partial_toc_keeps_prose_and_selected_chapters():
    toc = {"format": "jb-book", "root": "book/intro", "parts": [
        {"caption": "A", "chapters": [{"file": "book/notation"}, {"file": "notebooks/00_a"}]},
        {"caption": "B", "chapters": [{"file": "notebooks/01_b"}]},
    ]}
    kept = book._filter_toc(toc, {"00_a"})
    assert kept["parts"] == [{"caption": "A", "chapters": [{"file": "book/notation"}, {"file": "notebooks/00_a"}]}]


@pytest.mark.book
def test_execute_sets_parameters_like_papermill(tmp_path):
    root = _tiny_book(tmp_path, 'print(f"seed is {seed}, device is {device}")')
    bad = _cli(root, "execute", "-p", "sead", "7")
    assert bad.returncode == 1 and "undeclared parameter(s) ['sead']; declared: seed: int" in bad.stderr
    assert not (root / "_build" / "quick" / "executed").exists(), "a rejected override must stop before executing"
    done = _cli(root, "execute", "-y", "seed: 5\ndevice: cpu", "-p", "seed", "7")
    assert done.returncode == 0, done.stderr[-3000:]
    executed = (root / "_build" / "quick" / "executed" / "00_tiny.ipynb").read_text()
    assert "seed is 7, device is cpu" in executed  # -p wins over -y, as in papermill
    provenance = json.loads((root / "_build" / "quick" / "artifacts" / "00_tiny" / "provenance.json").read_text())
    assert provenance["parameters"] == {"seed": 7, "device": "cpu"}


@pytest.mark.book
def test_provenance_names_the_commit_the_chapter_started_from(tmp_path):
    # the chapter edits the tree while it runs, as a developer may during a long run
    root = _tiny_book(tmp_path, 'open("notebooks/edited.md", "w").write("changed while running")')
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "tiny"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    assert _cli(root, "execute").returncode == 0
    provenance = json.loads((root / "_build" / "quick" / "artifacts" / "00_tiny" / "provenance.json").read_text())
    assert provenance["commit"] == head and (root / "notebooks" / "edited.md").is_file()


@pytest.mark.book
def test_readme_plain_papermill_recipe(tmp_path):
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(mkdir -p _build/mine\n.*?)```", readme, re.S)
    assert block, "README lost its plain jupytext | papermill recipe"
    script = block.group(1).replace(".venv/bin/", f"{Path(sys.executable).parent}/")
    script = script.replace("_build/mine", str(tmp_path / "mine"))
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    executed = json.loads((tmp_path / "mine" / "00.ipynb").read_text())
    injected = [c for c in executed["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert injected and "max_lag = 40" in "".join(injected[0]["source"])
    results = json.loads((tmp_path / "mine" / "00" / "results.json").read_text())
    assert results["chapter"] == "00_mutual_information"


def test_a_section_notebook_keeps_parameters_setup_and_its_own_cells():
    from seqmi.book import BookError, find_root, section_notebook

    root = find_root(Path(__file__).parent)
    notebook = section_notebook(root, "04_bipartite_mi_l2m", "l2m-exact")
    tags = [c.metadata.get("tags", []) for c in notebook.cells]
    # set-up cells, folded or not (the one a reader sees, then imports and checks behind toggles)
    setup = ["setup" in t for t in tags[1:]].index(False) + 1
    assert tags[0] == ["parameters", "hide-input"] and setup >= 4
    assert all(t == ["section-l2m-exact"] for t in tags[setup:-1]) and len(tags) > setup + 2
    assert "save_numbers" in notebook.cells[-1].source
    with pytest.raises(BookError, match="no section 'nope'.*l2m-exact"):
        section_notebook(root, "04_bipartite_mi_l2m", "nope")


@pytest.mark.book
def test_record_section_merges_one_section_into_a_recorded_run(tmp_path, monkeypatch):
    from seqmi import claims

    root = _tiny_book(tmp_path, "print('unused')")
    (root / "notebooks" / "00_tiny.md").write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
        "    format_version: 0.13\nkernelspec:\n  display_name: Python 3\n  language: python\n"
        "  name: python3\n---\n\n# Tiny\n\n```{code-cell} ipython3\n:tags: [parameters]\n\n"
        "seed: int = 0  # seed\nsize: int = 1  # a new section's parameter\n"
        "out_dir: str = \".\"  # output\n```\n\n"
        "```{code-cell} ipython3\n:tags: [setup]\n\nfrom seqmi import report\nresults = {}\n```\n\n"
        "```{code-cell} ipython3\nresults['untouched'] = 1 / 0  # not in the section: never runs\n```\n\n"
        "```{code-cell} ipython3\n:tags: [section-extra]\n\nresults['extra'] = seed * size\n```\n")
    (root / "notebooks" / "profiles.yml").write_text("reference:\n  00_tiny:\n    seed: 3\n    size: 5\n")
    folder = root / "results" / "reference" / "00_tiny"
    folder.mkdir(parents=True)
    history = [{"date": "2026-01-01", "from_rule": "r0", "to_rule": "r1", "moved": []}]
    (folder / "results.json").write_text(json.dumps({"chapter": "00_tiny", "results": {"old": 2}, "claims": [],
                                                     "data_rule_hash": "r0", "rule_hash": "r1",
                                                     "reclaims": history}))
    (folder / "provenance.json").write_text(json.dumps({"commit": "abc", "profile": "reference",
                                                        "parameters": {"seed": 1}}))
    monkeypatch.setattr(claims, "for_chapter", lambda chapter, results: [])
    monkeypatch.setattr(claims, "rule_hash", lambda chapter: "r2")
    book.record_section(root, "reference", "00_tiny", "extra")
    payload = json.loads((folder / "results.json").read_text())
    merged = payload["results"]
    assert merged["old"] == 2 and merged["extra"] == 15 and "untouched" not in merged
    # the recorded numbers keep the rules they first met, and the recording its history
    assert (payload["data_rule_hash"], payload["rule_hash"], payload["reclaims"]) == ("r0", "r2", history)
    provenance = json.loads((folder / "provenance.json").read_text())
    # the whole run keeps its seed; the section's record says what it ran with
    assert provenance["parameters"] == {"seed": 1, "size": 5} and provenance["commit"] == "abc"
    assert provenance["sections"]["extra"]["parameters"]["seed"] == 3
    assert provenance["sections"]["extra"]["reads"] == ["seed", "size"]
    # a section executed elsewhere (its folder carried back) begins a recording where there is none
    shutil.rmtree(folder)
    executed = book.build_dir(root, "reference") / "sections" / "00_tiny" / "extra"
    book.merge_section(root, "reference", "00_tiny", "extra", executed)
    begun = json.loads((folder / "results.json").read_text())
    assert begun["results"] == {"profile": "reference", "extra": 15} and begun["data_rule_hash"] == "r2"
    provenance = json.loads((folder / "provenance.json").read_text())
    assert provenance["whole_run"] is False and list(provenance["sections"]) == ["extra"]
    assert provenance["parameters"]["size"] == 5
    with pytest.raises(book.BookError, match="ran at profile 'reference', not 'full'"):
        book.merge_section(root, "full", "00_tiny", "extra", executed)


def test_a_notebook_runs_on_a_local_ipc_kernel_without_the_tcp_warning(tmp_path, capfd):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("print(x + 1)")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    out = tmp_path / "out.ipynb"
    book.run_notebook(nb, out, {"x": 41}, tmp_path)
    done = nbformat.read(out, as_version=4)
    assert done.cells[-1].outputs[0]["text"] == "42\n"
    assert "without encryption" not in capfd.readouterr().err
    assert not list(tmp_path.glob("kernel*")), "the sockets live in a temporary folder, not in the working one"
