"""MCP server tools as a tool library: listing, exposed names, guarded calls.

`load_mcp_library` lists every server of a ``MultiServerMCPClient`` concurrently
through an `MCPSessionPool` (a server starts once) and returns an `MCPLibrary`:
failed servers in ``failures`` while the others load; names on several servers, or
named like a meta tool, exposed as ``f"{server}_{tool}"`` and routed by ``routes``
(`MCPToolRoute`); each tool wrapped once per listing (`guarded_tool`): calls bounded
by a timeout and in output size, MCP failures as `ToolException`.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import logging
import time
import warnings
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any, Literal

from langchain_core.tools import BaseTool, InjectedToolArg, StructuredTool, ToolException
from langgraph.errors import GraphBubbleUp

from langchain_toolsearch._effects import detached_timeout, run_sync
from langchain_toolsearch._library import ASKED_PIN, PIN_KEY
from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch._support import (
    DEFAULT_MAX_OUTPUT_CHARS,
    bound_content,
    bound_result,
    check_limit,
    positive_seconds,
)
from langchain_toolsearch.errors import (
    MCPPoolClosedError,
    ToolSearchConfigError,
    ToolSearchDependencyError,
    ToolSearchTypeError,
)
from langchain_toolsearch.mcp._pool import MCPFailures, MCPSessionPool, default_pool
from langchain_toolsearch.mcp._session import (
    CALL_DEADLINE,
    CLOSED_STREAM_ERRORS,
    PooledSession,
    with_headers,
)

if TYPE_CHECKING:
    # annotations only: importing this module must not need langchain-mcp-adapters
    # (it needs mcp<2, which fails next to `langchain.mcp`'s mcp>=2)
    from langchain_mcp_adapters.client import MultiServerMCPClient

logger = logging.getLogger("langchain_toolsearch.mcp._library")  # where users filter MCP logs

NamespaceMode = Literal["on-collision", "always"]
"""How exposed tool names are built from server and tool names."""

# texts of an `isError` result with no content ("[]": `str(content)`, adapters 0.2)
_EMPTY_ERROR_TEXTS = frozenset({"", "[]"})

MCP_EXTRA_HINT = (
    "langchain-mcp-adapters is needed to talk to MCP servers: "
    "pip install 'langchain-toolsearch[mcp]' (it needs mcp<2; not in the same environment "
    "as langchain[mcp])"
)
"""The message of the ImportError raised when the ``[mcp]`` extra is missing."""


def multi_server_mcp_client() -> type[MultiServerMCPClient]:
    """``langchain_mcp_adapters.client.MultiServerMCPClient``, imported on first use.

    Raises:
        ImportError: langchain-mcp-adapters (the ``[mcp]`` extra) cannot be imported.
    """
    try:
        from langchain_mcp_adapters.client import MultiServerMCPClient
    except ImportError as exc:
        raise ToolSearchDependencyError(f"{MCP_EXTRA_HINT} ({exc})") from exc
    return MultiServerMCPClient


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
        tools: Tools sorted by exposed name (unique).
        routes: Exposed tool name -> `MCPToolRoute` (server and original name).
        failures: Server name -> why its tools could not be listed (no tools from it).
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
    trust_always_load: bool | Collection[str] = False,
) -> MCPLibrary:
    """List the tools of every server of ``client`` and build an `MCPLibrary`.

    Servers are listed concurrently through ``pool``; a failing one is recorded in
    ``failures`` and logged, the others still load (all failing: an empty library).
    ``namespace="on-collision"`` exposes a name found on several servers, or reserved for
    a meta tool, as ``f"{server}_{tool}"``; ``"always"`` (or the client's
    ``tool_name_prefix=True``) does so for every tool. Calls go through the pooled
    session under the original name; MCP failures become `ToolException` (error tool
    messages unless ``handle_tool_errors=False``). The client's ``callbacks`` and
    ``tool_interceptors`` apply; changed headers get their own pooled session.

    Args:
        client: The client whose ``connections`` are listed.
        timeout: Seconds per tool call, and per server listing unless ``list_timeout``;
            ``None`` waits forever.
        namespace: ``"on-collision"`` or ``"always"``.
        list_timeout: Seconds for listing one server; ``None`` uses ``timeout``.
        pool: Where sessions are kept; ``None``: the shared default pool.
        scope: Label kept in the sessions' keys (e.g. a saved client id).
        max_output_chars: Characters of an answer kept (default 100,000; longer ones
            cut with a marker, an oversized structured artifact dropped); ``None``: all.
        trust_always_load: Servers (names, or ``True``: all) whose tools' ``_meta``
            ``anthropic/alwaysLoad: true`` pins them (``pinned=``, within
            ``pinned_max_tokens``); others' asks are ignored.

    Returns:
        The tools sorted by exposed name, their routes and the failed servers.

    Raises:
        ToolSearchTypeError: ``client`` has no ``connections`` mapping, or ``pool`` is
            not an ``MCPSessionPool``.
        ValueError: Two tools end up with the same exposed name, or an invalid
            ``namespace``, ``timeout``, ``list_timeout``, ``max_output_chars`` or
            ``trust_always_load`` (a server the client does not have).
        MCPPoolClosedError: ``pool`` is closed.
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
        trust_always_load=trust_always_load,
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
    trust_always_load: bool | Collection[str] = False,
) -> MCPLibrary:
    """`load_mcp_library`; ``log_failures=False`` leaves logging failed servers to the caller."""
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
    servers, trust = set(client.connections), trust_always_load
    trusted = servers if trust is True else set(trust or ())
    if isinstance(trust, str) or not trusted <= servers:
        msg = f"trust_always_load must be True, False or some of {sorted(servers)}, got {trust!r}"
        raise ToolSearchConfigError(msg)
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
        meta = (tool.metadata or {}).get("_meta")
        asks = isinstance(meta, Mapping) and meta.get("anthropic/alwaysLoad") is True
        pin = asks and route.server in trusted
        # Wrapped once per tool list, session and settings (same credential).
        memo_key = ("wrapped", id(tool), exposed, timeout, handle_errors, max_output_chars, pin)
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
                pin=pin,
            )
            memos[route.server][memo_key] = wrapped
        tools.append(wrapped)
        routes[exposed] = route
    return MCPLibrary(tools=tools, routes=routes, failures=failures)


