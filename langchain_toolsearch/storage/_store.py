"""``storage="store"``: loads kept in a LangGraph store, the run's reads, started calls.

* :class:`BaseStoreLoadedToolStore`: one item per loaded tool under the namespace
  ``("toolsearch", "loaded", <thread id>)`` of any LangGraph
  :class:`~langgraph.store.base.BaseStore` (``InMemoryStore``, ``PostgresStore``,
  ``AsyncPostgresStore``, ...), so concurrent writers never overwrite each other's
  loads and the loads outlive the process. Each operation is a store flow, run with
  the store's ``batch`` (sync methods) or ``abatch`` (async methods). Load order is a
  per-thread sequence kept in the store itself: a load takes the highest ``seq`` of
  the thread's items plus one, so every replica binds the same order whatever its
  clock, and a load made after another one was acknowledged always comes after it
  ("loads only append"). Clocks play no part in the order (TTL expiry stays the
  store's, clock-based).
* :class:`RunReads`: a run's last read of a thread's stored loads, reused by that
  run's tool step. A model step reads the thread's loads from the store and keeps the
  names for its run (kept per run by :class:`~langchain_toolsearch._support.Runs`,
  gone with the run). The tool calls of the same run that follow (while
  :data:`TOOL_STEP` is set) answer from those names instead of asking the store
  again. A load this run writes drops them from the moment it is sent until after the
  store acknowledged it, so a later read of the run (a ``load_tool`` of the same step
  included) reads the store and sees the write. Outside a run, or outside a tool
  step, every read goes to the store.
* Started tool calls: a record written before a tool call runs, so a re-run is seen.
  A process killed while a call runs leaves its step with no result, and the resumed
  step runs the call again with the same id. The execution guard writes a record
  (same thread, AI message and call id) before the call runs and deletes it once the
  call returned; a call that finds its own record is logged, and a tool marked not
  idempotent (:func:`idempotent`) is not run again. Where the records live
  (:func:`started_calls`):

  * a LangGraph store (:class:`StoreStartedCalls`), namespace
    ``("toolsearch", "started", <thread id>)``, key ``"<AI message id>:<call id>"``,
    value ``{"tool": <name>, "started_at": <epoch seconds>}``, the store's default
    TTL: ``storage="store"``'s store, else the graph's store when it has one.
    Seen by every process sharing the store. With ``InMemoryStore`` and the
    PostgreSQL stores the record's write shares a batch with reads, and in async
    steps the delete goes with the store's next batch (at most ``DEFER_FLUSH_S``,
    1 s, later), so a process that dies after a call returned but before its step
    was saved leaves the record too; sync steps delete at once.
  * this process (:class:`LocalStartedCalls`): at most 10,000 records, seen by a
    resume in the same process only.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeAlias, cast

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch._effects import Effect, Flow, Logic, arun_flow, defer, drive, run_flow
from langchain_toolsearch._support import Runs, run_of
from langchain_toolsearch.types import StateStats

LOADED_NAMESPACE: tuple[str, ...] = ("toolsearch", "loaded")
"""Namespace prefix of ``"store"`` mode; the thread id is the last label."""
STARTED_NAMESPACE: tuple[str, ...] = ("toolsearch", "started")
"""Namespace prefix of the started-call records; the thread id is the last label."""
LOCAL_LIMIT = 10_000
"""Records :class:`LocalStartedCalls` keeps (the oldest go first)."""
_PAGE = 500
TOOL_STEP: ContextVar[bool] = ContextVar("toolsearch_tool_step", default=False)
"""Set by the tool-call wrapper: reads of the thread's loads may reuse the run's last read."""


# -- the loads ------------------------------------------------------------------------------


def thread_label(thread_id: str) -> str:
    """``thread_id`` as a namespace label (labels may not contain ``.``), reversibly."""
    return thread_id.replace("%", "%25").replace(".", "%2E")


def _seq(item: Item) -> tuple[int, str]:
    seq = item.value.get("seq") if isinstance(item.value, Mapping) else None
    return (seq if isinstance(seq, int) and not isinstance(seq, bool) else 0, item.key)


class BaseStoreLoadedToolStore:
    """Loaded tools kept in a LangGraph ``BaseStore`` (``storage="store"``).

    Layout: one item per loaded tool, namespace ``(*namespace, <thread id>)``
    (``.`` in a thread id is written ``%2E``), key the tool name, value
    ``{"seq": <the thread's sequence number of the load>, "origin": <loading
    tool-call id>}``. A load's ``seq`` is one more than the highest ``seq``
    among the thread's items when it is written (several tools of one call:
    consecutive numbers in call order), so the order is the same in every
    replica and never depends on a clock. Names are ordered by ``(seq,
    name)``: two runs loading on one thread at the same moment may draw the
    same number, and then sort by name, in every replica alike. Since every
    load is its own item, replicas loading different tools at the same moment
    both keep theirs, and a load is durable once the store acknowledged the
    write. Items are written
    with ``index=False`` (never embedded) and the store's default TTL, if its
    ``ttl_config`` sets one.

    Args:
        store: Any LangGraph store (``InMemoryStore``, ``PostgresStore``, ...).
        namespace: Namespace prefix; the thread id is appended.
    """

    def __init__(
        self,
        store: BaseStore,
        *,
        namespace: tuple[str, ...] = LOADED_NAMESPACE,
    ) -> None:
        self.store = store
        self.namespace = tuple(namespace)

    def _ns(self, thread_id: str) -> tuple[str, ...]:
        return (*self.namespace, thread_label(thread_id))

    def _put_ttl(self) -> float | None:
        config = self.store.ttl_config or {}
        return config.get("default_ttl") if self.store.supports_ttl else None

    def _refresh(self) -> bool:
        config = self.store.ttl_config or {}
        return bool(config.get("refresh_on_read", True))

    # -- flows --------------------------------------------------------------------------------

    def _items(self, ns: tuple[str, ...]) -> Flow[list[Item]]:
        items: list[Item] = []
        while True:
            op = SearchOp(ns, limit=_PAGE, offset=len(items), refresh_ttl=self._refresh())
            (result,) = yield [op]
            page = cast(list[SearchItem], result)
            items.extend(i for i in page if i.namespace == ns)
            if len(page) < _PAGE:
                return sorted(items, key=_seq)

    def _get(self, thread_id: str) -> Flow[list[str]]:
        return [i.key for i in (yield from self._items(self._ns(thread_id)))]

    def _add(self, thread_id: str, names: Iterable[str], origin: str | None) -> Flow[list[str]]:
        ns = self._ns(thread_id)
        wanted = list(dict.fromkeys(names))
        if not wanted:
            return []
        items = yield from self._items(ns)
        present = {i.key for i in items}
        fresh = [n for n in wanted if n not in present]
        if fresh:
            start = max((_seq(i)[0] for i in items), default=0) + 1
            ttl = self._put_ttl()
            yield [
                PutOp(ns, n, {"seq": start + i, "origin": origin}, index=False, ttl=ttl)
                for i, n in enumerate(fresh)
            ]
        return fresh

    def _origin(self, thread_id: str, name: str) -> Flow[str | None]:
        (item,) = yield [GetOp(self._ns(thread_id), name, refresh_ttl=self._refresh())]
        origin = item.value.get("origin") if isinstance(item, Item) else None
        return origin if isinstance(origin, str) else None

    def _remove(self, thread_id: str, names: Iterable[str]) -> Flow[list[str]]:
        ns = self._ns(thread_id)
        wanted = set(names)
        items = yield from self._items(ns)
        removed = [i.key for i in items if i.key in wanted]
        if removed:
            yield [PutOp(ns, n, None) for n in removed]
        return removed

    def _clear(self, namespaces: Sequence[tuple[str, ...]]) -> Flow[None]:
        for ns in namespaces:
            items = yield from self._items(ns)
            if items:
                yield [PutOp(ns, i.key, None) for i in items]

    def _namespaces(self) -> Flow[list[tuple[str, ...]]]:
        found: list[tuple[str, ...]] = []
        while True:
            op = ListNamespacesOp(
                match_conditions=(MatchCondition("prefix", self.namespace),),
                limit=_PAGE,
                offset=len(found),
            )
            (result,) = yield [op]
            page = cast(list[tuple[str, ...]], result)
            found.extend(page)
            if len(page) < _PAGE:
                return found

    def _clear_all(self) -> Flow[None]:
        yield from self._clear((yield from self._namespaces()))

    def _stats(self) -> Flow[StateStats]:
        found = yield from self._namespaces()
        return StateStats(thread_count=len(found), oldest_access_time=None, storage="store")

    # -- LoadedToolStore ------------------------------------------------------------------------

    def get(self, thread_id: str) -> list[str]:
        """Loaded names of ``thread_id`` in load order."""
        return run_flow(self.store, self._get(thread_id), coalesce=True)

    async def aget(self, thread_id: str) -> list[str]:
        """Async :meth:`get`."""
        return await arun_flow(self.store, self._get(thread_id), coalesce=True)

    def add(self, thread_id: str, names: Sequence[str], *, origin: str | None = None) -> list[str]:
        """Write the names not yet stored for ``thread_id``; return them."""
        return run_flow(self.store, self._add(thread_id, names, origin), coalesce=True)

    async def aadd(
        self, thread_id: str, names: Sequence[str], *, origin: str | None = None
    ) -> list[str]:
        """Async :meth:`add`."""
        return await arun_flow(self.store, self._add(thread_id, names, origin), coalesce=True)

    def origin(self, thread_id: str, name: str) -> str | None:
        """The id of the tool call that loaded ``name`` on ``thread_id``."""
        return run_flow(self.store, self._origin(thread_id, name), coalesce=True)

    async def aorigin(self, thread_id: str, name: str) -> str | None:
        """Async :meth:`origin`."""
        return await arun_flow(self.store, self._origin(thread_id, name), coalesce=True)

    def remove(self, thread_id: str, names: Sequence[str]) -> list[str]:
        """Delete the loads of ``names`` on ``thread_id``; return those removed, in load order.

        A name loaded again later gets a new ``seq``: the end of the load order.
        """
        return run_flow(self.store, self._remove(thread_id, names))

    async def aremove(self, thread_id: str, names: Sequence[str]) -> list[str]:
        """Async :meth:`remove`."""
        return await arun_flow(self.store, self._remove(thread_id, names))

    def clear(self, thread_id: str) -> None:
        """Delete the loads of ``thread_id``."""
        run_flow(self.store, self._clear([self._ns(thread_id)]), coalesce=True)

    async def aclear(self, thread_id: str) -> None:
        """Async :meth:`clear`."""
        await arun_flow(self.store, self._clear([self._ns(thread_id)]), coalesce=True)

    def clear_all(self) -> None:
        """Delete the loads of every thread under :attr:`namespace`."""
        run_flow(self.store, self._clear_all(), coalesce=True)

    async def aclear_all(self) -> None:
        """Async :meth:`clear_all`."""
        await arun_flow(self.store, self._clear_all(), coalesce=True)

    def stats(self) -> StateStats:
        """Threads with loads under :attr:`namespace` (``oldest_access_time`` is ``None``)."""
        return run_flow(self.store, self._stats(), coalesce=True)

    async def astats(self) -> StateStats:
        """Async :meth:`stats`."""
        return await arun_flow(self.store, self._stats(), coalesce=True)


# -- the run's reads ---------------------------------------------------------------------


class _Reads:
    """One run's reads: ``(backend, thread id)`` -> (write generation, names)."""

    __slots__ = ("generation", "lock", "names")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.generation = 0
        self.names: dict[tuple[int, str], tuple[Any, list[str]]] = {}


