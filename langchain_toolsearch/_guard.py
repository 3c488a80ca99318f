"""The tool step's checks: a call runs only if its tool is loaded, allowed and bindable.

Also the graph-wiring checks of a hand-built ``StateGraph`` (a tools node without the
guard, loads that would stay unbound).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._access import LOADED_ON_CALL, Access
from langchain_toolsearch._effects import Logic
from langchain_toolsearch._library import LibraryTool, ToolLibrary
from langchain_toolsearch._scope import RequestScope
from langchain_toolsearch._steps import requested_queries, suggestions
from langchain_toolsearch._support import WeakIdentityMap, count
from langchain_toolsearch.storage._context import messages_of, requested_names

# -- guard: The execution guard: may this tool call run, and which instance runs it.

_R = TypeVar("_R")
META_ARGS: dict[str, frozenset[str]] = {
    P.SEARCH_TOOL_NAME: frozenset({"query", "queries"}),
    P.LOAD_TOOL_NAME: frozenset({"tool_name", "tool_names"}),
}


def error_message(text: str, call: ToolCall) -> ToolMessage:
    """An error ``ToolMessage`` answering ``call``."""
    return ToolMessage(
        content=text, tool_call_id=call.get("id") or "", name=call["name"], status="error"
    )


_EXPECTED = {
    P.SEARCH_TOOL_NAME: "query (string) or queries (list of strings)",
    P.LOAD_TOOL_NAME: "tool_name (string) or tool_names (list of strings)",
}
"""What each meta tool's arguments hold, as error messages name it."""


def shape_error(call: ToolCall) -> ToolMessage | None:
    """An error answering a call whose ``args`` are not an object (any tool), else ``None``.

    Checked first, where a call arrives: nothing else (the guard, the history
    readers, the tool node's injected arguments) ever sees such a call run.
    """
    args: object = call.get("args")
    if isinstance(args, Mapping):
        return None
    name = call["name"]
    got = "null" if args is None else type(args).__name__
    if name in _EXPECTED:
        detail = f"got {got}, expected an object with {_EXPECTED[name]}"
        return error_message(P.ARGUMENT_ERROR.format(tool=name, detail=detail), call)
    return error_message(P.ARGUMENTS_NOT_OBJECT.format(detail=got), call)


def _argument_error(call: ToolCall) -> ToolMessage | None:
    """Unknown arguments, or a ``load_tool`` form we do not accept (never echoed)."""
    name = call["name"]
    shape = shape_error(call)
    if shape is not None:
        return shape
    args = call.get("args") or {}
    extra = sorted(set(args) - META_ARGS[name])
    if not extra:
        if name == P.LOAD_TOOL_NAME and not _load_form_ok(args):
            return error_message(P.LOAD_BAD_FORM, call)
        if name == P.SEARCH_TOOL_NAME and _search_form_bad(args):
            return error_message(P.SEARCH_BAD_FORM, call)
        return None
    shown = [e[:40] for e in extra[:5]]
    detail = f"unexpected argument(s) {shown}; expected {_EXPECTED[name]}"
    return error_message(P.ARGUMENT_ERROR.format(tool=name, detail=detail), call)


NEEDS_SCOPE = object()
""":func:`pre_check` could not decide without the request scope."""


def _load_form_ok(args: dict[str, Any]) -> bool:
    return requested_names(args) is not None


def _search_form_bad(args: dict[str, Any]) -> bool:
    return requested_queries(args.get("query"), args.get("queries")) == P.SEARCH_BAD_FORM


def pre_check(call: ToolCall, registered: BaseTool | None, *, per_request: bool) -> object:
    """Decide what needs no request scope: meta tools and tools bound as they are.

    Args:
        call: The model's tool call.
        registered: The tool the tool node has under that name, if any.
        per_request: Whether agent / node tools are guarded (``include_resolved_tools``).

    Returns:
        ``None`` (run as registered), an error ``ToolMessage``, or :data:`NEEDS_SCOPE`.
    """
    name = call["name"]
    if registered is not None and name in META_ARGS:
        return _argument_error(call)
    if registered is not None and not per_request:
        return None  # bound as it is: not the tool search's to guard
    return NEEDS_SCOPE


