"""What the model is bound with: meta tools, tools bound as they are, then loaded tools.

Loaded tools keep their load order, so a provider's prompt cache keeps its
prefix across steps. A loaded tool whose schema a provider could not take
(LangChain cannot convert it) is left out with a warning; calling it gets an
error ``ToolMessage`` (see :mod:`langchain_toolsearch._engine.guard`).
"""

from __future__ import annotations

import logging
import operator
import threading
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, cast

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.library import LibraryTool, ToolLibrary

__all__ = ["Bindable", "order_tools", "split_agent_tools", "tool_name"]

logger = logging.getLogger(__name__)


def tool_name(tool: BaseTool | Mapping[str, Any]) -> str | None:
    """The name of a tool or of a provider tool dict."""
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, Mapping):
        fn = tool.get("function")
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            return cast(str, fn["name"])
        name = tool.get("name")
        return name if isinstance(name, str) else None
    return None


def split_agent_tools(
    tools: Sequence[BaseTool | Mapping[str, Any]],
    meta: Sequence[BaseTool],
    library: ToolLibrary,
    *,
    per_request: bool,
) -> tuple[list[BaseTool], list[BaseTool | dict[str, Any]]]:
    """Split the tools bound on an agent/node into (searchable per request, bound as they are).

    Meta tools (compared by identity) are left out. With ``per_request`` the
    agent's own ``BaseTool`` objects become searchable and are withheld until
    loaded; provider tools (dicts) always stay bound.

    Raises:
        ToolSearchConfigError: A tool is named like a meta tool or a library tool.
    """
    if len(tools) == len(meta) and all(map(operator.is_, tools, meta)):
        return [], []  # only the meta tools (every step of an agent with no tools of its own)
    others = [t for t in tools if not any(t is m for m in meta)]
    reserved = sorted(n for t in others if (n := tool_name(t)) in META_TOOL_NAMES)
    if reserved:
        raise ToolSearchConfigError(
            f"a tool bound on the agent is named {reserved}, which is reserved for the "
            "tool-search meta tools; rename it (or use a single ToolSearchMiddleware)"
        )
    clash = sorted(n for t in others if (n := tool_name(t)) is not None and library.get(n))
    if clash:
        raise ToolSearchConfigError(
            f"tools {clash} are both bound directly on the agent and in the tool-search "
            "library; a tool must be in one of the two: remove it from the agent's tools "
            "(library tools are bound once loaded), or from the library passed as tools=... "
            "(with include_resolved_tools=True the agent's tools are searched too, as "
            "LangChain's tool-selection middleware does)"
        )
    bound = [t for t in others if per_request and isinstance(t, BaseTool)]
    direct = [t if isinstance(t, BaseTool) else dict(t) for t in others if t not in bound]
    return bound, direct


def order_tools(
    meta: Sequence[BaseTool],
    direct: Sequence[BaseTool | dict[str, Any]],
    loaded: Sequence[LibraryTool],
) -> list[BaseTool | dict[str, Any]]:
    """Binding order: meta tools, tools bound as they are, then loaded tools in load order."""
    return [*meta, *direct, *(e.tool for e in loaded)]


class Bindable:
    """Whether providers can take a tool's schema (LangChain converts it); cached per tool.

    The cache holds tools weakly: a request's own tools (built with its
    caller's credentials) never outlive the request because of it.
    """

    def __init__(self, max_entries: int = 20_000) -> None:
        self._known: dict[int, tuple[weakref.ref[BaseTool], bool]] = {}
        self._lock = threading.Lock()
        self._max = max_entries

    def __call__(self, tool: BaseTool) -> bool:
        """Check ``tool``, logging a warning the first time it fails."""
        known = self._known.get(id(tool))  # one dict read: atomic, no lock needed
        if known is not None and known[0]() is tool:
            return known[1]
        try:
            convert_to_openai_tool(tool)
            ok = True
        except Exception as exc:
            logger.warning(
                "tool search: tool %r is not bound: its schema cannot be converted (%s)",
                tool.name[:80],
                type(exc).__name__,
            )
            ok = False
        with self._lock:
            if len(self._known) >= self._max:
                self._known.clear()
            self._known[id(tool)] = (weakref.ref(tool), ok)
        return ok