class RunReads:
    """The last read of each thread's loads per run in progress (thread-safe).

    Workload: ``storage="store"`` on PostgreSQL, a step of many tool calls of
    a loaded tool, counted in store round trips (``make bench``, "Speed paths,
    on and off").
    """

    def __init__(self) -> None:
        self._runs = Runs[_Reads]()

    def _reads(self, config: RunnableConfig | None) -> _Reads | None:
        run = run_of(config) if config is not None else None
        if run is None:
            return None
        found = self._runs.get(run)
        return found if found is not None else self._runs.put(run, _Reads())

    def reading(
        self,
        config: RunnableConfig | None,
        backend: Any,
        thread_id: str,
        get: Effect[list[str]],
    ) -> Logic[list[str]]:
        """``get``, or the run's last read of it in a tool step; kept for the run."""
        reads = self._reads(config)
        if reads is None:
            fresh: list[str] = yield get
            return fresh
        key = (id(backend), thread_id)
        with reads.lock:
            generation, kept = reads.generation, reads.names.get(key)
        if kept is not None and kept[0] is backend and TOOL_STEP.get():
            return list(kept[1])
        names: list[str] = yield get
        self._keep(reads, key, generation, backend, names)
        return names

    def read(
        self,
        config: RunnableConfig | None,
        backend: Any,
        thread_id: str,
        get: Callable[[], list[str]],
    ) -> list[str]:
        """:meth:`reading` run synchronously."""
        return drive(self.reading(config, backend, thread_id, Effect.same(get)))

    @staticmethod
    def _keep(
        reads: _Reads, key: tuple[int, str], generation: int, backend: Any, names: list[str]
    ) -> None:
        with reads.lock:
            if reads.generation == generation:  # no write of this run since the read began
                reads.names[key] = (backend, list(names))

    @contextmanager
    def writing(self, config: RunnableConfig | None) -> Iterator[None]:
        """Around a write of the run: its kept reads are dropped before and after it."""
        reads = self._reads(config)
        self._drop(reads)
        try:
            yield
        finally:
            self._drop(reads)

    @staticmethod
    def _drop(reads: _Reads | None) -> None:
        if reads is not None:
            with reads.lock:
                reads.generation += 1
                reads.names.clear()


