"""Where loaded tools live: the :class:`LoadedToolStore` protocol and one strategy per mode.

A :class:`LoadedToolStore` keeps, per thread id, the ordered set of loaded tool
names, with sync and async access. The engine never calls a store itself: a
strategy returns an engine :class:`~langchain_toolsearch._effects.Effect` (the
sync and the async form of one operation) and the driver picks the form, so one
piece of engine logic serves ``invoke`` and ``ainvoke``.

:func:`choose_storage` is the one place a ``storage=`` value is read:

* ``"in-memory"`` -> :class:`ThreadStorage` over an :class:`InMemoryLoadedToolStore`;
* ``"store"`` -> :class:`ThreadStorage` over the LangGraph store given as
  ``store=`` or the graph's own (``create_agent(..., store=...)``,
  ``builder.compile(store=...)``);
* a :class:`LoadedToolStore` instance -> :class:`ThreadStorage` over it;
* ``"context"`` -> :class:`ContextStorage` (loads derived from the messages).

Thread storages keep the loads of a run without a thread id in the graph
state key ``toolsearch_loaded`` (that run only). The key is left out of the
input schema, and each entry is signed with a key of this instance, so an
entry the run's input forged (a graph compiled without ``input_schema``, a
copied state) is ignored.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol, TypeVar, runtime_checkable

from langchain_core.runnables import RunnableConfig
from langgraph.store.base import BaseStore

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._effects import Effect, Logic, adrive, drive
from langchain_toolsearch._support import CauseLog, count, describe
from langchain_toolsearch.errors import (
    StoreMissingError,
    ToolSearchConfigError,
    ToolSearchTypeError,
    _LoadsStoreError,
)
from langchain_toolsearch.storage._context import LOADED_KEY, StateSigner, receipts_of, state_names
from langchain_toolsearch.storage._memory import InMemoryLoadedToolStore
from langchain_toolsearch.storage._store import BaseStoreLoadedToolStore, RunReads

logger = logging.getLogger("langchain_toolsearch.storage._strategy")  # where users filter

T = TypeVar("T")


@runtime_checkable
class LoadedToolStore(Protocol):
    """Per-thread ordered sets of loaded tool names, sync and async.

    Pass an instance as ``storage=`` to keep loads anywhere you like.
    """

    def get(self, thread_id: str) -> list[str]:
        """Loaded names of ``thread_id`` in load order (empty if none)."""
        ...

    async def aget(self, thread_id: str) -> list[str]:
        """Async :meth:`get`."""
        ...

    def add(self, thread_id: str, names: Sequence[str], *, origin: str | None = None) -> list[str]:
        """Append ``names`` not yet loaded; return the ones newly added.

        ``origin`` is the id of the tool call that loads them (see :meth:`origin`).
        """
        ...

    async def aadd(
        self, thread_id: str, names: Sequence[str], *, origin: str | None = None
    ) -> list[str]:
        """Async :meth:`add`."""
        ...

    def origin(self, thread_id: str, name: str) -> str | None:
        """The id of the tool call that loaded ``name`` (``None`` if unknown)."""
        ...

    async def aorigin(self, thread_id: str, name: str) -> str | None:
        """Async :meth:`origin`."""
        ...

    def clear(self, thread_id: str) -> None:
        """Forget ``thread_id``."""
        ...

    def clear_all(self) -> None:
        """Forget every thread."""
        ...


def _effect(logic: Callable[[], Logic[T]]) -> Effect[T]:
    """Logic written once as one effect: :func:`drive` in its sync form, :func:`adrive` async."""
    return Effect(lambda: drive(logic()), lambda: adrive(logic()))


_STORE_FAILURES = CauseLog(logger, "tool search: the loaded-tool store failed (%s): %s")


def _store_effect(effect: Effect[T], operation: str) -> Effect[T]:
    """``effect`` with a failure logged, counted and raised as :class:`_LoadsStoreError`."""

    def logic() -> Logic[T]:
        try:
            value: T = yield effect
            return value
        except Exception as exc:
            _STORE_FAILURES.failed(exc)
            count("toolsearch.store.errors", operation=operation, cause=type(exc).__name__)
            raise _LoadsStoreError(
                "the loaded-tool store failed: " + ": ".join(describe(exc))
            ) from exc

    return _effect(logic)


STORAGE_MODES: tuple[str, ...] = ("in-memory", "context", "store")

DEFAULT_TTL = 3600.0
"""Seconds an idle thread's in-memory loads live when ``ttl=`` is not given."""

