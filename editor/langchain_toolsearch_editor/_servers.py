"""Saved MCP clients: stored stdio / HTTP servers, and their connections and tool listing.

Shapes (``?``: optional; ``null`` = omitted)::

    MCPClientConfig = {"name"?: str, "description"?: str,
                       "servers": {server_name: StdioServer | HttpServer}}
    StdioServer = {"type"?: "stdio", "command": str, "args"?: [str], "env"?: {str: str},
                   "timeout"?: seconds, "tools"?: {tool_name: ToolEntry}}
    HttpServer  = {"type"?: "http", "url": "http(s)://...", "timeout"?: seconds,
                   "tools"?: {tool_name: ToolEntry}}

A server's ``tools`` allowlist: omitted or ``null`` = every tool, ``{}`` = none.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from langchain_core.tools import BaseTool
from pydantic import BeforeValidator, Discriminator, Field, Tag, field_validator, model_validator

from langchain_toolsearch._support import (
    as_seconds,
    converted_from_milliseconds,
    looks_like_ms_timeout,
    ms_conversion_active,
)
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.mcp import MCPToolRoute
from langchain_toolsearch.mcp._library import list_mcp_library
from langchain_toolsearch.mcp._session import merge_headers
from langchain_toolsearch_editor._mastra import mcp_client_from_mastra, mcp_client_to_mastra
from langchain_toolsearch_editor._models import AUTH_TOKEN_KEY, Allowlist
from langchain_toolsearch_editor._parsing import parse_model
from langchain_toolsearch_editor._rules import StoredModel
from langchain_toolsearch_editor.errors import BadAuthToken, TimeoutUnitWarning

if TYPE_CHECKING:
    from langchain_mcp_adapters.sessions import Connection

    from langchain_toolsearch.mcp import MCPSessionPool

_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
MIN_TIMEOUT = 0.001
"""Shortest server ``timeout``, in seconds (1 ms, the seed system's unit)."""
MAX_TIMEOUT = 31_536_000.0
"""Longest server ``timeout``, in seconds (365 days)."""


def _timeout_seconds(value: Any) -> Any:
    """A server ``timeout`` (seconds or ``timedelta``) checked against the bounds."""
    value = as_seconds(value)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"timeout is a number of seconds (or a timedelta), got {type(value).__name__}"
        raise ToolSearchConfigError(msg)
    try:
        seconds = float(value)
    except OverflowError:
        seconds = float("inf")
    if not seconds <= MAX_TIMEOUT:  # NaN and too large
        msg = f"timeout is in seconds and must be at most {MAX_TIMEOUT:.0f} seconds (365 days)"
        raise ToolSearchConfigError(msg)
    if seconds < MIN_TIMEOUT:
        msg = (
            f"timeout is in seconds and must be at least {MIN_TIMEOUT} seconds (1 ms), "
            f"got {seconds!r}"
        )
        raise ToolSearchConfigError(msg)
    return seconds


Timeout: TypeAlias = Annotated[float | None, BeforeValidator(_timeout_seconds)]
"""A server ``timeout`` in seconds, between `MIN_TIMEOUT` and `MAX_TIMEOUT`."""


def _spelled(seconds: float) -> str:
    return f"{seconds / 3600:.1f} hours" if seconds >= 3600 else f"{seconds / 60:.1f} minutes"


def _warn_milliseconds(name: str, server: object) -> None:
    """`TimeoutUnitWarning` for a plain-number ``timeout`` like milliseconds (not converted)."""
    value = server.get("timeout") if isinstance(server, Mapping) else None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 < value <= MAX_TIMEOUT  # NaN, huge and bad values are refused later
        or not looks_like_ms_timeout(value)
        or ms_conversion_active()
    ):
        return
    shown, fix = f"{value:.15g}", f"{value / 1000:.15g}"
    warnings.warn(
        f"servers.{name}.timeout: {shown} seconds ({_spelled(value)}) looks like "
        f"milliseconds; timeouts are in seconds here (Mastra Editor stores milliseconds): "
        f"write {fix} for {shown} ms, import with from_mastra (which converts), "
        f"or pass timedelta(seconds={shown}) to keep {shown} seconds without this warning",
        TimeoutUnitWarning,
        stacklevel=2,
    )


class StdioServer(StoredModel):
    """A local MCP server run as a subprocess.

    ``env`` is added to the MCP SDK's safe default environment; ``timeout``: seconds
    to list tools and per call (default: the resolver's ``mcp_timeout``); ``tools``:
    allowlist by the tool's own name or ``"server_tool"``, with descriptions.
    """

    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    timeout: Timeout = None
    tools: Allowlist = None


