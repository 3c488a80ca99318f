"""What the middleware and the node share: the engine, the meta tools, the public helpers.

Each step builds one ``RequestScope`` from its own inputs; nothing of a request is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Self

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.config import get_config, get_store
from langgraph.prebuilt import ToolRuntime
from langgraph.runtime import get_runtime
from langgraph.store.base import BaseStore

from langchain_toolsearch._engine import unload
from langchain_toolsearch._engine.drive import adrive, drive
from langchain_toolsearch._engine.engine import Engine
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch.errors import (
    StoreMissingError,
    ToolSearchConfigError,
    ToolSearchTypeError,
)
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.meta_tools import build_meta_tools
from langchain_toolsearch.options import ToolSearchOptions, check_call
from langchain_toolsearch.search.index import ToolIndex
from langchain_toolsearch.storage.langgraph_store import LOADED_NAMESPACE
from langchain_toolsearch.storage.protocol import LoadedToolStore
from langchain_toolsearch.types import SourceFailure, StateStats, ToolSearchResult

__all__ = ["ToolSearchBase", "current_config", "current_context", "current_store"]


def current_config() -> RunnableConfig:
    """The running graph's config, or ``{}`` outside a run."""
    try:
        return get_config()
    except RuntimeError:
        return {}


def current_store() -> BaseStore | None:
    """The running graph's LangGraph store (``compile(store=...)``), or ``None``."""
    try:
        return get_store()
    except (RuntimeError, KeyError):  # outside a graph run
        return None


def current_context() -> Any:
    """The running graph's context (``invoke(..., context=...)``), or ``None``."""
    try:
        runtime = get_runtime()
    except (RuntimeError, KeyError):  # outside a graph run
        return None
    return getattr(runtime, "context", None)


