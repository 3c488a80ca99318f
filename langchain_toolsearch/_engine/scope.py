"""The request scope: everything one step of one request needs, as one immutable value.

Built per model or tool step (:class:`ScopeBuilder`), never kept: the run's config,
thread id and context, the step's state and store, and the library and index the
request sees (the static ones chained with its own tools under
``include_resolved_tools``). Views are kept for the run by tool identity, request
indexes by content fingerprint; async runs await the factory's async build (no model
call on the event loop); a failing index factory falls back to BM25 (uncached).
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.store.base import BaseStore

from langchain_toolsearch._effects import Effect, Logic, adrive, drive
from langchain_toolsearch._engine.resolve import Resolver, usable_tools
from langchain_toolsearch._engine.views import ChainedLibrary, MergedIndex, tool_fingerprint
from langchain_toolsearch._internal.failures import CauseLog
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.search.index import BM25ToolIndex, ToolDocument, ToolIndex

__all__ = ["RequestScope", "ScopeBuilder", "thread_id_of"]

logger = logging.getLogger(__name__)


def thread_id_of(config: RunnableConfig | Mapping[str, Any] | None) -> str | None:
    """The checkpointer's thread id of a run, or ``None``."""
    if not config:
        return None
    tid = (config.get("configurable") or {}).get("thread_id")
    return None if tid is None or tid == "" else str(tid)


@dataclass(frozen=True)
class RequestScope:
    """What one step of one request sees. Immutable; built per step, never stored.

    Attributes:
        config: The run's ``RunnableConfig`` (``{}`` outside a run).
        thread_id: ``config["configurable"]["thread_id"]`` or ``None``.
        context: The run's context (LangGraph ``Runtime.context``), or ``None``.
        state: The graph state of this step.
        graph_store: The graph's LangGraph store of this step, or ``None``.
        library: The static library, chained with this request's tools.
        index: The index over :attr:`library`.
        bound: Names of agent / node tools this request searches and withholds.
        direct: Tools bound as they are, after the meta tools.
        unavailable: Whether a tool source failed for this request.
    """

    config: RunnableConfig
    thread_id: str | None
    context: Any
    state: Any
    graph_store: BaseStore | None
    library: ToolLibrary
    index: ToolIndex
    bound: frozenset[str] = frozenset()
    direct: tuple[BaseTool | dict[str, Any], ...] = ()
    unavailable: bool = False


@dataclass(frozen=True)
class _Views:
    """A request's library and index views over a tool set, kept while the instances live."""

    tools: tuple[BaseTool, ...]
    library: ToolLibrary
    index: ToolIndex
    bound: frozenset[str]


class _LRU:
    def __init__(self, size: int) -> None:
        self._data: OrderedDict[str, Any] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: str) -> Any:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self._size:
                self._data.popitem(last=False)


