"""A chapter's sections: the cells a section runs, and the parameters it reads.

A section (code cells tagged ``section-<name>``) runs with the chapter's parameters cell
and its ``setup`` cells (:func:`seqmi.book.section_notebook`). It is recorded on top of a
whole run (:func:`seqmi.book.merge_section`), and the recording is stale where today's
profile differs from what its numbers ran with (:func:`seqmi.report.stale_parameters`).
A section run at today's profile holds today's value of *every* parameter, but its numbers
depend only on those it reads: :func:`parameters_read` finds them, so that a section never
vouches for numbers it did not compute. Conversely a recording never ran the sections
it does not name (:func:`seqmi.sections.section_names`), and a parameter that only their
cells read (:func:`seqmi.sections.readers`) never reached its numbers.
"""

from __future__ import annotations

import ast
from typing import Any

SETUP_TAG = "setup"
SECTION_PREFIX = "section-"
# the dict a chapter stores its numbers in (a section run saves it: seqmi.book.section_notebook)
RESULTS_NAME = "results"


def _tags(cell: Any) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _code(cell: Any) -> ast.Module:
    # IPython magics and shell escapes are no Python: read them as blank lines
    source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    return ast.parse("\n".join(lines))


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _defined(statement: ast.stmt) -> set[str]:
    """The names a top-level statement binds (assignments, definitions, loop targets, ``with ... as``)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    return {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def section_names(cells: list[Any]) -> list[str]:
    """The names of the sections the code cells of ``cells`` hold, in the order they first appear."""
    names = [t[len(SECTION_PREFIX):] for c in cells if c["cell_type"] == "code"
             for t in sorted(_tags(c)) if t.startswith(SECTION_PREFIX)]
    return list(dict.fromkeys(names))


def _sections_of(cell: Any) -> frozenset[str]:
    return frozenset(t[len(SECTION_PREFIX):] for t in _tags(cell) if t.startswith(SECTION_PREFIX))


def _parameters(code: list[Any]) -> set[str]:
    """The names the parameters cell binds."""
    return set().union(*(_defined(s) for c in code if "parameters" in _tags(c) for s in _code(c).body))


def _setup_binds(code: list[Any]) -> dict[str, set[str]]:
    """Each name a setup cell binds, with the names its binding statements load."""
    binds: dict[str, set[str]] = {}
    for cell in (c for c in code if SETUP_TAG in _tags(c)):
        for statement in _code(cell).body:
            for name in _defined(statement):
                binds.setdefault(name, set()).update(_loaded(statement))
    return binds


def _reached(names: set[str], binds: dict[str, set[str]]) -> set[str]:
    """``names`` and every name their setup bindings load, followed to the end."""
    seen: set[str] = set()
    todo = set(names)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo |= binds.get(name, set()) - seen
    return seen


def parameters_read(cells: list[Any], section: str) -> set[str]:
    """The parameters the cells of ``section`` read, directly or through the setup cells.

    A name the section's cells load is followed back through the top-level statements of
    the ``setup`` cells that bind it (``profile_settings = ProfileSettings(hidden=hidden,
    ...)`` makes a section that reads ``profile_settings`` read ``hidden``), and every
    name reached that the parameters cell binds is a parameter read.

    Parameters
    ----------
    cells : list
        The chapter's cells (nbformat cells or dicts with ``cell_type``, ``source`` and
        ``metadata``).
    section : str
        The section's name (its cells are tagged ``section-<name>``).

    Raises
    ------
    ValueError
        If no cell is tagged with the section.
    """
    code = [c for c in cells if c["cell_type"] == "code"]
    tag = SECTION_PREFIX + section
    if not any(tag in _tags(c) for c in code):
        raise ValueError(f"no code cell is tagged {tag!r}")
    loaded = set().union(*(_loaded(_code(c)) for c in code if tag in _tags(c)))
    return _reached(loaded, _setup_binds(code)) & _parameters(code)


def readers(cells: list[Any]) -> dict[str, list[frozenset[str]]]:
    """Every parameter some code cell reads, with the sections of each cell that reads it.

    A cell reads what :func:`seqmi.sections.parameters_read` would find for it alone:
    the parameters it loads, directly or through the ``setup`` cells. The parameters cell
    and the setup cells are no readers themselves: what they bind is followed into the
    cells that use it. A cell outside every section stands as an empty set: every whole
    run ran it.

    Parameters
    ----------
    cells : list
        The chapter's cells, as for :func:`seqmi.sections.parameters_read`.

    Returns
    -------
    dict
        ``{parameter: [sections of one reading cell, ...]}``, in cell order; parameters no
        cell reads are absent.
    """
    code = [c for c in cells if c["cell_type"] == "code"]
    parameters, binds = _parameters(code), _setup_binds(code)
    found: dict[str, list[frozenset[str]]] = {}
    for cell in (c for c in code if not _tags(c) & {"parameters", SETUP_TAG}):
        for name in sorted(_reached(_loaded(_code(cell)), binds) & parameters):
            found.setdefault(name, []).append(_sections_of(cell))
    return found


def results_stored(cells: list[Any], section: str) -> set[str]:
    """The keys the cells of ``section`` store in the chapter's ``results`` dict.

    Read from ``results = {"key": ...}``, ``results.update(key=...)``,
    ``results.update({"key": ...})`` and ``results["key"] = ...``: the numbers of the
    section that a recording holds when it ran the section's code, tagged or not.
    """
    tag = SECTION_PREFIX + section
    keys: set[str] = set()
    for cell in (c for c in cells if c["cell_type"] == "code" and tag in _tags(c)):
        for node in ast.walk(_code(cell)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "update" and _is_results(node.func.value)):
                keys |= {k.arg for k in node.keywords if k.arg}
                keys |= set().union(*(_literal_keys(a) for a in node.args))
            elif isinstance(node, ast.Assign) and any(_is_results(t) for t in node.targets):
                keys |= _literal_keys(node.value)
            elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and _is_results(node.value)
                  and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                keys.add(node.slice.value)
    return keys


def _literal_keys(node: ast.AST) -> set[str]:
    """The string keys of a dict display (none for anything else)."""
    if not isinstance(node, ast.Dict):
        return set()
    return {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}


def _is_results(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == RESULTS_NAME
