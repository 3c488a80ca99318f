"""Provider-native tool search (``provider="anthropic"``): deferred definitions and references.

Every tool a request may use (allowed in phase ``active``, bindable) is bound at every
step with ``extras["defer_loading"]``, in library order after the meta tool and the
direct tools, so the system text and tool list never change. ``search_tools`` loads its
hits and answers with ``tool_reference`` blocks (the receipt stays the artifact); the
guard is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.tools import BaseTool

from langchain_toolsearch._effects import Logic
from langchain_toolsearch._engine.access import Access
from langchain_toolsearch._engine.binding import Bindable
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
