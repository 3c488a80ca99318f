"""Every deliberate raise in the package is a ``ToolSearchError``.

The package's source is read as an AST: a ``raise`` of a built-in exception
class, or an exception class derived straight from a built-in, fails this
test unless it is on the allow-list below with its reason. Each family of the
tree also subclasses the matching built-in.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest
from langchain_core.tools import tool

import langchain_toolsearch.errors as errors
from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.errors import (
    ToolSearchConfigError,
    ToolSearchDataError,
    ToolSearchError,
    ToolSearchTypeError,
)
from tests.support.source_tree import parse, walk

PACKAGE = Path(errors.__file__).resolve().parent

BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)

ALLOWED: dict[tuple[str, str], str] = {
    ("catalog.py", "FileNotFoundError"): "a missing catalog path is the OS error callers "
    "catch (an OSError cannot also be a ToolSearchError family without a layout clash)",
    ("_shell.py", "ValueError"): "pydantic validator of the model's load_tool arguments: "
    "pydantic turns it into the model-facing error, never raised to the developer",
    ("mcp/_pool.py", "AssertionError"): "unreachable ends of the retry loops (an invariant, "
    "not an error a caller can meet)",
    ("mcp/_session.py", "ConnectionError"): "a lost MCP transport is the OSError that "
    "connection_lost() and callers recognise (an OSError cannot also be a ToolSearchError "
    "family without a layout clash)",
    ("_support.py", "AttributeError"): "PEP 562 __getattr__ of the lazy exports: "
    "the import system needs AttributeError for a name the package does not have",
    ("__init__.py", "AttributeError"): "PEP 562 __getattr__ of the lazy exports: "
    "the import system needs AttributeError for a name the package does not have",
    ("search/_shared_index.py", "NotImplementedError"): "the VectorStore write methods the "
    "read-only store adapter does not offer (the VectorStore protocol's own answer)",
}
"""``(file, built-in)`` raises that stay built-in, with the reason."""


def _sources() -> list[tuple[str, ast.Module]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        found.append((rel, parse(path)))
    return found


def _raised_name(node: ast.Raise) -> str | None:
    exc = node.exc
    if isinstance(exc, ast.Call):
        exc = exc.func
    return exc.id if isinstance(exc, ast.Name) else None


def test_no_bare_builtin_raise_outside_the_allow_list() -> None:
    offenders = []
    for rel, tree in _sources():
        for node in walk(tree):
            if not isinstance(node, ast.Raise):
                continue
            name = _raised_name(node)
            if name in BUILTIN_EXCEPTIONS and (rel, name) not in ALLOWED:
                offenders.append(f"{rel}:{node.lineno} raise {name}")
    assert offenders == [], "raise a ToolSearchError subclass (errors.py) instead:\n" + "\n".join(
        offenders
    )


def test_no_exception_class_outside_the_tree() -> None:
    offenders = []
    for rel, tree in _sources():
        for node in walk(tree):
            if not isinstance(node, ast.ClassDef) or rel == "errors.py":
                continue
            if node.name.startswith("_"):  # a module's own signal, caught where it is raised
                continue
            bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
            in_tree = any(b.startswith(("ToolSearch", "StoreMissing")) for b in bases)
            warning = any(b.endswith("Warning") for b in bases)  # warned, never raised
            if bases & BUILTIN_EXCEPTIONS and not in_tree and not warning:
                offenders.append(f"{rel}:{node.lineno} class {node.name}{sorted(bases)}")
    assert offenders == [], "derive from a ToolSearchError family in errors.py:\n" + "\n".join(
        offenders
    )


def test_the_allow_list_has_no_stale_entries() -> None:
    """Each allowed raise still exists (an entry that allows nothing hides nothing)."""
    seen = {
        (rel, name)
        for rel, tree in _sources()
        for node in walk(tree)
        if isinstance(node, ast.Raise) and (name := _raised_name(node)) is not None
    }
    assert set(ALLOWED) <= seen


@pytest.mark.parametrize("name", errors.__all__)
def test_every_class_of_the_tree_is_a_tool_search_error_and_drawn(name: str) -> None:
    cls = getattr(errors, name)
    assert issubclass(cls, ToolSearchError)
    assert name in (errors.__doc__ or ""), f"{name} is missing from the tree in errors.py"


@pytest.mark.parametrize(
    ("name", "builtin"),
    [
        ("ToolSearchConfigError", ValueError),
        ("ToolSearchTypeError", TypeError),
        ("ToolSearchDependencyError", ImportError),
        ("ToolSearchTimeoutError", TimeoutError),
        ("ToolSearchUsageError", RuntimeError),
        ("ToolSearchDataError", ValueError),
        ("StoreMissingError", ValueError),
    ],
)
def test_each_family_is_also_its_builtin(name: str, builtin: type[BaseException]) -> None:
    assert issubclass(getattr(errors, name), builtin)


def test_the_tree_drawn_covers_the_classes_outside_errors_py() -> None:
    from langchain_toolsearch.mcp import MCPPoolClosedError, MCPPoolError

    for cls in (MCPPoolError, MCPPoolClosedError):
        assert issubclass(cls, ToolSearchError), cls
        assert cls.__name__ in (errors.__doc__ or ""), f"{cls.__name__} missing from the tree"


@tool
def _echo(text: str) -> str:
    """Echo the text."""
    return text


def test_a_bad_index_option_is_a_type_error_of_the_tree() -> None:
    """The issue's example: ``index=42`` was a plain ``TypeError``."""
    with pytest.raises(ToolSearchTypeError, match="index must be a ToolIndex"):
        ToolSearchMiddleware(tools=[_echo], index=42)  # type: ignore[arg-type]