class HttpServer(StoredModel):
    """A remote MCP server at ``url``: streamable HTTP, then SSE on the same URL (as the seed).

    No stored headers: the request context's `AUTH_TOKEN_KEY` is sent as
    ``Authorization: Bearer <token>``. ``timeout`` and ``tools`` as `StdioServer`'s.
    """

    type: Literal["http"] = "http"
    url: str
    timeout: Timeout = None
    tools: Allowlist = None

    @model_validator(mode="before")
    @classmethod
    def _no_headers(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "headers" in data:
            msg = (
                "custom headers cannot be stored on an HTTP MCP server; put the caller's "
                f"token in the request context under {AUTH_TOKEN_KEY!r} and it is sent as "
                "'Authorization: Bearer <token>'"
            )
            raise ToolSearchConfigError(msg)
        return data

    @field_validator("url")
    @classmethod
    def _check_url(cls, url: str) -> str:
        if not re.match(r"^https?://[^\s/]+", url):
            msg = f"must be an http:// or https:// URL, got {url!r}"
            raise ToolSearchConfigError(msg)
        return url


def _transport(value: Any) -> str | None:
    if isinstance(value, StdioServer | HttpServer):
        return value.type
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    if kind is None:
        if "command" in value:
            return "stdio"
        if "url" in value:
            return "http"
    return kind if kind in ("stdio", "http") else None


MCPServer: TypeAlias = Annotated[
    Annotated[StdioServer, Tag("stdio")] | Annotated[HttpServer, Tag("http")],
    Discriminator(
        _transport,
        custom_error_type="mcp_server",
        custom_error_message=(
            "expected a stdio server {type: 'stdio', command, args?, env?, timeout?} or an "
            "HTTP server {type: 'http', url, timeout?}"
        ),
    ),
]
"""A saved MCP server: `StdioServer` or `HttpServer`."""


class MCPClientConfig(StoredModel):
    """A saved MCP client: ``name``, ``description``, ``servers`` (name ``[A-Za-z0-9_-]{1,64}``).

    A server's tools are exposed as ``f"{server_name}_{tool_name}"``.
    """

    name: str | None = None
    description: str | None = None
    servers: dict[str, MCPServer]

    @field_validator("servers", mode="before")
    @classmethod
    def _server_names(cls, servers: Any) -> Any:
        if not isinstance(servers, Mapping):
            return servers
        if not servers:
            msg = "a saved MCP client needs at least one server"
            raise ToolSearchConfigError(msg)
        for name, server in servers.items():
            if not _SERVER_NAME.match(name):
                msg = (
                    f"server name {name!r:.80} must be 1-64 characters from A-Z, a-z, 0-9, '_' "
                    "and '-' (it prefixes tool ids)"
                )
                raise ToolSearchConfigError(msg)
            _warn_milliseconds(name, server)
        return servers

    def to_json(self) -> dict[str, Any]:
        """The JSON form that is stored."""
        return self.model_dump(mode="json", exclude_none=True)

    @classmethod
    def from_mastra(cls, data: Mapping[str, Any]) -> MCPClientConfig:
        """A Mastra Editor stored MCP client (`mastra.mcp_client_from_mastra`), ms -> s."""
        with converted_from_milliseconds():  # seconds now: none looks like milliseconds
            return parse_mcp_client(mcp_client_from_mastra(data))

    def to_mastra(self) -> dict[str, Any]:
        """The Mastra Editor form (milliseconds, camelCase)."""
        return mcp_client_to_mastra(self.to_json())


_BEARER_PREFIX = re.compile(r"^bearer(\s+|$)", re.IGNORECASE)
_TOKEN = re.compile(r"^[\x21-\x7e]+\Z")


def bearer_token(value: Any, *, key: str = AUTH_TOKEN_KEY) -> str | None:
    """The bare token of the context's ``value`` under ``key`` (``"Bearer "`` dropped), or ``None``.

    Raises:
        BadAuthToken: Not a non-empty string without spaces or control characters
            (the message never holds the token).
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
    """The adapter connection of a saved server; ``token`` and ``transport`` are HTTP's.

    Returns ``{"transport": "stdio", "command", "args", "env"?}`` or ``{"transport":
    "streamable_http" | "sse", "url", "timeout"?, "headers"?}``.
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
    """A saved server's tools (``f"{server}_{tool}"``, sorted), routes, or ``failure``.

    ``transport``: the one that answered (``"stdio"``, ``"streamable_http"``, ``"sse"``).
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
    """List one saved server's tools, or a ``failure`` (never raises for server problems).

    ``scope`` (``"id@version"``) keys the pooled session; ``default_timeout``:
    seconds per call without a server ``timeout`` (listing: the larger). HTTP
    tries streamable HTTP then SSE (the one that answered first next time).
    """

    async def load(transport: Literal["stdio", "streamable_http", "sse"]) -> ServerTools:
        # imported here: langchain-mcp-adapters may not import (next to mcp>=2)
        from langchain_toolsearch.mcp import multi_server_mcp_client

        connection = connection_for(
            server,
            token=token,
            default_timeout=default_timeout,
            transport="sse" if transport == "sse" else "streamable_http",
        )
        client = multi_server_mcp_client()({name: connection})
        timeout = server.timeout if server.timeout is not None else default_timeout
        try:
            list_timeout = (
                None
                if timeout is None or default_timeout is None
                else max(timeout, default_timeout)
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
        tools, routes = list(library.tools), dict(library.routes)
        return ServerTools(server=name, tools=tools, routes=routes, transport=transport)

    if not isinstance(server, HttpServer):
        return await load("stdio")
    order: tuple[_HttpTransport, _HttpTransport] = ("streamable_http", "sse")
    if _ANSWERED.get((scope, name, server.url)) == "sse":
        order = ("sse", "streamable_http")
    first = await load(order[0])
    if first.failure is None:
        return first
    fallback = await load(order[1])
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
_ANSWERED: dict[tuple[str, str, str], _HttpTransport] = {}
_ANSWERED_MAX = 1024
"""``_ANSWERED``: (scope, server, url) -> the fallback transport that answered; bounded."""


def parse_mcp_client(data: MCPClientConfig | Mapping[str, Any]) -> MCPClientConfig:
    """Validate an `MCPClientConfig` or its JSON.

    Raises:
        ToolConfigError: One ``field path: problem`` line per problem.
        TypeError: If ``data`` is neither a mapping nor an `MCPClientConfig`.
    """
    return parse_model(MCPClientConfig, data, "MCP client config")
