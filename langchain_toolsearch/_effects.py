"""The package's one sync/async mechanism: logic written once, a sync and an async driver.

Logic is a generator yielding :class:`Effect` objects (one operation in its sync
and its async form) and getting their results back; :func:`drive` performs the
sync forms, :func:`adrive` the async ones. An effect that raises is thrown in at
its ``yield``::

    def loaded_count(store, thread_id) -> Logic[int]:
        names = yield Effect(partial(store.get, thread_id), partial(store.aget, thread_id))
        return len(names)

The rest of the module is what those effects stand on:

* The bridge from synchronous code to awaitables (:func:`run_sync`): one event
  loop in a daemon thread (safe under a running loop, where ``asyncio.run``
  raises). Timers carry no request context (:func:`detached_timeout`); users'
  sync hooks run in the package's own threads (:func:`in_hook_thread`), never
  the default executor.
* Batches on a LangGraph store (:func:`batch`, :func:`abatch`). LangGraph's
  ``InMemoryStore`` is not safe for concurrent use: its batches run one at a
  time per store, async ones through its sync ``batch`` in a worker thread. A
  store without an async API (``abatch`` raises ``NotImplementedError``, as
  ``SqliteStore``'s does) runs its async batches in a worker thread too.
  :func:`defer`: writes nobody waits for (a returned call's record delete) go
  before the ops of the next batch on their store, or (deferred in async code)
  alone once they waited :data:`DEFER_FLUSH_S`; they are dropped if that batch
  fails.
* Store flows (:data:`Flow`): store logic that yields batches of ops (``GetOp``,
  ``PutOp``, ``SearchOp``, ...) and receives their results. :func:`flow_logic`
  turns a flow into logic whose effects are those batches, so a flow runs with
  the same two drivers (:func:`run_flow`, :func:`arun_flow`) or inside other logic.

With ``coalesce=True`` the flows of concurrent callers on one store share
batches (group commit): a flow's ops wait while the store runs a batch, and
every flow that waited joins the next batch, sent as one ``batch`` / ``abatch``
call with identical reads asked once. Each flow gets exactly its own results,
and its ops are sent only after its previous batch answered, so a read sees
every write acknowledged before the flow asked. Within one batch the LangGraph
stores answer reads before they apply puts (``InMemoryStore``,
``PostgresStore``, ``SqliteStore``): flows that joined the same batch behave as
if they ran at the same moment. The 1,000 tool calls of one model step that
each read the thread's loads cost one read, not 1,000.

:func:`attached`: a caller's ops ride on the first batch a flow on the same store
sends in the caller's context (a tool call's started record goes with the guard's
read of the thread's loads).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import logging
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Generator, Hashable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeAlias, TypeVar

from langgraph.store.base import BaseStore, GetOp, ListNamespacesOp, Op, Result, SearchOp
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch.errors import ToolSearchTimeoutError

T = TypeVar("T")
R = TypeVar("R")

logger = logging.getLogger(__name__)

# -- effects and their drivers ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Effect(Generic[R]):
    """One operation in its sync form ``run`` and its async form ``arun`` (same result)."""

    run: Callable[[], R]
    arun: Callable[[], Awaitable[R]]

    @staticmethod
    def of(value: T) -> Effect[T]:
        """An operation whose result is already known (no I/O in either form)."""
        return Effect.same(lambda: value)

    @staticmethod
    def same(run: Callable[[], T]) -> Effect[T]:
        """``run`` as both forms (no I/O)."""

        async def arun() -> T:
            return run()

        return Effect(run, arun)

    @staticmethod
    def awaiting(arun: Callable[[], Awaitable[T]]) -> Effect[T]:
        """An async operation; its sync form waits for it on the bridge (:func:`run_sync`)."""
        return Effect(lambda: run_sync(arun()), arun)

    @staticmethod
    def method(obj: Any, name: str, *args: Any, **kwargs: Any) -> Effect[Any]:
        """``obj.<name>(*args, **kwargs)``; async: ``obj.a<name>(...)`` (awaited) if it has one."""
        run = partial(getattr(obj, name), *args, **kwargs)
        arun = getattr(obj, "a" + name, None)
        if arun is None:
            return Effect.same(run)

        async def awaited() -> Any:
            found = arun(*args, **kwargs)
            return await found if inspect.isawaitable(found) else found

        return Effect(run, awaited)


Logic = Generator[Effect[Any], Any, T]
"""Engine logic: yields effects, gets their results, returns ``T``."""


def drive(logic: Logic[T]) -> T:
    """Run engine logic, performing each effect synchronously."""
    try:
        effect = next(logic)
        while True:
            try:
                value = effect.run()
            except BaseException as exc:  # the logic decides; its finally blocks run here
                effect = logic.throw(exc)
                continue
            effect = logic.send(value)
    except StopIteration as stop:
        result: T = stop.value
        return result


async def adrive(logic: Logic[T]) -> T:
    """Run engine logic, performing each effect asynchronously."""
    try:
        effect = next(logic)
        while True:
            try:
                value = await effect.arun()
            except BaseException as exc:  # the logic decides; its finally blocks run here
                effect = logic.throw(exc)
                continue
            effect = logic.send(value)
    except StopIteration as stop:
        result: T = stop.value
        return result


def is_async_callable(fn: object) -> bool:
    """Whether calling ``fn`` returns a coroutine (``async def`` function or ``__call__``)."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004
    )


