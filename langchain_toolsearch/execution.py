"""The tool-step wrapper for LangGraph's ``ToolNode`` (middleware and node alike).

Each tool call builds the request scope from the call's own ``ToolRuntime``
(config, state, store, context, and the calling node's tools) and asks the
engine whether it may run (see :mod:`langchain_toolsearch._engine.guard`).
Library tools run through the tool node with the request overridden, so
they get the run's config, ``InjectedState`` and ``ToolRuntime`` exactly as
statically bound tools do.

The wrapper also keeps a hand-built graph honest:

* a tool node that lists library tools is refused before any of its calls
  runs (:class:`~langchain_toolsearch.errors.ToolSearchWiringError`): listed
  tools would run by their exact name without being loaded;
* every answer it returns has its text through ``model_text`` (layout kept:
  a lone surrogate or a tag character in a tool's output never reaches the
  model) and carries :data:`GUARD_MARK` in its
  ``response_metadata``, so the tool-search node can tell an answer of a
  guarded tool node from one of an unguarded ``ToolNode``;
* while it runs, :func:`guarded_by` says which instance guards the call (the
  node's meta tools refuse to run outside their guard).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.prebuilt import ToolRuntime
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from langchain_toolsearch._engine.drive import adrive, drive
from langchain_toolsearch._engine.guard import NEEDS_SCOPE, finish
from langchain_toolsearch._engine.shell import ToolSearchBase
from langchain_toolsearch._internal.bounds import bound_result
from langchain_toolsearch._prompts import META_TOOL_NAMES, model_content
from langchain_toolsearch.errors import ToolSearchWiringError

__all__ = ["GUARD_MARK", "awrap_tool_call", "guarded_by", "is_guarded", "wrap_tool_call"]

ToolResult = ToolMessage | Command[Any]

GUARD_MARK = "toolsearch_guarded"
"""Key set to ``True`` in ``response_metadata`` of every answer the wrapper returns."""

_GUARD: ContextVar[object | None] = ContextVar("toolsearch_guard", default=None)
"""The instance whose wrapper is running the current tool call (``None`` outside one)."""

LISTED_LIBRARY_TOOLS = (
    "tool search: the tools node lists library tools {names}; it would run them by "
    "their exact name without a load. List only the meta tools and your bound tools: "
    "use search.tool_node() in a hand-built graph (it runs loaded library tools through "
    "the execution guard), and keep library tools out of create_agent(tools=...)"
)


def guarded_by(base: object) -> bool:
    """Whether the current tool call runs inside ``base``'s wrapper."""
    return _GUARD.get() is base


def is_guarded(message: object) -> bool:
    """Whether ``message`` is an answer returned by the wrapper (see :data:`GUARD_MARK`)."""
    metadata = getattr(message, "response_metadata", None)
    return isinstance(metadata, Mapping) and metadata.get(GUARD_MARK) is True


def _check_tool_node(base: ToolSearchBase, runtime: ToolRuntime | None) -> None:
    """Refuse a tool node that lists library tools (they run by exact name, unloaded).

    Raises:
        ToolSearchWiringError: The message names the tools and the fix.
    """
    tools: Sequence[Any] = getattr(runtime, "tools", None) or ()
    meta = set(map(id, base.meta_tools))  # the instance's own, alive as long as it is
    others = [t for t in tools if id(t) not in meta and isinstance(t, BaseTool)]
    if not others:  # only the meta tools (create_agent with no tools of its own)
        return
    library = base._engine.library
    listed = sorted(t.name for t in others if library.get(t.name) is not None)
    if listed:
        raise ToolSearchWiringError(LISTED_LIBRARY_TOOLS.format(names=[n[:64] for n in listed]))


def _mark_messages(value: object, call_id: str | None) -> None:
    if isinstance(value, ToolMessage):
        value = [value]
    if isinstance(value, list):
        for message in value:
            if isinstance(message, ToolMessage) and message.tool_call_id == call_id:
                message.response_metadata[GUARD_MARK] = True
                message.content = model_content(message.content)


def _mark(result: object, call_id: str | None) -> None:
    """Set :data:`GUARD_MARK` on the answers to ``call_id`` in ``result`` (in place)."""
    if isinstance(result, ToolMessage):
        _mark_messages(result, call_id)
    elif isinstance(result, list):
        for item in result:
            _mark(item, call_id)
    elif isinstance(result, Command):
        update = result.update
        if isinstance(update, Mapping):
            _mark_messages(update.get("messages"), call_id)
        elif isinstance(update, list | tuple):
            for pair in update:
                if isinstance(pair, tuple) and len(pair) == 2 and pair[0] == "messages":
                    _mark_messages(pair[1], call_id)
        else:
            _mark_messages(getattr(update, "messages", None), call_id)


def _bounded(base: ToolSearchBase, result: ToolResult, call: ToolCall) -> ToolResult:
    """``result`` with a ToolMessage's content cut at ``max_tool_output_chars`` (opt-in).

    Meta tools' answers and ``Command`` results are returned as they are.
    """
    limit = base._engine.options.max_tool_output_chars
    if limit is None or not isinstance(result, ToolMessage) or call["name"] in META_TOOL_NAMES:
        return result
    bounded: ToolMessage = bound_result(result, limit)
    return bounded


def wrap_tool_call(
    base: ToolSearchBase,
    request: ToolCallRequest,
    handler: Callable[[ToolCallRequest], ToolResult],
) -> ToolResult:
    """Guard one tool call (sync).

    Raises:
        ToolSearchWiringError: The tool node lists library tools.
    """
    _check_tool_node(base, request.runtime)
    token = _GUARD.set(base)
    try:
        engine = base._engine
        decision = engine.pre_check(request.tool_call, request.tool)
        if decision is NEEDS_SCOPE:
            scope = base._runtime_scope(request.runtime)
            decision = drive(engine.tool_step(scope, request.tool_call, request.tool))
        if isinstance(decision, ToolMessage):
            result: ToolResult = decision
        elif decision is None:
            result = _bounded(base, finish(handler(request), request.tool_call), request.tool_call)
        else:
            assert isinstance(decision, BaseTool)
            answer = handler(request.override(tool=decision))
            result = _bounded(base, finish(answer, request.tool_call), request.tool_call)
    finally:
        _GUARD.reset(token)
    _mark(result, request.tool_call.get("id"))
    return result


async def awrap_tool_call(
    base: ToolSearchBase,
    request: ToolCallRequest,
    handler: Callable[[ToolCallRequest], Awaitable[ToolResult]],
) -> ToolResult:
    """Guard one tool call (async).

    Raises:
        ToolSearchWiringError: The tool node lists library tools.
    """
    _check_tool_node(base, request.runtime)
    token = _GUARD.set(base)
    try:
        engine = base._engine
        decision = engine.pre_check(request.tool_call, request.tool)
        if decision is NEEDS_SCOPE:
            scope = await base._aruntime_scope(request.runtime)
            decision = await adrive(engine.tool_step(scope, request.tool_call, request.tool))
        if isinstance(decision, ToolMessage):
            result: ToolResult = decision
        elif decision is None:
            result = _bounded(
                base, finish(await handler(request), request.tool_call), request.tool_call
            )
        else:
            assert isinstance(decision, BaseTool)
            answer = await handler(request.override(tool=decision))
            result = _bounded(base, finish(answer, request.tool_call), request.tool_call)
    finally:
        _GUARD.reset(token)
    _mark(result, request.tool_call.get("id"))
    return result
