"""The execution guard: may this tool call run, and which instance runs it.

* Meta tools run as registered, after an unknown-argument check.
* Tools bound as they are (no ``include_resolved_tools``) run untouched.
* Library tools, per-request tools, and tools bound on the agent / node with
  ``include_resolved_tools`` run only if loaded for this thread, allowed in
  phase ``active`` now, bindable, and not loaded by a sibling call of the
  same model step. A tool bound on the agent always runs as the instance
  registered on the calling agent's own tool node.
* Anything else is answered with one error ``ToolMessage`` that points at
  ``search_tools`` and names no hidden tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, cast

from langchain_core.messages import AIMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._engine.drive import Decisions
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch.library import LibraryTool
from langchain_toolsearch.storage.state_keys import messages_of

if TYPE_CHECKING:
    from langchain_toolsearch._engine.engine import Engine

__all__ = ["META_ARGS", "NEEDS_SCOPE", "finish", "guard", "pre_check"]

_R = TypeVar("_R")
META_ARGS: dict[str, frozenset[str]] = {
    P.SEARCH_TOOL_NAME: frozenset({"query"}),
    P.LOAD_TOOL_NAME: frozenset({"tool_name", "tool_names"}),
}


def error_message(text: str, call: ToolCall) -> ToolMessage:
    """An error ``ToolMessage`` answering ``call``."""
    return ToolMessage(
        content=text, tool_call_id=call.get("id") or "", name=call["name"], status="error"
    )


def _argument_error(call: ToolCall) -> ToolMessage | None:
    name = call["name"]
    extra = sorted(set(call.get("args") or {}) - META_ARGS[name])
    if not extra:
        return None
    expected = (
        "expected query (string)"
        if name == P.SEARCH_TOOL_NAME
        else "expected tool_name (string) or tool_names (list of strings)"
    )
    shown = [e[:40] for e in extra[:5]]
    detail = f"unexpected argument(s) {shown}; {expected}"
    return error_message(P.ARGUMENT_ERROR.format(tool=name, detail=detail), call)


NEEDS_SCOPE = object()
""":func:`pre_check` could not decide without the request scope."""


def pre_check(engine: Engine, call: ToolCall, registered: BaseTool | None) -> object:
    """Decide what needs no request scope: meta tools and tools bound as they are.

    Returns:
        ``None`` (run as registered), an error ``ToolMessage``, or :data:`NEEDS_SCOPE`.
    """
    name = call["name"]
    if registered is not None and name in META_ARGS:
        return _argument_error(call)
    if registered is not None and not engine.scopes.per_request:
        return None  # bound as it is: not the tool search's to guard
    return NEEDS_SCOPE


def guard(
    engine: Engine, scope: RequestScope, call: ToolCall, registered: BaseTool | None
) -> Decisions[BaseTool | ToolMessage | None]:
    """Decide whether ``call`` may run.

    Args:
        engine: The engine.
        scope: The request scope of this tool step.
        call: The model's tool call.
        registered: The tool the tool node has under that name, if any.

    Returns:
        ``None`` to run the registered tool as is, a tool to run instead, or
        an error ``ToolMessage`` to answer with.
    """
    early = pre_check(engine, call, registered)
    if early is not NEEDS_SCOPE:
        return cast("ToolMessage | None", early)
    name = call["name"]
    missing = error_message(
        P.TOOL_NOT_LOADED_AUTO if engine.options.auto_load else P.TOOL_NOT_LOADED, call
    )
    entry: LibraryTool | None
    if registered is not None:  # bound on this agent / node, searchable per request
        entry = LibraryTool(name=name, original_name=name, tool=registered)
    else:
        entry = scope.library.get(name)
        if entry is None or entry.name in scope.bound:  # bound on another agent, not this one
            return missing
    if entry.name not in (yield from engine.loaded(scope)):
        return missing
    if not (yield from engine.usable([entry], scope)):  # only the called tool is checked
        return missing
    if not engine.bindable(entry.tool):
        return error_message(P.TOOL_SCHEMA_UNUSABLE, call)
    if (yield from _loaded_in_same_step(engine, scope, entry.name, call)):
        return error_message(P.TOOL_LOADED_THIS_STEP, call)
    return None if registered is not None else entry.tool


def _loaded_in_same_step(
    engine: Engine, scope: RequestScope, name: str, call: ToolCall
) -> Decisions[bool]:
    """Whether ``name`` was loaded by a call of the same ``AIMessage`` as ``call``.

    Sibling calls run concurrently, so without this check a tool loaded and
    called in one step would run or not depending on timing. Graph-state and
    context storage only see the load after the step, so they need no check.
    """
    origin = yield from engine.storage.origin(scope.thread_id, scope.graph_store, name)
    if origin is None:
        return False
    for message in reversed(messages_of(scope.state)):
        if isinstance(message, AIMessage) and any(
            c.get("id") == call.get("id") for c in message.tool_calls
        ):
            return any(c.get("id") == origin for c in message.tool_calls)
    return False


def finish(result: _R, call: ToolCall) -> _R:
    """Make sure a failed tool's error message is never empty."""
    if isinstance(result, ToolMessage) and result.status == "error":
        text = result.content if isinstance(result.content, str) else str(result.content)
        stripped = text.strip()
        if not stripped or stripped.rstrip(".:") in {"Error", "Error:"}:
            return result.model_copy(
                update={"content": P.TOOL_FAILED_NO_TEXT.format(name=call["name"])}
            )
    return result
