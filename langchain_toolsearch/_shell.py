"""What the middleware and the node share: construction and the public helpers."""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.config import get_config
from langgraph.store.base import BaseStore

from langchain_toolsearch.core import StorageMode, ToolSearchCore
from langchain_toolsearch.library import ToolsInput
from langchain_toolsearch.meta_tools import build_meta_tools
from langchain_toolsearch.policy import FilterFn, adrive, drive
from langchain_toolsearch.resolved import ResolveToolsFn
from langchain_toolsearch.search.index import IndexOption
from langchain_toolsearch.state import LoadedToolStore
from langchain_toolsearch.types import StateStats, ToolSearchResult

__all__ = ["ToolSearchBase", "current_config"]


def current_config() -> RunnableConfig:
    """The running graph's config, or ``{}`` outside a run."""
    try:
        return get_config()
    except RuntimeError:
        return {}


class ToolSearchBase:
    """Options, meta tools and state helpers of the middleware and the node.

    See :class:`~langchain_toolsearch.ToolSearchMiddleware` for the options.
    """

    def __init__(
        self,
        *,
        tools: ToolsInput,
        top_k: int = 5,
        min_score: float = 0.0,
        auto_load: bool = False,
        storage: StorageMode = "in-memory",
        ttl: float = 3600.0,
        filter: FilterFn | None = None,
        include_resolved_tools: bool = False,
        resolve_tools: ResolveToolsFn | None = None,
        system_hint: bool = True,
        clock: Callable[[], float] | None = None,
        store: BaseStore | None = None,
        index: IndexOption | None = None,
    ) -> None:
        self._core = ToolSearchCore(
            tools=tools,
            top_k=top_k,
            min_score=min_score,
            auto_load=auto_load,
            storage=storage,
            ttl=ttl,
            filter=filter,
            include_resolved_tools=include_resolved_tools,
            resolve_tools=resolve_tools,
            clock=clock,
            store=store,
            index=index,
        )
        self._system_hint = system_hint
        self.meta_tools: list[BaseTool] = build_meta_tools(self._core)

    @property
    def core(self) -> ToolSearchCore:
        """The shared logic (library, index, policy, store)."""
        return self._core

    @property
    def system_prompt_hint(self) -> str:
        """The short text explaining the search/load flow to the model."""
        return self._core.system_hint

    def search(self, query: str, config: RunnableConfig | None = None) -> list[ToolSearchResult]:
        """Search the library as ``search_tools`` would, filter (phase ``search``) included.

        Args:
            query: Keywords.
            config: The ``RunnableConfig`` the filter sees (``{}`` if omitted).

        Returns:
            Up to ``top_k`` hits, best first, scores in ``[0, 1]``; ``[]`` for
            an empty query or when nothing matches.
        """
        return drive(self._core.search(query, config or {}), self._core.policy).results

    async def asearch(
        self, query: str, config: RunnableConfig | None = None
    ) -> list[ToolSearchResult]:
        """Async :meth:`search` (awaits async filters)."""
        outcome = await adrive(self._core.search(query, config or {}), self._core.policy)
        return outcome.results

    def _stored_loads(self) -> LoadedToolStore:
        """Where :meth:`clear_state` clears: the in-memory store, or ``store=`` for "store"."""
        if self._core.storage != "store":
            return self._core.store  # "context" keeps nothing here: a no-op
        backend = self._core.backend()
        if backend is None:
            raise ValueError(
                'clearing storage="store" needs the store: pass store=... to the tool '
                "search, or delete the namespace ('toolsearch', 'loaded', <thread id>) "
                "from your LangGraph store"
            )
        return backend

    def clear_state(self, thread_id: str) -> None:
        """Forget the loads of ``thread_id`` (in-memory, or ``store=`` with "store").

        A no-op for ``"context"`` (trim the messages instead).

        Raises:
            ValueError: ``storage="store"`` without ``store=``.
        """
        self._stored_loads().clear(thread_id)

    def clear_all_state(self) -> None:
        """Forget the loads of every thread (in-memory, or ``store=`` with "store")."""
        self._stored_loads().clear_all()

    def get_state_stats(self) -> StateStats:
        """In-memory store size: ``thread_count``, ``oldest_access_time`` (epoch s | None)."""
        return self._core.store.stats()

    def cleanup_now(self) -> int:
        """Run the in-memory TTL sweep now; returns the number of threads evicted."""
        return self._core.store.cleanup_now()