# -- the bridge from sync code to awaitables ----------------------------------------------

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_hooks: concurrent.futures.ThreadPoolExecutor | None = None

HOOK_THREADS = 64
"""Most threads running users' sync hooks at once (started on demand)."""


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            # its own handles (the self-pipe reader) would keep the first caller's context
            loop = contextvars.Context().run(asyncio.new_event_loop)
            threading.Thread(
                target=loop.run_forever, name="toolsearch-sync-bridge", daemon=True
            ).start()
            _loop = loop
        return _loop


async def _as_coro(value: Awaitable[T]) -> T:
    return await value


def run_sync(value: Awaitable[T], *, timeout: float | None = None) -> T:
    """Wait for an awaitable from synchronous code.

    Args:
        value: A coroutine or other awaitable, not yet awaited.
        timeout: Seconds to wait (then it is cancelled), or ``None``.

    Returns:
        The awaitable's result.

    Raises:
        TimeoutError: ``timeout`` seconds passed first.
        Exception: Whatever the awaitable raised.
    """
    coro: Coroutine[Any, Any, T] = value if asyncio.iscoroutine(value) else _as_coro(value)
    future = asyncio.run_coroutine_threadsafe(coro, _background_loop())
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise ToolSearchTimeoutError(f"gave up after {timeout} s") from None


def on_bridge() -> bool:
    """Whether the caller runs on the bridge's event loop."""
    try:
        return asyncio.get_running_loop() is _background_loop()
    except RuntimeError:
        return False


async def on_bridge_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the bridge's event loop from any loop (cancelling the caller cancels it).

    Returns:
        ``coro``'s result.

    Raises:
        Exception: Whatever ``coro`` raised.
    """
    loop = _background_loop()
    if asyncio.get_running_loop() is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


def _hook_pool() -> concurrent.futures.ThreadPoolExecutor:
    global _hooks
    with _lock:
        if _hooks is None:
            _hooks = concurrent.futures.ThreadPoolExecutor(
                max_workers=HOOK_THREADS, thread_name_prefix="toolsearch-hook"
            )
        return _hooks


async def in_hook_thread(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the package's hook threads, awaited (to copy a context: ``ctx.run``)."""
    return await asyncio.get_running_loop().run_in_executor(_hook_pool(), fn, *args)


class Deadline:
    """``asyncio.Timeout`` whose timer runs in an empty context (see `detached_timeout`)."""

    def __init__(self, when: float | None) -> None:
        self._when = when
        self._inner = asyncio.Timeout(None)

    async def __aenter__(self) -> Deadline:
        await self._inner.__aenter__()
        if self._when is not None:
            contextvars.Context().run(self._inner.reschedule, self._when)
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self._inner.__aexit__(*exc_info)

    def expired(self) -> bool:
        return self._inner.expired()


def detached_timeout(delay: float | None) -> Deadline:
    """``asyncio.timeout(delay)`` whose queued timer keeps an empty context, not the caller's.

    Args:
        delay: Seconds from now, or ``None`` for no limit.
    """
    loop = asyncio.get_running_loop()
    return Deadline(loop.time() + delay if delay is not None else None)


# -- store batches ------------------------------------------------------------------------

_SYNC_ONLY: set[type] = set()
"""Store classes whose ``abatch`` raised ``NotImplementedError`` (e.g. ``SqliteStore``)."""
_LOCKS: weakref.WeakKeyDictionary[BaseStore, threading.Lock] = weakref.WeakKeyDictionary()
"""One lock per live ``InMemoryStore`` (gone with the store)."""
LOCKS_GUARD = threading.Lock()
"""Guards this module's tables and the flows' group tables (held briefly, never over I/O)."""


DEFER_FLUSH_S = 1.0
"""Seconds deferred writes wait for another batch on their store before going alone."""


class _Deferred:
    """A store's deferred writes, when the oldest was deferred, and whether a timer waits."""

    __slots__ = ("ops", "since", "timer")

    def __init__(self) -> None:
        self.ops: list[Op] = []
        self.since = 0.0
        self.timer = False


_DEFERRED: weakref.WeakKeyDictionary[BaseStore, _Deferred] = weakref.WeakKeyDictionary()
_FLUSHES: set[asyncio.Task[None]] = set()
"""Running flush tasks (kept referenced until done)."""


def defer(store: BaseStore, ops: Sequence[Op]) -> None:
    """Send ``ops`` (writes whose results nobody reads) with the next batch on ``store``."""
    with LOCKS_GUARD:
        pending = _DEFERRED.get(store)
        if pending is None:
            pending = _DEFERRED[store] = _Deferred()
        if not pending.ops:
            pending.since = time.monotonic()
        pending.ops.extend(ops)
        start, pending.timer = not pending.timer, True
    if start:
        _schedule_flush(weakref.ref(store), DEFER_FLUSH_S)


