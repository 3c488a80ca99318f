"""``storage="store"``: :class:`BaseStoreLoadedToolStore`, loads kept in a LangGraph store.

One item per loaded tool under the namespace ``("toolsearch", "loaded",
<thread id>)`` of any LangGraph :class:`~langgraph.store.base.BaseStore`
(``InMemoryStore``, ``PostgresStore``, ``AsyncPostgresStore``, ...), so
concurrent writers never overwrite each other's loads and the loads outlive
the process. Sync methods use the store's ``batch``, async ones ``abatch``.

Load order is a per-thread sequence kept in the store itself: a load takes
the highest ``seq`` of the thread's items plus one, so every replica binds
the same order whatever its clock, and a load made after another one was
acknowledged always comes after it ("loads only append"). Clocks play no part
in the order (TTL expiry stays the store's, clock-based).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import cast

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

from langchain_toolsearch._effects import Flow, arun_flow, run_flow
from langchain_toolsearch.types import StateStats

__all__ = ["LOADED_NAMESPACE", "BaseStoreLoadedToolStore", "thread_label"]

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

    Each operation is written once as a store flow and run with the store's
    ``batch`` (sync methods) or ``abatch`` (async methods).

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
