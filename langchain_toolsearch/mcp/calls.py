"""A listed MCP tool made safe to call, and what an MCP failure means."""

from __future__ import annotations

import inspect
import io
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from langchain_core.tools import InjectedToolArg, StructuredTool, ToolException
from langgraph.errors import GraphBubbleUp

from langchain_toolsearch._effects import detached_timeout, run_sync
from langchain_toolsearch._support import (
    DEFAULT_MAX_OUTPUT_CHARS,
    bound_content,
    bound_result,
)
from langchain_toolsearch.errors import ToolSearchTypeError

if TYPE_CHECKING:
    from langchain_toolsearch.mcp.reports import MCPFailures

__all__ = ["connection_lost", "describe_failure", "guarded_tool", "never_sent"]

_CLOSED_STREAM_ERRORS = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream)

# texts of an `isError` result with no content ("[]": `str(content)`, adapters 0.2)
_EMPTY_ERROR_TEXTS = frozenset({"", "[]"})


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` means the session is unusable (closed stream, transport error)."""
    if isinstance(exc, BaseExceptionGroup):
        return any(connection_lost(inner) for inner in exc.exceptions)
    if isinstance(exc, (*_CLOSED_STREAM_ERRORS, OSError, EOFError)):
        return True
    from mcp.shared.exceptions import McpError
    from mcp.types import CONNECTION_CLOSED

    if isinstance(exc, McpError):
        return exc.error.code == CONNECTION_CLOSED or "session terminated" in str(exc).lower()
    import httpx  # comes with mcp

    return isinstance(exc, httpx.TransportError)


def never_sent(exc: BaseException) -> bool:
    """Whether a request that failed with ``exc`` surely did not run (safe to resend)."""
    if isinstance(exc, BaseExceptionGroup):
        return all(never_sent(inner) for inner in exc.exceptions)
    if isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError)):
        return True
    from mcp.shared.exceptions import McpError

    if isinstance(exc, McpError):
        return "session terminated" in str(exc).lower()
    import httpx

    return isinstance(exc, httpx.ConnectError)


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
