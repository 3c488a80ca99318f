"""Store flows: logic over a LangGraph ``BaseStore`` written once, run sync or async.

A flow is a generator that yields batches of store ops (``GetOp``, ``PutOp``,
``SearchOp``, ...) and receives their results; :func:`run_flow` answers with
the store's ``batch``, :func:`arun_flow` with ``abatch``. Used by the stored
tool configuration (:mod:`langchain_toolsearch.config.records`) and by the
``"store"`` loaded-tool storage (:mod:`langchain_toolsearch.storage.langgraph_store`).

LangGraph's ``InMemoryStore`` is not safe for concurrent use: a batch that
iterates its dicts while another thread writes raises ``RuntimeError:
dictionary changed size during iteration``. The flows run an
``InMemoryStore``'s batches one at a time per store (a lock in this process),
its async batches too, through its sync ``batch`` in a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import Generator
from typing import TypeAlias, TypeVar

from langgraph.store.base import BaseStore, Op, Result
from langgraph.store.memory import InMemoryStore

__all__ = ["Flow", "arun_flow", "run_flow"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
_SYNC_ONLY: set[type] = set()
"""Store classes whose ``abatch`` raised ``NotImplementedError`` (e.g. ``SqliteStore``)."""
Flow: TypeAlias = Generator[list[Op], list[Result], T]
"""Store logic written once: yields batches of ops, receives their results."""


_LOCKS: weakref.WeakKeyDictionary[BaseStore, threading.Lock] = weakref.WeakKeyDictionary()
"""One lock per live ``InMemoryStore`` (gone with the store)."""
_LOCKS_GUARD = threading.Lock()


def _batch(store: BaseStore, ops: list[Op]) -> list[Result]:
    """``store.batch(ops)``; an ``InMemoryStore``'s one batch at a time (its lock)."""
    if not isinstance(store, InMemoryStore):
        return store.batch(ops)
    with _LOCKS_GUARD:
        lock = _LOCKS.get(store)
        if lock is None:
            lock = _LOCKS[store] = threading.Lock()
    with lock:
        return store.batch(ops)


def run_flow(store: BaseStore, flow: Flow[T]) -> T:
    """Drive a store flow with the store's sync ``batch``.

    Args:
        store: The store that runs the ops.
        flow: A generator yielding batches of ops and receiving their results.

    Returns:
        The flow's return value.
    """
    try:
        ops = next(flow)
        while True:
            ops = flow.send(_batch(store, ops))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def _abatch(store: BaseStore, ops: list[Op]) -> list[Result]:
    """``store.abatch``, or its sync ``batch`` in a worker thread (sync-only, in-memory)."""
    kind = type(store)
    if kind not in _SYNC_ONLY and not isinstance(store, InMemoryStore):
        try:
            return await store.abatch(ops)
        except NotImplementedError:
            _SYNC_ONLY.add(kind)
            logger.info(
                "%s has no async API; its sync methods run in a worker thread in async code",
                kind.__name__,
            )
    return await asyncio.to_thread(_batch, store, ops)


async def arun_flow(store: BaseStore, flow: Flow[T]) -> T:
    """Drive a store flow with the store's async ``abatch`` (see `run_flow`).

    A store without an async API (``abatch`` raises ``NotImplementedError``,
    as ``SqliteStore``'s does) is run through its sync ``batch`` in a worker
    thread instead, never on the event loop.
    """
    try:
        ops = next(flow)
        while True:
            ops = flow.send(await _abatch(store, ops))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
