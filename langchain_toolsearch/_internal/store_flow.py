"""Store flows: logic over a LangGraph ``BaseStore`` written once, run sync or async.

A flow is a generator that yields batches of store ops (``GetOp``, ``PutOp``,
``SearchOp``, ...) and receives their results; :func:`run_flow` answers with
the store's ``batch``, :func:`arun_flow` with ``abatch`` (through
:mod:`.store_batch`: an ``InMemoryStore`` one batch at a time, deferred writes
first). Used by the stored tool configuration, the ``"store"`` loaded-tool
storage and the started-call records.

With ``coalesce=True`` the flows of concurrent callers on one store share
batches (group commit): a flow's ops wait while the store runs a batch, and
every flow that waited joins the next batch, sent as one ``batch`` /
``abatch`` call with identical reads asked once. Each flow gets exactly its
own results, and its ops are sent only after its previous batch answered, so
a read sees every write acknowledged before the flow asked. Within one batch
the LangGraph stores answer reads before they apply puts (``InMemoryStore``,
``PostgresStore``, ``SqliteStore``): flows that joined the same batch behave
as if they ran at the same moment. The 1,000 tool calls of one model step
that each read the thread's loads cost one read, not 1,000.

:func:`attached`: a caller's ops ride on the first batch a flow on the same
store sends in the caller's context (a tool call's started record goes with
the guard's read of the thread's loads).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Generator, Hashable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeAlias, TypeVar

from langgraph.store.base import BaseStore, GetOp, ListNamespacesOp, Op, Result, SearchOp

from langchain_toolsearch._internal.store_batch import (
    DEFER_FLUSH_S,
    LOCKS_GUARD,
    abatch,
    batch,
    defer,
)

__all__ = ["DEFER_FLUSH_S", "Attached", "Flow", "arun_flow", "attached", "defer", "run_flow"]

T = TypeVar("T")
Flow: TypeAlias = Generator[list[Op], list[Result], T]
"""Store logic written once: yields batches of ops, receives their results."""


class Attached:
    """Ops sent with the first batch a flow on ``store`` sends in this context; their results.

    ``results`` stays ``None`` until that batch answered (never, if no flow ran).
    """

    __slots__ = ("_claimed", "ops", "results", "store")

    def __init__(self, store: BaseStore, ops: list[Op]) -> None:
        self.store, self.ops = store, ops
        self.results: list[Result] | None = None
        self._claimed = False

    def claim(self, store: BaseStore) -> bool:
        """Take the ops for a batch on ``store`` (once)."""
        with LOCKS_GUARD:
            if self._claimed or store is not self.store:
                return False
            self._claimed = True
            return True


_ATTACHED: ContextVar[Attached | None] = ContextVar("toolsearch_attached", default=None)


@contextmanager
def attached(store: BaseStore, ops: list[Op]) -> Iterator[Attached]:
    """Within the block, the first flow batch on ``store`` in this context carries ``ops``."""
    holder = Attached(store, ops)
    token = _ATTACHED.set(holder)
    try:
        yield holder
    finally:
        _ATTACHED.reset(token)


def _with_attached(store: BaseStore, ops: list[Op]) -> tuple[Attached | None, list[Op]]:
    holder = _ATTACHED.get()
    if holder is None or not holder.claim(store):
        return None, ops
    return holder, [*holder.ops, *ops]


def _split(holder: Attached | None, results: list[Result]) -> list[Result]:
    if holder is None:
        return results
    holder.results = results[: len(holder.ops)]
    return results[len(holder.ops) :]


def _read_key(op: Op) -> Hashable | None:
    """``op`` itself when it is a read that can be asked once for several flows."""
    if not isinstance(op, GetOp | SearchOp | ListNamespacesOp):
        return None
    try:
        hash(op)
    except TypeError:  # a filter dict
        return None
    return op


def _merged(requests: Sequence[list[Op]]) -> tuple[list[Op], list[list[int]]]:
    """One batch for several flows' ops, and where each flow's results are in it."""
    merged: list[Op] = []
    seen: dict[Hashable, int] = {}
    places: list[list[int]] = []
    for ops in requests:
        mine: list[int] = []
        for op in ops:
            key = _read_key(op)
            if key is not None and key in seen:
                mine.append(seen[key])
                continue
            if key is not None:
                seen[key] = len(merged)
            mine.append(len(merged))
            merged.append(op)
        places.append(mine)
    return merged, places


class _Slot:
    """One flow's ops waiting for a shared batch, then its results or the batch's error."""

    __slots__ = ("error", "ops", "results")

    def __init__(self, ops: list[Op]) -> None:
        self.ops = ops
        self.results: list[Result] | None = None
        self.error: BaseException | None = None


def _settle(slots: Sequence[_Slot], merged: list[Op], places: list[list[int]], run: object) -> None:
    """Give each slot its results of ``run`` (the merged batch's results) or its error."""
    if isinstance(run, BaseException):
        for slot in slots:
            slot.error = run
        return
    assert isinstance(run, list) and len(run) == len(merged)
    for slot, mine in zip(slots, places, strict=True):
        slot.results = [run[i] for i in mine]


class _SyncGroup:
    """Group commit of sync flows on one store (threads of a sync ``ToolNode``)."""

    def __init__(self, store: BaseStore) -> None:
        self._store = weakref.ref(store)
        self._cond = threading.Condition()
        self._waiting: list[_Slot] = []
        self._running = False

    def batch(self, ops: list[Op]) -> list[Result]:
        slot = _Slot(ops)
        with self._cond:
            self._waiting.append(slot)
            while self._running and slot.results is None and slot.error is None:
                self._cond.wait()
            if slot.results is None and slot.error is None:  # lead the next batch
                self._running = True
                group, self._waiting = self._waiting, []
            else:
                group = []
        if group:
            merged, places = _merged([s.ops for s in group])
            store = self._store()
            outcome: object
            try:
                assert store is not None  # the caller holds it
                outcome = batch(store, merged)
            except BaseException as exc:  # every flow of the batch gets it
                outcome = exc
            with self._cond:
                _settle(group, merged, places, outcome)
                self._running = False
                self._cond.notify_all()
        if slot.error is not None:
            raise slot.error
        assert slot.results is not None
        return slot.results


class _AsyncGroup:
    """Group commit of async flows on one store and event loop (a step's tool calls)."""

    def __init__(self, store: BaseStore) -> None:
        self._store = weakref.ref(store)
        self._waiting: list[tuple[_Slot, asyncio.Future[None]]] = []
        self._drain: asyncio.Task[None] | None = None

    async def batch(self, ops: list[Op]) -> list[Result]:
        loop = asyncio.get_running_loop()
        slot, done = _Slot(ops), loop.create_future()
        self._waiting.append((slot, done))
        if self._drain is None:  # starts after the calls already scheduled asked too
            self._drain = loop.create_task(self._run())
        await done
        if slot.error is not None:
            raise slot.error
        assert slot.results is not None
        return slot.results

    async def _run(self) -> None:
        try:
            while self._waiting:
                group, self._waiting = self._waiting, []
                merged, places = _merged([s.ops for s, _ in group])
                store = self._store()
                outcome: object
                try:
                    assert store is not None  # the callers hold it
                    outcome = await abatch(store, merged)
                except BaseException as exc:  # every flow of the batch gets it
                    outcome = exc
                _settle([s for s, _ in group], merged, places, outcome)
                for _, done in group:
                    if not done.done():
                        done.set_result(None)
        finally:
            self._drain = None


_SYNC_GROUPS: weakref.WeakKeyDictionary[BaseStore, _SyncGroup] = weakref.WeakKeyDictionary()
_ASYNC_GROUPS: weakref.WeakKeyDictionary[
    BaseStore, weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _AsyncGroup]
] = weakref.WeakKeyDictionary()