def guard(
    access: Access,
    scope: RequestScope,
    call: ToolCall,
    registered: BaseTool | None,
    *,
    auto_load: bool,
    load_on_call: str = "",
) -> Logic[BaseTool | ToolMessage | None]:
    """Decide whether ``call`` may run (after :func:`pre_check` answered :data:`NEEDS_SCOPE`).

    Args:
        access: The filter and storage.
        scope: The request scope of this tool step.
        call: The model's tool call.
        registered: The tool the tool node has under that name, if any.
        auto_load: Whether ``search_tools`` loads its hits.
        load_on_call: Load a tool called before its load (allowed, stored) for the next step
            and answer this text (``name``, ``parameters``); ``""``: off.

    Returns:
        ``None`` (run as registered), a tool to run instead, or an error ``ToolMessage``.
    """
    name = call["name"]
    resolve = scope.library.resolve
    # decided on the sibling's request, not on whether its load landed yet: the same
    # answer whatever the timing, and whether the tool exists or not
    found = CURRENT_STEP.get()  # the wrapper's (it read the history for the call's record)
    mine = found is not None and found[0] == (call.get("id") or "")
    step = found[1] if found is not None and mine else StepCalls.of(scope.state, call)
    CURRENT_STEP.set((call.get("id") or "", step))
    asking = step.loads_of(resolve(name) or name, scope.library)
    sibling_load = bool(asking)
    entry: LibraryTool | None
    if registered is not None:  # bound on this agent / node, searchable per request
        entry = LibraryTool(name=name, original_name=name, tool=registered)
    else:
        entry = scope.library.get(name)
        if entry is None or entry.name in scope.bound:  # bound on another agent, not this one
            if sibling_load:
                return _refused("loaded_this_step", P.TOOL_LOADED_THIS_STEP, call)
            return (yield from _missing(access, scope, call, "unknown", auto_load=auto_load))
    kept, evicted = yield from access.working(scope)
    if entry.name not in kept:
        if sibling_load:
            return _refused("loaded_this_step", P.TOOL_LOADED_THIS_STEP, call)
        reason = "evicted" if entry.name in evicted else "not_loaded"
        if load_on_call and (
            text := (yield from _recover(access, scope, load_on_call, entry, step))
        ):
            answer = _refused(reason, text, call)
            answer.artifact = {LOADED_ON_CALL: call["name"]}  # a use, for the working set
            return answer
        return (yield from _missing(access, scope, call, reason, auto_load=auto_load))
    # the calls of this step that could have loaded it (ids may repeat across steps:
    # only these, not every meta call of the step, say "loaded in this step")
    loaders = asking | step.searches if auto_load else asking
    if loaders or load_on_call:  # who loaded it?
        origin = yield from access.origin(scope, entry.name)
        if origin is not None and (origin in loaders or origin == _recovery(step)):
            return _refused("loaded_this_step", P.TOOL_LOADED_THIS_STEP, call)
    if access.policy.enabled and not (yield from access.usable([entry], scope)):
        return (yield from _missing(access, scope, call, "denied", auto_load=auto_load))
    if not access.bindable(entry.tool):
        return _refused("schema_unusable", P.TOOL_SCHEMA_UNUSABLE, call)
    return None if registered is not None else entry.tool


def _refused(reason: str, text: str, call: ToolCall) -> ToolMessage:
    """The error answering a refused ``call``, counted under ``reason``."""
    count("toolsearch.call.refused", reason=reason)
    return error_message(text, call)


def _recovery(step: StepCalls) -> str | None:
    """The origin a ``load_on_call`` load of this step records (``None``: no message id)."""
    return f"{LOADED_ON_CALL}:{step.message_id}" if step.message_id else None


