"""Public value types: search hits, filter arguments, state statistics."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

__all__ = [
    "FilterPhase",
    "ResolveToolsFn",
    "StateStats",
    "ToolSearchFilterArgs",
    "ToolSearchResult",
]

ResolveToolsFn = Callable[[RunnableConfig], "Sequence[BaseTool] | Awaitable[Sequence[BaseTool]]"]
"""Builds a request's tools from its config (``resolve_tools=``); sync or async."""

FilterPhase = Literal["search", "load", "active"]
"""Where the filter hook runs: ``search`` (hits), ``load`` (``load_tool``),
``active`` (loaded tools bound to this request)."""


@dataclass(frozen=True, slots=True)
class ToolSearchResult:
    """One search hit as the model sees it.

    Attributes:
        name: The tool's name as bound to the model (provider-safe).
        description: The description, truncated to about 150 characters.
        score: Relevance in ``[0, 1]``: the share of the best score reachable
            for the query (see :mod:`langchain_toolsearch.search.index`).
        raw_score: The unnormalised BM25 score (not shown to the model).
        original_name: The name the user gave the tool (its key in a ``tools``
            mapping, else its own name before the provider-safe mapping), to map
            hits back to a registry; never shown to the model. Empty when unknown.
    """

    name: str
    description: str
    score: float
    raw_score: float = 0.0
    original_name: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The model-facing JSON shape: ``{"name", "description", "score"}``."""
        return {"name": self.name, "description": self.description, "score": self.score}


@dataclass(frozen=True, slots=True)
class ToolSearchFilterArgs:
    """What the filter hook receives.

    Attributes:
        tool_name: The tool's name as ``search_tools`` returns it.
        tool: The library tool.
        config: The run's ``RunnableConfig`` (``configurable``, ``metadata``,
            ...); ``{}`` outside a run.
        phase: ``"search"``, ``"load"`` or ``"active"``.
        context: The run's context (``create_agent(context_schema=...)``,
            ``graph.invoke(..., context=...)``; LangGraph's ``Runtime.context``),
            ``None`` when the run has none.
    """

    tool_name: str
    tool: BaseTool
    config: RunnableConfig
    phase: FilterPhase
    context: Any = None


@dataclass(frozen=True, slots=True)
class StateStats:
    """Size of the loaded-tool store (see ``get_state_stats``).

    Attributes:
        thread_count: Threads with state.
        oldest_access_time: Epoch seconds of the least recently used thread,
            ``None`` when empty.
    """

    thread_count: int
    oldest_access_time: float | None
    storage: str = "in-memory"
    """The storage mode the figures describe."""
