"""The quickstart notebook's first code cell names every module it needs that the package does not.

A reader who runs the notebook outside ``make setup`` (a fresh venv with
``pip install ".[mcp]"``) must learn everything missing from the first cell,
not from an ``ImportError`` halfway down. The notebook's imports, and the
module-level imports of the repository modules it imports (``benchmarks/``,
``examples/``, followed transitively), are read statically; each third-party
module outside the package's runtime dependencies must appear in the first
cell's ``find_spec`` check.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO_ROOT / "notebooks" / "quickstart.ipynb"
LOCAL = ("benchmarks", "examples", "langchain_toolsearch")
# what `pip install .` brings (the runtime dependencies and what they depend on)
INSTALLED_WITH_PACKAGE = {
    "langchain",
    "langchain_core",
    "langgraph",
    "pydantic",
    "numpy",
    "anyio",
    "Stemmer",
}


def top_level_imports(tree: ast.Module) -> set[str]:
    """Dotted names imported by statements that run on import (not inside functions)."""
    names: set[str] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, field, []):
                    pending.extend(child.body if isinstance(child, ast.ExceptHandler) else [child])
    return names


def local_file(module: str) -> Path | None:
    """The repository file of a ``benchmarks`` / ``examples`` module, if it is one."""
    base = REPO_ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def needed_third_party(sources: list[str]) -> set[str]:
    """Top-level third-party modules the cells import, directly or through local modules."""
    seen: set[str] = set()
    third_party: set[str] = set()
    pending = [name for source in sources for name in top_level_imports(ast.parse(source))]
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        root = module.split(".")[0]
        if root in LOCAL:
            path = local_file(module) if root != "langchain_toolsearch" else None
            if path is not None:
                pending.extend(top_level_imports(ast.parse(path.read_text())))
        elif root not in sys.stdlib_module_names and root != "__future__":
            third_party.add(root)
    return third_party - INSTALLED_WITH_PACKAGE


def cells(kind: str) -> list[str]:
    """The sources of the notebook's cells of ``kind`` (``"code"``, ``"markdown"``), in order."""
    notebook = json.loads(NOTEBOOK.read_text())
    # IPython magics and shell lines are not Python; the notebook has none, keep it so
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == kind]


def test_first_cell_checks_every_module_the_notebook_needs() -> None:
    code = cells("code")
    checked = {
        node.value
        for node in ast.walk(ast.parse(code[0]))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    needed = needed_third_party(code)
    assert {"matplotlib", "IPython", "rank_bm25", "langchain_mcp_adapters"} <= needed
    assert needed <= checked, f"the first cell does not check {sorted(needed - checked)}"


def test_first_markdown_cell_names_the_install_line() -> None:
    intro = cells("markdown")[0]
    for package in ("matplotlib", "ipykernel", "rank-bm25", '".[mcp]"'):
        assert package in intro, package