def _recover(
    access: Access, scope: RequestScope, answer: str, entry: LibraryTool, step: StepCalls
) -> Logic[str]:
    """``load_on_call``: load ``entry`` (phases ``load``, ``active``) and say how to call it.

    ``""`` when the filter denies it, it cannot be bound or stored, or the run has no
    thread: the caller answers as for any tool not loaded. The call itself never runs.
    """
    allowed = [entry] if scope.thread_id is not None and _recovery(step) else []
    for phase in ("load", "active"):
        allowed = yield from access.allowed(allowed, scope, phase)
    function = access.bindable.definition(entry.tool) if allowed else None
    if function is not None and not access.unstorable(scope):
        yield from access.record(scope, [entry.name], _recovery(step))
        count("toolsearch.load.calls", via="call")
        shown = json.dumps(function.get("parameters", {}), ensure_ascii=False)
        return answer.format(name=entry.name, parameters=shown)
    return ""


def _missing(
    access: Access, scope: RequestScope, call: ToolCall, reason: str, *, auto_load: bool
) -> Logic[ToolMessage]:
    """One answer for unknown, hidden and not-loaded tools, with ``load_tool``'s suggestions.

    ``reason`` (counted, never shown: the model sees the same answer for each) is
    ``"unknown"``, ``"not_loaded"``, ``"evicted"`` or ``"denied"``.
    """
    text = P.TOOL_NOT_LOADED_AUTO if auto_load else P.TOOL_NOT_LOADED
    similar = yield from suggestions(access, scope, [call["name"]])
    if similar:
        text += P.TOOL_SUGGEST.format(names=", ".join(similar))
    return _refused(reason, text, call)


class StepCalls:
    """The calls of one tool-calling ``AIMessage``, read once, kept while it lives (by id)."""

    def __init__(self, message: AIMessage | None) -> None:
        calls = message.tool_calls if message is not None else []
        self.message_id: str = (message.id or "") if message is not None else ""
        """The ``AIMessage``'s id (``""`` if none)."""
        # an empty id is an id too: a meta call answered with tool_call_id "" records
        # origin "", and a direct call with no id must still find its own step
        self.ids = frozenset(c.get("id") or "" for c in calls)
        self.searches = frozenset(
            c.get("id") or "" for c in calls if c["name"] == P.SEARCH_TOOL_NAME
        )
        """Ids of this step's ``search_tools`` calls."""
        self._loads: list[tuple[str, list[str]]] = [
            (c.get("id") or "", requested_names(c.get("args")) or [])
            for c in calls
            if c["name"] == P.LOAD_TOOL_NAME
        ]
        self._asked: tuple[weakref.ref[ToolLibrary], dict[str, frozenset[str]]] | None = None

    @classmethod
    def of(cls, state: Any, call: ToolCall) -> StepCalls:
        """The step of ``call`` in ``state``'s messages (empty if not found)."""
        call_id = call.get("id") or ""
        for message in reversed(messages_of(state)):
            if not isinstance(message, AIMessage):
                continue
            step = _STEPS.get(message)
            if step is None:
                step = cls(message)
                _STEPS.put(message, step)
            if call_id in step.ids:
                return step
        return cls(None)

    def loads_of(self, name: str, library: ToolLibrary) -> frozenset[str]:
        """Ids of this step's ``load_tool`` calls asking for ``name`` (any of its names), O(1)."""
        if self._asked is None or self._asked[0]() is not library:
            asked: dict[str, set[str]] = {}
            for call_id, names in self._loads:
                for requested in names:
                    asked.setdefault(requested, set()).add(call_id)
                    if (resolved := library.resolve(requested)) is not None:
                        asked.setdefault(resolved, set()).add(call_id)
            index = {n: frozenset(ids) for n, ids in asked.items()}
            self._asked = (weakref.ref(library), index)
        return self._asked[1].get(name, frozenset())


_STEPS: WeakIdentityMap[StepCalls] = WeakIdentityMap()
CURRENT_STEP: ContextVar[tuple[str, StepCalls] | None] = ContextVar(
    "toolsearch_current_step", default=None
)
"""(call id, its step) of the tool call running in this context."""
"""``StepCalls`` of live ``AIMessage`` objects by identity, gone with the message."""


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
