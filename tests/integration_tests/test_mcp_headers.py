"""One credential per request, whatever the header's case.

A real loopback server (``header_echo_server.py``: streamable HTTP on ``/mcp``,
SSE on ``/sse``) answers with every header line it received. A connection's
``Authorization: Bearer SERVICE`` plus an interceptor's per-caller
``authorization: Bearer USER`` must arrive as ONE header, the caller's.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from langchain_mcp_adapters.client import MultiServerMCPClient

from langchain_toolsearch.mcp import MCPSessionPool, load_mcp_library
from langchain_toolsearch_editor import HttpServer
from langchain_toolsearch_editor._servers import connection_for
from tests.support.servers import served


@pytest.fixture(scope="module")
def echo_base() -> Iterator[str]:
    """``http://127.0.0.1:<port>`` of the header echo server (both transports)."""
    with served("header_echo_server.py", "") as url:
        yield url


class CallerToken:
    """An interceptor that sends the caller's token under the header spelling given."""

    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers

    async def __call__(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await handler(request.override(headers=dict(self.headers)))


def authorization_lines(result: Any) -> list[str]:
    """The ``authorization`` header lines the server received."""
    content = result if isinstance(result, str) else "".join(b["text"] for b in result)
    return [value for name, value in json.loads(content) if name.lower() == "authorization"]


async def received(
    pool: MCPSessionPool, connection: dict[str, Any], interceptors: list[Any] | None = None
) -> list[str]:
    client = MultiServerMCPClient({"h": connection}, tool_interceptors=interceptors)  # type: ignore[arg-type]
    library = await load_mcp_library(client, pool=pool, timeout=20, namespace="always")
    assert library.failures == {}
    (tool,) = library.tools
    return authorization_lines(await tool.ainvoke({}))


@pytest.mark.parametrize("transport,path", [("streamable_http", "/mcp"), ("sse", "/sse")])
@pytest.mark.parametrize(
    "service,caller",
    [
        ("Authorization", "authorization"),
        ("authorization", "Authorization"),
        ("AUTHORIZATION", "aUtHoRiZaTiOn"),
        ("Authorization", "Authorization"),
    ],
)
async def test_the_callers_token_is_the_one_header_sent(
    echo_base: str, pool: MCPSessionPool, transport: str, path: str, service: str, caller: str
) -> None:
    connection = {
        "transport": transport,
        "url": echo_base + path,
        "headers": {service: "Bearer SERVICE"},
    }
    lines = await received(pool, connection, [CallerToken({caller: "Bearer USER"})])
    assert lines == ["Bearer USER"]


@pytest.mark.parametrize("transport,path", [("streamable_http", "/mcp"), ("sse", "/sse")])
async def test_a_connection_naming_a_header_twice_sends_it_once(
    echo_base: str, pool: MCPSessionPool, transport: str, path: str
) -> None:
    connection = {
        "transport": transport,
        "url": echo_base + path,
        "headers": {"Authorization": "Bearer FIRST", "authorization": "Bearer LAST"},
    }
    assert await received(pool, connection) == ["Bearer LAST"]  # the later entry wins
    # without an interceptor the connection's own header goes out, once
    alone = {**connection, "headers": {"Authorization": "Bearer SERVICE"}}
    assert await received(pool, alone) == ["Bearer SERVICE"]


@pytest.mark.parametrize("transport,path", [("streamable_http", "/mcp"), ("sse", "/sse")])
async def test_a_saved_server_token_and_a_callers_interceptor_send_one_header(
    echo_base: str, pool: MCPSessionPool, transport: str, path: str
) -> None:
    saved = connection_for(
        HttpServer(url=echo_base + path),
        token="SAVED",
        transport=transport,  # type: ignore[arg-type]
    )
    assert await received(pool, dict(saved)) == ["Bearer SAVED"]
    lines = await received(pool, dict(saved), [CallerToken({"AUTHORIZATION": "Bearer USER"})])
    assert lines == ["Bearer USER"]
