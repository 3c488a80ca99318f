"""The loaded-tool store protocol.

A :class:`LoadedToolStore` keeps, per thread id, the ordered set of loaded
tool names, with sync and async access. The engine never calls a store
itself: it yields a :class:`StoreCall` (an engine
:class:`~langchain_toolsearch._effects.Effect`: the sync and the async
form of one operation) and the driver picks the form, so one piece of engine
logic serves ``invoke`` and ``ainvoke``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from langchain_toolsearch._effects import Effect

__all__ = ["LoadedToolStore", "StoreCall"]


StoreCall = Effect
"""One store operation in its sync and its async form (an engine :class:`Effect`)."""


@runtime_checkable
class LoadedToolStore(Protocol):
    """Per-thread ordered sets of loaded tool names, sync and async.

    Pass an instance as ``storage=`` to keep loads anywhere you like.
    """

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
