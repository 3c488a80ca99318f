"""Loaded-tool stores: where the set of loaded tools of a thread lives.

Every store implements :class:`LoadedToolStore`: per-thread ordered sets of
tool names, with sync (``get``/``add``/``origin``) and async
(``aget``/``aadd``/``aorigin``) access. Names keep their load order (loads
only append, so provider prompt caches keep their prefix).

* ``"in-memory"`` is :class:`InMemoryLoadedToolStore`: a per-``thread_id``
  map with TTL eviction, swept on a timer and on access.
* ``"store"`` is :class:`BaseStoreLoadedToolStore` over a LangGraph
  :class:`~langgraph.store.base.BaseStore` (``InMemoryStore``,
  ``PostgresStore``, ...): one item per loaded tool under the namespace
  ``("toolsearch", "loaded", <thread id>)``, so concurrent writers never
  overwrite each other's loads, and the loads outlive the process.

``"context"`` keeps nothing (loads are derived from the messages, see
:mod:`langchain_toolsearch.core`).

The core never calls a store itself: it yields a :class:`StoreCall` (the
sync and the async form of one operation) and the driver that runs the core
(:func:`~langchain_toolsearch.policy.drive` or
:func:`~langchain_toolsearch.policy.adrive`) picks the form.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, cast, runtime_checkable

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from langchain_toolsearch.store_flow import Flow, arun_flow, run_flow
from langchain_toolsearch.types import StateStats

__all__ = [
    "LOADED_NAMESPACE",
    "BaseStoreLoadedToolStore",
    "InMemoryLoadedToolStore",
    "LoadedToolStore",
    "StoreCall",
]

R = TypeVar("R")


@dataclass(frozen=True)
class StoreCall(Generic[R]):
    """One store operation in its sync and its async form (same result).

    Attributes:
        run: Performs the operation synchronously.
        arun: Performs it asynchronously.
    """

    run: Callable[[], R]
    arun: Callable[[], Awaitable[R]]


@runtime_checkable
class LoadedToolStore(Protocol):
    """Per-thread ordered sets of loaded tool names, sync and async."""

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


@dataclass
class _Entry:
    names: dict[str, str | None] = field(default_factory=dict)  # name -> loading call id
    last_access: float = 0.0


class InMemoryLoadedToolStore:
    """Process-local loaded-tool state with TTL eviction.

    Args:
        ttl: Seconds a thread's state lives after its last access; ``0``
            disables expiry.
        clock: Returns epoch seconds; injectable for tests.
        sweep_interval: Seconds between full sweeps (on a daemon timer and
            on access); default ``min(max(ttl / 2, 1), 60)``.
        start_timer: Start the background sweeper thread (lazily, on the
            first write). The thread holds only a weak reference and stops
            when the store is garbage-collected.

    Raises:
        ValueError: If ``ttl`` is negative or not a number.
    """

    def __init__(
        self,
        *,
        ttl: float = 3600.0,
        clock: Callable[[], float] = time.time,
        sweep_interval: float | None = None,
        start_timer: bool = True,
    ) -> None:
        if not isinstance(ttl, int | float) or isinstance(ttl, bool) or ttl < 0:
            raise ValueError(
                f"ttl must be a number of seconds >= 0 (0 disables expiry), got {ttl!r}"
            )
        self.ttl = float(ttl)
        self._clock = clock
        self._interval = (
            float(sweep_interval)
            if sweep_interval is not None
            else min(max(self.ttl / 2.0, 1.0), 60.0)
        )
        self._lock = threading.Lock()
        self._threads: dict[str, _Entry] = {}
        self._last_sweep = clock()
        self._start_timer = start_timer and self.ttl > 0
        self._timer_started = False
        self._stop = threading.Event()

    # -- timer -----------------------------------------------------------------

    def _ensure_timer(self) -> None:
        if not self._start_timer or self._timer_started:
            return
        self._timer_started = True
        ref = weakref.ref(self)
        stop = self._stop
        interval = self._interval

        def loop() -> None:
            while not stop.wait(interval):
                store = ref()
                if store is None:
                    return
                store.cleanup_now()
                del store

        threading.Thread(target=loop, name="toolsearch-ttl-sweeper", daemon=True).start()

    def close(self) -> None:
        """Stop the background sweeper."""
        self._stop.set()

    def __del__(self) -> None:
        stop = getattr(self, "_stop", None)  # absent if __init__ raised
        if stop is not None:
            stop.set()

    # -- sweeping ----------------------------------------------------------------

    def _expired(self, entry: _Entry, now: float) -> bool:
        return self.ttl > 0 and now - entry.last_access > self.ttl

    def _sweep_locked(self, now: float) -> int:
        self._last_sweep = now
        if self.ttl <= 0:
            return 0
        dead = [tid for tid, e in self._threads.items() if self._expired(e, now)]
        for tid in dead:
            del self._threads[tid]
        if dead and not self._threads:
            self._threads = {}  # give the table's memory back
        return len(dead)

    def _touch_locked(self, thread_id: str, now: float, *, create: bool) -> _Entry | None:
        if self.ttl > 0 and now - self._last_sweep >= self._interval:
            self._sweep_locked(now)
        entry = self._threads.get(thread_id)
        if entry is not None and self._expired(entry, now):
            del self._threads[thread_id]
            entry = None
        if entry is None and create:
            entry = self._threads[thread_id] = _Entry()
        if entry is not None:
            entry.last_access = now
        return entry

    # -- LoadedToolStore -------------------------------------------------------------

    def get(self, thread_id: str) -> list[str]:
        """Loaded names of ``thread_id`` in load order; refreshes its TTL."""
        with self._lock:
            entry = self._touch_locked(thread_id, self._clock(), create=False)
            return list(entry.names) if entry else []

    def add(self, thread_id: str, names: Iterable[str], *, origin: str | None = None) -> list[str]:
        """Append names not yet loaded (in order); return the newly added ones.

        Args:
            thread_id: The thread.
            names: Tool names to load.
            origin: The tool-call id of the ``load_tool``/``search_tools`` call
                that loads them (see :meth:`origin`).
        """
        with self._lock:
            entry = self._touch_locked(thread_id, self._clock(), create=True)
            assert entry is not None
            added = [n for n in dict.fromkeys(names) if n not in entry.names]
            entry.names.update(dict.fromkeys(added, origin))
        self._ensure_timer()
        return added

    def origin(self, thread_id: str, name: str) -> str | None:
        """The tool-call id that loaded ``name`` on ``thread_id`` (``None`` if unknown).

        The execution guard uses it to refuse a call made in the same model
        step as the ``load_tool`` call that loaded the tool: the model could
        not have seen that tool bound.
        """
        with self._lock:
            entry = self._threads.get(thread_id)
            return entry.names.get(name) if entry is not None else None

    async def aget(self, thread_id: str) -> list[str]:
        """:meth:`get` (no I/O: the lock is held for microseconds)."""
        return self.get(thread_id)

    async def aadd(
        self, thread_id: str, names: Sequence[str], *, origin: str | None = None
    ) -> list[str]:
        """:meth:`add` (no I/O)."""
        return self.add(thread_id, names, origin=origin)

    async def aorigin(self, thread_id: str, name: str) -> str | None:
        """:meth:`origin` (no I/O)."""
        return self.origin(thread_id, name)

    def clear(self, thread_id: str) -> None:
        """Forget ``thread_id``; its next run starts with nothing loaded."""
        with self._lock:
            self._threads.pop(thread_id, None)

    def clear_all(self) -> None:
        """Forget every thread."""
        with self._lock:
            self._threads = {}

    def stats(self) -> StateStats:
        """Thread count and the oldest last-access time (epoch seconds)."""
        with self._lock:
            oldest = min((e.last_access for e in self._threads.values()), default=None)
            return StateStats(thread_count=len(self._threads), oldest_access_time=oldest)

    def cleanup_now(self) -> int:
        """Run a TTL sweep now; return the number of threads evicted."""
        with self._lock:
            return self._sweep_locked(self._clock())


# -- "store": a LangGraph BaseStore ------------------------------------------------------------

LOADED_NAMESPACE: tuple[str, ...] = ("toolsearch", "loaded")
"""Namespace prefix of ``"store"`` mode; the thread id is the last label."""
_PAGE = 500


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
    ``{"seq": <time.time_ns() of the load>, "origin": <loading tool-call id>}``.
    Names are ordered by ``(seq, name)``. Since every load is its own item,
    replicas loading different tools at the same moment both keep theirs, and
    a load is durable once the store acknowledged the write. Items are written
    with ``index=False`` (never embedded) and the store's default TTL, if its
    ``ttl_config`` sets one.

    Each operation is written once as a store flow and run with the store's
    ``batch`` (sync methods) or ``abatch`` (async methods).

    Args:
        store: Any LangGraph store (``InMemoryStore``, ``PostgresStore``, ...).
        namespace: Namespace prefix; the thread id is appended.
        clock_ns: Nanosecond clock giving the load order (tests inject one).
    """

    def __init__(
        self,
        store: BaseStore,
        *,
        namespace: tuple[str, ...] = LOADED_NAMESPACE,
        clock_ns: Callable[[], int] = time.time_ns,
    ) -> None:
        self.store = store
        self.namespace = tuple(namespace)
        self._clock_ns = clock_ns

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
        found = yield [GetOp(ns, n, refresh_ttl=self._refresh()) for n in wanted]
        fresh = [n for n, item in zip(wanted, found, strict=True) if item is None]
        if fresh:
            start, ttl = self._clock_ns(), self._put_ttl()
            yield [
                PutOp(ns, n, {"seq": start + i, "origin": origin}, index=False, ttl=ttl)
                for i, n in enumerate(fresh)
            ]
        return fresh

    def _origin(self, thread_id: str, name: str) -> Flow[str | None]:
        (item,) = yield [GetOp(self._ns(thread_id), name, refresh_ttl=self._refresh())]
        origin = item.value.get("origin") if isinstance(item, Item) else None
        return origin if isinstance(origin, str) else None

    def _clear(self, namespaces: Sequence[tuple[str, ...]]) -> Flow[None]:
        for ns in namespaces:
            items = yield from self._items(ns)
            if items:
                yield [PutOp(ns, i.key, None) for i in items]

    def _clear_all(self) -> Flow[None]:
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
                break
        yield from self._clear(found)

    # -- LoadedToolStore ------------------------------------------------------------------------

    def get(self, thread_id: str) -> list[str]:
        """Loaded names of ``thread_id`` in load order."""
        return run_flow(self.store, self._get(thread_id))

    async def aget(self, thread_id: str) -> list[str]:
        """Async :meth:`get`."""
        return await arun_flow(self.store, self._get(thread_id))

    def add(self, thread_id: str, names: Sequence[str], *, origin: str | None = None) -> list[str]:
        """Write the names not yet stored for ``thread_id``; return them."""
        return run_flow(self.store, self._add(thread_id, names, origin))

    async def aadd(
        self, thread_id: str, names: Sequence[str], *, origin: str | None = None
    ) -> list[str]:
        """Async :meth:`add`."""
        return await arun_flow(self.store, self._add(thread_id, names, origin))

    def origin(self, thread_id: str, name: str) -> str | None:
        """The id of the tool call that loaded ``name`` on ``thread_id``."""
        return run_flow(self.store, self._origin(thread_id, name))

    async def aorigin(self, thread_id: str, name: str) -> str | None:
        """Async :meth:`origin`."""
        return await arun_flow(self.store, self._origin(thread_id, name))

    def clear(self, thread_id: str) -> None:
        """Delete the loads of ``thread_id``."""
        run_flow(self.store, self._clear([self._ns(thread_id)]))

    async def aclear(self, thread_id: str) -> None:
        """Async :meth:`clear`."""
        await arun_flow(self.store, self._clear([self._ns(thread_id)]))

    def clear_all(self) -> None:
        """Delete the loads of every thread under :attr:`namespace`."""
        run_flow(self.store, self._clear_all())

    async def aclear_all(self) -> None:
        """Async :meth:`clear_all`."""
        await arun_flow(self.store, self._clear_all())
