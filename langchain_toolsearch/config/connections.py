"""Saved MCP servers -> ``langchain-mcp-adapters`` connections -> tools.

`connection_for` turns one saved server into the adapter's connection dict
(stdio, streamable HTTP, or SSE as the HTTP fallback); `load_server_tools`
lists its tools through `langchain_toolsearch.mcp.load_mcp_library`, one
server per client. Sessions come from an `langchain_toolsearch.mcp.pool.MCPSessionPool`
keyed by the saved client id, the server's settings and a fingerprint of the
caller's Bearer token. Tool ids are ``f"{server}_{tool}"``, with a route table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.tools import BaseTool

from langchain_toolsearch.config.models import AUTH_TOKEN_KEY
from langchain_toolsearch.config.servers import HttpServer, MCPServer
from langchain_toolsearch.errors import ToolSearchError
from langchain_toolsearch.mcp.headers import merge_headers
from langchain_toolsearch.mcp.library import MCPToolRoute, list_mcp_library

if TYPE_CHECKING:
    from langchain_mcp_adapters.sessions import Connection

    from langchain_toolsearch.mcp.pool import MCPSessionPool

__all__ = ["BadAuthToken", "ServerTools", "bearer_token", "connection_for", "load_server_tools"]

_BEARER_PREFIX = re.compile(r"^bearer(\s+|$)", re.IGNORECASE)
_TOKEN = re.compile(r"^[\x21-\x7e]+\Z")


class BadAuthToken(ToolSearchError, ValueError):
    """The request context's auth token cannot be sent as a bearer token."""


def bearer_token(value: Any, *, key: str = AUTH_TOKEN_KEY) -> str | None:
    """The token to send as ``Authorization: Bearer <token>``.

    Args:
        value: The request context's value under ``key`` (``None``: absent).
            A leading ``"Bearer "`` is accepted and not doubled.
        key: The key, for error messages.

    Returns:
        The bare token, or ``None`` when ``value`` is ``None``.

    Raises:
        BadAuthToken: If the value is not a non-empty string without spaces or
            control characters (the message never holds the token).
    """
    if value is None:
        return None
    if not isinstance(value, str):
        msg = f"request context key {key!r} must be a string token, got {type(value).__name__}"
        raise BadAuthToken(msg)
    token = _BEARER_PREFIX.sub("", value.strip(), count=1)
    if not token or not _TOKEN.match(token):
        msg = (
            f"request context key {key!r} is not a usable bearer token (empty, or has spaces "
            "or control characters); HTTP servers were not contacted"
        )
        raise BadAuthToken(msg)
    return token


def connection_for(
    server: MCPServer,
    *,
    token: str | None = None,
    default_timeout: float | None = None,
    transport: Literal["streamable_http", "sse"] = "streamable_http",
) -> Connection:
    """The adapter connection for one saved server.

    Args:
        server: A saved `StdioServer` or `HttpServer`.
        token: Bearer token for HTTP servers (see `bearer_token`); ignored
            for stdio servers.
        default_timeout: Seconds used when the server has no ``timeout``.
        transport: For HTTP servers: ``"streamable_http"`` (tried first) or
            ``"sse"`` (the fallback).

    Returns:
        ``{"transport": "stdio", "command", "args", "env"?}`` or
        ``{"transport": "streamable_http" | "sse", "url", "timeout"?, "headers"?}``.
    """
    timeout = server.timeout if server.timeout is not None else default_timeout
    if isinstance(server, HttpServer):
        http: dict[str, Any] = {"transport": transport, "url": server.url}
        if timeout is not None:
            http["timeout"] = timeout
        if token is not None:
            http["headers"] = merge_headers({"Authorization": f"Bearer {token}"})
        return http  # type: ignore[return-value]
    stdio: dict[str, Any] = {
        "transport": "stdio",
        "command": server.command,
        "args": list(server.args),
    }
    if server.env is not None:
        stdio["env"] = dict(server.env)
    return stdio  # type: ignore[return-value]


