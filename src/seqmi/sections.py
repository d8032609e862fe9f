"""A chapter's sections: the cells a section runs, and the parameters it reads.

A section (code cells tagged ``section-<name>``) runs with the chapter's parameters cell
and its ``setup`` cells (:func:`seqmi.book.section_notebook`). It is recorded on top of a
whole run (:func:`seqmi.book.merge_section`), and the recording is stale where today's
profile differs from what its numbers ran with (:func:`seqmi.report.stale_parameters`).
A section run at today's profile holds today's value of *every* parameter, but its numbers
depend only on those it reads: :func:`parameters_read` finds them, so that a section never
vouches for numbers it did not compute.
"""

from __future__ import annotations

import ast
from typing import Any

SETUP_TAG = "setup"
SECTION_PREFIX = "section-"


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
    parameters = set().union(*(_defined(s) for c in code if "parameters" in _tags(c) for s in _code(c).body))
    binds: dict[str, set[str]] = {}
    for cell in (c for c in code if SETUP_TAG in _tags(c)):
        for statement in _code(cell).body:
            for name in _defined(statement):
                binds.setdefault(name, set()).update(_loaded(statement))
    seen: set[str] = set()
    todo = set().union(*(_loaded(_code(c)) for c in code if tag in _tags(c)))
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo |= binds.get(name, set()) - seen
    return seen & parameters
