"""Chapters stay readable: short, narrow code cells and functions, no training or sweep loop of their own.

The loops live in the package (:func:`seqmi.train.fit`, :func:`seqmi.sweep.run_sweep`), so
that every chapter trains and sweeps the same way, resumably and on any executor; a
chapter's cells call them. A code line wider than the page scrolls sideways in the rendered
book. The parameters cell is exempt from both limits: papermill injects overrides after
that one cell, so every parameter must be a top-level name in it, and it reads each
parameter's help from its inline comment. A longer function, and the checks of the
parameters, belong in the package (the settings records of :mod:`seqmi.experiments`),
where other chapters and tests reach them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
MAX_LINES = 30
MAX_WIDTH = 88
MAX_FUNCTION_LINES = 10
# the checks a chapter still makes itself (what no settings record holds), all chapters together
MAX_CHECK_LINES = 60
# the package's training entry points and per-point sweep work: a chapter loop calling
# one of them is a training or sweep loop of its own
TRAINERS = {"fit", "train", "train_family", "train_gaussian", "train_language_model", "train_task_model",
            "run_family", "binary_points", "char_point", "word_point", "gaussian_points", "train_gaussian_family", "bound_point"}
CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", re.S)


def _cells(path: Path) -> list[tuple[int, str]]:
    text = path.read_text()
    return [(text[:m.start()].count("\n") + 1, m.group(1)) for m in CELL.finditer(text)]


def _is_parameters(source: str) -> bool:
    return source.lstrip().startswith(":tags: [parameters")


def _called_names(node: ast.AST) -> set[str]:
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            f = call.func
            names.add(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return names


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_code_cells_are_short(path):
    long = [(line, n) for line, src in _cells(path) if not _is_parameters(src)
            and (n := sum(1 for s in src.splitlines() if s.strip())) > MAX_LINES]
    assert not long, f"{path.name}: cells longer than {MAX_LINES} lines at (line, length) {long}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_code_lines_fit_the_page(path):
    wide = [(line + i, len(s)) for line, src in _cells(path) if not _is_parameters(src)
            for i, s in enumerate(src.splitlines(), 1) if len(s) > MAX_WIDTH]
    assert not wide, f"{path.name}: code lines wider than {MAX_WIDTH} characters at (line, width) {wide}"


def _code(src: str) -> str:
    return "\n".join(s for s in src.splitlines() if not s.startswith(":tags:"))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_functions_are_short(path):
    long = [(line + node.lineno, node.name, node.end_lineno - node.lineno + 1)
            for line, src in _cells(path) for node in ast.walk(ast.parse(_code(src)))
            if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"{path.name}: functions longer than {MAX_FUNCTION_LINES} lines at (line, name, length) {long}"


def test_chapters_leave_their_checks_to_the_settings_records():
    checks = [(path.name, line) for path in CHAPTERS for line, src in _cells(path)
              for s in src.splitlines() if re.match(r"\s*(check_\w+\(|raise ValueError)", s)]
    assert len(checks) < MAX_CHECK_LINES, f"{len(checks)} check lines in the chapters: {checks}"


def _parameter_names(path: Path) -> set[str]:
    source = next(src for _, src in _cells(path) if _is_parameters(src))
    return {t.id for node in ast.parse(_code(source)).body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_settings_records_take_the_parameters_by_name(path):
    """Every settings record is built by :func:`seqmi.experiments.from_parameters`, and no keyword
    hands it a parameter under another name (a keyword gives what is computed or shared)."""
    parameters = _parameter_names(path)
    by_keyword, renamed = [], []
    for line, src in _cells(path):
        if _is_parameters(src):
            continue
        for call in (n for n in ast.walk(ast.parse(_code(src))) if isinstance(n, ast.Call)):
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
            if name.endswith(("Settings", "Config")) and name[:1].isupper():
                by_keyword.append((line + call.lineno, name))
            if name == "from_parameters":
                renamed += [(line + call.lineno, k.arg, k.value.id) for k in call.keywords
                            if isinstance(k.value, ast.Name) and k.value.id in parameters]
    assert not by_keyword, f"{path.name}: records built by keyword at (line, record) {by_keyword}"
    assert not renamed, f"{path.name}: parameters renamed on their way in at (line, field, parameter) {renamed}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_training_or_sweep_loop_in_a_chapter(path):
    found = []
    for line, src in _cells(path):
        code = "\n".join(s for s in src.splitlines() if not s.startswith(":tags:"))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, (ast.For, ast.While, ast.comprehension, ast.ListComp, ast.DictComp,
                                 ast.SetComp, ast.GeneratorExp)):
                hit = _called_names(node) & TRAINERS
                if hit:
                    found.append((line + getattr(node, "lineno", 0), sorted(hit)))
        assert ".backward(" not in code, f"{path.name}: a backward pass in the cell at line {line}"
    assert not found, f"{path.name}: loops calling the package's trainers at (line, calls) {found}"


EXERCISE = re.compile(r"```\{admonition\} Exercise \d+[^\n]*\n:class: tip\n.*?```\s*"
                      r"```\{code-cell\} ipython3\n:tags: \[hide-cell\]\n(.*?)```", re.S)
MAX_SOLUTION_LINES = 15


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_parameters_cell_is_folded(path):
    first = _cells(path)[0][1]
    assert first.lstrip().startswith(":tags: [parameters, hide-input]"), \
        f"{path.name}: the first code cell must be the parameters cell, folded (tags parameters, hide-input)"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_ends_with_exercises_and_short_solutions(path):
    text = path.read_text()
    assert "\n## Exercises\n" in text, f"{path.name}: no Exercises section"
    section = text.split("\n## Exercises\n", 1)[1]
    assert "\n## " not in section, f"{path.name}: the Exercises section must be the chapter's last"
    solutions = EXERCISE.findall(section)
    assert 2 <= len(solutions) <= 4, f"{path.name}: {len(solutions)} exercises, each a tip admonition and a " \
        "hide-cell solution"
    for i, code in enumerate(solutions, 1):
        n = sum(1 for line in code.splitlines() if line.strip())
        assert n <= MAX_SOLUTION_LINES, f"{path.name}: solution {i} has {n} lines"


MAX_OPENING_LINES = 15  # visible code lines before a chapter's first section
FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}
TAGS = re.compile(r"^:tags: \[([^\]]*)\]")


def _opening(path: Path) -> list[tuple[int, list[str], list[str]]]:
    """The code cells before the first ``## `` heading: (line, tags, non-blank code lines)."""
    text = path.read_text()
    head = text[:m.start()] if (m := re.search(r"^## ", text, re.M)) else text
    cells = []
    for c in CELL.finditer(head):
        line, src = head[:c.start()].count("\n") + 1, c.group(1)
        tags = TAGS.match(src.lstrip())
        names = [t.strip() for t in tags.group(1).split(",")] if tags else []
        code = [s for s in src.splitlines() if s.strip() and not TAGS.match(s)]
        cells.append((line, names, code))
    return cells


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_opens_with_at_most_one_short_visible_setup_cell(path):
    cells = _opening(path)
    visible = [(line, code) for line, tags, code in cells if not FOLDED & set(tags)]
    shown = sum(len(code) for _, code in visible)
    assert shown <= MAX_OPENING_LINES, f"{path.name}: {shown} visible code lines before the first section"
    assert len(visible) <= 1, f"{path.name}: visible set-up cells at lines {[line for line, _ in visible]}"
    # a folded cell says what it does in its first line, a comment the reader sees beside the toggle
    for line, tags, code in cells:
        if FOLDED & set(tags) and "parameters" not in tags:
            assert code and code[0].startswith("# "), f"{path.name}: the folded cell at line {line} " \
                "does not open with a comment saying what it does"