NO_STORE = (
    'storage="store" keeps loaded tools in a LangGraph store, but this graph has '
    "none: compile it with one (create_agent(..., store=InMemoryStore()) or "
    "builder.compile(store=...); PostgresStore at scale) or pass store=... to "
    "the tool search"
)
RUN_ONLY_LOADS = (
    "tool search: this run has no thread id, so the tools it loads (%s) last until the "
    "run ends and the next run starts without them; to keep loads across runs, compile "
    "the graph with a checkpointer (create_agent(..., checkpointer=InMemorySaver())) and "
    "pass config={'configurable': {'thread_id': ...}}"
)
"""Logged at the first load of a run without a thread id (once per run)."""
STORE_BYPASS = (
    "the tool search was given store=..., so loaded tools go there and not to the "
    "store this graph runs with (on LangGraph's API server: the server's store); "
    "drop store= to use the graph's store"
)


class Storage(ABC):
    """Where the loads of a thread live. All methods are per request; nothing is kept."""

    mode: str
    """``"in-memory"``, ``"context"``, ``"store"`` or ``"custom"``."""
    receipts: bool = False
    """Whether loads come from message receipts (re-checked with the filter)."""
    shared: bool = False
    """Whether others can write the loads (a deployment's LangGraph store is open to its
    clients' store API): re-checked with the filter in phase ``load`` like receipts."""

    @abstractmethod
    def loaded(
        self,
        thread_id: str | None,
        state: Any,
        graph_store: BaseStore | None,
        resolve: Callable[[str], str | None],
        config: RunnableConfig | None = None,
    ) -> Effect[list[str]]:
        """Loaded names of this run in load order (not filter-checked).

        ``config`` is the run's (a tool step may reuse its model step's read).
        """

    def unstorable(
        self, thread_id: str | None, graph_store: BaseStore | None, state_ready: bool
    ) -> str:
        """Why loads of this run cannot be stored (model-facing text), or ``""``."""
        return ""

    def record(
        self,
        thread_id: str | None,
        graph_store: BaseStore | None,
        names: Sequence[str],
        origin: str | None,
        state: Any = None,
        config: RunnableConfig | None = None,
    ) -> Effect[dict[str, Any]]:
        """Store ``names``; return the graph-state update that carries them (if any).

        ``state`` is the run's graph state (a thread-less run keeps its loads there).
        """
        return Effect.of({})

    def origin(
        self, thread_id: str | None, graph_store: BaseStore | None, name: str
    ) -> Effect[str | None]:
        """The id of the tool call that loaded ``name``, if this storage knows it."""
        return Effect.of(None)

    def check(self, thread_id: str | None, graph_store: BaseStore | None) -> None:
        """Raise if this run cannot work at all (``storage="store"`` with no store)."""
        return None

    def backend(self, graph_store: BaseStore | None = None) -> LoadedToolStore | None:
        """The per-thread store for a run, if this storage has one."""
        return None

    def started_store(self, graph_store: BaseStore | None) -> BaseStore | None:
        """Where a run's started-call records go (see ``_store``): the graph's store."""
        return graph_store


class ContextStorage(Storage):
    """``storage="context"``: loads are the receipts in the message history."""

    mode = "context"
    receipts = True

    def loaded(
        self,
        thread_id: str | None,
        state: Any,
        graph_store: BaseStore | None,
        resolve: Callable[[str], str | None],
        config: RunnableConfig | None = None,
    ) -> Effect[list[str]]:
        """Names with genuine receipts in ``state["messages"]``."""
        return Effect.of(receipts_of(state, resolve))


