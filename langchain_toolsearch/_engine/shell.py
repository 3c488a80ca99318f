"""What the middleware and the node share: the engine, the meta tools, the public helpers.

Each step builds one ``RequestScope`` from its own inputs; nothing of a request is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Self

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.config import get_config, get_store
from langgraph.prebuilt import ToolRuntime
from langgraph.runtime import get_runtime
from langgraph.store.base import BaseStore

from langchain_toolsearch._effects import adrive, drive
from langchain_toolsearch._engine.engine import Engine
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch._engine.thread_state import ThreadState
from langchain_toolsearch._options import ToolSearchOptions, check_call
from langchain_toolsearch.errors import (
    StoreMissingError,
)
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.meta_tools import build_meta_tools
from langchain_toolsearch.search.index import ToolIndex
from langchain_toolsearch.types import ToolSearchResult

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


class ToolSearchBase(ThreadState):
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
