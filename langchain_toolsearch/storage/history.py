"""Read a message history once per step: a value derived from one history list, remembered.

Every tool call of one model step runs on the same graph state, so on the
same ``messages`` list object. A :class:`HistoryMemo` reads that list once
and hands the value to the other calls: one AI message with ``n`` tool calls
costs one read of the history, not ``n``.

An entry is found by the list's identity and is used only if the list still
holds the very message objects it was read from, in the same order (checked
through weak references, so an entry never keeps a message alive and a new
list at a reused address, or a list changed in place, is read afresh). The
value is a pure function of those messages, so whoever presents them gets
what a fresh read would give: nothing of one request reaches another. The
messages are not expected to change in place while a step runs (LangGraph
makes a new list and new messages at every step).
"""

from __future__ import annotations

import operator
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

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
    """``read(messages)`` once per history list (thread-safe, bounded).

    Args:
        read: Derives the value from a history; must depend on nothing but
            the messages (the value is shared by every caller presenting
            the same message objects), and the value must not be mutated.
        size: Most histories remembered (least recently used go first).
    """

    def __init__(self, read: Callable[[Sequence[Any]], _T], *, size: int = 32) -> None:
        self._read = read
        self._size = size
        self._entries: OrderedDict[int, tuple[tuple[weakref.ref[Any], ...], _T]] = OrderedDict()
        self._lock = threading.Lock()
        self.reads = 0
        """Histories read (misses), for tests and stats."""

    def get(self, messages: list[Any]) -> _T:
        """The value for ``messages``: remembered, else read (and remembered)."""
        key = id(messages)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
        if entry is not None and _same(entry[0], messages):
            return entry[1]
        value = self._read(messages)
        refs = _refs(messages)
        with self._lock:
            self.reads += 1
            if refs is not None:
                self._entries[key] = (refs, value)
                self._entries.move_to_end(key)
                while len(self._entries) > self._size:
                    self._entries.popitem(last=False)
        return value