class ThreadStorage(Storage):
    """Loads per thread id in a :class:`LoadedToolStore`; thread-less runs in graph state.

    Args:
        mode: The mode name this storage serves.
        store: A fixed store (in-memory, or a user's ``LoadedToolStore``).
        langgraph_store: ``"store"`` mode: the explicit LangGraph store, if any
            (wins over the graph's store).
    """

    def __init__(
        self,
        mode: str,
        *,
        store: LoadedToolStore | None = None,
        langgraph_store: BaseStore | None = None,
    ) -> None:
        self.mode = mode
        self.shared = mode == "store"
        self._fixed = store
        self._explicit = (
            BaseStoreLoadedToolStore(langgraph_store) if langgraph_store is not None else None
        )
        self._graph: tuple[BaseStore, BaseStoreLoadedToolStore] | None = None
        self._signer = StateSigner()
        self._bypass_warned = False
        self._reads = RunReads()

    def backend(self, graph_store: BaseStore | None = None) -> LoadedToolStore | None:
        """The fixed store, else ``store=``, else a wrapper of the graph's store."""
        if self._fixed is not None:
            return self._fixed
        if self._explicit is not None:
            if graph_store is not None and graph_store is not self._explicit.store:
                self._warn_bypass()
            return self._explicit
        if graph_store is None:
            return None
        cached = self._graph
        if cached is None or cached[0] is not graph_store:
            cached = self._graph = (graph_store, BaseStoreLoadedToolStore(graph_store))
        return cached[1]

    def started_store(self, graph_store: BaseStore | None) -> BaseStore | None:
        """``"store"`` mode: the loads' store (``store=`` wins); else the graph's store."""
        backend = self.backend(graph_store) if self.mode == "store" else None
        if isinstance(backend, BaseStoreLoadedToolStore):
            return backend.store
        return graph_store

    def _warn_bypass(self) -> None:
        if not self._bypass_warned:  # once per instance: a setting, not a per-request event
            self._bypass_warned = True
            logger.warning(STORE_BYPASS)

    def check(self, thread_id: str | None, graph_store: BaseStore | None) -> None:
        """Raise :class:`StoreMissingError` when a thread's loads have nowhere to go."""
        if thread_id is not None and self.backend(graph_store) is None:
            raise StoreMissingError(NO_STORE)

    def loaded(
        self,
        thread_id: str | None,
        state: Any,
        graph_store: BaseStore | None,
        resolve: Callable[[str], str | None],
        config: RunnableConfig | None = None,
    ) -> Effect[list[str]]:
        """The thread's stored names, or the run's ``toolsearch_loaded`` without a thread id.

        Without a thread id a name counts only if a receipt in the run's messages
        backs it too: ``Command(update=...)`` as the run's input can write the key.
        """
        if thread_id is None:
            receipted = set(receipts_of(state, resolve))
            signed = self._signer.verified(state_names(state, LOADED_KEY))
            return Effect.of([n for n in signed if n in receipted])
        backend = self.backend(graph_store)
        if backend is None:
            return Effect.of([])
        get = Effect.method(backend, "get", thread_id)
        reading = partial(self._reads.reading, config, backend, thread_id, get)
        return _store_effect(_effect(reading), "get")

    def unstorable(
        self, thread_id: str | None, graph_store: BaseStore | None, state_ready: bool
    ) -> str:
        """A thread-less run whose state cannot carry loads, or no store."""
        if thread_id is None and not state_ready:
            logger.warning(
                "tool search: a run without a thread id cannot keep loads because the graph "
                "state has no 'toolsearch_loaded' key; use ToolSearchState (node) or pass a "
                "thread id"
            )
            return P.LOAD_NOT_PERSISTED
        if thread_id is not None and self.backend(graph_store) is None:
            return P.LOAD_NO_STORE
        return ""

    def record(
        self,
        thread_id: str | None,
        graph_store: BaseStore | None,
        names: Sequence[str],
        origin: str | None,
        state: Any = None,
        config: RunnableConfig | None = None,
    ) -> Effect[dict[str, Any]]:
        """Write to the thread's store, or return the state update of a thread-less run.

        The first load of a thread-less run (its state carries none yet) is
        logged at WARNING: those loads end with the run.
        """
        if not names:
            return Effect.of({})
        if thread_id is None:
            if not self._signer.verified(state_names(state, LOADED_KEY)):
                logger.warning(RUN_ONLY_LOADS, ", ".join(names))
            return Effect.of({LOADED_KEY: self._signer.sign_all(names)})
        backend = self.backend(graph_store)
        assert backend is not None  # unstorable() refused the load otherwise
        wanted = list(names)
        add = Effect.method(backend, "add", thread_id, wanted, origin=origin)

        def logic() -> Logic[dict[str, Any]]:
            with self._reads.writing(config):
                yield add
            return {}

        return _store_effect(_effect(logic), "add")

    def origin(
        self, thread_id: str | None, graph_store: BaseStore | None, name: str
    ) -> Effect[str | None]:
        """The loading call id from the thread's store (thread-less: unknown)."""
        backend = self.backend(graph_store)
        if thread_id is None or backend is None:
            return Effect.of(None)
        return Effect.method(backend, "origin", thread_id, name)


