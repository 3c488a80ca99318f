"""Tools resolved per request (``include_resolved_tools=True``, SPEC section 7).

Some tools exist only for one request: tools a callable builds from the
run's ``RunnableConfig`` (for example MCP tools made with the caller's
credentials), or tools bound directly on the agent. With
``include_resolved_tools=True`` they are indexed for the request, withheld
from the prompt until loaded, and executed as the request's own instance:
each request resolves its tools again from its own config, so a load never
reaches another caller's instance of the same name.

Indexes of per-request tools are cached by the tool set's content
fingerprint (names, descriptions, schemas; not object identity), so a repeat
request with the same tools does not re-index. The library and index of a
request are views chaining the static library with the request's tools.
"""

from __future__ import annotations

import copy
import hashlib
import heapq
import inspect
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

from langchain_toolsearch._async import run_sync
from langchain_toolsearch.library import LibraryTool, ToolLibrary
from langchain_toolsearch.search.index import ScoredTool, ToolDocument, ToolIndex

if TYPE_CHECKING:
    from langchain_toolsearch.core import ToolSearchCore

__all__ = [
    "CONFIG_RESOLVER_KEY",
    "ChainedLibrary",
    "MergedIndex",
    "RequestTools",
    "ResolveToolsFn",
    "tool_fingerprint",
]

logger = logging.getLogger(__name__)

ResolveToolsFn = Callable[[RunnableConfig], "Sequence[BaseTool] | Awaitable[Sequence[BaseTool]]"]
"""Builds a request's tools from its config; sync or async."""

CONFIG_RESOLVER_KEY = "toolsearch_resolve_tools"
"""``config["configurable"]`` key for a per-call resolver (a callable or a list of tools)."""


def _schema_of(tool: BaseTool) -> Any:
    schema: Any = tool.tool_call_schema
    if isinstance(schema, dict):
        return schema
    try:
        return schema.model_json_schema()
    except Exception:  # an exotic schema still fingerprints by name and description
        return repr(schema)


