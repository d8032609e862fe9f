"""The staged book: executed chapters with their run boxes, rendered by Jupyter Book.

``build`` stages a copy of the book in which every chapter is its executed notebook,
under a folded "Run this chapter" box made from recorded runs only, writes the claims
scoreboard's and the calibration page's tables, and renders it warning-free with a local
MathJax (``install_mathjax``). Re-exported by :mod:`seqmi.book`, where they are documented.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from seqmi.book._chapters import BookError, build_dir, chapter_path, chapters, select
from seqmi.claims import calibration, scoreboard
from seqmi.passes import describe, duration, total_s
from seqmi.profiles import CPU_PROFILES, PROFILES
from seqmi.report import PROVENANCE_FILE, profile_table

MATHJAX_VERSION = "3.2.2"
MATHJAX_URL = f"https://registry.npmjs.org/mathjax/-/mathjax-{MATHJAX_VERSION}.tgz"
MATHJAX_SHA1 = "c754d7b46a679d7f3fa03543d6b8bf124ddf9f6b"
MATHJAX_DIR = Path("_static") / "mathjax"


# Folders copied into the staged book next to the executed chapters.
STAGED_FOLDERS = ("book", "_static")


def stage(root: Path, profile: str, out: Path | None = None, only: list[str] | None = None) -> Path:
    """Copy the book into ``<out>/stage`` with executed chapters, execution off.

    With ``only``, the staged table of contents keeps the prose pages and just those
    chapters (a partial book for a quick look); otherwise every chapter must have run.
    """
    out = out or build_dir(root, profile)
    selected = select(root, only)
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    problems = []
    for chapter in selected:
        entry = manifest.get(chapter)
        if entry is None or not (out / "executed" / f"{chapter}.ipynb").is_file():
            problems.append(f"{chapter}: not executed (run `execute --profile {profile}` first)")
        elif entry["status"] != "ok":
            problems.append(f"{chapter}: execution failed: {entry['error']}")
        elif _has_error_output(out / "executed" / f"{chapter}.ipynb"):
            problems.append(f"{chapter}: executed notebook holds an error output")
    if problems:
        raise BookError("cannot build the book:\n  " + "\n  ".join(problems))
    staged = out / "stage"
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir(parents=True)
    config = yaml.safe_load((root / "_config.yml").read_text())
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    # the chapters' jupytext sources, offered next to the executed .ipynb (seqmi._sphinx)
    config.setdefault("sphinx", {}).setdefault("config", {})["seqmi_chapter_sources"] = str(root / "notebooks")
    (staged / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    toc = _filter_toc(yaml.safe_load((root / "_toc.yml").read_text()), set(selected))
    (staged / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
    for name in STAGED_FOLDERS:
        if (root / name).is_dir():
            shutil.copytree(root / name, staged / name)
    (staged / "notebooks").mkdir()
    for chapter in selected:
        _stage_chapter(out / "executed" / f"{chapter}.ipynb", staged / "notebooks" / f"{chapter}.ipynb",
                       run_box(root, chapter, profile, out))
    # the scoreboard page (book/claims.md) includes this table: every chapter's claims from its
    # largest recorded run, else from this build's run; only staged chapters can be linked
    if (staged / "book" / scoreboard.PAGE_FILE).is_file():
        scoreboard.write(root, chapters(root), out / "artifacts", staged / "book" / scoreboard.TABLE_FILE,
                         set(selected))
    # the calibration page (book/calibration.md): every statistical rule the scoreboard shows,
    # run on data made under its h0 and its h1 at the scale of the run it is read from
    if (staged / "book" / calibration.PAGE_FILE).is_file():
        calibration.write(root, chapters(root), out / "artifacts", staged / "book" / calibration.TABLE_FILE)
    return staged


def run_box(root: Path, chapter: str, profile: str, out: Path | None = None) -> str:
    """The chapter's "Run this chapter" box, as MyST Markdown, from recorded data only.

    A folded box whose title gives each profile's recorded time (``quick 115 s,
    reference ≥ 69 min, full 11 min on a GPU``); opened, it shows the command once, then one row per profile that sizes the chapter (quick, then
    those of ``notebooks/profiles.yml`` that name it, in ``PROFILES`` order): the wall
    time, device and date of a recorded run, and whether a GPU was needed. The
    profile being built reads this build's ``provenance.json`` (under ``out``); the
    others read ``results/<profile>/<chapter>/provenance.json``.

    Parameters
    ----------
    root : Path
        The book root.
    chapter : str
        The chapter id.
    profile : str
        The profile this book is built with.
    out : Path, optional
        The folder :func:`seqmi.book.execute` wrote into; ``_build/<profile>`` by default.
    """
    out = out or build_dir(root, profile)
    table = profile_table(root)
    short = chapter.split("_", 1)[0]
    rows = ["| profile | recorded run | GPU |", "| --- | --- | --- |"]
    heads = []
    for name in [p for p in PROFILES if p == "quick" or chapter in (table.get(p) or {})]:
        folder = out / "artifacts" / chapter if name == profile else root / "results" / name / chapter
        prov_path = folder / PROVENANCE_FILE
        prov = json.loads(prov_path.read_text()) if prov_path.is_file() else None
        rows.append(f"| {name} | {_recorded(prov)} | {_needs_gpu(name, prov)} |")
        heads.append(f"{name} {_wall(prov)}")
    source = chapter_path(root, chapter).relative_to(root).as_posix()
    # Folded under a title that gives every profile's time: open, the box took a screen's
    # half above the chapter's question. The command is written once, above the table.
    return "\n".join([
        f":::{{admonition}} Run this chapter: {', '.join(heads)}",
        ":class: tip, dropdown",
        "",
        f"`python -m seqmi.book execute --profile PROFILE --only {short}`, where PROFILE is",
        "",
        *rows,
        "",
        f"Set any parameter on top of a profile with papermill's flags, e.g. `-p seed 1` "
        f"(`python -m seqmi.book list` shows them all), or run papermill itself: "
        f"`jupytext --to ipynb -o - {source} | papermill - out.ipynb -p seed 1`.",
        ":::",
    ])


def _wall(prov: dict[str, Any] | None) -> str:
    """A recorded run's total time for the box's title: ``"115 s"``, ``"≥ 69 min"``, ``"11 min on a GPU"``."""
    if prov is None:
        return "not recorded"
    total, complete = total_s(prov)
    gpu = " on a GPU" if str(prov.get("device", "cpu")).startswith("cuda") else ""
    return f"{'' if complete else '≥ '}{duration(total)}{gpu}"


def _recorded(prov: dict[str, Any] | None) -> str:
    """A recorded run in a few words: its time, where it ran (the GPU, or the CPU cores), when."""
    if prov is None:
        return "not recorded"
    device = str(prov.get("device", "?"))
    gpu = re.fullmatch(r"cuda \((.+)\)", device)
    cores = re.search(r"(\d+) CPU cores", str(prov.get("machine", "")))
    where = gpu.group(1) if gpu else (f"{device}, {cores.group(1)} cores" if cores else device)
    return f"{describe(prov)}, {where}, {prov.get('date', '?')}"


def _needs_gpu(profile: str, prov: dict[str, Any] | None) -> str:
    if prov is None:
        return "no" if profile in CPU_PROFILES else "unknown: plan for one"
    return "yes" if str(prov.get("device", "cpu")).startswith("cuda") else "no"


def _stage_chapter(executed: Path, target: Path, box: str) -> None:
    """Write the executed chapter to ``target`` as the book renders it: ``box`` under its
    title (:func:`_insert_run_box`), papermill's cell folded (:func:`_fold_injected_parameters`),
    folded cells labelled by their first comment (:func:`_label_folded_cells`)."""
    notebook = json.loads(executed.read_text())
    _insert_run_box(notebook, box, executed.name)
    _fold_injected_parameters(notebook)
    _label_folded_cells(notebook)
    target.write_text(json.dumps(notebook, indent=1) + "\n")


def _insert_run_box(notebook: dict[str, Any], box: str, name: str) -> None:
    """Put ``box`` right under the title (the first ``# `` line) of ``notebook``, named ``name`` in errors."""
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        lines = "".join(cell["source"]).split("\n")
        title = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
        if title is None:
            raise BookError(f"{name}: the first Markdown cell has no `# title` line")
        rest = lines[title + 1:]
        cell["source"] = "\n".join([*lines[:title + 1], "", box, *([""] if rest and rest[0] else []), *rest])
        break


def _fold_injected_parameters(notebook: dict[str, Any]) -> None:
    """Fold the cell papermill injects (its input hidden behind a toggle), as the parameters cell is.

    The cell holds what this build set (``out_dir``, a profile's sizes): kept for whoever
    reruns the chapter, but not what a reader meets between the question and the story.
    """
    for cell in notebook["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if "injected-parameters" in tags and "hide-input" not in tags:
            cell["metadata"]["tags"] = [*tags, "hide-input"]


PARAMETER_LABELS = {"parameters": "Parameters: the chapter's defaults (the quick profile)",
                    "injected-parameters": "Parameters: what this build set on top"}


def _label_folded_cells(notebook: dict[str, Any]) -> None:
    """Label each folded code cell (``hide-input``) by its first line, when that is a comment.

    The toggle of a folded cell then reads ``Set-up: the libraries ...`` rather than
    MyST-NB's ``Show code cell source`` (its cell-level ``code_prompt_show``), so that a
    reader sees what the folded code does without opening it; the parameters cell and the
    one papermill injects are labelled by ``PARAMETER_LABELS``.
    """
    for cell in notebook["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or "hide-input" not in tags:
            continue
        first = "".join(cell["source"]).lstrip().split("\n", 1)[0]
        # the two parameter cells: the chapter's defaults, and what this build set on top
        named = next((PARAMETER_LABELS[t] for t in tags if t in PARAMETER_LABELS), None)
        if named:
            cell["metadata"].setdefault("mystnb", {})["code_prompt_show"] = named
        elif first.startswith("# "):
            # MyST-NB formats the prompt with str.format: braces would be read as fields
            label = first[2:].strip().replace("{", "{{").replace("}", "}}")
            cell["metadata"].setdefault("mystnb", {})["code_prompt_show"] = label


def _filter_toc(node: Any, keep: set[str]) -> Any:
    """``_toc.yml`` without the chapter entries not in ``keep`` (and parts left empty)."""
    if isinstance(node, list):
        kept = [_filter_toc(item, keep) for item in node]
        return [item for item in kept if item is not None]
    if isinstance(node, dict):
        entry = node.get("file")
        if isinstance(entry, str) and entry.startswith("notebooks/") and Path(entry).stem not in keep:
            return None
        filtered = {key: _filter_toc(value, keep) for key, value in node.items()}
        if "chapters" in node and not filtered["chapters"]:
            return None
        return filtered
    return node


def _has_error_output(path: Path) -> bool:
    notebook = json.loads(path.read_text())
    return any(o.get("output_type") == "error"
               for cell in notebook["cells"] for o in cell.get("outputs", []))


def build(root: Path, profile: str, out: Path | None = None, only: list[str] | None = None) -> Path:
    """Render the staged book to HTML under ``<out>/book``; return the path of ``index.html``.

    ``out`` is the folder :func:`seqmi.book.execute` wrote into (``_build/<profile>`` by
    default); ``only`` renders a partial book with just those chapters (see
    :func:`seqmi.book.stage`).

    Raises
    ------
    BookError
        If a chapter is missing or failed, or Jupyter Book reports any warning.
    """
    if not (root / MATHJAX_DIR / "tex-chtml.js").is_file():
        raise BookError(f"MathJax is not installed under {MATHJAX_DIR}: run `python -m seqmi.book mathjax`")
    out = out or build_dir(root, profile)
    staged = stage(root, profile, out, only)
    html_root = out / "book"
    shutil.rmtree(html_root, ignore_errors=True)
    command = [_jupyter_book(), "build", str(staged), "--all", "-W", "-n", "--keep-going",
               "--path-output", str(html_root)]
    result = subprocess.run(command, cwd=root)
    if result.returncode != 0:
        raise BookError(f"jupyter-book build failed (exit {result.returncode}); see the warnings above")
    return html_root / "_build" / "html" / "index.html"


def _jupyter_book() -> str:
    beside = Path(sys.executable).with_name("jupyter-book")
    found = str(beside) if beside.is_file() else shutil.which("jupyter-book")
    if not found:
        raise BookError("jupyter-book is not installed: run `make book` or install requirements/lock.txt")
    return found


def install_mathjax(root: Path, tarball: Path | None = None) -> Path:
    """Unpack MathJax 3 (npm package, checksum-verified) into ``_static/mathjax``.

    Parameters
    ----------
    root : Path
        The book root.
    tarball : Path, optional
        A local copy of the npm tarball, or a folder holding ``mathjax-<version>.tgz``
        (for machines without network); otherwise it is downloaded from the npm registry.
    """
    target = root / MATHJAX_DIR
    if (target / "tex-chtml.js").is_file():
        return target
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "mathjax.tgz"
        if tarball is None:
            with urllib.request.urlopen(MATHJAX_URL, timeout=60) as response:
                archive.write_bytes(response.read())
        else:
            source = tarball / f"mathjax-{MATHJAX_VERSION}.tgz" if tarball.is_dir() else tarball
            if not source.is_file():
                raise BookError(f"no MathJax tarball at {source}")
            shutil.copy2(source, archive)
        digest = hashlib.sha1(archive.read_bytes()).hexdigest()
        if digest != MATHJAX_SHA1:
            raise BookError(f"MathJax tarball checksum {digest} != expected {MATHJAX_SHA1}")
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("package/es5/")]
            tar.extractall(tmp, members=members, filter="data")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(Path(tmp) / "package" / "es5"), target)
    return target