def test_a_malformed_catalog_is_a_data_error(tmp_path: Path) -> None:
    from langchain_toolsearch.catalog import load_catalog

    bad = tmp_path / "tools.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ToolSearchDataError):
        load_catalog(bad)


def test_evaluation_arguments_and_files_raise_the_tree(tmp_path: Path) -> None:
    from langchain_toolsearch.evaluation import evaluate, load_queries

    with pytest.raises(ToolSearchConfigError, match="at least one query"):
        evaluate(lambda query, k: [], [])
    empty = tmp_path / "q.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(ToolSearchDataError):
        load_queries(empty)


def test_the_resolver_and_store_index_options_raise_the_tree() -> None:
    """The resolver and store index options: each family keeps its built-in."""
    from langgraph.store.memory import InMemoryStore

    from langchain_toolsearch.search import HashingEmbeddings, StoreToolIndex
    from langchain_toolsearch_editor._resolver import ToolResolver

    with pytest.raises(ToolSearchConfigError, match="unknown mode"):
        ToolResolver(mode="nope")  # type: ignore[arg-type]
    with pytest.raises(ToolSearchTypeError, match="store must be a ToolConfigStore"):
        ToolResolver(store=object())  # type: ignore[arg-type]
    with pytest.raises(ToolSearchConfigError, match="need dims >= 2"):
        HashingEmbeddings(dims=1)
    with pytest.raises(ToolSearchConfigError, match="has no vector index"):
        StoreToolIndex(InMemoryStore(), [])


def test_the_search_index_raises_the_tree() -> None:
    """``search/_bm25.py``'s raises keep their built-in and join the tree."""
    from langchain_toolsearch.search import BM25ToolIndex, ToolDocument
    from langchain_toolsearch.search._bm25 import build_index

    twice = [ToolDocument(name="a", description="x"), ToolDocument(name="a", description="y")]
    with pytest.raises(ToolSearchConfigError, match="duplicate tool names in the index"):
        BM25ToolIndex(twice)
    with pytest.raises(ToolSearchTypeError, match="returned dict, not a ToolIndex"):
        build_index(lambda documents: {}, [])  # type: ignore[arg-type]
    with pytest.raises(ToolSearchTypeError, match="index must be a ToolIndex"):
        build_index(42, [])  # type: ignore[arg-type]
