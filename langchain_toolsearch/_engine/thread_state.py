"""Thread state for code: unloading, clearing, and the loaded-tool store's figures.

Unloading and clearing need a thread storage (``"in-memory"``, ``"store"``, a custom
store): ``"context"`` keeps loads in the message receipts, which code does not rewrite.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from langgraph.store.base import BaseStore

from langchain_toolsearch.errors import (
    StoreMissingError,
    ToolSearchConfigError,
    ToolSearchTypeError,
)
from langchain_toolsearch.storage.langgraph_store import LOADED_NAMESPACE
from langchain_toolsearch.storage.protocol import LoadedToolStore
from langchain_toolsearch.types import SourceFailure, StateStats

if TYPE_CHECKING:
    from langchain_toolsearch._engine.engine import Engine

__all__ = ["CONTEXT_UNLOAD", "ThreadState"]

CONTEXT_UNLOAD = (
    '{operation}: storage="context" keeps loads in the message history (load receipts), '
    "which this does not rewrite; bound the working set with max_loaded=... (the least "
    'recently used tools leave the prompt), or use storage="in-memory" / "store"'
)


def _remover(operation: str, backend: LoadedToolStore | None, *, asynchronous: bool) -> Any:
    """The backend's ``remove`` (``aremove`` when ``asynchronous`` and it has one)."""
    if backend is None:
        raise ToolSearchConfigError(CONTEXT_UNLOAD.format(operation=operation))
    found = getattr(backend, "aremove", None) if asynchronous else None
    found = found or getattr(backend, "remove", None)
    if not callable(found):
        raise ToolSearchConfigError(
            f"{operation} cannot unload from a {type(backend).__name__}: give it a "
            "remove(thread_id, names) -> list[str] method (and aremove for async)"
        )
    return found