def tool_fingerprint(tools: Sequence[BaseTool]) -> str:
    """SHA-256 over the tools' names, descriptions and call schemas, in order."""
    digest = hashlib.sha256()
    for tool in tools:
        payload = [tool.name, tool.description or "", _schema_of(tool)]
        digest.update(json.dumps(payload, sort_keys=True, default=str).encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


class ChainedLibrary(ToolLibrary):
    """The static library followed by one request's tools (a view; nothing is copied).

    Raises:
        ValueError: If a request tool has the name of a static library tool.
    """

    def __init__(self, first: ToolLibrary, second: ToolLibrary) -> None:
        clash = sorted(t.name for t in second if first.get(t.name) or first.get(t.original_name))
        if clash:
            raise ValueError(
                f"tools resolved for this request {clash} have the names of tools in the "
                "static library; rename them or remove them from one of the two"
            )
        self._first = first
        self._second = second

    def __len__(self) -> int:
        return len(self._first) + len(self._second)

    def __iter__(self) -> Iterator[LibraryTool]:
        yield from self._first
        yield from self._second

    def __contains__(self, name: object) -> bool:
        return name in self._first or name in self._second

    def get(self, name: str) -> LibraryTool | None:
        """The tool named ``name`` in either part."""
        return self._first.get(name) or self._second.get(name)

    @property
    def names(self) -> list[str]:
        """Provider-safe names, static library first."""
        return [*self._first.names, *self._second.names]

    def documents(self) -> list[ToolDocument]:
        """Search documents of both parts."""
        return [*self._first.documents(), *self._second.documents()]

    def suggest(self, name: str, *, limit: int = 5) -> list[str]:
        """Suggestions from both parts, sorted."""
        both = self._first.suggest(name, limit=limit) + self._second.suggest(name, limit=limit)
        return sorted(dict.fromkeys(both))[:limit]


class MergedIndex:
    """Ranks several indexes as one: their hits merged by ``(-score, name)``."""

    def __init__(self, *indexes: ToolIndex) -> None:
        self._indexes = indexes

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """Yield the hits of every index, best first, ties by name."""
        return heapq.merge(
            *(index.rank(query) for index in self._indexes), key=lambda h: (-h.score, h.name)
        )

    def __len__(self) -> int:
        """Number of indexed tools."""
        return sum(len(i) for i in self._indexes)


class RequestTools:
    """Resolves, indexes (cached by fingerprint) and scopes a request's tools.

    Args:
        core: The static core.
        resolver: Builds a request's tools from its config (sync or async);
            ``config["configurable"]["toolsearch_resolve_tools"]`` (a callable
            or a list of tools) is used too.
        cache_size: Most per-request indexes kept (LRU, count).
    """

    def __init__(
        self, core: ToolSearchCore, resolver: ResolveToolsFn | None, cache_size: int = 128
    ) -> None:
        self._core = core
        self._resolver = resolver
        self._cache: OrderedDict[str, ToolIndex] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._direct: tuple[BaseTool, ...] = ()
        self.index_builds = 0
        """How many per-request indexes were built (cache misses), for tests and stats."""

    def learn_direct(self, tools: Sequence[BaseTool]) -> None:
        """Remember the tools bound directly on the agent (searchable, withheld)."""
        self._direct = tuple(tools)

    def _sources(self, config: RunnableConfig) -> list[Any]:
        sources: list[Any] = []
        if self._resolver is not None:
            sources.append(self._resolver)
        extra = (config.get("configurable") or {}).get(CONFIG_RESOLVER_KEY)
        if extra is not None:
            sources.append(extra)
        return sources

    @staticmethod
    def _checked(value: Any) -> list[BaseTool]:
        """The resolver's tools; a developer error (wrong types) raises.

        Raises:
            TypeError: Naming what was returned instead of tools.
        """
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            raise TypeError(
                "a per-request tool resolver must return a sequence of BaseTool, "
                f"got {type(value).__name__}"
            )
        wrong = sorted({type(t).__name__ for t in value if not isinstance(t, BaseTool)})
        if wrong:
            raise TypeError(
                "a per-request tool resolver must return a sequence of BaseTool, "
                f"got items of type {', '.join(wrong)}"
            )
        return list(value)

    @staticmethod
    def _failed(exc: Exception) -> list[BaseTool]:
        """A resolver that fails (an MCP server down, ...) adds nothing this step."""
        logger.warning(
            "tool search: a per-request tool resolver failed; continuing with the static "
            "library only: %r",
            exc,
        )
        return []

    def resolve(self, config: RunnableConfig) -> list[BaseTool]:
        """This request's tools (sync; async resolvers run on a helper loop).

        A resolver that raises is logged and skipped (the static library and
        the other sources still work); one that returns something other
        than tools raises ``TypeError``.
        """
        tools = list(self._direct)
        for source in self._sources(config):
            try:
                value = source(config) if callable(source) else source
                if inspect.isawaitable(value):
                    value = run_sync(value)
            except Exception as exc:
                value = self._failed(exc)
            tools.extend(self._checked(value))
        return tools

    async def aresolve(self, config: RunnableConfig) -> list[BaseTool]:
        """This request's tools (async); failures as in :meth:`resolve`."""
        tools = list(self._direct)
        for source in self._sources(config):
            try:
                value = source(config) if callable(source) else source
                if inspect.isawaitable(value):
                    value = await value
            except Exception as exc:
                value = self._failed(exc)
            tools.extend(self._checked(value))
        return tools

    def _index_for(self, library: ToolLibrary, tools: Sequence[BaseTool]) -> ToolIndex:
        key = tool_fingerprint(tools)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        index = self._core.index_factory(library.documents())
        with self._lock:
            self.index_builds += 1
            self._cache[key] = index
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return index

    def scope(self, tools: Sequence[BaseTool]) -> ToolSearchCore:
        """A view of the core whose library and index include ``tools``."""
        if not tools:
            return self._core
        extra = ToolLibrary(tools)
        scoped = copy.copy(self._core)
        scoped.library = ChainedLibrary(self._core.library, extra)
        scoped.index = MergedIndex(self._core.index, self._index_for(extra, tools))
        return scoped


def scoped_core(core: ToolSearchCore, config: RunnableConfig) -> ToolSearchCore:
    """``core`` scoped to the request's resolved tools (sync)."""
    requests = core.requests
    return core if requests is None else requests.scope(requests.resolve(config))


async def ascoped_core(core: ToolSearchCore, config: RunnableConfig) -> ToolSearchCore:
    """``core`` scoped to the request's resolved tools (async)."""
    requests = core.requests
    return core if requests is None else requests.scope(await requests.aresolve(config))