def _sync_group(store: BaseStore) -> _SyncGroup:
    with LOCKS_GUARD:
        group = _SYNC_GROUPS.get(store)
        if group is None:
            group = _SYNC_GROUPS[store] = _SyncGroup(store)
        return group


def _async_group(store: BaseStore) -> _AsyncGroup:
    loop = asyncio.get_running_loop()
    with LOCKS_GUARD:
        per_loop = _ASYNC_GROUPS.get(store)
        if per_loop is None:
            per_loop = _ASYNC_GROUPS[store] = weakref.WeakKeyDictionary()
        group = per_loop.get(loop)
        if group is None:
            group = per_loop[loop] = _AsyncGroup(store)
        return group


def run_flow(store: BaseStore, flow: Flow[T], *, coalesce: bool = False) -> T:
    """Drive a store flow with the store's sync ``batch``.

    Args:
        store: The store that runs the ops.
        flow: A generator yielding batches of ops and receiving their results.
        coalesce: Share batches with concurrent coalesced flows on ``store``
            (see the module doc).

    Returns:
        The flow's return value.
    """
    send = _sync_group(store).batch if coalesce else (lambda ops: batch(store, ops))
    try:
        ops = next(flow)
        while True:
            holder, ops = _with_attached(store, ops)
            ops = flow.send(_split(holder, send(ops)))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def arun_flow(store: BaseStore, flow: Flow[T], *, coalesce: bool = False) -> T:
    """Drive a store flow with the store's async ``abatch`` (see `run_flow`).

    A store without an async API (``abatch`` raises ``NotImplementedError``,
    as ``SqliteStore``'s does) is run through its sync ``batch`` in a worker
    thread instead, never on the event loop.
    """
    group = _async_group(store) if coalesce else None
    try:
        ops = next(flow)
        while True:
            holder, ops = _with_attached(store, ops)
            found = await (group.batch(ops) if group else abatch(store, ops))
            ops = flow.send(_split(holder, found))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
