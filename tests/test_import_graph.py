"""The package's import graph: no cycle, and networks below the loop, recipes, experiments and book that use them.

Built from the source (every ``import`` of a ``seqmi`` module, inside functions too; the
imports under ``if TYPE_CHECKING:`` never run and are left out).
"""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).parents[1] / "src"


def _modules() -> dict[str, Path]:
    names = {}
    for path in (SRC / "seqmi").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skipped


def import_graph() -> dict[str, set[str]]:
    """Each ``seqmi`` module and the ``seqmi`` modules it imports (a package's ``__init__`` as the package)."""
    modules = _modules()

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        skipped = _type_checking_nodes(tree)
        deps = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                deps |= {owner(a.name) for a in node.names if a.name.startswith("seqmi")}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("seqmi"):
                deps |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else owner(node.module)
                         for a in node.names}
        graph[name] = deps - {name, None, "seqmi"}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph``, or ``[]``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_graph_sees_the_imports():
    graph = import_graph()
    assert "seqmi.validate" in graph["seqmi.fit"] and "seqmi.data.subvolume_mixing" in graph["seqmi.data.subvolume"]
    # an import only for type hints is no dependency
    assert "seqmi.data.subvolume" not in graph["seqmi.data.subvolume_cca"]


def test_no_module_imports_itself_back():
    assert _cycle(import_graph()) == []
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


@pytest.mark.parametrize("above", ["seqmi.train", "seqmi.recipes", "seqmi.experiments", "seqmi.book",
                                   "seqmi.claims", "seqmi.report"])
def test_networks_do_not_import_what_uses_them(above):
    graph = import_graph()
    offenders = {m: d for m, d in graph.items() if m.startswith("seqmi.models")
                 for d in [{x for x in d if x == above or x.startswith(above + ".")}] if d}
    assert not offenders


def test_results_records_stand_on_their_own():
    """The rules read the records with the core alone: a record imports only other records and the profiles."""
    graph = import_graph()
    allowed = {"seqmi.profiles"}
    offenders = {m: d for m, d in graph.items() if m.startswith("seqmi.results")
                 for d in [{x for x in d if not x.startswith("seqmi.results") and x not in allowed}] if d}
    assert not offenders
