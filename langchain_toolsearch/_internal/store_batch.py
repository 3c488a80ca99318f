"""Batches on a LangGraph store: one at a time per ``InMemoryStore``, deferred writes first.

* LangGraph's ``InMemoryStore`` is not safe for concurrent use (a batch that
  iterates its dicts while another thread writes raises ``RuntimeError``):
  its batches run one at a time per store (a lock in this process), async
  ones through its sync ``batch`` in a worker thread.
* A store without an async API (``abatch`` raises ``NotImplementedError``,
  as ``SqliteStore``'s does) runs its async batches in a worker thread too.
* :func:`defer`: writes nobody waits for (a returned call's record delete)
  go before the ops of the next batch on their store, or (deferred in async
  code) alone once they waited :data:`DEFER_FLUSH_S`. They are dropped if
  that batch fails.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Sequence

from langgraph.store.base import BaseStore, Op, Result
from langgraph.store.memory import InMemoryStore

__all__ = ["DEFER_FLUSH_S", "LOCKS_GUARD", "abatch", "batch", "defer"]

logger = logging.getLogger(__name__)

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
