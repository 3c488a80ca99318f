"""The request scope: everything one step of one request needs, as one immutable value.

A :class:`RequestScope` is built once per model step and once per tool step
(by :class:`ScopeBuilder`) and passed along; nothing of a request is kept on
the middleware or node instance. It holds the run's config, thread id and
context, the graph state and store of this step, and the library and index
this request sees: the static library chained with the request's own tools
(``include_resolved_tools``: the resolvers' tools and the tools bound on the
agent / node, withheld from the prompt until loaded).

Tools bound on an agent come from the step itself: ``ModelRequest.tools`` in
a model step, ``ToolRuntime.tools`` (the calling tool node's tools) in a tool
step; a node's ``bound_tools`` are fixed at construction.
"""

from __future__ import annotations

import contextvars
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.store.base import BaseStore

from langchain_toolsearch._engine.resolve import Resolver, usable_tools
from langchain_toolsearch._engine.views import ChainedLibrary, MergedIndex, tool_fingerprint
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.search.index import ToolDocument, ToolIndex

__all__ = ["RequestScope", "ScopeBuilder", "thread_id_of"]


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
        bound: Names of tools bound on the agent / node that this request
            searches and withholds until loaded.
        direct: Tools bound as they are, after the meta tools (provider tools,
            or the agent's tools without ``include_resolved_tools``).
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


class _LRU:
    """A small thread-safe LRU map (count-bounded)."""

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
        index_factory: Builds the index of a request's tools; a factory with a
            ``request_index`` method (a shared, store-backed index such as
            ``StoreIndexFactory``) builds them with that instead, so a
            request's tools stay in this request's overlay and never reach
            the shared index.
        resolver: The request's tool sources (``None`` without ``include_resolved_tools``).
        cache_size: Most per-request indexes kept (LRU, count).
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
        self._factory: Callable[[Sequence[ToolDocument]], ToolIndex] = (
            getattr(index_factory, "request_index", None) or index_factory
        )
        self.resolver = resolver
        self._indexes = _LRU(cache_size)
        self._lock = threading.Lock()
        self.index_builds = 0
        """Per-request indexes built (cache misses), for tests and stats."""

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
        return ToolLibrary(self._kept(tools, keep)), index

    def _store(self, key: str, keep: tuple[bool, ...], index: ToolIndex | None) -> Any:
        cached = (keep, index)
        with self._lock:
            self.index_builds += 1
        self._indexes.put(key, cached)
        return cached

    def _request_part(self, tools: Sequence[BaseTool]) -> tuple[ToolLibrary, ToolIndex] | None:
        """Library and index of a request's own tools (``None`` if none can work).

        Which tools can work and their index are cached by the tool set's content
        fingerprint, so a repeat request with equal tools neither re-checks nor
        re-indexes them (and a dropped tool is logged once).
        """
        key, cached, keep = self._plan(tools)
        if cached is None:
            kept = self._kept(tools, keep)
            built = self._factory(ToolLibrary(kept).documents()) if kept else None
            cached = self._store(key, keep, built)
        return self._part(tools, cached)

    async def _arequest_part(
        self, tools: Sequence[BaseTool]
    ) -> tuple[ToolLibrary, ToolIndex] | None:
        """Async :meth:`_request_part`: a factory's ``abuild`` (async stores) when it has one."""
        key, cached, keep = self._plan(tools)
        if cached is None:
            kept = self._kept(tools, keep)
            abuild = getattr(self._factory, "abuild", None)
            built: ToolIndex | None = None
            if kept:
                documents = ToolLibrary(kept).documents()
                built = await abuild(documents) if abuild is not None else self._factory(documents)
            cached = self._store(key, keep, built)
        return self._part(tools, cached)

    def _scope(
        self,
        config: RunnableConfig,
        state: Any,
        graph_store: BaseStore | None,
        context: Any,
        bound: Sequence[BaseTool],
        direct: Sequence[BaseTool | dict[str, Any]],
        part: tuple[ToolLibrary, ToolIndex] | None,
    ) -> RequestScope:
        library, index = self.library, self.index
        bound_names: frozenset[str] = frozenset()
        if part is not None:
            extra, own_index = part
            library = ChainedLibrary(self.library, extra)
            index = MergedIndex(self.index, own_index)
            bound_names = frozenset(t.name for t in bound if extra.get(t.name) is not None)
        return RequestScope(
            config=config,
            thread_id=thread_id_of(config),
            context=context,
            state=state,
            graph_store=graph_store,
            library=library,
            index=index,
            bound=bound_names,
            direct=tuple(direct),
        )

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
            bound: Tools bound on the agent / node to search this request
                (``include_resolved_tools``).
            direct: Tools bound as they are.
        """
        resolved = self.resolver.resolve(config) if self.resolver is not None else []
        own = [*bound, *resolved] if self.per_request else []
        part = self._request_part(own) if own else None
        return self._scope(config, state, graph_store, context, bound, direct, part)

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
        """Async :meth:`build` (resolvers never run on the event loop)."""
        resolved = (
            await self.resolver.aresolve(config, contextvars.copy_context())
            if self.resolver is not None
            else []
        )
        own = [*bound, *resolved] if self.per_request else []
        part = await self._arequest_part(own) if own else None
        return self._scope(config, state, graph_store, context, bound, direct, part)
