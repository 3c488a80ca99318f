"""Load MCP server tools into a tool library, one server at a time.

`load_mcp_library` lists the tools of every server configured on a
`langchain_mcp_adapters.client.MultiServerMCPClient` concurrently and returns
an `MCPLibrary`:

* a server that cannot be started or listed is reported in
  `MCPLibrary.failures` (and logged) while the other servers still load;
* a tool name found on several servers is exposed as ``f"{server}_{tool}"``
  for each of them, routed through a stored table (`MCPLibrary.routes`), never
  by splitting the exposed name again; names that still collide after
  namespacing are an error when the library is built;
* a tool named like a meta tool (``search_tools``, ``load_tool``) is likewise
  exposed as ``f"{server}_{tool}"`` (with a warning), so the library can be
  built and the model still reaches it;
* every tool call is bounded by a timeout, and MCP errors (including an
  ``isError`` result with no content) and timeouts become `ToolException`
  so a `ToolNode` answers with an error `ToolMessage` and the run continues.

Sessions are kept in an `langchain_toolsearch.mcp.pool.MCPSessionPool`: a
server starts once and serves every later listing and call. Searching,
loading and binding the returned tools never touches a server.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from langchain_core.tools import BaseTool, StructuredTool
from langgraph.errors import GraphBubbleUp

from langchain_toolsearch._internal.bounds import DEFAULT_MAX_OUTPUT_CHARS, check_limit
from langchain_toolsearch._internal.bridge import detached_timeout
from langchain_toolsearch.errors import (
    ToolSearchConfigError,
    ToolSearchDependencyError,
    ToolSearchTypeError,
)
from langchain_toolsearch.mcp.calls import describe_failure, guarded_tool
from langchain_toolsearch.mcp.headers import with_headers
from langchain_toolsearch.mcp.naming import MCPToolRoute, NamespaceMode, assign_names
from langchain_toolsearch.policy import positive_seconds

if TYPE_CHECKING:
    # Only for annotations: importing this module (which the stored tool
    # configuration does) must not need a working langchain-mcp-adapters. It
    # needs mcp<2 and fails to import next to mcp>=2, which `langchain.mcp`
    # (fastmcp) brings in; tools from `langchain.mcp` need none of this module.
    from langchain_mcp_adapters.client import MultiServerMCPClient

    from langchain_toolsearch.mcp.pool import MCPSessionPool, PooledSession

__all__ = [
    "MCPLibrary",
    "MCPToolRoute",
    "load_mcp_library",
    "load_mcp_tools",
    "multi_server_mcp_client",
]


MCP_EXTRA_HINT = (
    "langchain-mcp-adapters is needed to talk to MCP servers: "
    "pip install 'langchain-toolsearch[mcp]' (it needs mcp<2; not in the same environment "
    "as langchain[mcp])"
)
"""The one-line message of the ImportError raised when the ``[mcp]`` extra is missing."""


def multi_server_mcp_client() -> type[MultiServerMCPClient]:
    """``langchain_mcp_adapters.client.MultiServerMCPClient``, imported on first use.

    Raises:
        ImportError: If langchain-mcp-adapters (the ``[mcp]`` extra) is not
            installed or cannot be imported; the message names the extra.
    """
    try:
        from langchain_mcp_adapters.client import MultiServerMCPClient
    except ImportError as exc:
        raise ToolSearchDependencyError(f"{MCP_EXTRA_HINT} ({exc})") from exc
    return MultiServerMCPClient


@dataclass(frozen=True)
class MCPLibrary:
    """Tools listed from the servers of a `MultiServerMCPClient`.

    Attributes:
        tools: Ready-to-use tools sorted by exposed name; names are unique.
        routes: Exposed tool name -> `MCPToolRoute` (server and original name).
        failures: Server name -> human-readable reason the server's tools could
            not be listed. Servers in here contributed no tools.
    """

    tools: list[BaseTool]
    routes: Mapping[str, MCPToolRoute] = field(default_factory=dict)
    failures: Mapping[str, str] = field(default_factory=dict)


async def load_mcp_library(
    client: MultiServerMCPClient,
    *,
    timeout: float | timedelta | None = 30.0,
    namespace: NamespaceMode = "on-collision",
    list_timeout: float | timedelta | None = None,
    pool: MCPSessionPool | None = None,
    scope: str = "",
    max_output_chars: int | None = DEFAULT_MAX_OUTPUT_CHARS,
) -> MCPLibrary:
    """List the tools of every server of ``client`` and build an `MCPLibrary`.

    Servers are listed concurrently through ``pool`` (default: the shared
    `langchain_toolsearch.mcp.pool.default_pool`), each bounded by
    ``list_timeout`` (default: ``timeout``): a server starts once and its
    session and tool list are reused by later calls (see
    `langchain_toolsearch.mcp.pool.MCPSessionPool` for bounds, idle timeout,
    reconnection and tool-list expiry). A server that fails (cannot start,
    crashes, times out, ...) is recorded in `MCPLibrary.failures` and logged
    as a warning; the others still load. If every server fails the library is
    simply empty: the caller decides whether that is fatal.

    Naming: with ``namespace="on-collision"`` a tool name that is unique
    across the servers that answered keeps its name, and a name found on two
    or more servers is exposed as ``f"{server}_{tool}"`` on each of them; so
    is a tool named ``search_tools`` or ``load_tool``, which are reserved for
    the meta tools (a warning is logged). With ``namespace="always"`` (also
    used when the client was built with ``tool_name_prefix=True``) every tool
    is ``f"{server}_{tool}"``.

    Each returned tool calls the server with its original name through the
    pooled session (reconnecting after a failure), gives up after
    ``timeout`` seconds and turns MCP failures into `ToolException` (handled
    as error tool messages unless the client was built with
    ``handle_tool_errors=False``). The client's ``callbacks`` (progress) and
    ``tool_interceptors`` apply to calls; a call whose headers an interceptor
    changed goes through the pooled session for those headers.

    Args:
        client: The client whose ``connections`` are listed.
        timeout: Seconds allowed for each tool call, and for listing one
            server's tools unless ``list_timeout`` is given; ``None`` waits
            forever.
        namespace: ``"on-collision"`` or ``"always"`` (see above).
        list_timeout: Seconds allowed for listing one server's tools (starting
            a server can take longer than a call should); ``None`` uses
            ``timeout``.
        pool: Where sessions are kept; ``None``: the shared default pool.
        scope: Label kept in the sessions' keys (e.g. a saved client id).
        max_output_chars: Characters of a tool's answer kept in its
            ToolMessage (default 100,000); a longer answer is cut and ends
            with a marker saying how much was shown, and a structured-content
            artifact over the bound is dropped. ``None``: no bound.

    Returns:
        The tools sorted by exposed name, their routes and the failed servers.

    Raises:
        ToolSearchTypeError: (a ``TypeError``) If ``client`` is not a
            ``MultiServerMCPClient`` (has no ``connections`` mapping), or
            ``pool`` is not an ``MCPSessionPool``.
        ValueError: If two tools end up with the same exposed name (for
            example server ``foo`` tool ``bar_baz`` and server ``foo_bar`` tool
            ``baz`` both give ``foo_bar_baz``), or if ``namespace``,
            ``timeout``, ``list_timeout`` or ``max_output_chars`` is invalid.
        MCPPoolClosedError: (a ``RuntimeError``) If ``pool`` is closed.
    """
    return await list_mcp_library(
        client,
        timeout=timeout,
        namespace=namespace,
        list_timeout=list_timeout,
        pool=pool,
        scope=scope,
        log_failures=True,
        max_output_chars=max_output_chars,
    )


async def list_mcp_library(
    client: MultiServerMCPClient,
    *,
    timeout: float | timedelta | None,
    namespace: NamespaceMode,
    list_timeout: float | timedelta | None,
    pool: MCPSessionPool | None,
    scope: str,
    log_failures: bool,
    max_output_chars: int | None = DEFAULT_MAX_OUTPUT_CHARS,
) -> MCPLibrary:
    """`load_mcp_library`; ``log_failures=False`` leaves logging failed servers to the caller.

    Stored MCP clients (`ToolResolver`) report failed servers themselves, by their
    full path and once per cause, so they list with ``log_failures=False``.
    """
    from langchain_toolsearch.mcp.pool import MCPSessionPool, default_pool

    if not isinstance(getattr(client, "connections", None), Mapping):
        msg = (
            "load_mcp_library expects a langchain_mcp_adapters MultiServerMCPClient (an object "
            f"with a 'connections' mapping), got {type(client).__name__}"
        )
        raise ToolSearchTypeError(msg)
    if pool is not None and not isinstance(pool, MCPSessionPool):
        msg = f"pool must be an MCPSessionPool or None, got {type(pool).__name__}"
        raise ToolSearchTypeError(msg)
    if namespace not in ("on-collision", "always"):
        msg = f"namespace must be 'on-collision' or 'always', got {namespace!r}"
        raise ToolSearchConfigError(msg)
    timeout, list_timeout = (
        None if value is None else positive_seconds(label, value)
        for label, value in (("timeout", timeout), ("list_timeout", list_timeout))
    )
    check_limit("max_output_chars", max_output_chars)
    if list_timeout is None:
        list_timeout = timeout
    if client.tool_name_prefix:
        namespace = "always"
    pool = default_pool() if pool is None else pool

    server_names = sorted(client.connections)
    results = await asyncio.gather(
        *(
            _list_server(client, name, list_timeout, pool, scope, log_failures)
            for name in server_names
        )
    )

    listed: dict[str, list[tuple[str, StructuredTool]]] = {}
    memos: dict[str, dict[Any, Any]] = {}
    failures: dict[str, str] = {}
    for name, result in zip(server_names, results, strict=True):
        if isinstance(result, str):
            failures[name] = result  # logged and counted by pool.failures
        else:
            listed[name], memos[name] = result

    named = assign_names(listed, namespace)
    handle_errors = bool(getattr(client, "handle_tool_errors", True))
    tools: list[BaseTool] = []
    routes: dict[str, MCPToolRoute] = {}
    for exposed in sorted(named):
        route, tool = named[exposed]
        # Wrapped once per tool list, session and settings (same credential).
        memo_key = ("wrapped", id(tool), exposed, timeout, handle_errors, max_output_chars)
        wrapped = memos[route.server].get(memo_key)
        if wrapped is None:
            wrapped = guarded_tool(
                tool,
                exposed=exposed,
                server=route.server,
                original=route.tool,
                timeout=timeout,
                handle=handle_errors,
                failures=pool.failures,
                max_output_chars=max_output_chars,
            )
            memos[route.server][memo_key] = wrapped
        tools.append(wrapped)
        routes[exposed] = route
    return MCPLibrary(tools=tools, routes=routes, failures=failures)


def load_mcp_tools(client: MultiServerMCPClient, **options: Any) -> Coroutine[Any, Any, MCPLibrary]:
    """Deprecated name of `load_mcp_library` (same arguments); removed in the next release.

    Renamed because ``langchain_mcp_adapters.tools.load_mcp_tools`` takes a
    session, not a client, and returns a list, not an `MCPLibrary`.

    Raises:
        DeprecationWarning: Warned (not raised) on every call.
    """
    warnings.warn(
        "langchain_toolsearch.mcp.load_mcp_tools(client) is deprecated and will be removed in "
        "the next release: use load_mcp_library(client) (same arguments); "
        "langchain_mcp_adapters' load_mcp_tools(session) is a different function",
        DeprecationWarning,
        stacklevel=2,
    )
    return load_mcp_library(client, **options)


async def _list_server(
    client: MultiServerMCPClient,
    server: str,
    timeout: float | None,
    pool: MCPSessionPool,
    scope: str,
    log: bool,
) -> tuple[list[tuple[str, StructuredTool]], dict[Any, Any]] | str:
    """List one server's tools through the pool.

    Args:
        client: The client holding the server's connection.
        server: Server name in ``client.connections``.
        timeout: Seconds allowed for the whole listing, or ``None``.
        pool: The session pool.
        scope: Label for the session key.
        log: Whether a failure is logged here (else it is only counted).

    Returns:
        ``(original tool name, adapter tool)`` pairs and the listing's memo
        (for values derived from them), or a description of why the server
        could not be listed.
    """
    from langchain_mcp_adapters.tools import load_mcp_tools as adapter_tools

    from langchain_toolsearch.mcp.pool import MCPPoolClosedError

    connection = client.connections[server]
    handle = bool(getattr(client, "handle_tool_errors", True))
    callbacks = getattr(client, "callbacks", None)
    interceptors = getattr(client, "tool_interceptors", None)
    hooks = (
        getattr(callbacks, "on_logging_message", callbacks),
        getattr(callbacks, "on_progress", None),
        getattr(callbacks, "on_elicitation", None),
        *(interceptors or ()),
    )
    deadline = detached_timeout(timeout)
    try:
        async with deadline:
            listing = await pool.list_tools(connection, server=server, scope=scope)
            # Converted once per tool list, settings, callbacks and interceptors.
            made: list[tuple[bool, tuple[Any, ...], list[BaseTool]]]
            made = listing.memo.setdefault("adapter", [])
            for seen_handle, seen_hooks, seen_tools in made:
                if seen_handle == handle and _same_items(seen_hooks, hooks):
                    tools = seen_tools
                    break
            else:
                # handle_tool_errors: langchain-mcp-adapters >= 0.3 only
                extra: dict[str, Any] = (
                    {"handle_tool_errors": handle} if hasattr(client, "handle_tool_errors") else {}
                )
                tools = await adapter_tools(
                    listing.session,  # type: ignore[arg-type]  # a pooled stand-in
                    callbacks=callbacks,
                    tool_interceptors=[*(interceptors or ()), _HeaderRoute(listing.session)],
                    server_name=server,
                    **extra,
                )
                made.append((handle, hooks, tools))
    except (GraphBubbleUp, MCPPoolClosedError):
        raise
    except Exception as exc:
        # Cancelling the session on timeout may surface as another error
        # (e.g. a broken stream) rather than TimeoutError: ask the deadline.
        if deadline.expired():
            reason = f"listing tools timed out after {timeout:g} s"
            pool.failures.record("listing", TimeoutError(reason), server=server, log=log)
            return reason
        pool.failures.record("listing", exc, server=server, log=log)
        return describe_failure(exc, connection)
    pairs: list[tuple[str, StructuredTool]] = []
    for tool in tools:
        if not isinstance(tool, StructuredTool) or tool.coroutine is None:
            return (
                f"tool {tool.name!r} is a {type(tool).__name__} without a coroutine; "
                "expected the async StructuredTool made by langchain-mcp-adapters"
            )
        pairs.append((tool.name, tool))
    return pairs, listing.memo


class _HeaderRoute:
    """Innermost tool-call interceptor: routes a call to the session of its headers.

    A call whose headers an interceptor changed (e.g. to the caller's token)
    goes through the pooled session for those headers, never the shared one;
    the interceptor's headers are merged over the connection's by
    case-insensitive name (`with_headers`), so the caller's value wins.
    """

    def __init__(self, session: PooledSession) -> None:
        self.session = session

    async def __call__(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        headers = getattr(request, "headers", None)
        connection = self.session.connection
        if not headers or connection.get("transport") == "stdio":
            return await handler(request)
        changed = with_headers(connection, headers)  # the caller's value wins, any case
        key = self.session.key
        pooled = self.session.pool.session(changed, server=key.server, scope=key.scope)
        return await pooled.call_tool(request.name, request.args)


def _same_items(first: tuple[Any, ...], second: tuple[Any, ...]) -> bool:
    """Whether two tuples hold the very same objects in the same order."""
    return len(first) == len(second) and all(a is b for a, b in zip(first, second, strict=True))