def load_mcp_tools(client: MultiServerMCPClient, **options: Any) -> Coroutine[Any, Any, MCPLibrary]:
    """Deprecated name of `load_mcp_library` (same arguments).

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
    """One server's ``(original name, adapter tool)`` pairs and listing memo, or why not."""
    from langchain_mcp_adapters.tools import load_mcp_tools as adapter_tools

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
    """Innermost tool-call interceptor: a call with changed headers uses their own session."""

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


def assign_names(
    listed: Mapping[str, list[tuple[str, StructuredTool]]], namespace: NamespaceMode
) -> dict[str, tuple[MCPToolRoute, StructuredTool]]:
    """Exposed name -> (route, adapter tool) of every listed tool (meta names namespaced).

    Args:
        listed: Server name -> ``(original name, tool)`` pairs.
        namespace: The naming mode.

    Returns:
        The exposed names.

    Raises:
        ValueError: Two tools get the same exposed name.
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
                raise ToolSearchConfigError(collision_message(exposed, named[exposed][0], route))
            named[exposed] = (route, tool)
    return named


def collision_message(exposed: str, first: MCPToolRoute, second: MCPToolRoute) -> str:
    """The error message for two routes given the same exposed name, with the fix."""
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


def describe_failure(exc: BaseException, connection: Mapping[str, Any] | None) -> str:
    """One line saying why a server could not be listed or a call failed.

    Args:
        exc: The exception raised (exception groups are flattened).
        connection: The server's connection config (a stdio command is named).

    Returns:
        The description.
    """
    parts: list[str] = []
    for leaf in _leaf_exceptions(exc):
        text = "; ".join(t for t in (str(leaf).strip(), *getattr(leaf, "__notes__", ())) if t)
        part = f"{type(leaf).__name__}: {text}" if text else type(leaf).__name__
        if isinstance(leaf, CLOSED_STREAM_ERRORS):
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
    """Yield the non-group exceptions inside ``exc``, depth first."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaf_exceptions(inner)
    else:
        yield exc


