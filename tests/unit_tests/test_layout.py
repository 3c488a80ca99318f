"""The package's shape. No runtime import cycle, every module says what it
owns in its first docstring line, and every module stays small."""

from __future__ import annotations

import ast
from pathlib import Path

import langchain_toolsearch
from tests.support.source_tree import parse, walk
from tests.unit_tests.test_size_script import size_script

PACKAGE = Path(langchain_toolsearch.__file__).parent
NAME = "langchain_toolsearch"


def modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(module: str, path: Path, known: set[str]) -> set[str]:
    """Package modules imported when ``module`` is imported (module level, not TYPE_CHECKING)."""
    found: set[str] = set()
    body = list(parse(path).body)
    while body:
        node = body.pop(0)
        if isinstance(node, ast.If) and not _is_type_checking(node):
            body.extend([*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            body.extend([*node.body, *node.orelse, *node.finalbody])
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    targets: set[str] = set()
    for name in found:
        while name and name not in known:
            name = name.rpartition(".")[0]
        parts = name.split(".")
        # importing a.b.c runs the __init__ of a.b first
        targets.update(".".join(parts[:i]) for i in range(2, len(parts) + 1))
    targets.discard(module)
    return {t for t in targets if t in known and t != NAME}


def test_no_runtime_import_cycle() -> None:
    mods = modules()
    graph = {m: runtime_imports(m, p, set(mods)) for m, p in mods.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1 and not node.startswith(nxt + "."):
                cycles.append([*trail[trail.index(nxt) :], nxt] if nxt in trail else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == []


def test_every_module_says_what_it_owns() -> None:
    for name, path in modules().items():
        doc = ast.get_docstring(parse(path))
        assert doc and doc.splitlines()[0].strip(), name


MAX_CODE_LINES = 600
"""No module of the package has more code lines (one concept per module)."""


def test_no_module_over_600_code_lines() -> None:
    long = {
        name: n
        for name, path in modules().items()
        if (n := size_script().code_lines(path.read_text())) > MAX_CODE_LINES
    }
    assert long == {}, f"split these along a seam (one concept per module): {long}"


def test_no_langgraph_or_langchain_private_names() -> None:
    """LangGraph's and LangChain's internals (``__pregel_*`` config keys, ``_private``
    modules or names) are never used: only their public APIs."""
    offenders: list[str] = []
    for module, path in modules().items():
        for node in walk(parse(path)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value.startswith("__pregel"):
                    offenders.append(f"{module}: {node.value!r}")
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                top = node.module.split(".")[0]
                if top in {"langgraph", "langchain", "langchain_core"}:
                    private = [p for p in node.module.split(".") if p.startswith("_")]
                    private += [a.name for a in node.names if a.name.startswith("_")]
                    if private:
                        offenders.append(f"{module}: from {node.module} import {private}")
    assert offenders == []
