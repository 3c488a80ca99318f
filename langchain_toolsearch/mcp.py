"""Load MCP server tools into a tool library, one server at a time.

`load_mcp_tools` lists the tools of every server configured on a
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

Listing tools is the only step that opens MCP sessions. The returned tools
open a fresh session for each call (the adapter's behaviour when no session
is given), so searching, loading and binding them never touches a server.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import logging
from collections.abc import Awaitable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

import anyio
from langchain_core.tools import BaseTool, InjectedToolArg, StructuredTool, ToolException
from langgraph.errors import GraphBubbleUp

from langchain_toolsearch._async import run_sync
from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch.errors import ToolSearchTypeError

if TYPE_CHECKING:
    # Only for annotations: importing this module (which the stored tool
    # configuration does) must not need a working langchain-mcp-adapters. It
    # needs mcp<2 and fails to import next to mcp>=2, which `langchain.mcp`
    # (fastmcp) brings in; tools from `langchain.mcp` need none of this module.
    from langchain_mcp_adapters.client import MultiServerMCPClient

__all__ = ["MCPLibrary", "MCPToolRoute", "load_mcp_tools", "multi_server_mcp_client"]

logger = logging.getLogger(__name__)

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
        raise ImportError(f"{MCP_EXTRA_HINT} ({exc})") from exc
    return MultiServerMCPClient


NamespaceMode = Literal["on-collision", "always"]
"""How exposed tool names are built from server and tool names."""

_CLOSED_STREAM_ERRORS = (
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
)

# langchain-mcp-adapters 0.2.x raised `ToolException(str(content))` for an
# `isError` result, which is "[]" when the content was empty (0.3 carries the
# content blocks in `tool_content` and uses a generic placeholder text).
_EMPTY_ERROR_TEXTS = frozenset({"", "[]"})


@dataclass(frozen=True)
class MCPToolRoute:
    """Where an exposed MCP tool name is sent.

    Attributes:
        server: Name of the server in the client's ``connections``.
        tool: The tool's own name on that server.
    """

    server: str
    tool: str


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


async def load_mcp_tools(
    client: MultiServerMCPClient,
    *,
    timeout: float | None = 30.0,
    namespace: NamespaceMode = "on-collision",
    list_timeout: float | None = None,
) -> MCPLibrary:
    """List the tools of every server of ``client`` and build an `MCPLibrary`.

    Servers are listed concurrently, one session per server, each bounded by
    ``list_timeout`` (default: ``timeout``). A server that fails (cannot
    start, crashes, times out, ...) is recorded in `MCPLibrary.failures` and
    logged as a warning; the others still load. If every server fails the
    library is simply empty: the caller decides whether that is fatal.

    Naming: with ``namespace="on-collision"`` a tool name that is unique
    across the servers that answered keeps its name, and a name found on two
    or more servers is exposed as ``f"{server}_{tool}"`` on each of them; so
    is a tool named ``search_tools`` or ``load_tool``, which are reserved for
    the meta tools (a warning is logged). With ``namespace="always"`` (also
    used when the client was built with ``tool_name_prefix=True``) every tool
    is ``f"{server}_{tool}"``.

    Each returned tool calls the server with its original name, opens its own
    session per call, gives up after ``timeout`` seconds and turns MCP
    failures into `ToolException` (handled as error tool messages unless the
    client was built with ``handle_tool_errors=False``).

    Args:
        client: The client whose ``connections`` are listed.
        timeout: Seconds allowed for each tool call, and for listing one
            server's tools unless ``list_timeout`` is given; ``None`` waits
            forever.
        namespace: ``"on-collision"`` or ``"always"`` (see above).
        list_timeout: Seconds allowed for listing one server's tools (starting
            a server can take longer than a call should); ``None`` uses
            ``timeout``.

    Returns:
        The tools sorted by exposed name, their routes and the failed servers.

    Raises:
        ToolSearchTypeError: (a ``TypeError``) If ``client`` is not a
            ``MultiServerMCPClient`` (has no ``connections`` mapping).
        ValueError: If two tools end up with the same exposed name (for
            example server ``foo`` tool ``bar_baz`` and server ``foo_bar`` tool
            ``baz`` both give ``foo_bar_baz``), or if ``namespace``,
            ``timeout`` or ``list_timeout`` is invalid.
    """
    if not isinstance(getattr(client, "connections", None), Mapping):
        msg = (
            "load_mcp_tools expects a langchain_mcp_adapters MultiServerMCPClient (an object "
            f"with a 'connections' mapping), got {type(client).__name__}"
        )
        raise ToolSearchTypeError(msg)
    if namespace not in ("on-collision", "always"):
        msg = f"namespace must be 'on-collision' or 'always', got {namespace!r}"
        raise ValueError(msg)
    for label, value in (("timeout", timeout), ("list_timeout", list_timeout)):
        if value is not None and not value > 0:
            msg = f"{label} must be a positive number of seconds or None, got {value!r}"
            raise ValueError(msg)
    if list_timeout is None:
        list_timeout = timeout
    if client.tool_name_prefix:
        namespace = "always"

    server_names = sorted(client.connections)
    results = await asyncio.gather(
        *(_list_server(client, name, list_timeout) for name in server_names)
    )

    listed: dict[str, list[tuple[str, StructuredTool]]] = {}
    failures: dict[str, str] = {}
    for name, result in zip(server_names, results, strict=True):
        if isinstance(result, str):
            failures[name] = result
            logger.warning("MCP server %r contributes no tools: %s", name, result)
        else:
            listed[name] = result

    named = _assign_names(listed, namespace)
    handle_errors = bool(getattr(client, "handle_tool_errors", True))
    tools: list[BaseTool] = []
    routes: dict[str, MCPToolRoute] = {}
    for exposed in sorted(named):
        route, tool = named[exposed]
        tools.append(
            _wrap_tool(tool, exposed=exposed, route=route, timeout=timeout, handle=handle_errors)
        )
        routes[exposed] = route
    return MCPLibrary(tools=tools, routes=routes, failures=failures)


async def _list_server(
    client: MultiServerMCPClient, server: str, timeout: float | None
) -> list[tuple[str, StructuredTool]] | str:
    """List one server's tools.

    Args:
        client: The client holding the server's connection.
        server: Server name in ``client.connections``.
        timeout: Seconds allowed for the whole listing, or ``None``.

    Returns:
        ``(original tool name, adapter tool)`` pairs, or a description of why
        the server could not be listed.
    """
    deadline = asyncio.timeout(timeout)
    try:
        async with deadline:
            tools = await client.get_tools(server_name=server)
    except GraphBubbleUp:
        raise
    except Exception as exc:
        # Cancelling the session on timeout may surface as another error
        # (e.g. a broken stream) rather than TimeoutError: ask the deadline.
        if deadline.expired():
            return f"listing tools timed out after {timeout:g} s"
        return _describe_failure(exc, client.connections.get(server))
    prefix = f"{server}_" if client.tool_name_prefix else ""
    pairs: list[tuple[str, StructuredTool]] = []
    for tool in tools:
        if not isinstance(tool, StructuredTool) or tool.coroutine is None:
            return (
                f"tool {tool.name!r} is a {type(tool).__name__} without a coroutine; "
                "expected the async StructuredTool made by langchain-mcp-adapters"
            )
        # The adapter adds exactly this prefix when the client asks for it.
        original = tool.name.removeprefix(prefix) if prefix else tool.name
        pairs.append((original, tool))
    return pairs


def _assign_names(
    listed: Mapping[str, list[tuple[str, StructuredTool]]], namespace: NamespaceMode
) -> dict[str, tuple[MCPToolRoute, StructuredTool]]:
    """Give every listed tool its exposed name.

    Args:
        listed: Server name -> ``(original name, tool)`` pairs.
        namespace: The naming mode.

    Returns:
        Exposed name -> (route, adapter tool). Tools named like a meta tool
        are always namespaced.

    Raises:
        ValueError: If two tools get the same exposed name.
    """
    owners: dict[str, set[str]] = {}
    for server, pairs in listed.items():
        for original, _ in pairs:
            owners.setdefault(original, set()).add(server)

    named: dict[str, tuple[MCPToolRoute, StructuredTool]] = {}
    for server in sorted(listed):
        for original, tool in listed[server]:
            reserved = original in META_TOOL_NAMES
            if reserved and namespace != "always":
                logger.warning(
                    "MCP server %r has a tool named %r, which is reserved for the tool-search "
                    "meta tools; it is exposed as %r",
                    server,
                    original,
                    f"{server}_{original}",
                )
            if namespace == "always" or reserved or len(owners[original]) > 1:
                exposed = f"{server}_{original}"
            else:
                exposed = original
            route = MCPToolRoute(server=server, tool=original)
            if exposed in named:
                raise ValueError(_collision_message(exposed, named[exposed][0], route))
            named[exposed] = (route, tool)
    return named


def _collision_message(exposed: str, first: MCPToolRoute, second: MCPToolRoute) -> str:
    """Explain a name collision and how to fix it.

    Args:
        exposed: The exposed name both tools would get.
        first: Route of the tool named first.
        second: Route of the tool that collides with it.

    Returns:
        The error message.
    """
    if first.server == second.server:
        return (
            f"MCP server {first.server!r} lists the tool {first.tool!r} more than once, "
            f"so {exposed!r} would be ambiguous. Fix the server, or leave it out of the "
            "MultiServerMCPClient connections."
        )
    return (
        f"MCP tool name collision: tool {first.tool!r} on server {first.server!r} and "
        f"tool {second.tool!r} on server {second.server!r} would both be exposed as "
        f"{exposed!r}. Rename one of these servers in the MultiServerMCPClient "
        f"connections (for example {second.server!r} -> {second.server + '2'!r}) so the "
        "server-prefixed names differ."
    )


def _describe_failure(exc: BaseException, connection: Mapping[str, Any] | None) -> str:
    """Describe why a server could not be listed or a call failed.

    Args:
        exc: The exception raised (exception groups are flattened).
        connection: The server's connection config; for a stdio server its
            command is named in the description.

    Returns:
        A one-line, human-readable description.
    """
    parts: list[str] = []
    for leaf in _leaf_exceptions(exc):
        text = str(leaf).strip()
        part = f"{type(leaf).__name__}: {text}" if text else type(leaf).__name__
        if isinstance(leaf, _CLOSED_STREAM_ERRORS):
            part += " (the server closed the connection; did its process exit?)"
        elif isinstance(leaf, io.UnsupportedOperation) and "fileno" in text:
            part += (
                " (stdio MCP servers need sys.stderr to be a real file; some Jupyter kernels "
                "replace it: run from a terminal, or set sys.stderr = sys.__stderr__)"
            )
        if part not in parts:
            parts.append(part)
    description = "; ".join(parts)
    if connection is not None and isinstance(connection.get("command"), str):
        description += f" [stdio command {connection['command']!r}]"
    return description


def _leaf_exceptions(exc: BaseException) -> Iterable[BaseException]:
    """Yield the non-group exceptions inside ``exc``.

    Args:
        exc: An exception, possibly an exception group.

    Yields:
        Every leaf exception, depth first.
    """
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaf_exceptions(inner)
    else:
        yield exc


def _wrap_tool(
    tool: StructuredTool,
    *,
    exposed: str,
    route: MCPToolRoute,
    timeout: float | None,
    handle: bool,
) -> StructuredTool:
    """Wrap an adapter tool with a timeout, clearer errors and its exposed name.

    Args:
        tool: A tool made by langchain-mcp-adapters (async `StructuredTool`
            whose coroutine calls the server under its original name).
        exposed: The name the model sees.
        route: Server and original tool name.
        timeout: Seconds allowed per call, or ``None``.
        handle: Whether `ToolException` becomes an error tool message
            (``handle_tool_error``) instead of propagating.

    Returns:
        A new `StructuredTool` with the same description, JSON schema,
        response format and metadata (plus ``mcp_server``/``mcp_tool``).

    Raises:
        TypeError: If ``tool`` has no coroutine.
    """
    call_inner = tool.coroutine
    if call_inner is None:  # ruled out when listing; kept for the type checker
        msg = f"tool {tool.name!r} has no coroutine"
        raise TypeError(msg)
    passes_runtime = "runtime" in inspect.signature(call_inner).parameters
    label = f"MCP tool {route.tool!r} on server {route.server!r}"

    async def acall(runtime: Annotated[Any, InjectedToolArg()] = None, **arguments: Any) -> Any:
        if passes_runtime:
            arguments["runtime"] = runtime
        return await _call_with_guards(call_inner(**arguments), label=label, timeout=timeout)

    def call(runtime: Annotated[Any, InjectedToolArg()] = None, **arguments: Any) -> Any:
        return run_sync(acall(runtime, **arguments))

    metadata = {**(tool.metadata or {}), "mcp_server": route.server, "mcp_tool": route.tool}
    return StructuredTool(
        name=exposed,
        description=tool.description,
        args_schema=tool.args_schema,
        func=call,
        coroutine=acall,
        response_format=tool.response_format,
        metadata=metadata,
        tags=tool.tags,
        extras=tool.extras,
        return_direct=tool.return_direct,
        handle_tool_error=_handle_tool_error if handle else False,
        handle_validation_error=tool.handle_validation_error,
    )


async def _call_with_guards(call: Awaitable[Any], *, label: str, timeout: float | None) -> Any:
    """Await one MCP tool call, mapping timeouts and failures to `ToolException`.

    Args:
        call: The adapter's tool call.
        label: Names the tool and server in error messages.
        timeout: Seconds allowed, or ``None``.

    Returns:
        Whatever the adapter's tool returned.

    Raises:
        ToolException: On timeout, on an MCP ``isError`` result, or when the
            server could not be reached or failed mid-call.
    """
    deadline = asyncio.timeout(timeout)
    try:
        async with deadline:
            return await call
    except GraphBubbleUp:
        raise
    except Exception as exc:
        # Cancelling the session on timeout may surface as another error
        # (e.g. a broken stream) rather than TimeoutError: ask the deadline.
        if deadline.expired():
            msg = (
                f"{label} did not answer within {timeout:g} s; the call was cancelled. "
                "The server may be slow or stuck: retry later or use another tool."
            )
            raise ToolException(msg) from exc
        if not isinstance(exc, ToolException):
            msg = f"{label} failed: {_describe_failure(exc, None)}"
            raise ToolException(msg) from exc
        if _is_empty_mcp_error(exc):
            msg = f"{label} reported an error with no message."
            raise ToolException(msg) from exc
        raise


def _is_empty_mcp_error(error: ToolException) -> bool:
    """Whether an MCP ``isError`` result carried no content at all.

    Args:
        error: The exception raised by the adapter's tool.

    Returns:
        ``True`` when there is nothing for the model to read.
    """
    blocks = getattr(error, "tool_content", None)
    if isinstance(blocks, list):  # langchain-mcp-adapters >= 0.3
        return not blocks
    return str(error).strip() in _EMPTY_ERROR_TEXTS


def _handle_tool_error(error: ToolException) -> str | list[Any]:
    """Turn a `ToolException` into the content of an error tool message.

    Content blocks carried by the adapter's ``isError`` exception (text,
    images, files) are kept as they are; otherwise the message text is used.

    Args:
        error: The exception raised by the tool.

    Returns:
        Non-empty tool message content.
    """
    blocks = getattr(error, "tool_content", None)
    if isinstance(blocks, list) and blocks:
        return blocks
    return str(error).strip() or "MCP tool call failed with no message."
