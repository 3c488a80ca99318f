"""The tool-step wrapper for LangGraph's ``ToolNode`` (middleware and node alike).

Each tool call builds the request scope from the call's own ``ToolRuntime``
(config, state, store, context, and the calling node's tools) and asks the
engine whether it may run (see :mod:`langchain_toolsearch._engine.guard`).
Library tools run through the tool node with the request overridden, so
they get the run's config, ``InjectedState`` and ``ToolRuntime`` exactly as
statically bound tools do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from langchain_toolsearch._engine.drive import adrive, drive
from langchain_toolsearch._engine.guard import NEEDS_SCOPE, finish
from langchain_toolsearch._shell import ToolSearchBase

__all__ = ["awrap_tool_call", "wrap_tool_call"]

ToolResult = ToolMessage | Command[Any]


def wrap_tool_call(
    base: ToolSearchBase,
    request: ToolCallRequest,
    handler: Callable[[ToolCallRequest], ToolResult],
) -> ToolResult:
    """Guard one tool call (sync)."""
    engine = base._engine
    decision = engine.pre_check(request.tool_call, request.tool)
    if decision is NEEDS_SCOPE:
        scope = base._runtime_scope(request.runtime)
        decision = drive(engine.tool_step(scope, request.tool_call, request.tool))
    if isinstance(decision, ToolMessage):
        return decision
    if decision is None:
        return finish(handler(request), request.tool_call)
    assert isinstance(decision, BaseTool)
    return finish(handler(request.override(tool=decision)), request.tool_call)


async def awrap_tool_call(
    base: ToolSearchBase,
    request: ToolCallRequest,
    handler: Callable[[ToolCallRequest], Awaitable[ToolResult]],
) -> ToolResult:
    """Guard one tool call (async)."""
    engine = base._engine
    decision = engine.pre_check(request.tool_call, request.tool)
    if decision is NEEDS_SCOPE:
        scope = await base._aruntime_scope(request.runtime)
        decision = await adrive(engine.tool_step(scope, request.tool_call, request.tool))
    if isinstance(decision, ToolMessage):
        return decision
    if decision is None:
        return finish(await handler(request), request.tool_call)
    assert isinstance(decision, BaseTool)
    return finish(await handler(request.override(tool=decision)), request.tool_call)
