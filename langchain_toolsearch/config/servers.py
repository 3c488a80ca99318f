"""Saved MCP clients: the stored JSON of reusable stdio and HTTP MCP servers.

The shapes (``?`` marks an optional key; ``null`` means the same as an
omitted key)::

    MCPClientConfig = {"name"?: str, "description"?: str,
                       "servers": {server_name: StdioServer | HttpServer}}
    StdioServer = {"type"?: "stdio", "command": str, "args"?: [str], "env"?: {str: str},
                   "timeout"?: seconds, "tools"?: {tool_name: ToolEntry}}
    HttpServer  = {"type"?: "http", "url": "http(s)://...", "timeout"?: seconds,
                   "tools"?: {tool_name: ToolEntry}}

A server's ``tools`` is the server-level allowlist: omitted or ``null`` =
every tool, ``{}`` = none, a map = those names. Validate with
`langchain_toolsearch.config.parsing.parse_mcp_client`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Discriminator, Field, Tag, field_validator, model_validator

from langchain_toolsearch._internal.durations import (
    DurationUnitWarning,
    as_seconds,
    looks_like_ms_timeout,
    ms_conversion_active,
)
from langchain_toolsearch.config.mastra_hooks import exporter, importer
from langchain_toolsearch.config.models import AUTH_TOKEN_KEY, Allowlist, _dump
from langchain_toolsearch.config.rule_models import _Model
from langchain_toolsearch.errors import ToolSearchConfigError

__all__ = ["HttpServer", "MCPClientConfig", "MCPServer", "StdioServer", "TimeoutUnitWarning"]

_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")


MIN_TIMEOUT = 0.001
"""Shortest server ``timeout`` accepted, in seconds (1 ms, the seed system's unit)."""

MAX_TIMEOUT = 31_536_000.0
"""Longest server ``timeout`` accepted, in seconds (365 days)."""


class TimeoutUnitWarning(DurationUnitWarning):
    """A saved server ``timeout`` (seconds) looks like milliseconds, the seed system's unit."""


def _timeout_seconds(value: Any) -> Any:
    """Check a server ``timeout``: seconds (or a ``timedelta``) from `MIN_TIMEOUT` to `MAX_TIMEOUT`.

    Raises:
        ToolSearchConfigError: Not a number of seconds, or outside that range.
    """
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


def _spelled(seconds: float) -> str:
    return f"{seconds / 3600:.1f} hours" if seconds >= 3600 else f"{seconds / 60:.1f} minutes"


def _warn_milliseconds(name: str, server: object) -> None:
    """Warn (`TimeoutUnitWarning`) when a plain-number ``timeout`` looks like milliseconds.

    A ``timedelta`` never warns (its unit is explicit), nor values ``from_mastra``
    converted from milliseconds.
    """
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


class StdioServer(_Model):
    """A local MCP server started as a subprocess.

    Attributes:
        type: ``"stdio"`` (inferred from ``command`` when omitted).
        command: Executable to run.
        args: Its arguments.
        env: Extra environment variables (added to the MCP SDK's safe
            default environment; ``${VAR}`` is expanded by the adapter).
        timeout: Seconds allowed to list tools and for each call; default:
            the resolver's ``mcp_timeout``.
        tools: Server-level allowlist by tool name (the tool's own name or
            ``"serverName_toolName"``) with descriptions for every agent.
            Omitted: every tool; ``{}``: none.
    """

    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    timeout: float | None = None
    tools: Allowlist = None

    @field_validator("timeout", mode="before")
    @classmethod
    def _check_timeout(cls, value: Any) -> Any:
        return _timeout_seconds(value)


class HttpServer(_Model):
    """A remote MCP server reached over streamable HTTP, falling back to SSE.

    The resolver first tries the streamable HTTP transport on ``url``; when
    that fails it tries the legacy SSE transport on the same ``url`` (as the
    seed system's MCP client does), so an SSE-only server is saved with its
    SSE endpoint, e.g. ``https://host/sse``.

    Custom headers cannot be stored; an auth token in the request context
    under `AUTH_TOKEN_KEY` is sent as ``Authorization: Bearer <token>``.

    Attributes:
        type: ``"http"`` (inferred from ``url`` when omitted).
        url: ``http://`` or ``https://`` endpoint, e.g. ``https://host/mcp``.
        timeout: Seconds for HTTP operations, listing tools and each call;
            default: the resolver's ``mcp_timeout``.
        tools: Server-level allowlist, as for `StdioServer`.
    """

    type: Literal["http"] = "http"
    url: str
    timeout: float | None = None
    tools: Allowlist = None

    @field_validator("timeout", mode="before")
    @classmethod
    def _check_timeout(cls, value: Any) -> Any:
        return _timeout_seconds(value)

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
    """Discriminate stdio from HTTP servers (``type``, else ``command`` / ``url``)."""
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


class MCPClientConfig(_Model):
    """A saved, reusable MCP client: one or more servers.

    Tools of a server are exposed as ``f"{server_name}_{tool_name}"``; the
    resolver keeps a table from those ids to (server, tool), so server names
    may contain ``_``.

    Attributes:
        name: Display name.
        description: What the client is for.
        servers: Server name (``[A-Za-z0-9_-]``, at most 64) -> server.
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
        return _dump(self)

    @classmethod
    def from_mastra(cls, data: Mapping[str, Any]) -> MCPClientConfig:
        """Convert a Mastra Editor stored MCP client snapshot to this format.

        See `langchain_toolsearch.config.mastra.mcp_client_from_mastra`.
        """
        return importer(MCPClientConfig)(data)

    def to_mastra(self) -> dict[str, Any]:
        """The Mastra Editor form of this client (milliseconds, camelCase).

        See `langchain_toolsearch.config.mastra.mcp_client_to_mastra`.
        """
        return exporter(MCPClientConfig)(self)
