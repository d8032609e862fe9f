"""The book's chapters and their parameters, as the executor reads them.

Chapters are the ``notebooks/*`` entries of ``_toc.yml``, jupytext MyST markdown files
whose first code cell declares their parameters; here they are found, read, checked
against the overrides a profile or the command line gives, and reduced to one section.
Re-exported by :mod:`seqmi.book`, where they are documented.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from seqmi.profiles import PROFILES
from seqmi.report import profile_parameters, profile_table
from seqmi.sections import SECTION_PREFIX, SETUP_TAG

# Parameters every chapter must declare, besides its own cost knobs (the executor sets
# out_dir and profile itself).
REQUIRED_PARAMETERS = ("seed", "device", "out_dir", "profile")


class BookError(RuntimeError):
    """A user-facing failure of the book pipeline (bad chapter id, failed chapter, ...)."""


@dataclass(frozen=True)
class Parameter:
    """One declared chapter parameter: ``name: type = default  # help``.

    Attributes
    ----------
    name : str
        The variable name.
    type : str
        The annotation as written (``int``, ``float``, ``str``, ``bool``, ``list``).
    default : Any
        The default (quick-profile) value.
    help : str
        The comment after the assignment.
    literal : str
        The default as written in the cell (``1e-3``), as papermill shows it.
    """

    name: str
    type: str
    default: Any
    help: str
    literal: str = ""

    @property
    def choices(self) -> tuple[str, ...] | None:
        """The allowed strings, when the comment starts by listing them (``"auto" | "cpu" | "cuda"``)."""
        match = _CHOICES.match(self.help)
        if not match or not isinstance(self.default, str):
            return None
        return tuple(re.findall(r'"([^"]*)"', match.group(0)))

    def allowed(self) -> str:
        """What a value of this parameter may be, in words."""
        if self.choices:
            return "one of " + ", ".join(f'"{c}"' for c in self.choices)
        if isinstance(self.default, list):
            kinds = sorted({type(v).__name__ for v in self.default})
            return f"a list of {' or '.join(kinds) or 'values'}"
        return {bool: "True or False", int: "an int", float: "a float (an int is accepted)",
                str: "a string"}.get(type(self.default), f"a {type(self.default).__name__}")


# a comment that starts by listing the allowed strings: "auto" | "cpu" | "cuda"
_CHOICES = re.compile(r'^"[^"]*"(\s*\|\s*"[^"]*")+')


def find_root(start: Path | None = None) -> Path:
    """The first folder at or above ``start`` (default: cwd) that holds ``_toc.yml``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file():
            return folder
    raise BookError(f"no _toc.yml at or above {here}: run from the book's root folder")


