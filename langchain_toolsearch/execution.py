"""The execution guard: tool-call wrappers for LangGraph's ``ToolNode``.

Every tool call passes through :func:`wrap_tool_call` (or its async twin):
meta tools run as registered (after an unknown-argument check), tools bound
directly run untouched, a library tool runs only if it is loaded for this
thread and allowed in phase ``active``, and anything else is answered with
one error ``ToolMessage`` that points at ``search_tools`` and names no
hidden tool. Library tools run through the tool node with the request
overridden, so they get the run's config, ``InjectedState`` and
``ToolRuntime`` exactly as statically bound tools do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch.core import ToolSearchCore
from langchain_toolsearch.library import LibraryTool
from langchain_toolsearch.policy import Decisions, adrive, drive
from langchain_toolsearch.resolved import ascoped_core, scoped_core

__all__ = ["awrap_tool_call", "wrap_tool_call"]

ToolResult = ToolMessage | Command[Any]


def _config(request: ToolCallRequest) -> RunnableConfig:
    return request.runtime.config if request.runtime is not None else {}


def _needs_scope(core: ToolSearchCore, request: ToolCallRequest) -> bool:
    """Whether the call may be to a tool resolved for this request."""
    return core.requests is not None and request.tool_call["name"] not in META_TOOL_NAMES


def _decide(
    core: ToolSearchCore, request: ToolCallRequest
) -> Decisions[LibraryTool | ToolMessage | None]:
    return core.guard(
        request.tool_call,
        _config(request),
        request.state,
        registered=request.tool is not None,
        store=request.runtime.store if request.runtime is not None else None,
    )


def wrap_tool_call(
    core: ToolSearchCore,
    request: ToolCallRequest,
    handler: Callable[[ToolCallRequest], ToolResult],
) -> ToolResult:
    """Guard one tool call (sync)."""
    if _needs_scope(core, request):
        core = scoped_core(core, _config(request))
    decision = drive(_decide(core, request), core.policy)
    if isinstance(decision, ToolMessage):
        return decision
    if decision is None:
        return handler(request)
    return ToolSearchCore.finish(handler(request.override(tool=decision.tool)), request.tool_call)


async def awrap_tool_call(
    core: ToolSearchCore,
    request: ToolCallRequest,
    handler: Callable[[ToolCallRequest], Awaitable[ToolResult]],
) -> ToolResult:
    """Guard one tool call (async)."""
    if _needs_scope(core, request):
        core = await ascoped_core(core, _config(request))
    decision = await adrive(_decide(core, request), core.policy)
    if isinstance(decision, ToolMessage):
        return decision
    if decision is None:
        return await handler(request)
    result = await handler(request.override(tool=decision.tool))
    return ToolSearchCore.finish(result, request.tool_call)
