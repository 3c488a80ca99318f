"""Every outbound path that builds MCP request headers merges them by
case-insensitive name through ``langchain_toolsearch.mcp._session`` (the caller's value
wins, a header is never sent twice). No server runs; the wire is tested in
``tests/integration_tests/test_mcp_headers.py``."""

from __future__ import annotations

import ast
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import langchain_toolsearch_editor
from langchain_toolsearch.mcp import MCPSessionPool
from langchain_toolsearch.mcp._library import _HeaderRoute
from langchain_toolsearch.mcp._session import merge_headers, session_key, with_headers
from langchain_toolsearch_editor import HttpServer
from langchain_toolsearch_editor._servers import connection_for
from tests.support.source_tree import parse, walk
from tests.unit_tests.test_layout import modules

HTTP = {"transport": "streamable_http", "url": "https://mcp.example/mcp"}

BUILDERS = {
    "langchain_toolsearch.mcp._session": "merge_headers / with_headers; the session key's "
    "fingerprint of the merged headers",
    "langchain_toolsearch.mcp._library": "interceptor route: with_headers(connection, caller's)",
    "langchain_toolsearch_editor._servers": "saved server: merge_headers(Authorization)",
}
REFUSERS = {"langchain_toolsearch_editor._servers": "stored HTTP servers refuse custom headers"}


def _mentions_headers(path: Any) -> bool:
    """Whether code (not a docstring) uses the string ``"headers"``."""
    tree = parse(path)
    docstrings = {
        id(node.body[0].value)
        for node in walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return any(
        isinstance(node, ast.Constant) and node.value == "headers" and id(node) not in docstrings
        for node in walk(tree)
    )


def _modules() -> dict[str, Path]:
    """The core's modules and the editor's, by dotted name."""
    editor = Path(langchain_toolsearch_editor.__file__).resolve().parent
    return modules() | {
        ".".join(path.relative_to(editor.parent).with_suffix("").parts): path
        for path in editor.rglob("*.py")
    }


def test_the_outbound_paths_that_build_headers_are_these_and_each_merges() -> None:
    found = {name for name, path in _modules().items() if _mentions_headers(path)}
    assert found == set(BUILDERS) | set(REFUSERS), "route a new header path via merge_headers"
    for name in BUILDERS:
        source = _modules()[name].read_text()
        assert "merge_headers(" in source or "with_headers(" in source, name


@pytest.mark.parametrize(
    "layers,sent",
    [
        (
            ({"Authorization": "Bearer S"}, {"authorization": "Bearer U"}),
            {"authorization": "Bearer U"},
        ),
        (
            ({"authorization": "Bearer S"}, {"AUTHORIZATION": "Bearer U"}),
            {"AUTHORIZATION": "Bearer U"},
        ),
        (({"Authorization": "A", "authorization": "B"},), {"authorization": "B"}),
        (
            ({"X-Tenant": "t1", "Authorization": "S"}, {"x-tenant": "t2"}),
            {"x-tenant": "t2", "Authorization": "S"},
        ),
        (({"Authorization": "S"}, None), {"Authorization": "S"}),
        ((None, {}), {}),
    ],
)
def test_merge_headers_keeps_one_value_per_name_the_later_layers(
    layers: tuple[Any, ...], sent: dict[str, str]
) -> None:
    merged = merge_headers(*layers)
    assert merged == sent
    assert len({name.lower() for name in merged}) == len(merged)


def test_with_headers_leaves_a_connection_without_headers_as_it_was() -> None:
    assert with_headers(HTTP) == HTTP and "headers" not in with_headers(HTTP)
    out = with_headers({**HTTP, "headers": {"A": "1"}}, {"a": "2"})
    assert out == {**HTTP, "headers": {"a": "2"}}


def test_the_session_key_fingerprints_what_is_sent() -> None:
    both = session_key(
        {**HTTP, "headers": {"Authorization": "S", "authorization": "U"}}, server="h"
    )
    assert both == session_key({**HTTP, "headers": {"AUTHORIZATION": "U"}}, server="h")
    assert both != session_key({**HTTP, "headers": {"Authorization": "S"}}, server="h")


def test_a_pooled_session_holds_the_merged_connection() -> None:
    with MCPSessionPool() as pool:
        pooled = pool.session(
            {**HTTP, "headers": {"Authorization": "S", "authorization": "U"}}, server="h"
        )
        assert pooled.connection["headers"] == {"authorization": "U"}


def test_a_saved_servers_connection_sends_one_authorization() -> None:
    connection = connection_for(HttpServer(url=HTTP["url"]), token="T")
    assert connection["headers"] == {"Authorization": "Bearer T"}  # type: ignore[typeddict-item]


async def test_the_interceptor_route_sends_the_callers_value_under_one_name() -> None:
    routed: list[dict[str, Any]] = []

    class Pool:
        def session(self, connection: dict[str, Any], *, server: str, scope: str = "") -> Any:
            routed.append(connection)

            class Session:
                async def call_tool(self, *args: Any) -> str:
                    return "ok"

            return Session()

    connection = {**HTTP, "headers": {"Authorization": "Bearer SERVICE"}}
    pooled = SimpleNamespace(
        pool=Pool(), connection=connection, key=session_key(connection, server="h")
    )
    request = SimpleNamespace(name="whoami", args={}, headers={"authorization": "Bearer USER"})

    async def handler(request: Any) -> str:
        raise AssertionError("a call with the caller's headers never uses the shared session")

    route = _HeaderRoute(pooled)  # type: ignore[arg-type]
    unused: Callable[[Any], Awaitable[Any]] = handler
    assert await route(request, unused) == "ok"
    assert routed[0]["headers"] == {"authorization": "Bearer USER"}