@dataclass(frozen=True)
class ServerTools:
    """The tools one saved server offered.

    Attributes:
        server: Server name in the saved client.
        tools: Tools named ``f"{server}_{tool}"``, sorted.
        routes: Tool id -> (server, the tool's own name).
        failure: Why the server contributed nothing, or ``None``.
        transport: The transport that answered (``"stdio"``,
            ``"streamable_http"`` or ``"sse"``), or ``None`` on failure.
    """

    server: str
    tools: list[BaseTool] = field(default_factory=list)
    routes: Mapping[str, MCPToolRoute] = field(default_factory=dict)
    failure: str | None = None
    transport: str | None = None


async def load_server_tools(
    name: str,
    server: MCPServer,
    *,
    token: str | None = None,
    default_timeout: float | None = 30.0,
    scope: str = "",
    pool: MCPSessionPool | None = None,
) -> ServerTools:
    """List one saved server's tools; never raises for server problems.

    Args:
        name: The server's name (prefixes tool ids).
        server: The saved server.
        token: Bearer token for an HTTP server.
        scope: The saved client's id and version (``"id@version"``), kept in the
            pooled session's key so a new version never reuses an old session.
        pool: Session pool; ``None``: the shared default pool.
        default_timeout: Seconds per call without a server ``timeout`` (``None``:
            forever); listing gets the larger of this and the server's.

    Returns:
        The tools and routes, or a ``failure`` saying why. HTTP is tried as
        streamable HTTP, then SSE (the one that answered first next time).
    """
    if not isinstance(server, HttpServer):
        return await _load(name, server, "stdio", token, default_timeout, scope, pool)
    order: tuple[_HttpTransport, _HttpTransport] = ("streamable_http", "sse")
    if _ANSWERED.get((scope, name, server.url)) == "sse":
        order = ("sse", "streamable_http")
    first = await _load(name, server, order[0], token, default_timeout, scope, pool)
    if first.failure is None:
        return first
    fallback = await _load(name, server, order[1], token, default_timeout, scope, pool)
    if fallback.failure is None:
        if len(_ANSWERED) >= _ANSWERED_MAX:
            _ANSWERED.clear()
        _ANSWERED[(scope, name, server.url)] = order[1]
        return fallback
    failures = dict(zip(order, (first.failure, fallback.failure), strict=True))
    return ServerTools(
        server=name,
        failure=f"streamable HTTP: {failures['streamable_http']}; SSE: {failures['sse']}",
    )


_HttpTransport = Literal["streamable_http", "sse"]
# (client id, server name, url) -> the transport that answered last when it
# was not the first one tried; bounded (cleared when full).
_ANSWERED: dict[tuple[str, str, str], _HttpTransport] = {}
_ANSWERED_MAX = 1024


async def _load(
    name: str,
    server: MCPServer,
    transport: Literal["stdio", "streamable_http", "sse"],
    token: str | None,
    default_timeout: float | None,
    scope: str,
    pool: MCPSessionPool | None,
) -> ServerTools:
    """List one server's tools over one transport (pooled session)."""
    # Imported here so that `import langchain_toolsearch` works where
    # langchain-mcp-adapters cannot be imported (next to mcp>=2, e.g. with
    # `langchain.mcp`); only listing a saved MCP client needs it.
    from langchain_toolsearch.mcp.library import multi_server_mcp_client

    MultiServerMCPClient = multi_server_mcp_client()
    timeout = server.timeout if server.timeout is not None else default_timeout
    connection = connection_for(
        server,
        token=token,
        default_timeout=default_timeout,
        transport="sse" if transport == "sse" else "streamable_http",
    )
    client = MultiServerMCPClient({name: connection})
    try:
        list_timeout = (
            None if timeout is None or default_timeout is None else max(timeout, default_timeout)
        )
        library = await list_mcp_library(  # failures are reported by the resolver
            client,
            timeout=timeout,
            list_timeout=list_timeout,
            namespace="always",
            pool=pool,
            scope=scope,
            log_failures=False,
        )
    except ValueError as exc:  # e.g. the server lists one tool twice
        return ServerTools(server=name, failure=str(exc))
    if name in library.failures:
        return ServerTools(server=name, failure=library.failures[name])
    return ServerTools(
        server=name, tools=list(library.tools), routes=dict(library.routes), transport=transport
    )