def guarded_tool(
    tool: StructuredTool,
    *,
    exposed: str,
    server: str,
    original: str,
    timeout: float | None,
    handle: bool,
    failures: MCPFailures | None = None,
    max_output_chars: int | None = DEFAULT_MAX_OUTPUT_CHARS,
    pin: bool = False,
) -> StructuredTool:
    """Wrap an adapter tool with its exposed name, a timeout and clear `ToolException`.

    Args:
        tool: An async `StructuredTool` made by langchain-mcp-adapters.
        exposed: The name the model sees.
        server: Name of the tool's server.
        original: The tool's own name on that server.
        timeout: Seconds per call, or ``None``.
        handle: Whether `ToolException` becomes an error tool message.
        failures: Where calls that got no answer are reported; ``None``: nowhere.
        max_output_chars: Characters of output kept (longer: cut with a marker);
            ``None``: all.
        pin: Its trusted server asked it be always loaded (``metadata[PIN_KEY]``).

    Returns:
        A `StructuredTool` with the same description, schema, response format and
        metadata (plus ``mcp_server``/``mcp_tool``).

    Raises:
        TypeError: ``tool`` has no coroutine.
    """
    call_inner = tool.coroutine
    if call_inner is None:  # ruled out when listing; kept for the type checker
        msg = f"tool {tool.name!r} has no coroutine"
        raise ToolSearchTypeError(msg)
    passes_runtime = "runtime" in inspect.signature(call_inner).parameters
    label = f"MCP tool {original!r} on server {server!r}"

    def report(exc: BaseException) -> None:
        if failures is not None:
            failures.record("call", exc, server=server, tool=original)

    async def acall(runtime: Annotated[Any, InjectedToolArg()] = None, **arguments: Any) -> Any:
        if passes_runtime:
            arguments["runtime"] = runtime
        result = await _call_with_guards(
            call_inner(**arguments), label=label, timeout=timeout, report=report
        )
        return bound_result(result, max_output_chars)

    def handle_error(error: ToolException) -> str | list[Any]:
        content: str | list[Any] = bound_content(_handle_tool_error(error), max_output_chars)
        return content

    def call(runtime: Annotated[Any, InjectedToolArg()] = None, **arguments: Any) -> Any:
        return run_sync(acall(runtime, **arguments))

    metadata = {**(tool.metadata or {}), "mcp_server": server, "mcp_tool": original}
    metadata.update({PIN_KEY: ASKED_PIN} if pin else {})
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
        handle_tool_error=handle_error if handle else False,
        handle_validation_error=tool.handle_validation_error,
    )


async def _call_with_guards(
    call: Awaitable[Any],
    *,
    label: str,
    timeout: float | None,
    report: Callable[[BaseException], None],
) -> Any:
    """Await one MCP tool call; timeouts and failures become `ToolException`.

    Raises:
        ToolException: A timeout, an ``isError`` result, or an unreachable or failing server.
    """
    deadline = detached_timeout(timeout)
    # the pool lets a hung session's calls run until their deadline
    token = CALL_DEADLINE.set(None if timeout is None else time.monotonic() + timeout)
    try:
        async with deadline:
            return await call
    except GraphBubbleUp:
        raise
    except Exception as exc:
        # Cancelling the session on timeout may surface as another error
        # (e.g. a broken stream) rather than TimeoutError: ask the deadline.
        if deadline.expired():
            assert timeout is not None
            report(TimeoutError(f"no answer within {timeout:g} s; the call was cancelled"))
            msg = (
                f"{label} did not answer within {timeout:g} s; the call was cancelled. "
                "The server may be slow or stuck: retry later or use another tool."
            )
            raise ToolException(msg) from exc
        if not isinstance(exc, ToolException):
            report(exc)
            msg = f"{label} failed: {describe_failure(exc, None)}"
            raise ToolException(msg) from exc
        if _is_empty_mcp_error(exc):
            msg = f"{label} reported an error with no message."
            raise ToolException(msg) from exc
        raise
    finally:
        CALL_DEADLINE.reset(token)


def _is_empty_mcp_error(error: ToolException) -> bool:
    """Whether an MCP ``isError`` result carried no content."""
    blocks = getattr(error, "tool_content", None)
    if isinstance(blocks, list):  # langchain-mcp-adapters >= 0.3
        return not blocks
    return str(error).strip() in _EMPTY_ERROR_TEXTS


def _handle_tool_error(error: ToolException) -> str | list[Any]:
    """The content of an error tool message (the ``isError`` blocks, else the text)."""
    blocks = getattr(error, "tool_content", None)
    if isinstance(blocks, list) and blocks:
        return blocks
    return str(error).strip() or "MCP tool call failed with no message."
