"""Started tool calls: a record written before a tool call runs, so a re-run is seen.

A process killed while a call runs leaves its step with no result, and the
resumed step runs the call again with the same id. The execution guard
writes a record (same thread, AI message and call id) before the call runs
and deletes it once the call returned; a call that finds its own record is
logged, and a tool marked not idempotent (:func:`idempotent`) is not run
again.

Where the records live (:func:`started_calls`):

* a LangGraph store (:class:`StoreStartedCalls`), namespace
  ``("toolsearch", "started", <thread id>)``, key ``"<AI message id>:<call id>"``,
  value ``{"tool": <name>, "started_at": <epoch seconds>}``, the store's default
  TTL: ``storage="store"``'s store, else the graph's store when it has one.
  Seen by every process sharing the store. With ``InMemoryStore`` and the
  PostgreSQL stores the record's write shares a batch with reads, and in
  async steps the delete goes
  with the store's next batch (at most ``DEFER_FLUSH_S``, 1 s, later), so a
  process that dies after a call returned but before its step was saved
  leaves the record too; sync steps delete at once.
* this process (:class:`LocalStartedCalls`): at most 10,000 records, seen by
  a resume in the same process only.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from langchain_core.tools import BaseTool
from langgraph.store.base import BaseStore, GetOp, Item, Op, PutOp, Result
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch._effects import Flow, arun_flow, defer, run_flow
from langchain_toolsearch.storage.langgraph_store import thread_label

__all__ = [
    "STARTED_NAMESPACE",
    "LocalStartedCalls",
    "StartedCalls",
    "StoreStartedCalls",
    "idempotent",
    "started_calls",
]

STARTED_NAMESPACE: tuple[str, ...] = ("toolsearch", "started")
"""Namespace prefix of the store records; the thread id is the last label."""
LOCAL_LIMIT = 10_000
"""Records :class:`LocalStartedCalls` keeps (the oldest go first)."""


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


class StartedCalls(Protocol):
    """Records of calls that started and did not return (see the module doc)."""

    where: str
    """``"store"`` or ``"process"`` (the log says where the record was)."""

    def begin(self, thread_id: str, key: str, tool: str) -> dict[str, Any] | None:
        """Record that ``key`` starts; return the record it already had, if any."""
        ...

    async def abegin(self, thread_id: str, key: str, tool: str) -> dict[str, Any] | None:
        """Async :meth:`begin`."""
        ...

    def end(self, thread_id: str, key: str) -> None:
        """Delete the record of ``key`` (the call returned)."""
        ...

    async def aend(self, thread_id: str, key: str) -> None:
        """Async :meth:`end`."""
        ...


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
        """Delete the record of ``key``: with the store's next batch if :attr:`combined`."""
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


_LOCAL = LocalStartedCalls()
"""The process's records (runs without a store)."""


def started_calls(store: BaseStore | None) -> StartedCalls:
    """The records for a run: in ``store`` when there is one, else in this process."""
    return StoreStartedCalls(store) if store is not None else _LOCAL
