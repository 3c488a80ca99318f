"""Provider-native tool search (``provider="anthropic"``): deferred definitions and references.

Anthropic's Messages API takes tool definitions marked ``defer_loading: true``
(kept out of the model's context until referenced) and a client-side search
tool whose ``tool_result`` holds ``{"type": "tool_reference", "tool_name": ...}``
blocks; the API expands each reference into the tool's definition in place.
``langchain-anthropic`` sends a tool's ``extras["defer_loading"]`` as the
definition's ``defer_loading`` and a ``ToolMessage`` whose content is a list
of ``tool_reference`` blocks as that ``tool_result`` content.

So in this mode every tool a request may use (its library allowed in filter
phase ``active``, resolved tools included, bindable) is bound at every step
as a deferred definition, in library order, after the meta tool and the
tools bound as they are: the system text and the tool list never change when
a tool is found, and the provider's prompt cache keeps its prefix.
``search_tools`` ranks as always, loads its hits (the one-step flow: a
referenced tool counts as loaded) and answers with their references; the
receipt stays the ``ToolMessage`` artifact (storage ``"context"`` reads it).
The execution guard is unchanged: a call runs only if loaded for this caller
and allowed now.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.tools import BaseTool

from langchain_toolsearch._engine.access import Access
from langchain_toolsearch._engine.binding import Bindable
from langchain_toolsearch._engine.drive import Logic
from langchain_toolsearch._engine.scope import RequestScope

__all__ = [
    "DEFER_KEY",
    "TOOL_REFERENCE",
    "deferred",
    "deferred_view",
    "native_tools",
    "prune_references",
    "references",
]

DEFER_KEY = "defer_loading"
"""The tool ``extras`` key ``langchain-anthropic`` sends as the definition's ``defer_loading``."""
TOOL_REFERENCE = "tool_reference"
"""The content block type of a reference to a deferred tool (Anthropic Messages API)."""
GONE = "The tools this search found are not available now."
"""A past search's answer whose referenced tools are all unbound now (the filter denies them)."""


def deferred_view(tool: BaseTool) -> BaseTool:
    """A copy of ``tool`` (a bound view) whose ``extras`` mark it ``defer_loading: true``.

    The copy is only bound, never run (the guard runs the library's tool).
    """
    extras = {**(tool.extras or {}), DEFER_KEY: True}
    return tool.model_copy(update={"extras": extras})


def deferred(access: Access, scope: RequestScope) -> Logic[list[BaseTool]]:
    """The deferred definitions of this request, in library order.

    Every tool of ``scope.library`` the filter allows in phase ``active`` now
    and whose schema a provider can take, each as its :func:`deferred_view`.
    """
    entries = list(scope.library)
    if access.policy.enabled:
        entries = yield from access.allowed(entries, scope, "active")
    view = access.bindable.view
    return [deferred_view(v) for e in entries if (v := view(e.tool)) is not None]


def native_tools(
    meta: Sequence[BaseTool],
    direct: Sequence[BaseTool | dict[str, Any]],
    bindable: Bindable,
    deferred_tools: Sequence[BaseTool],
) -> list[BaseTool | dict[str, Any]]:
    """Binding order: the meta tool, tools bound as they are, then the deferred definitions."""
    return [*meta, *(bindable.view_direct(t) for t in direct), *deferred_tools]


def references(receipt: Mapping[str, Any]) -> list[str | dict[str, Any]]:
    """The ``tool_reference`` blocks answering a ``search_tools`` receipt: its loaded hits.

    Only what the receipt's activation lists as loaded (newly or before) is
    referenced, in that order; ``[]`` when nothing is (the answer is then
    the receipt's text).
    """
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
    """``messages`` without ``tool_reference`` blocks naming a tool not in ``bound``.

    A past search referenced a tool the filter denies now: the request would
    name a definition it does not carry. Such blocks are dropped from a copy
    of the message (an answer left empty says :data:`GONE`); the state is
    not changed. ``None`` when no message names an unbound tool (the usual
    case: the request is left as it is).
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
