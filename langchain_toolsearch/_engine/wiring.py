"""Graph wiring checks of ``ToolSearchNode``: schema keys, guarded tool steps, node order."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.config import get_config

from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch.errors import ToolSearchWiringError
from langchain_toolsearch.storage._context import LOADED_KEY, TOOLS_KEY, messages_of, state_value

__all__ = [
    "AFTER_PREFIX",
    "SCHEMA_WARNING",
    "after_marker",
    "carries_search_keys",
    "check_tool_step",
    "in_graph_run",
    "outside_guard_error",
    "seen_message",
]

SCHEMA_WARNING = (
    "tool search: tools_for() got a graph state without the 'toolsearch_tools' key, so "
    "tools loaded with load_tool are never bound: LangGraph drops the tool_search node's "
    "update when the graph's state schema lacks the key. Build the graph on "
    "ToolSearchState (or add toolsearch_tools and toolsearch_loaded to your state schema) "
    "and compile with input_schema=ToolSearchInput"
)
UNGUARDED_TOOL_NODE = (
    "tool search: the tools node answered {names} without the execution guard, so it "
    "runs library tools that were never loaded (and tools the filter denies). Build the "
    "tools node with search.tool_node(), or give your ToolNode "
    "wrap_tool_call=search.wrap_tool_call, awrap_tool_call=search.awrap_tool_call and "
    "only search.meta_tools and search.bound_tools"
)
META_OUTSIDE_GUARD = (
    "tool search: {tool} ran in a tools node without this ToolSearchNode's execution "
    "guard, so loaded tools cannot run there and unloaded ones might. Build the tools "
    "node with search.tool_node(), or give your ToolNode "
    "wrap_tool_call=search.wrap_tool_call, awrap_tool_call=search.awrap_tool_call"
)
SEARCH_NODE_SKIPPED = (
    "tool search: the model node ran after a tool step without passing the tool-search "
    "node, so tools loaded in that step are never bound. Route the tools node back to the "
    "tool-search node (builder.add_edge('tools', 'tool_search')), not to the model node"
)
AFTER_PREFIX = "#after:"
"""``toolsearch_tools`` entry naming the last message the node saw (never read as a tool)."""


def carries_search_keys(state: Any) -> bool:
    """Whether ``state`` has ``toolsearch_tools`` or ``toolsearch_loaded`` (keeps loads)."""
    keys = (TOOLS_KEY, LOADED_KEY)
    if isinstance(state, Mapping):
        return any(k in state for k in keys)
    return any(hasattr(state, k) for k in keys)


def in_graph_run() -> bool:
    """Whether the caller runs inside a LangGraph run (a node, a tool)."""
    try:
        get_config()
    except RuntimeError:
        return False
    return True


def graph_tool_step(messages: Sequence[Any], seen: str | None) -> list[tuple[str, ToolMessage]]:
    """(called name, answer) of each ``ToolMessage`` of the tool step that followed ``seen``."""
    end = len(messages)
    start = end
    while start > 0 and isinstance(messages[start - 1], ToolMessage):
        start -= 1
    if seen is None or start == end or start < 2:
        return []
    made = messages[start - 1]
    if not isinstance(made, AIMessage) or getattr(messages[start - 2], "id", None) != seen:
        return []
    calls = {c.get("id"): c["name"] for c in made.tool_calls}
    return [(calls[m.tool_call_id], m) for m in messages[start:end] if m.tool_call_id in calls]


def after_marker(messages: Sequence[Any]) -> list[str]:
    """The :data:`AFTER_PREFIX` entry for ``messages`` (``[]`` when the last has no id)."""
    last_id = getattr(messages[-1], "id", None) if messages else None
    return [f"{AFTER_PREFIX}{last_id}"] if isinstance(last_id, str) and last_id else []


def seen_message(state: Any) -> str | None:
    """The id of the last message the tool-search node saw (its :data:`AFTER_PREFIX` entry)."""
    entries = state_value(state, TOOLS_KEY)
    last = entries[-1] if isinstance(entries, list) and entries else None
    if isinstance(last, str) and last.startswith(AFTER_PREFIX):
        return last[len(AFTER_PREFIX) :]
    return None


def outside_guard_error(state: Any, tool_call_id: str | None) -> ToolSearchWiringError:
    """The error for a meta tool run outside the node's guard, naming ``tool_call_id``'s tool."""
    name = next(
        (
            c["name"]
            for m in reversed(messages_of(state))
            if isinstance(m, AIMessage)
            for c in m.tool_calls
            if c.get("id") == tool_call_id
        ),
        "a meta tool",
    )
    return ToolSearchWiringError(META_OUTSIDE_GUARD.format(tool=name))


def check_tool_step(
    state: Any, *, in_library: Callable[[str], bool], guarded: Callable[[object], bool], model: bool
) -> None:
    """Raise when the step that just ran shows an unsafe wiring (inside a run only).

    Args:
        state: The graph state.
        in_library: Whether a name is a tool of the request's library.
        guarded: Whether a ``ToolMessage`` came from the execution guard.
        model: Called from the model node: also check the tool-search node ran last.

    Raises:
        ToolSearchWiringError: A library or meta tool answered by an unguarded tools
            node, or the model follows a tool step the tool-search node did not see.
    """
    if not in_graph_run():
        return
    messages = messages_of(state)
    seen = seen_message(state)
    unguarded = sorted(
        {
            name[:64]
            for name, answer in graph_tool_step(messages, seen)
            if not guarded(answer) and (name in META_TOOL_NAMES or in_library(name))
        }
    )
    if unguarded:
        raise ToolSearchWiringError(UNGUARDED_TOOL_NODE.format(names=unguarded))
    if model and messages and isinstance(messages[-1], ToolMessage):
        last_id = messages[-1].id
        if last_id and carries_search_keys(state) and seen != last_id:
            raise ToolSearchWiringError(SEARCH_NODE_SKIPPED)
