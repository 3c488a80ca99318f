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

from typing import TYPE_CHECKING, Any, TypeVar, cast

from langchain_core.messages import AIMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._engine.drive import Decisions
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch.library import LibraryTool
from langchain_toolsearch.storage.receipts import parse_names, requested_names
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
    """Unknown arguments, or a ``load_tool`` argument form we do not accept (never echoed)."""
    name = call["name"]
    args = call.get("args") or {}
    extra = sorted(set(args) - META_ARGS[name])
    if not extra:
        if name == P.LOAD_TOOL_NAME and not _load_form_ok(args):
            return error_message(P.LOAD_BAD_FORM, call)
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


def _load_form_ok(args: dict[str, Any]) -> bool:
    tool_name, tool_names = args.get("tool_name"), args.get("tool_names")
    if tool_name is not None and not isinstance(tool_name, str):
        return False
    return tool_names is None or parse_names(tool_names) is not None


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
    # decided on the sibling's request, not on whether its load landed yet: the same
    # answer whatever the timing, and whether the tool exists or not
    sibling_load = _asked_by_sibling_load(scope, call)
    entry: LibraryTool | None
    if registered is not None:  # bound on this agent / node, searchable per request
        entry = LibraryTool(name=name, original_name=name, tool=registered)
    else:
        entry = scope.library.get(name)
        if entry is None or entry.name in scope.bound:  # bound on another agent, not this one
            return error_message(P.TOOL_LOADED_THIS_STEP, call) if sibling_load else missing
    this_step = error_message(P.TOOL_LOADED_THIS_STEP, call)
    if entry.name not in (yield from engine.loaded(scope)):
        return this_step if sibling_load else missing
    if (yield from _loaded_in_same_step(engine, scope, entry.name, call)):
        return this_step
    if not (yield from engine.usable([entry], scope)):  # only the called tool is checked
        return missing
    if not engine.bindable(entry.tool):
        return error_message(P.TOOL_SCHEMA_UNUSABLE, call)
    return None if registered is not None else entry.tool


def _siblings(scope: RequestScope, call: ToolCall) -> list[ToolCall]:
    """The other calls of the ``AIMessage`` that made ``call``."""
    for message in reversed(messages_of(scope.state)):
        if isinstance(message, AIMessage) and any(
            c.get("id") == call.get("id") for c in message.tool_calls
        ):
            return [c for c in message.tool_calls if c.get("id") != call.get("id")]
    return []


def _asked_by_sibling_load(scope: RequestScope, call: ToolCall) -> bool:
    """Whether a ``load_tool`` call of the same model step asks for ``call``'s tool.

    Sibling calls run concurrently; deciding on the request (not on whether the
    load has landed yet) gives the same answer whatever the timing.
    """
    for sibling in _siblings(scope, call):
        if sibling["name"] == P.LOAD_TOOL_NAME:
            names = requested_names(sibling.get("args") or {})
            if call["name"] in names or call["name"] in {scope.library.resolve(n) for n in names}:
                return True
    return False


def _loaded_in_same_step(
    engine: Engine, scope: RequestScope, name: str, call: ToolCall
) -> Decisions[bool]:
    """Whether ``name`` was loaded by a call of the same ``AIMessage`` as ``call``.

    Sibling calls run concurrently, so without this check a tool loaded and
    called in one step would run or not depending on timing. Graph-state and
    context storage only see the load after the step, so they need no check.
    """
    origin = yield from engine.storage.origin(scope.thread_id, scope.graph_store, name)
    return origin is not None and any(c.get("id") == origin for c in _siblings(scope, call))


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