def _take_deferred(store: BaseStore) -> list[Op]:
    with LOCKS_GUARD:
        pending = _DEFERRED.get(store)
        if pending is None or not pending.ops:
            return []
        ops, pending.ops = pending.ops, []
        return ops


def _restore_deferred(store: BaseStore, ops: list[Op]) -> None:
    with LOCKS_GUARD:
        pending = _DEFERRED.get(store)
        if pending is None:
            pending = _DEFERRED[store] = _Deferred()
        pending.ops[:0] = ops


def _due(ref: weakref.ref[BaseStore]) -> tuple[BaseStore | None, float]:
    """(the store if its deferred writes waited long enough, else seconds to wait more)."""
    store = ref()
    with LOCKS_GUARD:
        pending = _DEFERRED.get(store) if store is not None else None
        if pending is None or not pending.ops:
            if pending is not None:
                pending.timer = False
            return None, 0.0
        left = pending.since + DEFER_FLUSH_S - time.monotonic()
        if left <= 0:
            pending.timer = False
            return store, 0.0
        return None, left


def _schedule_flush(ref: weakref.ref[BaseStore], delay: float) -> None:
    """Flush the deferred writes on this event loop once the oldest waited long enough.

    Without a running loop nothing is scheduled: the writes go with the next batch.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        store = ref()
        with LOCKS_GUARD:
            pending = _DEFERRED.get(store) if store is not None else None
            if pending is not None:
                pending.timer = False
        return

    def start() -> None:
        task = loop.create_task(_flush_async(ref))
        _FLUSHES.add(task)
        task.add_done_callback(_FLUSHES.discard)

    loop.call_later(delay, start)


async def _flush_async(ref: weakref.ref[BaseStore]) -> None:
    store, left = _due(ref)
    if left > 0:
        _schedule_flush(ref, left)
    elif store is not None:
        try:
            await abatch(store, [])
        except Exception as exc:
            logger.debug("deferred store writes failed: %s", type(exc).__name__)


def batch(store: BaseStore, ops: list[Op]) -> list[Result]:
    """``store.batch`` with the deferred writes first; an ``InMemoryStore``'s one at a time."""
    extra = _take_deferred(store)
    if not extra and not ops:
        return []
    if not isinstance(store, InMemoryStore):
        return store.batch([*extra, *ops])[len(extra) :]
    with LOCKS_GUARD:
        lock = _LOCKS.get(store)
        if lock is None:
            lock = _LOCKS[store] = threading.Lock()
    with lock:
        return store.batch([*extra, *ops])[len(extra) :]


async def abatch(store: BaseStore, ops: list[Op]) -> list[Result]:
    """``store.abatch``, or its sync ``batch`` in a worker thread (sync-only, in-memory)."""
    kind = type(store)
    if kind not in _SYNC_ONLY and not isinstance(store, InMemoryStore):
        extra = _take_deferred(store)
        if not extra and not ops:
            return []
        try:
            return (await store.abatch([*extra, *ops]))[len(extra) :]
        except NotImplementedError:
            _restore_deferred(store, extra)  # sent by the sync batch below
            _SYNC_ONLY.add(kind)
            logger.info(
                "%s has no async API; its sync methods run in a worker thread in async code",
                kind.__name__,
            )
    return await asyncio.to_thread(batch, store, ops)


# -- store flows ----------------------------------------------------------------------------

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


def _batch_effect(store: BaseStore, ops: list[Op], coalesce: bool) -> Effect[list[Result]]:
    """One batch of ``ops`` on ``store`` (shared with concurrent flows when ``coalesce``)."""
    if coalesce:
        return Effect(lambda: _sync_group(store).batch(ops), lambda: _async_group(store).batch(ops))
    return Effect(lambda: batch(store, ops), lambda: abatch(store, ops))


def flow_logic(store: BaseStore, flow: Flow[T], *, coalesce: bool = False) -> Logic[T]:
    """A store flow as logic: each batch of ops it yields is one effect on ``store``.

    Args:
        store: The store that runs the ops.
        flow: A generator yielding batches of ops and receiving their results.
        coalesce: Share batches with concurrent coalesced flows on ``store``
            (see the module doc).

    Returns:
        Logic returning the flow's return value.
    """
    try:
        ops = next(flow)
        while True:
            holder, ops = _with_attached(store, ops)
            found = yield _batch_effect(store, ops, coalesce)
            ops = flow.send(_split(holder, found))
    except StopIteration as done:
        result: T = done.value
        return result


def run_flow(store: BaseStore, flow: Flow[T], *, coalesce: bool = False) -> T:
    """Drive a store flow with the store's sync ``batch`` (see :func:`flow_logic`)."""
    return drive(flow_logic(store, flow, coalesce=coalesce))


async def arun_flow(store: BaseStore, flow: Flow[T], *, coalesce: bool = False) -> T:
    """Drive a store flow with the store's async ``abatch`` (see :func:`flow_logic`)."""
    return await adrive(flow_logic(store, flow, coalesce=coalesce))
