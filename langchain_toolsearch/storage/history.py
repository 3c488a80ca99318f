"""Read a message history once per step: a value derived from one history, kept while it lives.

Every tool call of one model step runs on the same graph state, so on the
same ``messages`` list object. A :class:`HistoryMemo` reads that list once
and hands the value to the other calls: one AI message with ``n`` tool calls
costs one read of the history, not ``n``.

An entry is keyed by the history's last message (by identity, weakly) and used only if the
list presented still holds the very message objects it was read from, in the
same order (checked through weak references). So an entry never keeps a
message alive and goes when that message does: nothing derived from one
request outlives its messages on the shared memo. A copied list, a list
changed in place or a new list at a reused address is read afresh. The value
is a pure function of those messages, so whoever presents them gets what a
fresh read would give. The messages are not expected to change in place
while a step runs (LangGraph makes a new list and new messages at every step).
"""

from __future__ import annotations

import operator
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from langchain_toolsearch._support import WeakIdentityMap

__all__ = ["HistoryMemo"]

_T = TypeVar("_T")


def _refs(messages: Sequence[Any]) -> tuple[weakref.ref[Any], ...] | None:
    """Weak references to ``messages``, or ``None`` if one cannot be referenced weakly."""
    try:
        return tuple(map(weakref.ref, messages))
    except TypeError:  # a plain dict or string in a hand-built state
        return None


def _same(refs: tuple[weakref.ref[Any], ...], messages: Sequence[Any]) -> bool:
    """Whether ``messages`` are the live objects ``refs`` point at, in order (C-speed loop)."""
    return len(refs) == len(messages) and all(map(operator.is_, map(operator.call, refs), messages))


class HistoryMemo(Generic[_T]):
    """``read(messages)`` once per history, remembered while its last message lives.

    Thread-safe: concurrent calls presenting the same history read it once (a
    miss reads under a lock, so the tool calls of a step that ToolNode runs in
    threads wait for the first read instead of each reading). Holds no message
    strongly.

    Args:
        read: Derives the value from a history; must depend on nothing but
            the messages (the value is shared by every caller presenting
            the same message objects), and the value must not be mutated.
        size: Most histories remembered (count; each holds one weak reference
            per message, so the bound keeps a long run's memory linear).
    """

    def __init__(self, read: Callable[[Sequence[Any]], _T], *, size: int = 32) -> None:
        self._read = read
        self._entries: WeakIdentityMap[tuple[tuple[weakref.ref[Any], ...], _T]]
        self._entries = WeakIdentityMap(size=size)
        self._miss = threading.Lock()
        self.reads = 0
        """Histories read (misses), for tests and stats."""

    def __len__(self) -> int:
        """Histories remembered now (those whose last message is alive)."""
        return len(self._entries)

    def get(self, messages: Sequence[Any]) -> _T:
        """The value for ``messages``: remembered, else read (and remembered)."""
        if not messages:
            return self._read(messages)
        found = self._remembered(messages)
        if found is not None:
            return found[0]
        with self._miss:
            found = self._remembered(messages)  # read by another thread meanwhile
            if found is not None:
                return found[0]
            value = self._read(messages)
            self.reads += 1
            refs = _refs(messages)
            if refs is not None:
                self._entries.put(messages[-1], (refs, value))
        return value

    def _remembered(self, messages: Sequence[Any]) -> tuple[_T] | None:
        entry = self._entries.get(messages[-1])
        if entry is not None and _same(entry[0], messages):
            return (entry[1],)
        return None