class ToolSearchBase(unload.Unloading):
    """The engine, meta tools and state helpers of the middleware and the node."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """Refuse a positional argument or an unknown option, naming the fix.

        Raises:
            ToolSearchTypeError: A positional argument, or an unknown option (naming the closest).
        """
        check_call(cls, args, kwargs)
        return super().__new__(cls)

    def __init__(
        self, options: ToolSearchOptions, *, state_ready: Callable[[Any], bool] | None = None
    ) -> None:
        self.options = options
        self._engine = Engine(options, state_ready=state_ready)
        self.meta_tools: list[BaseTool] = build_meta_tools(
            self._engine, self._runtime_scope, self._aruntime_scope
        )

    # -- scopes ----------------------------------------------------------------------------

    def _bound(self, tools: Sequence[BaseTool] | None) -> list[BaseTool]:
        """The step's tool-node tools this request searches (per-request only)."""
        if self._engine.scopes.resolver is None:
            return []
        bound, _ = self._engine.split_agent_tools(tools or (), self.meta_tools)
        return bound

    def _runtime_parts(self, runtime: ToolRuntime) -> dict[str, Any]:
        return {
            "graph_store": runtime.store,
            "context": runtime.context,
            "bound": self._bound(runtime.tools),
        }

    def _runtime_scope(self, runtime: ToolRuntime) -> RequestScope:
        parts = self._runtime_parts(runtime)
        return self._engine.scopes.build(runtime.config or {}, runtime.state, **parts)

    async def _aruntime_scope(self, runtime: ToolRuntime) -> RequestScope:
        parts = self._runtime_parts(runtime)
        return await self._engine.scopes.abuild(runtime.config or {}, runtime.state, **parts)

    def _outside_scope_bound(self) -> Sequence[BaseTool]:
        """Tools of this form a scope outside a run includes (node: ``bound_tools``)."""
        return ()

    def _step_parts(self) -> dict[str, Any]:
        """Keyword arguments of ``scopes.build`` for a step of the running graph."""
        return {"context": current_context(), "bound": self._outside_scope_bound()}

    def _build(self, config: RunnableConfig | None, state: Any) -> RequestScope:
        return self._engine.scopes.build(config or {}, state, **self._step_parts())

    async def _abuild(self, config: RunnableConfig | None, state: Any) -> RequestScope:
        return await self._engine.scopes.abuild(config or {}, state, **self._step_parts())

    # -- public helpers --------------------------------------------------------------------

    def hint_for(self, state: Any = None) -> str:
        """The running request's system hint: :attr:`system_prompt_hint` and what it adds.

        Adds the allowed tools (``inject_catalog=True``) and the evicted tools (``max_loaded``
        / ``max_loaded_tokens``); ``""`` with ``mode="auto"`` when the tools are bound whole.
        """
        if self._engine.static_hint:  # nothing per request: no scope to build
            return self._engine.hint
        return drive(self._engine.hint_for(self._build(current_config(), state or {})))

    async def ahint_for(self, state: Any = None) -> str:
        """Async :meth:`hint_for`."""
        if self._engine.static_hint:
            return self._engine.hint
        scope = await self._abuild(current_config(), state or {})
        return await adrive(self._engine.hint_for(scope))

    @property
    def library(self) -> ToolLibrary:
        """The static library (validated, provider-safe names)."""
        return self._engine.library

    @property
    def index(self) -> ToolIndex:
        """The index over the static library (see ``index=``)."""
        return self._engine.scopes.index

    @property
    def system_prompt_hint(self) -> str:
        """The short text explaining the search/load flow to the model."""
        return self._engine.hint

    def search(
        self,
        query: str | Sequence[str],
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
    ) -> list[ToolSearchResult]:
        """Search as ``search_tools`` would in a run with ``config``, filter included.

        Args:
            query: Keywords, or up to 8 queries (one per need, sharing ``top_k``; each hit's
                ``query`` says which it answers).
            config: The run's ``RunnableConfig`` (``{}`` if omitted).
            context: The run's context, as the filter would see it.

        Returns:
            Up to ``top_k`` hits, best first, scores in ``[0, 1]``; ``[]`` when none.
        """
        scope = self._engine.scopes.build(
            config or {}, {}, context=context, bound=self._outside_scope_bound()
        )
        return drive(self._engine.search_results(scope, query))

    async def asearch(
        self,
        query: str | Sequence[str],
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
    ) -> list[ToolSearchResult]:
        """Async :meth:`search`."""
        scope = await self._engine.scopes.abuild(
            config or {}, {}, context=context, bound=self._outside_scope_bound()
        )
        return await adrive(self._engine.search_results(scope, query))

    def _loaded_scope(
        self, operation: str, config: RunnableConfig, state: Any, store: BaseStore | None
    ) -> RequestScope:
        scope = self._engine.scopes.build(
            config, state or {}, graph_store=store, bound=self._outside_scope_bound()
        )
        storage = self._engine.storage
        if (
            scope.thread_id is not None
            and storage.mode == "store"
            and storage.backend(store) is None
        ):
            raise StoreMissingError(
                f'{operation} with storage="store" needs the store the loads live in: pass '
                f"store=<the graph's store> to {operation}, or store=... to the tool search "
                "(the graph's store is only known inside a run)"
            )
        return scope

    def get_loaded_tools(
        self, config: RunnableConfig, state: Any = None, *, store: BaseStore | None = None
    ) -> list[str]:
        """Names loaded for the run of ``config``, in load order (the working set, if bounded).

        Args:
            config: A run config; its thread id selects the thread.
            state: The graph state, where ``storage="context"`` and thread-less runs keep loads.
            store: ``storage="store"`` without ``store=``: the graph's store.

        Raises:
            StoreMissingError: ``storage="store"``, a thread id, and no store.
        """
        scope = self._loaded_scope("get_loaded_tools", config, state, store)
        return drive(self._engine.loaded(scope))

    async def aget_loaded_tools(
        self, config: RunnableConfig, state: Any = None, *, store: BaseStore | None = None
    ) -> list[str]:
        """Async :meth:`get_loaded_tools`."""
        scope = self._loaded_scope("aget_loaded_tools", config, state, store)
        return await adrive(self._engine.loaded(scope))

    @property
    def loaded_tool_store(self) -> LoadedToolStore | None:
        """Where thread loads live, if fixed at construction (``None``: context, or graph store)."""
        return self._engine.storage.backend()

    def _stored_loads(self, operation: str) -> LoadedToolStore | None:
        """Where ``operation`` reads or clears (``None`` for ``"context"``).

        Raises:
            StoreMissingError: ``storage="store"`` without ``store=``.
        """
        storage = self._engine.storage
        backend = storage.backend()
        if backend is None and storage.mode == "store":
            raise StoreMissingError(
                f'{operation} with storage="store" needs the store: pass store=... to the '
                f"tool search (the graph's store is only known inside a run); the loads live "
                f"in the namespace {LOADED_NAMESPACE} + (<thread id>,) of your LangGraph store"
            )
        return backend

    @staticmethod
    def _thread_id(operation: str, thread_id: object) -> str:
        if not isinstance(thread_id, str) or not thread_id:
            raise ToolSearchTypeError(
                f"{operation} expects a thread id string (config['configurable']['thread_id']), "
                f"got {thread_id!r}"
            )
        return thread_id

    def clear_state(self, thread_id: str) -> None:
        """Forget the loads of ``thread_id`` (a no-op for ``"context"``).

        Raises:
            StoreMissingError: ``storage="store"`` without ``store=``.
            ToolSearchTypeError: ``thread_id`` is not a non-empty string.
        """
        thread_id = self._thread_id("clear_state", thread_id)
        backend = self._stored_loads("clear_state")
        if backend is not None:
            backend.clear(thread_id)

    async def aclear_state(self, thread_id: str) -> None:
        """Async :meth:`clear_state`."""
        thread_id = self._thread_id("aclear_state", thread_id)
        backend = self._stored_loads("aclear_state")
        aclear = getattr(backend, "aclear", None)
        if aclear is not None:
            await aclear(thread_id)
        elif backend is not None:
            backend.clear(thread_id)

    def _unload_backend(self, operation: str, store: BaseStore | None) -> LoadedToolStore | None:
        storage = self._engine.storage
        return storage.backend(store) if store is not None else self._stored_loads(operation)

    def clear_all_state(self) -> None:
        """Forget the loads of every thread."""
        backend = self._stored_loads("clear_all_state")
        if backend is not None:
            backend.clear_all()

    async def aclear_all_state(self) -> None:
        """Async :meth:`clear_all_state`."""
        backend = self._stored_loads("aclear_all_state")
        aclear_all = getattr(backend, "aclear_all", None)
        if aclear_all is not None:
            await aclear_all()
        elif backend is not None:
            backend.clear_all()

    def get_state_stats(self) -> StateStats:
        """The loaded-tool store's size, the source failures seen, and auto-mode decisions.

        ``thread_count`` and ``oldest_access_time`` (epoch s; ``None`` for ``"store"``);
        zero for ``"context"``.

        Raises:
            StoreMissingError: ``"store"`` without ``store=``.
            ToolSearchConfigError: A custom store without a ``stats()`` method.
        """
        return self._stats("get_state_stats")

    def source_failures(self) -> tuple[SourceFailure, ...]:
        """Distinct causes of failing tool sources seen by this instance, oldest first."""
        resolver = self._engine.scopes.resolver
        found = [*self._engine.policy.failures.snapshot()]
        if resolver is not None:
            found.extend(resolver.failures.snapshot())
        return tuple(sorted(found, key=lambda f: f.last_seen))

    def _stats(self, operation: str) -> StateStats:
        return self._with_counts(self._store_stats(operation))

    def _with_counts(self, stats: StateStats) -> StateStats:
        """``stats`` with this instance's source failures and auto-mode decisions."""
        auto = self._engine.auto
        return replace(
            stats,
            source_failures=self.source_failures(),
            auto_mode=auto.stats() if auto is not None else None,
        )

    def _store_stats(self, operation: str) -> StateStats:
        storage = self._engine.storage
        if storage.mode == "context":
            return StateStats(thread_count=0, oldest_access_time=None, storage="context")
        backend = self._stored_loads(operation)
        stats = getattr(backend, "stats", None)
        if callable(stats):
            found = stats()
            if isinstance(found, StateStats):
                return found
        threads = getattr(backend, "thread_ids", None)
        if callable(threads):
            count = len(threads())
            return StateStats(thread_count=count, oldest_access_time=None, storage=storage.mode)
        raise ToolSearchConfigError(
            f"{operation} cannot read a {type(backend).__name__}: give it a stats() "
            f"method returning StateStats (namespace {LOADED_NAMESPACE} for LangGraph stores)"
        )

    async def aget_state_stats(self) -> StateStats:
        """Async :meth:`get_state_stats`."""
        backend = self._engine.storage.backend()
        astats = getattr(backend, "astats", None)
        if self._engine.storage.mode == "store" and callable(astats):
            found = await astats()
            assert isinstance(found, StateStats)
            return self._with_counts(found)
        return self._stats("aget_state_stats")

    def cleanup_now(self) -> int:
        """Run the in-memory TTL sweep now; the number of threads evicted."""
        backend = self._engine.storage.backend()
        cleanup = getattr(backend, "cleanup_now", None)
        return int(cleanup()) if callable(cleanup) else 0
