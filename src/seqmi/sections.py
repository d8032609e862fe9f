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
import dataclasses
import importlib
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


# what each field of a record built by name loads, by the name the record is bound to
Fields = dict[str, dict[str, set[str]]]


def _loaded(node: ast.AST, fields: Fields | None = None) -> set[str]:
    """The names ``node`` loads; ``record.field`` of a record built by name loads only what that field took."""
    fields = fields or {}
    found: set[str] = set()
    precise: set[int] = set()
    for n in ast.walk(node):
        if (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in fields
                and n.attr in fields[n.value.id]):
            found |= fields[n.value.id][n.attr]
            precise.add(id(n.value))
    return found | {n.id for n in ast.walk(node)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in precise}


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


def _setup_binds(code: list[Any]) -> tuple[dict[str, set[str]], Fields]:
    """Each name a setup cell binds, with the names its binding statements load; and the records built by name.

    A record built by name (``x = from_parameters(Record, globals(), prefix, **derived)``)
    loads the parameters its fields take (:func:`seqmi.sections.by_name_reads`), and each
    of its fields is kept apart, so that ``x.hidden`` reads only what ``hidden`` took.
    """
    binds: dict[str, set[str]] = {}
    fields: Fields = {}
    parameters = _parameters(code)
    for cell in (c for c in code if SETUP_TAG in _tags(c)):
        for statement in _code(cell).body:
            loaded = _loaded(statement, fields) | by_name_reads(statement, code, parameters, fields)
            for name in _defined(statement):
                binds.setdefault(name, set()).update(loaded)
            record = _by_name_record(statement)
            if record is not None:
                target, call = record
                sources = _field_sources(call, code, parameters, fields)
                if sources is None:
                    fields.pop(target, None)
                else:
                    fields[target] = sources
    return binds, fields


def _by_name_calls(statement: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(statement) if isinstance(n, ast.Call)
            and getattr(n.func, "id", getattr(n.func, "attr", None)) == "from_parameters"]


def _by_name_record(statement: ast.stmt) -> tuple[str, ast.Call] | None:
    """``(name, call)`` where ``statement`` is ``name = from_parameters(...)``, else ``None``."""
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Call)
            and _by_name_calls(statement.value) == [statement.value]):
        return statement.targets[0].id, statement.value
    return None


def by_name_reads(statement: ast.stmt, code: list[Any], parameters: set[str],
                  fields: Fields | None = None) -> set[str]:
    """The parameters the ``from_parameters(Record, globals(), prefix, **derived)`` calls of ``statement`` take.

    Field ``f`` of ``Record`` is taken from ``<prefix>f`` where the chapter has that
    parameter, else from ``f`` (:func:`seqmi.experiments.from_parameters`); a field
    given in ``derived`` from neither (what its expression loads counts instead). The
    record's fields are read from the class the chapter imports; where it cannot be
    imported (a core install without the chapter's extra), every parameter counts as
    read, so that no recording vouches for what it might have read.
    """
    found: set[str] = set()
    for call in _by_name_calls(statement):
        sources = _field_sources(call, code, parameters, fields or {})
        if sources is None:
            return set(parameters)
        found |= set().union(*sources.values())
    return found & parameters


def _field_sources(call: ast.Call, code: list[Any], parameters: set[str], fields: Fields
                   ) -> dict[str, set[str]] | None:
    """What each field of the record ``call`` builds by name loads; ``None`` if its class is unknown."""
    names = _record_fields(call.args[0], code) if call.args else None
    if names is None:
        return None
    prefix = call.args[2].value if len(call.args) > 2 and isinstance(call.args[2], ast.Constant) else ""
    prefix = next((k.value.value for k in call.keywords if k.arg == "prefix"
                   and isinstance(k.value, ast.Constant)), prefix)
    derived = {k.arg: _loaded(k.value, fields) for k in call.keywords if k.arg not in (None, "prefix")}
    return {f: derived[f] if f in derived else {prefix + f if prefix + f in parameters else f} for f in names}


def _record_fields(node: ast.expr, code: list[Any]) -> set[str] | None:
    """The field names of the record class ``node`` names, from the import that binds it; ``None`` if unknown."""
    name = getattr(node, "id", None)
    for cell in code:
        for statement in _code(cell).body:
            if isinstance(statement, ast.ImportFrom) and statement.module:
                for alias in statement.names:
                    if (alias.asname or alias.name) == name:
                        try:
                            record = getattr(importlib.import_module(statement.module), alias.name)
                        except (ImportError, AttributeError):
                            return None
                        return {f.name for f in dataclasses.fields(record) if f.init}
    return None


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
    binds, fields = _setup_binds(code)
    loaded = set().union(*(_loaded(_code(c), fields) for c in code if tag in _tags(c)))
    return _reached(loaded, binds) & _parameters(code)


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
    parameters, (binds, fields) = _parameters(code), _setup_binds(code)
    found: dict[str, list[frozenset[str]]] = {}
    for cell in (c for c in code if not _tags(c) & {"parameters", SETUP_TAG}):
        for name in sorted(_reached(_loaded(_code(cell), fields), binds) & parameters):
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