# -- started calls --------------------------------------------------------------------------


def idempotent(tool: BaseTool) -> bool:
    """Whether ``tool`` may run again when a crash left its outcome unknown.

    ``tool.metadata["idempotent"]`` decides when it is a bool. Otherwise an
    MCP tool whose server says ``idempotentHint: false`` (and not
    ``readOnlyHint: true``; langchain-mcp-adapters copies the annotations
    into ``metadata``) is not idempotent; every other tool is.
    """
    metadata = tool.metadata if isinstance(tool.metadata, Mapping) else {}
    mark = metadata.get("idempotent")
    if isinstance(mark, bool):
        return mark
    return not (
        metadata.get("idempotentHint") is False and metadata.get("readOnlyHint") is not True
    )


class StoreStartedCalls:
    """Started-call records in a LangGraph store (one item per running call).

    A record is written in one batch with the read of any prior one
    (:meth:`begin_ops`; the execution guard sends them with its read of the
    thread's loads); the delete of a returned call's record is deferred to
    the store's next batch in async steps
    (:func:`~langchain_toolsearch._effects.defer`).

    Args:
        store: Any LangGraph store (reads answered before puts within a batch).
        namespace: Namespace prefix; the thread id is appended.
    """

    where = "store"

    def __init__(self, store: BaseStore, namespace: tuple[str, ...] = STARTED_NAMESPACE) -> None:
        self.store = store
        self.namespace = tuple(namespace)

    def _ns(self, thread_id: str) -> tuple[str, ...]:
        return (*self.namespace, thread_label(thread_id))

    @property
    def combined(self) -> bool:
        """Whether reads and writes may share a batch: ``InMemoryStore`` and the PostgreSQL stores.

        Elsewhere (``SqliteStore``: a transaction that reads, then writes, fails
        at once while another connection writes) each goes in a batch of its own.
        """
        kind = type(self.store)
        return isinstance(self.store, InMemoryStore) or any(
            c.__module__.startswith("langgraph.store.postgres") for c in kind.__mro__
        )

    def begin_ops(self, thread_id: str, key: str, tool: str) -> list[Op]:
        """``[GetOp, PutOp]`` of :meth:`begin`; their results go to :meth:`prior`."""
        ns = self._ns(thread_id)
        config = self.store.ttl_config or {}
        ttl = config.get("default_ttl") if self.store.supports_ttl else None
        value = {"tool": tool, "started_at": time.time()}
        return [GetOp(ns, key, refresh_ttl=False), PutOp(ns, key, value, index=False, ttl=ttl)]

    @staticmethod
    def prior(results: Sequence[Result]) -> dict[str, Any] | None:
        """The record found by :meth:`begin_ops`' read, if any."""
        found = results[0] if results else None
        value = found.value if isinstance(found, Item) else None
        return dict(value) if isinstance(value, Mapping) else None

    def _begin(self, thread_id: str, key: str, tool: str) -> Flow[dict[str, Any] | None]:
        get, put = self.begin_ops(thread_id, key, tool)
        if self.combined:
            return self.prior((yield [get, put]))
        found = yield [get]
        yield [put]
        return self.prior(found)

    def begin(self, thread_id: str, key: str, tool: str) -> dict[str, Any] | None:
        """Record that ``key`` starts; return the record it already had, if any."""
        return run_flow(self.store, self._begin(thread_id, key, tool), coalesce=True)

    async def abegin(self, thread_id: str, key: str, tool: str) -> dict[str, Any] | None:
        """Async :meth:`begin`."""
        return await arun_flow(self.store, self._begin(thread_id, key, tool), coalesce=True)

    def _end(self, thread_id: str, key: str) -> Flow[None]:
        yield [PutOp(self._ns(thread_id), key, None)]

    def end(self, thread_id: str, key: str) -> None:
        """Delete the record of ``key`` (a batch of its own)."""
        run_flow(self.store, self._end(thread_id, key), coalesce=True)

    async def aend(self, thread_id: str, key: str) -> None:
        """Delete the record of ``key``: with the store's next batch if :attr:`combined`.

        Workload: ``storage="store"`` on PostgreSQL, a step of many tool calls,
        counted in store round trips (``make bench``, "Speed paths, on and off").
        """
        if not self.combined:
            await arun_flow(self.store, self._end(thread_id, key), coalesce=True)
            return
        defer(self.store, [PutOp(self._ns(thread_id), key, None)])