class ThreadState:
    """``unload``, ``clear_state`` and ``get_state_stats`` (and async forms) of the shells."""

    _engine: Engine

    @property
    def loaded_tool_store(self) -> LoadedToolStore | None:
        """Where thread loads live, if fixed at construction (``None``: context, or graph store)."""
        return self._engine.storage.backend()

    def _stored_loads(self, operation: str) -> LoadedToolStore | None:
        """Where ``operation`` reads or clears (``None`` for ``"context"``).

        Raises:
            StoreMissingError: ``storage="store"`` without ``store=``.
        """
        storage = self._engine.storage
        backend = storage.backend()
        if backend is None and storage.mode == "store":
            raise StoreMissingError(
                f'{operation} with storage="store" needs the store: pass store=... to the '
                f"tool search (the graph's store is only known inside a run); the loads live "
                f"in the namespace {LOADED_NAMESPACE} + (<thread id>,) of your LangGraph store"
            )
        return backend

    @staticmethod
    def _thread_id(operation: str, thread_id: object) -> str:
        if not isinstance(thread_id, str) or not thread_id:
            raise ToolSearchTypeError(
                f"{operation} expects a thread id string (config['configurable']['thread_id']), "
                f"got {thread_id!r}"
            )
        return thread_id

    def _unloading(
        self, operation: str, thread_id: object, names: object, store: BaseStore | None
    ) -> tuple[str, list[str], LoadedToolStore | None]:
        """(thread id, names resolved like ``load_tool``'s, backend) of an unload."""
        storage = self._engine.storage
        backend = storage.backend(store) if store is not None else self._stored_loads(operation)
        tid = self._thread_id(operation, thread_id)
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, Sequence) or not all(isinstance(n, str) for n in names):
            raise ToolSearchTypeError(
                f"{operation} expects a tool name or a list of tool names, got {names!r}"
            )
        resolve = self._engine.library.resolve
        return tid, list(dict.fromkeys(resolve(n) or n for n in names)), backend

    def unload(
        self, thread_id: str, names: str | Sequence[str], *, store: BaseStore | None = None
    ) -> list[str]:
        """Unload tools of ``thread_id``: unbound and not callable from its next step.

        Returns the names removed; the others keep their order (a reload goes to the end).
        ``store``: the graph's store, unless one was given at construction.

        Raises:
            StoreMissingError: ``storage="store"`` and no store.
            ToolSearchConfigError: ``storage="context"``, or a custom store without ``remove``.
            ToolSearchTypeError: ``thread_id`` is not a non-empty string, or ``names`` not a
                name or a list of names.
        """
        tid, wanted, backend = self._unloading("unload", thread_id, names, store)
        return list(_remover("unload", backend, asynchronous=False)(tid, wanted))

    async def aunload(
        self, thread_id: str, names: str | Sequence[str], *, store: BaseStore | None = None
    ) -> list[str]:
        """Async :meth:`unload`."""
        tid, wanted, backend = self._unloading("aunload", thread_id, names, store)
        found = _remover("aunload", backend, asynchronous=True)(tid, wanted)
        return list(await found if inspect.isawaitable(found) else found)

    def clear_state(self, thread_id: str) -> None:
        """Forget the loads of ``thread_id`` (a no-op for ``"context"``).

        Raises:
            StoreMissingError: ``storage="store"`` without ``store=``.
            ToolSearchTypeError: ``thread_id`` is not a non-empty string.
        """
        thread_id = self._thread_id("clear_state", thread_id)
        backend = self._stored_loads("clear_state")
        if backend is not None:
            backend.clear(thread_id)

    async def aclear_state(self, thread_id: str) -> None:
        """Async :meth:`clear_state`."""
        thread_id = self._thread_id("aclear_state", thread_id)
        backend = self._stored_loads("aclear_state")
        aclear = getattr(backend, "aclear", None)
        if aclear is not None:
            await aclear(thread_id)
        elif backend is not None:
            backend.clear(thread_id)

    def clear_all_state(self) -> None:
        """Forget the loads of every thread."""
        backend = self._stored_loads("clear_all_state")
        if backend is not None:
            backend.clear_all()

    async def aclear_all_state(self) -> None:
        """Async :meth:`clear_all_state`."""
        backend = self._stored_loads("aclear_all_state")
        aclear_all = getattr(backend, "aclear_all", None)
        if aclear_all is not None:
            await aclear_all()
        elif backend is not None:
            backend.clear_all()

    def get_state_stats(self) -> StateStats:
        """The loaded-tool store's size, the source failures seen, and auto-mode decisions.

        ``thread_count`` and ``oldest_access_time`` (epoch s; ``None`` for ``"store"``);
        zero for ``"context"``.

        Raises:
            StoreMissingError: ``"store"`` without ``store=``.
            ToolSearchConfigError: A custom store without a ``stats()`` method.
        """
        return self._stats("get_state_stats")

    def _source_failures(self) -> tuple[SourceFailure, ...]:
        """Distinct causes of failing tool sources seen by this instance, oldest first."""
        resolver = self._engine.scopes.resolver
        found = [*self._engine.policy.failures.snapshot()]
        if resolver is not None:
            found.extend(resolver.failures.snapshot())
        return tuple(sorted(found, key=lambda f: f.last_seen))

    def _stats(self, operation: str) -> StateStats:
        return self._with_counts(self._store_stats(operation))

    def _with_counts(self, stats: StateStats) -> StateStats:
        """``stats`` with this instance's source failures and auto-mode decisions."""
        auto = self._engine.auto
        return replace(
            stats,
            source_failures=self._source_failures(),
            auto_mode=auto.stats() if auto is not None else None,
        )

    def _store_stats(self, operation: str) -> StateStats:
        storage = self._engine.storage
        if storage.mode == "context":
            return StateStats(thread_count=0, oldest_access_time=None, storage="context")
        backend = self._stored_loads(operation)
        stats = getattr(backend, "stats", None)
        if callable(stats):
            found = stats()
            if isinstance(found, StateStats):
                return found
        threads = getattr(backend, "thread_ids", None)
        if callable(threads):
            count = len(threads())
            return StateStats(thread_count=count, oldest_access_time=None, storage=storage.mode)
        raise ToolSearchConfigError(
            f"{operation} cannot read a {type(backend).__name__}: give it a stats() "
            f"method returning StateStats (namespace {LOADED_NAMESPACE} for LangGraph stores)"
        )

    async def aget_state_stats(self) -> StateStats:
        """Async :meth:`get_state_stats`."""
        backend = self._engine.storage.backend()
        astats = getattr(backend, "astats", None)
        if self._engine.storage.mode == "store" and callable(astats):
            found = await astats()
            assert isinstance(found, StateStats)
            return self._with_counts(found)
        return self._stats("aget_state_stats")

    def cleanup_now(self) -> int:
        """Run the in-memory TTL sweep now; the number of threads evicted."""
        backend = self._engine.storage.backend()
        cleanup = getattr(backend, "cleanup_now", None)
        return int(cleanup()) if callable(cleanup) else 0
