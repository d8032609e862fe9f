"""The API reference part of the book: one autodoc page per public module of seqmi."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import seqmi

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "book" / "api"


def _defines_members(path: Path, package: str) -> bool:
    """Whether ``package``'s ``__init__`` defines functions or classes, or re-exports those of its private modules."""
    tree = ast.parse(path.read_text())
    return any(isinstance(node, (ast.FunctionDef, ast.ClassDef))
               or (isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package + "._"))
               for node in tree.body)


def _public_modules() -> set[str]:
    """Every importable seqmi module whose dotted name has no private part."""
    package = Path(seqmi.__file__).parent
    names = set()
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            # a subpackage's own docstring is shown on the API index page, unless the
            # package itself defines functions or classes (seqmi.claims), or re-exports those
            # of its private modules (seqmi.book): then it has a page
            if not _defines_members(path, ".".join(parts[:-1])):
                continue
            parts = parts[:-1]
        if not any(p.startswith("_") for p in parts):
            names.add(".".join(parts))
    return names


def _documented() -> dict[str, Path]:
    """``{module: page}`` for every ``automodule`` with members under book/api/."""
    found = {}
    for page in API.glob("*.md"):
        for name in re.findall(r"^\.\. automodule:: (\S+)\n   :members:", page.read_text(), re.M):
            found[name] = page
    return found


def test_every_public_module_has_one_api_page_in_the_toc():
    documented = _documented()
    assert set(documented) == _public_modules(), "book/api/ must have one page per public module"
    toc = (ROOT / "_toc.yml").read_text()
    for name, page in documented.items():
        entry = f"file: {page.relative_to(ROOT).with_suffix('').as_posix()}"
        assert entry in toc, f"{page.name} ({name}) is not listed in _toc.yml"


@pytest.mark.book
def test_api_pages_render_the_docstrings(book_run):
    html = book_run.html().parent
    page = (html / "book" / "api" / "info.html").read_text()
    assert 'id="seqmi.info.two_point_mi"' in page, "two_point_mi is not documented on its page"
    chapter = (html / "notebooks" / "00_mutual_information.html").read_text()
    assert "../book/api/info.html#seqmi.info.two_point_mi" in chapter, "the primer does not link to two_point_mi"


def test_package_map_lists_every_public_module():
    """The package docstring's map names every module that is not private."""
    import seqmi

    src = Path(seqmi.__file__).parent
    modules = {".".join(("seqmi",) + p.relative_to(src).with_suffix("").parts).removesuffix(".__init__")
               for p in src.rglob("*.py")}
    public = {m for m in modules if not any(part.startswith("_") for part in m.split(".")[1:]) and m != "seqmi"}
    # the per-chapter modules of these packages are listed by their package's own page
    listed_by_package = {m for m in public if m.startswith(("seqmi.claims.", "seqmi.experiments.", "seqmi.results."))}
    missing = sorted(m for m in public - listed_by_package if f":mod:`{m}`" not in seqmi.__doc__)
    assert not missing, f"seqmi/__init__.py's map does not list {missing}"