class LocalStartedCalls:
    """Started-call records in this process (at most :data:`LOCAL_LIMIT`, oldest dropped)."""

    where = "process"

    def __init__(self, limit: int = LOCAL_LIMIT) -> None:
        self._limit = limit
        self._records: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def begin(self, thread_id: str, key: str, tool: str) -> dict[str, Any] | None:
        """Record that ``key`` starts; return the record it already had, if any."""
        with self._lock:
            prior = self._records.pop((thread_id, key), None)
            self._records[(thread_id, key)] = {"tool": tool, "started_at": time.time()}
            while len(self._records) > self._limit:
                self._records.popitem(last=False)
            return prior

    async def abegin(self, thread_id: str, key: str, tool: str) -> dict[str, Any] | None:
        """Async :meth:`begin` (no I/O)."""
        return self.begin(thread_id, key, tool)

    def end(self, thread_id: str, key: str) -> None:
        """Delete the record of ``key``."""
        with self._lock:
            self._records.pop((thread_id, key), None)

    async def aend(self, thread_id: str, key: str) -> None:
        """Async :meth:`end` (no I/O)."""
        self.end(thread_id, key)


StartedCalls: TypeAlias = StoreStartedCalls | LocalStartedCalls
"""Records of calls that started and did not return: ``begin`` / ``abegin`` record one
and return the record it already had, ``end`` / ``aend`` delete it; ``where`` is
``"store"`` or ``"process"`` (the log says where the record was)."""
_LOCAL = LocalStartedCalls()
"""The process's records (runs without a store)."""


def started_calls(store: BaseStore | None) -> StartedCalls:
    """The records for a run: in ``store`` when there is one, else in this process."""
    return StoreStartedCalls(store) if store is not None else _LOCAL
