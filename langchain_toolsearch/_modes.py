"""The ways tools reach the model besides search and load.

``mode="auto"`` (:class:`AutoMode`): bind a request's whole library when it fits a budget,
else search. ``provider="anthropic"``: every usable tool bound deferred, search answers
``tool_reference`` blocks (:func:`references`, :func:`prune_references`). ``mode="stable"``:
the bound tools never change; loaded tools' definitions come in the meta tools' answers
(:func:`definitions`) and the model calls them through ``call_tool`` (:func:`unwrap`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from langchain_core.messages import BaseMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._access import Access, Bindable
from langchain_toolsearch._effects import Logic
from langchain_toolsearch._guard import error_message
from langchain_toolsearch._library import LibraryTool
from langchain_toolsearch._scope import RequestScope
from langchain_toolsearch._steps import schema_tokens
from langchain_toolsearch._support import count
from langchain_toolsearch.errors import ToolSearchWiringError
from langchain_toolsearch.types import AutoModeStats

# -- auto_mode: ``mode="auto"``: bind a request's whole library when it fits a budget, else search.

logger = logging.getLogger(__name__)

DEFAULT_AUTO_MAX_TOKENS = 10_000
"""``auto_max_tokens`` unless given: 10% of a 100k-token context."""
_BATCH = 64  # tools per filter batch


@dataclass(frozen=True)
class AutoDecision:
    """One request's decision.

    Attributes:
        bind_all: Whether the request's tools are bound whole.
        tools: The tools bound whole, in library order (``()`` when searching).
        count: Tools counted (when searching, up to the one over the budget).
        tokens: Their estimated schema tokens.
    """

    bind_all: bool
    tools: tuple[LibraryTool, ...] = ()
    count: int = 0
    tokens: int = 0


class AutoMode:
    """The budget of ``mode="auto"`` and the counts of its decisions.

    Args:
        max_tokens: Most estimated schema tokens bound whole.
        max_tools: Most tools bound whole (``None``: no count bound).
    """

    def __init__(self, *, max_tokens: int, max_tools: int | None) -> None:
        self.max_tokens = max_tokens
        self.max_tools = max_tools
        self._lock = threading.Lock()
        self._bind_all = 0
        self._search = 0
        self._last: AutoDecision | None = None

    def _over(self, count: int, tokens: int) -> bool:
        return tokens > self.max_tokens or (self.max_tools is not None and count > self.max_tools)

    def decide(
        self, access: Access, scope: RequestScope, *, record: bool = False
    ) -> Logic[AutoDecision]:
        """Bind this request's tools whole, or search (``record``: count it, log at DEBUG)."""
        entries: Iterator[LibraryTool] = iter(scope.library)
        kept: list[LibraryTool] = []
        tokens = 0
        decision: AutoDecision | None = None
        while decision is None and (batch := list(islice(entries, _BATCH))):
            allowed = yield from access.allowed(batch, scope, "load")
            allowed = yield from access.allowed(allowed, scope, "active")
            for entry in allowed:
                if not access.bindable(entry.tool):
                    continue
                kept.append(entry)
                tokens += schema_tokens(entry.tool)
                if self._over(len(kept), tokens):
                    decision = AutoDecision(bind_all=False, count=len(kept), tokens=tokens)
                    break
        if decision is None:
            decision = AutoDecision(
                bind_all=True, tools=tuple(kept), count=len(kept), tokens=tokens
            )
        if record:
            self._record(decision)
        return decision

    def _record(self, decision: AutoDecision) -> None:
        summary = AutoDecision(decision.bind_all, (), decision.count, decision.tokens)
        with self._lock:
            if decision.bind_all:
                self._bind_all += 1
            else:
                self._search += 1
            self._last = summary  # counts only: no tool of the request stays here
        logger.debug(
            "tool search: mode='auto' %s (%s%d tools, ~%d schema tokens; budget %d tokens%s)",
            "binds the request's tools whole" if decision.bind_all else "searches",
            "" if decision.bind_all else "over budget at ",
            decision.count,
            decision.tokens,
            self.max_tokens,
            f", {self.max_tools} tools" if self.max_tools is not None else "",
        )

    def stats(self) -> AutoModeStats:
        """Counts of the model steps decided each way, and the last decision."""
        with self._lock:
            last = self._last
            return AutoModeStats(
                bind_all=self._bind_all,
                search=self._search,
                last=None if last is None else ("bind_all" if last.bind_all else "search"),
                last_tools=0 if last is None else last.count,
                last_tokens=0 if last is None else last.tokens,
                max_tokens=self.max_tokens,
                max_tools=self.max_tools,
            )


# -- native: Provider-native tool search (``provider="anthropic"``): deferred definitions and

DEFER_KEY = "defer_loading"
"""The tool ``extras`` key ``langchain-anthropic`` sends as the definition's ``defer_loading``."""
TOOL_REFERENCE = "tool_reference"
"""The content block type of a reference to a deferred tool (Anthropic Messages API)."""
GONE = "The tools this search found are not available now."
"""A past search's answer whose referenced tools are all unbound now."""


def deferred_view(tool: BaseTool) -> BaseTool:
    """A bound-only copy of ``tool`` whose ``extras`` mark it ``defer_loading: true``."""
    extras = {**(tool.extras or {}), DEFER_KEY: True}
    return tool.model_copy(update={"extras": extras})


