"""Public value types: search hits, filter arguments, state statistics."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

__all__ = [
    "AutoModeStats",
    "FilterPhase",
    "OnError",
    "ResolveToolsFn",
    "SourceFailure",
    "SourceKind",
    "StateStats",
    "ToolSearchFilterArgs",
    "ToolSearchResult",
    "ToolsResult",
]


class ToolsResult(Protocol):
    """A resolver's answer with failures: ``tools`` and ``errors`` (`ResolvedTools` is one)."""

    @property
    def tools(self) -> Sequence[BaseTool]:
        """The tools resolved."""
        ...

    @property
    def errors(self) -> Sequence[SourceFailure]:
        """What failed while resolving them."""
        ...


ResolveToolsFn = Callable[
    [RunnableConfig],
    "Sequence[BaseTool] | ToolsResult | Awaitable[Sequence[BaseTool]] | Awaitable[ToolsResult]",
]
"""Builds a request's tools from its config (``resolve_tools=``); sync or async. It may
return the tools, or a `ToolsResult` (a `ToolResolver` itself is such a resolver)."""

OnError = Literal["skip", "raise"]
"""``on_error=``: what a failing tool source does to a step: ``"skip"`` (go on
without its tools, logged once per distinct cause) or ``"raise"``."""

SourceKind = Literal["resolver", "mcp", "provider", "filter", "config"]
"""What failed: a ``resolve_tools`` resolver, a saved MCP client's server, a tool
provider, the filter hook, or the stored configuration (an unknown tool id, a
missing record: not a passing outage)."""

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
        query: With several queries in one search, the query (need) this hit
            answers, as the model is shown it (a need longer than 100
            characters is cut and ends with ``...``);
            ``None`` for a one-query search.
        loaded: Whether this thread had loaded the tool before the search
            (such hits rank behind new tools of similar score).
    """

    name: str
    description: str
    score: float
    raw_score: float = 0.0
    original_name: str = ""
    query: str | None = None
    loaded: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The model-facing JSON shape: ``{"name", "description", "score"}``.

        Plus ``"query"`` with several queries in one search and ``"loaded": true``
        on a tool loaded before the search.
        """
        body: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "score": self.score,
        }
        if self.query is not None:
            body["query"] = self.query
        if self.loaded:
            body["loaded"] = True
        return body


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
class SourceFailure:
    """A tool source that failed, as the application can read it (never a secret).

    Found on ``ResolvedTools.errors`` (one resolution) and in
    ``StateStats.source_failures`` (distinct causes seen by a middleware / node).

    Attributes:
        source: The source's name: a resolver's (``"caller_tools"``,
            ``"ToolResolver(agent_id='support')"``), a stored-config path
            (``"mcp_clients.docs.servers.search"``, ``"tool_providers.composio"``)
            prefixed by the resolver's name when reported through it, or the
            filter's name.
        kind: A `SourceKind`: ``"resolver"``, ``"mcp"``, ``"provider"``,
            ``"filter"`` or ``"config"``.
        error: The exception type name (``"ConnectError"``, ``"TimeoutError"``),
            ``""`` when the source reported a reason without one.
        message: Why, with credential-like values replaced by ``[redacted]``
            (at most 300 characters).
        count: Times this cause was seen (``1`` on a resolution result).
        last_seen: Epoch seconds of the last time (``0.0`` on a resolution result).
    """

    source: str
    kind: SourceKind
    error: str
    message: str
    count: int = 1
    last_seen: float = 0.0

    @property
    def unavailable(self) -> bool:
        """Whether tools are missing because of an outage (not a configuration mistake)."""
        return self.kind != "config"


@dataclass(frozen=True, slots=True)
class AutoModeStats:
    """The decisions of ``mode="auto"`` (see ``get_state_stats``), counted per model step.

    Attributes:
        bind_all: Model steps whose tools were bound whole (no search).
        search: Model steps over the budget (the request searched).
        last: The last decision, ``"bind_all"`` or ``"search"`` (``None``: none yet).
        last_tools: Tools counted by the last decision (when searching: up
            to the one that passed the budget).
        last_tokens: Their estimated schema tokens.
        max_tokens: The budget (``auto_max_tokens``).
        max_tools: The count bound (``auto_max_tools``), ``None`` if none.
    """

    bind_all: int = 0
    search: int = 0
    last: Literal["bind_all", "search"] | None = None
    last_tools: int = 0
    last_tokens: int = 0
    max_tokens: int = 0
    max_tools: int | None = None


@dataclass(frozen=True, slots=True)
class StateStats:
    """Size of the loaded-tool store, and failing tool sources (see ``get_state_stats``).

    Attributes:
        thread_count: Threads with state.
        oldest_access_time: Epoch seconds of the least recently used thread,
            ``None`` when empty.
        storage: The storage mode the figures describe.
        source_failures: Distinct causes of failing tool sources (resolvers,
            MCP servers and providers reported through them, the filter) seen
            by this middleware / node, oldest first, with counts (the 64 most
            recent causes).
        auto_mode: With ``mode="auto"``, how its model steps decided
            (``None`` with ``mode="search"``).
    """

    thread_count: int
    oldest_access_time: float | None
    storage: str = "in-memory"
    source_failures: tuple[SourceFailure, ...] = ()
    auto_mode: AutoModeStats | None = None
