"""The tool-step wrapper for LangGraph's ``ToolNode`` (middleware and node alike).

Each tool call builds the request scope from its own ``ToolRuntime`` and asks
the engine whether it may run (:mod:`langchain_toolsearch._engine.guard`).
Library tools run through the tool node with the request overridden, so they
get the run's config, ``InjectedState`` and ``ToolRuntime`` as bound tools do.

The wrapper also:

* refuses a tool node that lists library tools before any call runs
  (:class:`~langchain_toolsearch.errors.ToolSearchWiringError`: they would run
  by exact name, unloaded);
* passes every answer's text through ``model_content`` and marks it with
  :data:`GUARD_MARK` in ``response_metadata`` (the tool-search node tells a
  guarded answer from an unguarded ``ToolNode``'s);
* sets :func:`guarded_by` while a call runs (meta tools refuse to run outside
  their guard);
* records a thread's call before it runs and deletes the record once it
  returned (:mod:`langchain_toolsearch.storage.started`; in a store, the
  record goes with the guard's read of the thread's loads): a call that finds
  its record logs :data:`CALL_RERUN` at WARNING, and a tool that is not
  idempotent is not run again (the model gets
  :data:`~langchain_toolsearch._prompts.CALL_OUTCOME_UNKNOWN`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from typing import Any

from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.prebuilt import ToolRuntime
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from langchain_toolsearch._effects import Attached, adrive, attached, drive
from langchain_toolsearch._engine.guard import (
    CURRENT_STEP,
    NEEDS_SCOPE,
    StepCalls,
    error_message,
    finish,
)
from langchain_toolsearch._engine.scope import thread_id_of
from langchain_toolsearch._engine.shell import ToolSearchBase
from langchain_toolsearch._internal.bounds import bound_result
from langchain_toolsearch._prompts import CALL_OUTCOME_UNKNOWN, META_TOOL_NAMES, model_content
from langchain_toolsearch._prompts import model_text as _text
from langchain_toolsearch.errors import ToolSearchWiringError
from langchain_toolsearch.storage.run_reads import TOOL_STEP
from langchain_toolsearch.storage.started import (
    StartedCalls,
    StoreStartedCalls,
    idempotent,
    started_calls,
)

__all__ = [
    "CALL_RERUN",
    "GUARD_MARK",
    "awrap_tool_call",
    "guarded_by",
    "is_guarded",
    "wrap_tool_call",
]

logger = logging.getLogger(__name__)

CALL_RERUN = (
    "tool search: tool call %s (%s, thread %s) started before and never returned (the "
    "process running it died, the run stopped or the call raised; the record is in this "
    "%s): %s"
)
"""WARNING logged when a resumed step meets a call that already started."""
RERUN_AGAIN = "running it again"
RERUN_REFUSED = (
    "not run again (the tool is not idempotent); the model is told the outcome is unknown"
)

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


_Started = tuple[StartedCalls, str, str]


def _started(base: ToolSearchBase, request: ToolCallRequest) -> _Started | None:
    """(records, thread id, key) for a call of a thread's run; ``None`` for meta tools."""
    call, runtime = request.tool_call, request.runtime
    thread_id = thread_id_of(getattr(runtime, "config", None))
    if thread_id is None or call["name"] in META_TOOL_NAMES:
        return None  # no checkpoint, no resume
    step = StepCalls.of(getattr(runtime, "state", None), call)
    CURRENT_STEP.set((call.get("id") or "", step))  # the guard reads the history no more
    store = base._engine.storage.started_store(getattr(runtime, "store", None))
    return started_calls(store), thread_id, f"{step.message_id}:{call.get('id') or ''}"


def _rerun(
    prior: object, started: _Started, call: ToolCall, tool: BaseTool | None
) -> ToolMessage | None:
    """Log a call that started before; the answer instead of running it, if it may not run."""
    if prior is None:
        return None
    again = tool is None or idempotent(tool)
    logger.warning(
        CALL_RERUN,
        _text(str(call.get("id"))[:80]),
        _text(call["name"][:80]),
        _text(started[1][:80]),
        started[0].where,
        RERUN_AGAIN if again else RERUN_REFUSED,
    )
    return None if again else error_message(CALL_OUTCOME_UNKNOWN.format(tool=call["name"]), call)


