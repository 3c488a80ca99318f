"""No import circle anywhere in the package: every ``import`` of every module, wherever it
stands (module level, ``TYPE_CHECKING`` blocks, function bodies), makes an edge."""

from __future__ import annotations

import ast
from pathlib import Path

import langchain_toolsearch
from tests.support.source_tree import parse, walk

PACKAGE = Path(langchain_toolsearch.__file__).parent
NAME = "langchain_toolsearch"


BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str], root: Path = PACKAGE) -> set[str]:
    """The package modules ``path`` imports (``from a import b`` is ``a.b`` if a module)."""
    here = module_name(path, root)
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in walk(parse(path)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".") if is_package else here.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:  # ``from a import b``: the module a.b if there is one
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
    return {m for m in found if m in modules and m != here}


def graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    paths = sorted(root.rglob("*.py"))
    modules = {module_name(p, root) for p in paths}
    return {module_name(p, root): imports_of(p, modules, root) for p in paths}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_walker_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycle() -> None:
    edges = graph()
    assert f"{NAME}.storage._strategy" in edges  # the walk covers subpackages
    assert f"{NAME}._access" in edges[f"{NAME}._guard"]  # and sees edges
    assert f"{NAME}.search" in edges[f"{NAME}._engine"]
    assert cycles(edges) == []


def test_the_benchmarks_have_no_import_cycle() -> None:
    edges = graph(BENCHMARKS)
    assert "benchmarks.steps" in edges["benchmarks.store_steps"]  # the walk sees edges
    assert cycles(edges) == []