class ScopeBuilder:
    """Builds :class:`RequestScope` values for the engine.

    Args:
        library: The static library.
        index: The static index.
        index_factory: Builds a request's index: its ``request_index`` if it has one
            (async runs: ``arequest_index``), else itself (async runs: ``abuild``); a
            factory without the async form is called as is in async runs too.
        resolver: The request's tool sources (``None`` without ``include_resolved_tools``).
        cache_size: Most per-request indexes kept (LRU).
    """

    def __init__(
        self,
        *,
        library: ToolLibrary,
        index: ToolIndex,
        index_factory: Callable[[Sequence[ToolDocument]], ToolIndex],
        resolver: Resolver | None,
        cache_size: int = 128,
    ) -> None:
        self.library = library
        self.index = index
        request = getattr(index_factory, "request_index", None)
        self._factory: Callable[[Sequence[ToolDocument]], ToolIndex] = request or index_factory
        self._afactory: Callable[[Sequence[ToolDocument]], Awaitable[ToolIndex]] | None = getattr(
            index_factory, "arequest_index" if request else "abuild", None
        )
        """The async form of :attr:`_factory` (``None``: the sync one, on the loop)."""
        self.resolver = resolver
        self.index_failures = CauseLog(
            logger,
            "tool search: indexing a request's own tools failed (%s: %s); "
            "searching them by BM25 alone for this request",
        )
        """Logs a failing request-index factory once per cause."""
        self._indexes = _LRU(cache_size)
        self._lock = threading.Lock()
        self.index_builds = 0
        """Per-request indexes built (cache misses)."""
        self.library_builds = 0
        """Per-request libraries built (new tool instances)."""

    @property
    def per_request(self) -> bool:
        """Whether requests have their own tools (``include_resolved_tools``)."""
        return self.resolver is not None

    # -- scopes --------------------------------------------------------------------------

    def _plan(self, tools: Sequence[BaseTool]) -> tuple[str, Any, tuple[bool, ...]]:
        """Cache key, cached ``(keep, index)`` or ``None``, and on a miss which tools work."""
        key = tool_fingerprint(tools)
        cached = self._indexes.get(key)
        if cached is not None:
            return key, cached, ()
        return key, None, usable_tools(tools, self.library)

    @staticmethod
    def _kept(tools: Sequence[BaseTool], keep: Sequence[bool]) -> list[BaseTool]:
        return [t for t, ok in zip(tools, keep, strict=True) if ok]

    def _part(self, tools: Sequence[BaseTool], cached: Any) -> tuple[ToolLibrary, ToolIndex] | None:
        keep, index = cached
        if index is None:
            return None
        with self._lock:
            self.library_builds += 1
        return ToolLibrary(self._kept(tools, keep)), index

    def _store(self, key: str, keep: tuple[bool, ...], index: ToolIndex | None) -> Any:
        cached = (keep, index)
        with self._lock:
            self.index_builds += 1
        self._indexes.put(key, cached)
        return cached

    def _request_part(
        self, tools: Sequence[BaseTool]
    ) -> Logic[tuple[ToolLibrary, ToolIndex] | None]:
        """Library and index of a request's own tools (``None``: none works); cached by content."""
        key, cached, keep = self._plan(tools)
        if cached is None:
            kept = self._kept(tools, keep)
            if not kept:
                cached = self._store(key, keep, None)
            else:
                documents = ToolLibrary(kept).documents()
                build, abuild = partial(self._factory, documents), self._afactory
                effect = Effect(build, partial(abuild, documents)) if abuild else Effect.same(build)
                try:
                    cached = self._store(key, keep, (yield effect))
                except Exception as exc:  # the request goes on with BM25 over its tools
                    cached = (keep, self._fallback(documents, exc))
        return self._part(tools, cached)

    def _fallback(self, documents: Sequence[ToolDocument], exc: Exception) -> ToolIndex:
        """A BM25 index of a request's tools when the factory failed (not cached)."""
        self.index_failures.failed(exc)
        return BM25ToolIndex.build(documents)

    @staticmethod
    def _identity(tools: Sequence[BaseTool], bound: int) -> str:
        return f"{bound}:" + ",".join(str(id(t)) for t in tools)

    def _known_views(
        self, tools: Sequence[BaseTool], bound: int, kept: dict[str, Any]
    ) -> _Views | None:
        """The run's views of these very tool instances (`Resolution.views`), if built before."""
        views: _Views | None = kept.get(self._identity(tools, bound))
        if views is None or len(views.tools) != len(tools):
            return None
        if any(a is not b for a, b in zip(views.tools, tools, strict=True)):
            return None
        return views

    def _new_views(
        self,
        tools: Sequence[BaseTool],
        bound: Sequence[BaseTool],
        part: tuple[ToolLibrary, ToolIndex] | None,
        kept: dict[str, Any],
    ) -> _Views:
        library, index = self.library, self.index
        bound_names: frozenset[str] = frozenset()
        if part is not None:
            extra, own_index = part
            library = ChainedLibrary(self.library, extra)
            index = MergedIndex(self.index, own_index)
            bound_names = frozenset(t.name for t in bound if extra.get(t.name) is not None)
        views = _Views(tuple(tools), library, index, bound_names)
        kept[self._identity(tools, len(bound))] = views
        return views

    def _views_for(
        self, own: Sequence[BaseTool], bound: Sequence[BaseTool], kept: dict[str, Any]
    ) -> Logic[_Views | None]:
        if not own:
            return None
        known = self._known_views(own, len(bound), kept)
        if known is not None:
            return known
        part = yield from self._request_part(own)
        return self._new_views(own, bound, part, kept)

    def _scope(
        self,
        config: RunnableConfig,
        state: Any,
        graph_store: BaseStore | None,
        context: Any,
        direct: Sequence[BaseTool | dict[str, Any]],
        views: _Views | None,
        unavailable: bool,
    ) -> RequestScope:
        return RequestScope(
            config=config,
            thread_id=thread_id_of(config),
            context=context,
            state=state,
            graph_store=graph_store,
            library=self.library if views is None else views.library,
            index=self.index if views is None else views.index,
            bound=frozenset() if views is None else views.bound,
            direct=tuple(direct),
            unavailable=unavailable,
        )

    def _scope_of(
        self,
        config: RunnableConfig,
        state: Any,
        graph_store: BaseStore | None,
        context: Any,
        bound: Sequence[BaseTool],
        direct: Sequence[BaseTool | dict[str, Any]],
    ) -> Logic[RequestScope]:
        resolver = self.resolver
        if resolver is None:  # the static library only: nothing to resolve or chain
            return self._scope(config, state, graph_store, context, direct, None, False)
        # a fresh resolution, never a shared one: its ``views`` hold this request's tools
        found = yield Effect(
            partial(resolver.resolve, config),
            lambda: resolver.aresolve(config, contextvars.copy_context()),
        )
        own = [*bound, *found.tools] if self.per_request else []
        views = yield from self._views_for(own, bound, found.views)
        return self._scope(config, state, graph_store, context, direct, views, found.unavailable)

    def build(
        self,
        config: RunnableConfig,
        state: Any,
        *,
        graph_store: BaseStore | None = None,
        context: Any = None,
        bound: Sequence[BaseTool] = (),
        direct: Sequence[BaseTool | dict[str, Any]] = (),
    ) -> RequestScope:
        """The scope of one step (sync; resolvers run on the package's helper loop).

        Args:
            config: The run's config.
            state: The graph state.
            graph_store: The graph's store.
            context: The run's context.
            bound: Agent / node tools to search this request (``include_resolved_tools``).
            direct: Tools bound as they are.
        """
        return drive(self._scope_of(config, state, graph_store, context, bound, direct))

    async def abuild(
        self,
        config: RunnableConfig,
        state: Any,
        *,
        graph_store: BaseStore | None = None,
        context: Any = None,
        bound: Sequence[BaseTool] = (),
        direct: Sequence[BaseTool | dict[str, Any]] = (),
    ) -> RequestScope:
        """Async :meth:`build`: resolvers and the request index's async build awaited."""
        return await adrive(self._scope_of(config, state, graph_store, context, bound, direct))