def _attach(started: _Started | None, call: ToolCall) -> AbstractContextManager[Attached | None]:
    """Send a store record's write with the guard's first store read (one round trip)."""
    records = started[0] if started is not None else None
    if started is None or not isinstance(records, StoreStartedCalls) or not records.combined:
        return nullcontext(None)
    _, thread_id, key = started
    return attached(records.store, records.begin_ops(thread_id, key, call["name"]))


def _sent(holder: Attached | None) -> bool:
    return holder is not None and holder.results is not None


def _prior(holder: Attached | None) -> tuple[bool, dict[str, Any] | None]:
    """(record written with the guard's read, the prior record it found)."""
    if holder is None or holder.results is None:
        return False, None
    return True, StoreStartedCalls.prior(holder.results)


def _run(
    base: ToolSearchBase,
    request: ToolCallRequest,
    tool: BaseTool | None,
    handler: Callable[[ToolCallRequest], ToolResult],
    started: _Started | None,
    holder: Attached | None,
) -> ToolResult:
    if started is not None:
        sent, prior = _prior(holder)
        if not sent:
            prior = started[0].begin(started[1], started[2], request.tool_call["name"])
        refused = _rerun(prior, started, request.tool_call, tool or request.tool)
        if refused is not None:
            return refused
    answer = handler(request if tool is None else request.override(tool=tool))
    if started is not None:  # returned
        started[0].end(started[1], started[2])
    return _bounded(base, finish(answer, request.tool_call), request.tool_call)


async def _arun(
    base: ToolSearchBase,
    request: ToolCallRequest,
    tool: BaseTool | None,
    handler: Callable[[ToolCallRequest], Awaitable[ToolResult]],
    started: _Started | None,
    holder: Attached | None,
) -> ToolResult:
    if started is not None:
        sent, prior = _prior(holder)
        if not sent:
            prior = await started[0].abegin(started[1], started[2], request.tool_call["name"])
        refused = _rerun(prior, started, request.tool_call, tool or request.tool)
        if refused is not None:
            return refused
    answer = await handler(request if tool is None else request.override(tool=tool))
    if started is not None:
        await started[0].aend(started[1], started[2])
    return _bounded(base, finish(answer, request.tool_call), request.tool_call)


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
    CURRENT_STEP.set(None)  # only this call's wrapper and guard set it
    token, reuse = _GUARD.set(base), TOOL_STEP.set(True)
    try:
        engine, call = base._engine, request.tool_call
        decision = engine.pre_check(call, request.tool)
        started, holder = None, None
        if decision is NEEDS_SCOPE:
            started = _started(base, request)
            with _attach(started, call) as holder:
                scope = base._runtime_scope(request.runtime)
                decision = drive(engine.tool_step(scope, call, request.tool))
        elif decision is None:
            started = _started(base, request)
        if isinstance(decision, ToolMessage):
            if started is not None and _sent(holder):  # recorded, but it does not run
                started[0].end(started[1], started[2])
            result: ToolResult = decision
        else:
            assert decision is None or isinstance(decision, BaseTool)
            result = _run(base, request, decision, handler, started, holder)
    finally:
        TOOL_STEP.reset(reuse)
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
    CURRENT_STEP.set(None)  # only this call's wrapper and guard set it
    token, reuse = _GUARD.set(base), TOOL_STEP.set(True)
    try:
        engine, call = base._engine, request.tool_call
        decision = engine.pre_check(call, request.tool)
        started, holder = None, None
        if decision is NEEDS_SCOPE:
            started = _started(base, request)
            with _attach(started, call) as holder:
                scope = await base._aruntime_scope(request.runtime)
                decision = await adrive(engine.tool_step(scope, call, request.tool))
        elif decision is None:
            started = _started(base, request)
        if isinstance(decision, ToolMessage):
            if started is not None and _sent(holder):
                await started[0].aend(started[1], started[2])
            result: ToolResult = decision
        else:
            assert decision is None or isinstance(decision, BaseTool)
            result = await _arun(base, request, decision, handler, started, holder)
    finally:
        TOOL_STEP.reset(reuse)
        _GUARD.reset(token)
    _mark(result, request.tool_call.get("id"))
    return result