def choose_storage(
    storage: object,
    *,
    ttl: float | None,
    clock: Callable[[], float] | None,
    store: object,
) -> Storage:
    """The storage strategy for a ``storage=`` option (the one place it is read).

    Args:
        storage: A mode name or a :class:`LoadedToolStore` instance.
        ttl: ``"in-memory"`` only: seconds an idle thread lives (0: forever);
            ``None``: :data:`DEFAULT_TTL`.
        clock: ``"in-memory"``: epoch-seconds clock (tests).
        store: ``"store"`` only: the LangGraph store to use instead of the graph's.

    Raises:
        ToolSearchConfigError: Unknown mode, a LangGraph store as the mode,
            ``store=`` without ``storage="store"``, or ``ttl`` with a mode other
            than ``"in-memory"``.
        ToolSearchTypeError: ``store=`` is not a LangGraph ``BaseStore``.
    """
    if store is not None and storage != "store":
        raise ToolSearchConfigError(
            f'store=... is only used with storage="store" (got storage={storage!r}); '
            'pass storage="store" or drop store='
        )
    if store is not None and not isinstance(store, BaseStore):
        raise ToolSearchTypeError(
            "store must be a LangGraph BaseStore (e.g. InMemoryStore, PostgresStore), "
            f"got {type(store)!r}"
        )
    if ttl is not None and storage != "in-memory":
        shown = storage if isinstance(storage, str) else type(storage).__name__
        raise ToolSearchConfigError(
            f'ttl applies to storage="in-memory" only (got storage={shown!r}): drop ttl=; '
            'for storage="store" set the expiry with the store\'s ttl_config, e.g. '
            'PostgresStore(..., ttl={"default_ttl": minutes})'
        )
    if storage == "in-memory":
        kwargs: dict[str, Any] = {"ttl": DEFAULT_TTL if ttl is None else float(ttl)}
        if clock is not None:
            kwargs["clock"] = clock
        return ThreadStorage("in-memory", store=InMemoryLoadedToolStore(**kwargs))
    if storage == "context":
        return ContextStorage()
    if storage == "store":
        return ThreadStorage("store", langgraph_store=store)
    if isinstance(storage, BaseStore):
        raise ToolSearchConfigError(
            f"storage={type(storage).__name__}(...) is a LangGraph store, not a storage mode: "
            'pass storage="store", store=<your store> (or storage="store" alone to use the '
            "graph's store)"
        )
    if not isinstance(storage, str) and isinstance(storage, LoadedToolStore):
        return ThreadStorage("custom", store=storage)
    raise ToolSearchConfigError(
        f"unknown storage {storage!r}; use one of {', '.join(map(repr, STORAGE_MODES))} "
        "or a LoadedToolStore instance"
    )