def deferred(access: Access, scope: RequestScope) -> Logic[list[BaseTool]]:
    """The deferred definitions of this request: allowed in phase ``active``, bindable."""
    entries = list(scope.library)
    if access.policy.enabled:
        entries = yield from access.allowed(entries, scope, "active")
    view = access.bindable.view
    pinned = access.pinned  # bound as they are, not deferred
    return [v if e.name in pinned else deferred_view(v) for e in entries if (v := view(e.tool))]


def native_tools(
    meta: Sequence[BaseTool],
    direct: Sequence[BaseTool | dict[str, Any]],
    bindable: Bindable,
    deferred_tools: Sequence[BaseTool],
) -> list[BaseTool | dict[str, Any]]:
    """Binding order: the meta tool, tools bound as they are, then the deferred definitions."""
    return [*meta, *(bindable.view_direct(t) for t in direct), *deferred_tools]


def references(receipt: Mapping[str, Any]) -> list[str | dict[str, Any]]:
    """The ``tool_reference`` blocks of a search receipt's loaded hits, in order (``[]``: none)."""
    activation = receipt.get("activation")
    names = activation.get("loaded") if isinstance(activation, Mapping) else None
    if not isinstance(names, list):
        return []
    return [{"type": TOOL_REFERENCE, "tool_name": n} for n in names if isinstance(n, str)]


def _dangling(block: object, bound: frozenset[str]) -> bool:
    return (
        isinstance(block, Mapping)
        and block.get("type") == TOOL_REFERENCE
        and block.get("tool_name") not in bound
    )


def prune_references(
    messages: Sequence[BaseMessage], bound: frozenset[str]
) -> list[BaseMessage] | None:
    """``messages`` less ``tool_reference`` blocks naming a tool not in ``bound`` (copies).

    An answer left empty says :data:`GONE`; ``None`` when no message needs it.
    """
    out: list[BaseMessage] | None = None
    for i, message in enumerate(messages):
        content = message.content if isinstance(message, ToolMessage) else None
        if not isinstance(content, list) or not any(_dangling(b, bound) for b in content):
            continue
        kept = [b for b in content if not _dangling(b, bound)]
        out = out if out is not None else list(messages)
        out[i] = message.model_copy(update={"content": kept or GONE})
    return out


# -- stable: ``mode="stable"``: the same bound tools at every step; loaded tools run via call_tool.

DEFINITION_CHARS = 2000
"""Longest description in a loaded tool's definition shown in an answer (characters)."""


class _CallArgs(BaseModel):
    tool_name: str = Field(description="The name of a loaded tool.")
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="Its arguments, as its parameters describe."
    )


def _outside_guard(tool_name: str, arguments: dict[str, Any] | None = None) -> str:
    raise ToolSearchWiringError(
        "tool search: call_tool ran in a tools node without the execution guard; build "
        "the tools node with search.tool_node() (or pass wrap_tool_call=search.wrap_tool_call)"
    )


def call_tool() -> BaseTool:
    """The ``call_tool`` meta tool; never run itself (the guard runs the tool it names)."""
    return StructuredTool.from_function(
        func=_outside_guard,
        name=P.CALL_TOOL_NAME,
        description=P.CALL_TOOL_DESCRIPTION,
        args_schema=_CallArgs,
        metadata={"toolsearch_meta": True},
    )


def unwrap(call: ToolCall) -> ToolCall | ToolMessage:
    """The call a ``call_tool`` call stands for (same id), or the error answering it.

    ``call["args"]`` is an object (``shape_error`` answered other shapes first).
    """
    args = call["args"]
    name, arguments = args.get("tool_name"), args.get("arguments")
    arguments = {} if arguments is None else arguments  # a tool without parameters
    if isinstance(arguments, str):  # some models send the object as JSON text
        with contextlib.suppress(ValueError, RecursionError):
            arguments = json.loads(arguments)
    extra = set(args) - {"tool_name", "arguments"}
    if extra or not isinstance(name, str) or not isinstance(arguments, Mapping):
        count("toolsearch.call.refused", reason="call_tool_arguments")
        detail = "expected tool_name (a string) and arguments (an object)"
        text = P.ARGUMENT_ERROR.format(tool=P.CALL_TOOL_NAME, detail=detail)
        return error_message(text, call)
    if name in P.META_TOOL_NAMES:
        count("toolsearch.call.refused", reason="meta_tool")
        return error_message(P.CALL_TOOL_META, call)
    return ToolCall(name=name, args=dict(arguments), id=call.get("id"), type="tool_call")


def definitions(
    access: Access, scope: RequestScope, names: Sequence[str]
) -> Logic[list[dict[str, Any]]]:
    """The definitions (name, description, parameters) of loaded ``names`` the request may use."""
    entries = [e for n in names if (e := scope.library.get(n))]
    entries = yield from access.allowed(entries, scope, "active")
    found: list[dict[str, Any]] = []
    for entry in entries:
        function = access.bindable.definition(entry.tool)  # texts as when bound
        if function is not None:
            description = function.get("description", "")[:DEFINITION_CHARS]
            parameters = function.get("parameters", {})
            found.append({"name": entry.name, "description": description, "parameters": parameters})
    return found
