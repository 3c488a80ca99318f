"""Honest metadata: the declared dependencies are exactly what the package imports.

An AST scan of every module of ``langchain_toolsearch``: a third-party import at
module level (outside ``if TYPE_CHECKING:``) must be a runtime dependency, and
every runtime dependency must be imported so; an import inside a function must
be a runtime dependency or come from an extra. The installed package must not
locate repository files (``../shared``, ``scripts/``) from its own path.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT
from tests.support.source_tree import distributions, parse

PACKAGE = REPO_ROOT / "langchain_toolsearch"
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def _dist_name(requirement: str) -> str:
    name = re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


RUNTIME = {_dist_name(r) for r in PYPROJECT["project"]["dependencies"]}
EXTRAS = {
    extra: {_dist_name(r) for r in reqs}
    for extra, reqs in PYPROJECT["project"]["optional-dependencies"].items()
}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Top-level module names imported at module level and inside functions."""
    module_level: set[str] = set()
    lazy: set[str] = set()

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit(other, in_function)
                continue
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                names = [child.module]
            for name in names:
                (lazy if in_function else module_level).add(name.split(".")[0])
            inner = in_function or isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            visit(child, inner)

    visit(tree, False)
    return module_level, lazy


def _third_party(modules: set[str]) -> dict[str, set[str]]:
    """``{module: {distributions}}`` for the modules not in the standard library."""
    dists = distributions()
    out: dict[str, set[str]] = {}
    for module in modules - set(sys.stdlib_module_names) - {"langchain_toolsearch", "__future__"}:
        # an extra that is not installed here: its distribution is named like the module
        out[module] = {_dist_name(d) for d in dists.get(module, [module])}
    return out


def _scan(
    paths: list[Path] | None = None,
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    module_level: set[str] = set()
    lazy: set[str] = set()
    for path in paths if paths is not None else sorted(PACKAGE.rglob("*.py")):
        top, inner = _imports(parse(path))
        module_level |= top
        lazy |= inner
    return _third_party(module_level), _third_party(lazy - module_level)


def test_runtime_dependencies_are_exactly_the_module_level_imports() -> None:
    module_level, _ = _scan()
    for module, dists in module_level.items():
        assert dists & RUNTIME, f"{module} is imported at module level; declare {dists}"
    imported = set().union(*module_level.values())
    assert imported >= RUNTIME, f"declared but never imported: {RUNTIME - imported}"


def test_lazy_imports_come_from_a_dependency_or_an_extra() -> None:
    _, lazy = _scan()
    declared = RUNTIME.union(*EXTRAS.values())
    for module, dists in lazy.items():
        assert dists & declared, f"{module} is imported lazily but in no extra: {dists}"


def test_numpy_is_a_runtime_dependency_and_rank_bm25_only_a_bench_one() -> None:
    assert "numpy" in RUNTIME
    assert "rank-bm25" not in RUNTIME and "rank-bm25" in EXTRAS["bench"]
    assert "langchain-mcp-adapters" not in RUNTIME and "langchain-mcp-adapters" in EXTRAS["mcp"]


def test_postgres_floor_is_past_the_prefix_thread_id_bug() -> None:
    for extra in ("postgres", "engine", "dev"):
        (req,) = [
            r
            for r in PYPROJECT["project"]["optional-dependencies"][extra]
            if _dist_name(r) == "langgraph-checkpoint-postgres"
        ]
        assert ">=3.2" in req, req


def test_langchain_mcp_extra_does_not_pull_the_adapters() -> None:
    # langchain[mcp] brings mcp>=2; langchain-mcp-adapters needs mcp<2: never both in one extra.
    for extra, dists in EXTRAS.items():
        if extra != "dev":
            assert not ({"langchain-mcp-adapters"} <= dists and "langchain" in dists), extra
    assert "langchain-mcp-adapters" not in EXTRAS["langchain-mcp"]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.name)
def test_the_package_does_not_locate_repository_files(path: Path) -> None:
    text = path.read_text()
    assert "__file__" not in text, f"{path.name} locates files relative to its source"
    assert '"shared"' not in text and "scripts/" not in text, path.name


def test_mcp_extra_missing_is_one_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from langchain_toolsearch.mcp import multi_server_mcp_client

    monkeypatch.setitem(sys.modules, "langchain_mcp_adapters.client", None)
    with pytest.raises(ImportError, match=r"langchain-toolsearch\[mcp\]"):
        multi_server_mcp_client()


def test_cli_without_the_mcp_extra_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from langchain_toolsearch._cli import main

    config = tmp_path / "mcp.json"
    config.write_text('{"mcpServers": {"time": {"command": "mcp-server-time"}}}')
    monkeypatch.setitem(sys.modules, "langchain_mcp_adapters.client", None)
    assert main(["search", "time", "--mcp-config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'langchain-toolsearch[mcp]'" in err
