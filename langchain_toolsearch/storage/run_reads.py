"""A run's last read of a thread's stored loads, reused by that run's tool step.

A model step reads the thread's loads from the store and keeps the names for
its run (:class:`RunReads`, kept per run by :class:`~langchain_toolsearch._support.Runs`,
gone with the run). The tool calls of the same run that follow (while
:data:`TOOL_STEP` is set) answer from those names instead of asking the store again.
A load this run writes drops them from the moment it is sent until after the
store acknowledged it, so a later read of the run (a ``load_tool`` of the same
step included) reads the store and sees the write. Outside a run, or outside a
tool step, every read goes to the store.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from langchain_core.runnables import RunnableConfig

from langchain_toolsearch._support import Runs, run_of

__all__ = ["TOOL_STEP", "RunReads"]

TOOL_STEP: ContextVar[bool] = ContextVar("toolsearch_tool_step", default=False)
"""Set by the tool-call wrapper: reads of the thread's loads may reuse the run's last read."""


class _Reads:
    """One run's reads: ``(backend, thread id)`` -> (write generation, names)."""

    __slots__ = ("generation", "lock", "names")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.generation = 0
        self.names: dict[tuple[int, str], tuple[Any, list[str]]] = {}


class RunReads:
    """The last read of each thread's loads per run in progress (thread-safe)."""

    def __init__(self) -> None:
        self._runs = Runs[_Reads]()

    def _reads(self, config: RunnableConfig | None) -> _Reads | None:
        run = run_of(config) if config is not None else None
        if run is None:
            return None
        found = self._runs.get(run)
        return found if found is not None else self._runs.put(run, _Reads())

    def read(
        self,
        config: RunnableConfig | None,
        backend: Any,
        thread_id: str,
        get: Callable[[], list[str]],
    ) -> list[str]:
        """``get()``, or the run's last read of it in a tool step; kept for the run."""
        reads = self._reads(config)
        if reads is None:
            return get()
        key = (id(backend), thread_id)
        with reads.lock:
            generation, kept = reads.generation, reads.names.get(key)
        if kept is not None and kept[0] is backend and TOOL_STEP.get():
            return list(kept[1])
        names = get()
        self._keep(reads, key, generation, backend, names)
        return names

    async def aread(
        self,
        config: RunnableConfig | None,
        backend: Any,
        thread_id: str,
        aget: Callable[[], Awaitable[list[str]]],
    ) -> list[str]:
        """Async :meth:`read`."""
        reads = self._reads(config)
        if reads is None:
            return await aget()
        key = (id(backend), thread_id)
        with reads.lock:
            generation, kept = reads.generation, reads.names.get(key)
        if kept is not None and kept[0] is backend and TOOL_STEP.get():
            return list(kept[1])
        names = await aget()
        self._keep(reads, key, generation, backend, names)
        return names

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