def chapters(root: Path) -> list[str]:
    """Chapter ids (file stems under ``notebooks/``) in ``_toc.yml`` order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            entry = node.get("file")
            if isinstance(entry, str) and entry.startswith("notebooks/"):
                found.append(Path(entry).stem)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return found


def select(root: Path, only: list[str] | None) -> list[str]:
    """The chapters named by ``only`` (full ids or their ``NN`` prefixes), all if empty."""
    known = chapters(root)
    if not only:
        return known
    picked: list[str] = []
    for name in only:
        matches = [c for c in known if c == name or c.split("_", 1)[0] == name]
        if len(matches) != 1:
            raise BookError(f"unknown chapter {name!r}; known chapters: {', '.join(known)}")
        picked.append(matches[0])
    return picked


def chapter_path(root: Path, chapter: str) -> Path:
    """The jupytext source ``notebooks/<chapter>.md``."""
    return root / "notebooks" / f"{chapter}.md"


def read_chapter(root: Path, chapter: str) -> Any:
    """The chapter as an nbformat notebook (read with jupytext)."""
    import jupytext

    return jupytext.read(chapter_path(root, chapter))


def declared_parameters(notebook: Any) -> dict[str, Parameter]:
    """Parse the ``parameters`` cell, which must be the first code cell.

    Every statement must be an annotated assignment of a literal
    (``n_epochs: int = 3  # meaning``), so the defaults are the quick profile and
    papermill's ``--help-notebook`` can describe them.

    Raises
    ------
    BookError
        If the first code cell is not tagged ``parameters`` or holds anything else.
    """
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    if not code_cells or "parameters" not in code_cells[0].get("metadata", {}).get("tags", []):
        raise BookError("the first code cell must be tagged 'parameters'")
    source = code_cells[0].source
    lines = source.splitlines()
    params: dict[str, Parameter] = {}
    for stmt in ast.parse(source).body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value):
            raise BookError(f"parameters cell line {stmt.lineno}: only `name: type = literal` is allowed")
        try:
            default = ast.literal_eval(stmt.value)
        except ValueError as err:
            raise BookError(f"parameters cell line {stmt.lineno}: default of {stmt.target.id!r} "
                            "is not a literal") from err
        line = lines[stmt.lineno - 1]
        help_text = line.split("#", 1)[1].strip() if "#" in line else ""
        params[stmt.target.id] = Parameter(stmt.target.id, ast.unparse(stmt.annotation), default, help_text,
                                           ast.get_source_segment(source, stmt.value) or repr(default))
    return params


def profile_overrides(root: Path, chapter: str, profile: str) -> dict[str, Any]:
    """Parameter overrides of ``chapter`` under ``profile`` (quick: none)."""
    if profile not in PROFILES:
        raise BookError(f"unknown profile {profile!r}; allowed: {', '.join(PROFILES)}")
    if profile == "quick":
        return {}
    return profile_parameters(profile_table(root), profile, chapter)


def check_overrides(root: Path, chapter: str, overrides: dict[str, Any], source: str = "profile") -> dict[str, Any]:
    """Check override names, types and choices against the chapter's declared parameters.

    papermill only warns on an unknown name and injects any type; here both are errors
    that list what the chapter allows, raised before anything runs.

    Parameters
    ----------
    root : Path
        The book root.
    chapter : str
        The chapter id.
    overrides : dict
        Parameter values to inject.
    source : str
        Where the values come from, for the message (``"profile"``, ``"-p"``).

    Returns
    -------
    dict
        ``overrides`` with ints given for float parameters converted to float.

    Raises
    ------
    BookError
        If a name is not declared, a value has the wrong type, or a string is not one
        of the choices listed in the parameter's comment.
    """
    declared = declared_parameters(read_chapter(root, chapter))
    allowed = ", ".join(f"{p.name}: {p.type}" + (f" {list(p.choices)}" if p.choices else "")
                        for p in declared.values())
    unknown = sorted(set(overrides) - set(declared))
    if unknown:
        raise BookError(f"{chapter}: {source} sets undeclared parameter(s) {unknown}; "
                        f"declared: {allowed}")
    checked = {}
    for name, value in overrides.items():
        param = declared[name]
        if isinstance(param.default, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        expected = type(param.default)
        if not isinstance(value, expected) or isinstance(value, bool) != isinstance(param.default, bool):
            raise BookError(f"{chapter}: {source} value {name}={value!r} is not of the declared "
                            f"type {param.type}; {name} must be {param.allowed()}")
        if param.choices and value not in param.choices:
            raise BookError(f"{chapter}: {source} value {name}={value!r} is not allowed; "
                            f"{name} must be {param.allowed()}")
        checked[name] = value
    return checked


def cli_overrides(pairs: list[list[str]] | None = None, raw: list[list[str]] | None = None,
                  yaml_texts: list[str] | None = None, yaml_files: list[Path] | None = None) -> dict[str, Any]:
    """Parameter values given as papermill gives them, merged in papermill's order.

    ``-f FILE`` (YAML file), then ``-y TEXT`` (YAML string), then ``-p NAME VALUE``
    (``True``/``False``/``None``, an int or a float when ``VALUE`` parses as one, else a
    string), then ``-r NAME VALUE`` (always a string); later ones win.

    Raises
    ------
    BookError
        If a YAML file is missing or a YAML text is not a mapping of names to values.
    """
    merged: dict[str, Any] = {}
    texts = []
    for path in yaml_files or []:
        if not Path(path).is_file():
            raise BookError(f"-f: no parameters file {path}")
        texts.append((f"-f {path}", Path(path).read_text()))
    texts += [(f"-y {text!r}", text) for text in yaml_texts or []]
    for origin, text in texts:
        try:
            loaded = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise BookError(f"{origin}: not valid YAML ({err})") from err
        if not isinstance(loaded, dict) or not all(isinstance(k, str) for k in loaded):
            raise BookError(f"{origin}: expected a mapping of parameter names to values, got {loaded!r}")
        merged.update(loaded)
    for name, value in pairs or []:
        merged[name] = _papermill_value(value)
    for name, value in raw or []:
        merged[name] = value
    return merged


def _papermill_value(text: str) -> Any:
    """The value papermill's ``-p`` gives ``text`` (its ``_resolve_type``)."""
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def describe_parameters(root: Path, chapter: str) -> str:
    """A chapter's parameters as papermill's ``--help-notebook`` lists them, plus what is allowed.

    One line per parameter: ``name: type (default LITERAL)  comment``, then the allowed
    values and the value each other profile sets.
    """
    table = profile_table(root)
    sizes = {name: profile_parameters(table, name, chapter) for name in table}
    lines = [f"Parameters of {chapter} ({chapter_path(root, chapter).relative_to(root)}):"]
    for p in declared_parameters(read_chapter(root, chapter)).values():
        lines.append(f"  {p.name}: {p.type} (default {p.literal})  {p.help}")
        profiles = [f"{name}: {values[p.name]!r}" for name, values in sizes.items() if p.name in values]
        lines.append(f"      allowed: {p.allowed()}" + (f"; {', '.join(profiles)}" if profiles else ""))
    return "\n".join(lines)


def build_dir(root: Path, profile: str) -> Path:
    """``_build/<profile>`` under the book root."""
    return root / "_build" / profile


def section_notebook(root: Path, chapter: str, section: str) -> Any:
    """The chapter reduced to its parameters, its ``setup`` cells and one tagged section.

    A section is the code cells tagged ``section-<name>``; they may use what the
    parameters cell and the cells tagged ``setup`` (imports, checks, ``results = {}``)
    define, and nothing else. A last cell writes the section's ``results`` to
    ``section.json`` in ``out_dir``.
    """
    import nbformat

    notebook = read_chapter(root, chapter)
    tag = SECTION_PREFIX + section
    code = [c for c in notebook.cells if c.cell_type == "code"]
    tags = [set(c.metadata.get("tags", [])) for c in code]
    if not any(tag in t for t in tags):
        found = sorted({t[len(SECTION_PREFIX):] for ts in tags for t in ts if t.startswith(SECTION_PREFIX)})
        raise BookError(f"{chapter} has no section {section!r}; its sections: {', '.join(found) or 'none'}")
    kept = [c for c, t in zip(code, tags) if t & {"parameters", SETUP_TAG, tag}]
    kept.append(nbformat.v4.new_code_cell("report.save_numbers(out_dir, 'section', results)"))
    notebook.cells = kept
    return notebook
