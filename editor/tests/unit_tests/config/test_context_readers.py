"""Rule conditions read the request context through one accessor, `lookup`.

So whatever a resolution reads is known: the resolution cache keys the value at every
condition's ``field`` (`rule_fields`, read through `lookup` too) and the auth token. The
package's source is read as an AST; a function that reads a request context (a name
``ctx`` / ``context``, or an attribute ``.context``, subscripted, ``.get()``, ``in`` or
copied whole by ``dict()``)
or calls `lookup` fails this test unless it is listed below with its reason.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import langchain_toolsearch_editor
from langchain_toolsearch_editor import evaluate_rules, parse_rules
from langchain_toolsearch_editor._cache import rule_fields
from langchain_toolsearch_editor._parsing import lookup

PACKAGE = Path(langchain_toolsearch_editor.__file__).resolve().parent

READERS: dict[tuple[str, str], str] = {
    ("_rules.py", "_condition"): "a rule condition, through lookup",
    ("_cache.py", "_read"): "the cache key's value at each rule field, through lookup",
    ("_cache.py", "ResolutionCache.key"): "the auth token, keyed by the cache",
    ("_sources.py", "ToolCollector._mcp_jobs"): "the auth token sent to MCP servers",
    ("_sources.py", "ToolCollector._provider_job"): "all of it, handed to a tool provider "
    "(the cache key then holds all of it)",
}
"""``(module, function)`` that read a request context, with what they read."""


def _reads_context(node: ast.AST) -> bool:
    def is_context(expr: ast.AST) -> bool:
        return (isinstance(expr, ast.Name) and expr.id in {"ctx", "context"}) or (
            isinstance(expr, ast.Attribute) and expr.attr == "context"
        )

    if isinstance(node, ast.Subscript):
        return is_context(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "get" and is_context(node.func.value)
    if isinstance(node, ast.Compare):
        return any(isinstance(op, ast.In | ast.NotIn) for op in node.ops) and any(
            is_context(c) for c in node.comparators
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):  # lookup, or all of it
        return node.func.id == "lookup" or (
            node.func.id == "dict" and any(map(is_context, node.args))
        )
    return False


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield f"{prefix}{child.name}", child
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                yield from walk(child, f"{prefix}{child.name}.")

    yield from walk(tree, "")


def _own_nodes(func: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``func``'s body, not those of functions nested in it."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def _readers() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for name, func in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            if any(_reads_context(node) for node in _own_nodes(func)):
                found.add((rel, name))
    return found


def test_every_reader_of_the_request_context_is_known() -> None:
    found = _readers()
    assert found - set(READERS) == set(), "read rule fields through config.parsing.lookup"
    assert set(READERS) <= found, "a listed reader is gone: drop it from READERS"
    assert callable(lookup), "the accessor: config.parsing.lookup"


class _Recording(Mapping[str, Any]):
    """A request context that records the keys read."""

    def __init__(self, data: dict[str, Any], reads: list[str]) -> None:
        self._data, self._reads = data, reads

    def __getitem__(self, key: str) -> Any:
        self._reads.append(key)
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        self._reads.append(str(key))
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("a rule listed the whole context")

    def __len__(self) -> int:
        raise AssertionError("a rule measured the whole context")


def test_rules_read_only_the_fields_the_cache_keys() -> None:
    group = parse_rules(
        {
            "operator": "OR",
            "conditions": [
                {"field": "user.tier", "operator": "equals", "value": "pro"},
                {
                    "operator": "AND",
                    "conditions": [
                        {"field": "region", "operator": "in", "value": ["eu", "us"]},
                        {"field": "flags.beta", "operator": "exists"},
                    ],
                },
            ],
        }
    )
    reads: list[str] = []
    context = _Recording({"user": {"tier": "free"}, "region": "eu", "other": 1}, reads)
    assert evaluate_rules(group, context) is False
    fields = rule_fields(group)
    assert fields == {"user.tier", "region", "flags.beta"}
    assert set(reads) <= {field.split(".")[0] for field in fields}
