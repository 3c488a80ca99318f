"""Public value types: search hits, filter arguments, state statistics."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal, Protocol

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

__all__ = [
    "AutoModeStats",
    "FilterFn",
    "FilterPhase",
    "Learning",
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
"""Builds a request's tools from its config, sync or async: tools or a `ToolsResult`."""

OnError = Literal["skip", "raise"]
"""``on_error=``: a failing tool source is skipped (logged once per cause) or raises."""

SourceKind = Literal["resolver", "mcp", "provider", "filter", "config"]
"""What failed: resolver, MCP server, provider, filter, or stored configuration (a mistake)."""

FilterPhase = Literal["search", "load", "active"]
"""Where the filter runs: ``search`` (hits), ``load`` (``load_tool``), ``active`` (bound)."""


@dataclass(frozen=True, slots=True)
class ToolSearchResult:
    """One search hit as the model sees it.

    Attributes:
        name: The tool's name as bound to the model (provider-safe).
        description: The description, cut to about 150 characters.
        score: Relevance in ``[0, 1]``: the share of the best score reachable.
        raw_score: The unnormalised BM25 score (not shown to the model).
        original_name: The name the user gave the tool (mapping key, else its own
            name); never shown to the model. Empty when unknown.
        query: With several queries, the need this hit answers as shown (over 100
            characters: cut, ending ``...``); ``None`` for one query.
        loaded: Whether the thread had loaded the tool before (ranks behind new ones).
    """

    name: str
    description: str
    score: float
    raw_score: float = 0.0
    original_name: str = ""
    query: str | None = None
    loaded: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The model-facing JSON: ``name``, ``description``, ``score`` (+ ``query``, ``loaded``)."""
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
        config: The run's ``RunnableConfig``; ``{}`` outside a run.
        phase: ``"search"``, ``"load"`` or ``"active"``.
        context: The run's context (LangGraph's ``Runtime.context``), or ``None``.
    """

    tool_name: str
    tool: BaseTool
    config: RunnableConfig
    phase: FilterPhase
    context: Any = None


FilterFn = Callable[[ToolSearchFilterArgs], "bool | Awaitable[bool]"]
"""``filter=``: allow a tool in a phase (sync or async; denied on error or timeout)."""


@dataclass(frozen=True, slots=True)
class SourceFailure:
    """A tool source that failed, never with a secret (``ResolvedTools.errors``, ``StateStats``).

    Attributes:
        source: The source's name: a resolver's, a stored-config path
            (``"mcp_clients.docs.servers.search"``), prefixed by the resolver's name
            when reported through it, or the filter's.
        kind: ``"resolver"``, ``"mcp"``, ``"provider"``, ``"filter"`` or ``"config"``.
        error: The exception type name; ``""`` for a reason without one.
        message: Why, credentials ``[redacted]`` (at most 300 characters).
        count: Times this cause was seen (``1`` on a resolution).
        last_seen: Epoch seconds of the last time (``0.0`` on a resolution).
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
    """The decisions of ``mode="auto"``, counted per model step.

    Attributes:
        bind_all: Model steps whose tools were bound whole.
        search: Model steps over the budget (searched).
        last: The last decision, ``"bind_all"`` or ``"search"`` (``None``: none yet).
        last_tools: Tools counted by the last decision.
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
    """Size of the loaded-tool store and failing tool sources (``get_state_stats``).

    Attributes:
        thread_count: Threads with state.
        oldest_access_time: Epoch seconds of the least recently used thread, or ``None``.
        storage: The storage mode the figures describe.
        source_failures: The 64 most recent distinct failure causes, oldest first.
        auto_mode: With ``mode="auto"``, how its model steps decided, else ``None``.
        counters: The process's counts of searches, loads, refused calls and failures
            (every tool search and MCP pool of the process), keyed ``name`` or
            ``name{attribute=value,...}``: ``{"toolsearch.call.refused{reason=not_loaded}":
            2}``; the names are listed in docs/deploying.md. Not compared by ``==``.
    """

    thread_count: int
    oldest_access_time: float | None
    storage: str = "in-memory"
    source_failures: tuple[SourceFailure, ...] = ()
    auto_mode: AutoModeStats | None = None
    counters: Mapping[str, int] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Learning:
    """``learning=``: rank a tool higher for queries like those that led to its successful use.

    A search in a thread, then ``load_tool`` (or auto-load) and a successful call of the
    tool make that search's queries evidence for the tool, kept under the run's scope key.

    Attributes:
        scope: ``(RunnableConfig) -> str | None``: the key evidence is kept and used under
            (a tenant, user or agent id); ``None`` or ``""``: the run neither learns nor uses it.
        retention: How long evidence counts (seconds or a ``timedelta``; default 30 days).
        max_queries: Queries kept per tool and scope, newest first.
        max_tools: Tools with evidence kept per scope (those with the oldest evidence go).
        weight: How far full evidence raises a score towards 1, in ``(0, 1]``.
    """

    scope: Callable[[RunnableConfig], str | None]
    retention: float | timedelta = timedelta(days=30)
    max_queries: int = 20
    max_tools: int = 200
    weight: float = 0.5
