"""Unloading for code: take tools out of a thread's loads (``unload`` / ``aunload``).

Thread storages only (``"in-memory"``, ``"store"``, a store with ``remove``):
``"context"`` keeps loads in the message receipts, which code does not rewrite here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from langgraph.store.base import BaseStore

from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.storage.protocol import LoadedToolStore

__all__ = ["CONTEXT_UNLOAD", "Unloading", "arun", "names_of", "remover", "run"]

CONTEXT_UNLOAD = (
    '{operation}: storage="context" keeps loads in the message history (load receipts), '
    "which this does not rewrite; bound the working set with max_loaded=... (the least "
    'recently used tools leave the prompt), or use storage="in-memory" / "store"'
)


def names_of(operation: str, names: object, resolve: Callable[[str], str | None]) -> list[str]:
    """The tool names to unload (one or several), resolved like ``load_tool``'s.

    Raises:
        ToolSearchTypeError: ``names`` is not a string or a sequence of strings.
    """
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, Sequence) or not all(isinstance(n, str) for n in names):
        raise ToolSearchTypeError(
            f"{operation} expects a tool name or a list of tool names, got {names!r}"
        )
    return list(dict.fromkeys(resolve(n) or n for n in names))


def remover(operation: str, backend: LoadedToolStore | None, *, asynchronous: bool) -> Any:
    """The backend's ``remove`` (``aremove`` when ``asynchronous`` and it has one).

    Raises:
        ToolSearchConfigError: ``"context"`` (no backend), or a store without ``remove``.
    """
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


def run(
    operation: str, thread_id: str, names: object, owner: Any, backend: LoadedToolStore | None
) -> list[str]:
    """Unload ``names`` (resolved in ``owner.library``) of ``thread_id``; those removed."""
    wanted = names_of(operation, names, owner.library.resolve)
    return list(remover(operation, backend, asynchronous=False)(thread_id, wanted))


async def arun(
    operation: str, thread_id: str, names: object, owner: Any, backend: LoadedToolStore | None
) -> list[str]:
    """Async :func:`run` (``aremove`` when the store has one)."""
    wanted = names_of(operation, names, owner.library.resolve)
    found = remover(operation, backend, asynchronous=True)(thread_id, wanted)
    return list(await found if inspect.isawaitable(found) else found)


class _Shell(Protocol):
    """What :class:`Unloading` needs of the middleware / node shell."""

    @property
    def library(self) -> ToolLibrary: ...

    def _unload_backend(self, operation: str, store: BaseStore | None) -> LoadedToolStore | None:
        """Where ``operation`` removes from (``store``: the graph's store)."""
        ...

    def _thread_id(self, operation: str, thread_id: object) -> str: ...


class Unloading:
    """``unload`` / ``aunload``, mixed into the middleware and node shell."""

    def unload(
        self: _Shell, thread_id: str, names: str | Sequence[str], *, store: BaseStore | None = None
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
        backend = self._unload_backend("unload", store)
        return run("unload", self._thread_id("unload", thread_id), names, self, backend)

    async def aunload(
        self: _Shell, thread_id: str, names: str | Sequence[str], *, store: BaseStore | None = None
    ) -> list[str]:
        """Async :meth:`unload`."""
        backend = self._unload_backend("aunload", store)
        tid = self._thread_id("aunload", thread_id)
        return await arun("aunload", tid, names, self, backend)
