"""Values remembered per live object, by identity, gone when the object is collected."""

from __future__ import annotations

import threading
import weakref
from typing import Any, Generic, TypeVar

__all__ = ["WeakIdentityMap"]

_V = TypeVar("_V")


class WeakIdentityMap(Generic[_V]):
    """``object -> value`` by identity while the object lives, at most ``size`` (oldest out).

    Thread-safe; unhashable objects work.

    Args:
        size: Most entries kept.
    """

    def __init__(self, *, size: int = 256) -> None:
        self._data: dict[int, tuple[weakref.ref[Any], _V]] = {}
        self._size = size
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Entries whose object is alive (count)."""
        return len(self._data)

    def get(self, key: object) -> _V | None:
        """The value remembered for this very object, or ``None``."""
        entry = self._data.get(id(key))
        return entry[1] if entry is not None and entry[0]() is key else None

    def put(self, key: object, value: _V) -> bool:
        """Remember ``value`` for ``key``; ``False`` if it has no weak reference."""
        data, slot = self._data, id(key)

        def gone(ref: weakref.ref[Any]) -> None:
            entry = data.get(slot)
            if entry is not None and entry[0] is ref:
                data.pop(slot, None)

        try:
            ref = weakref.ref(key, gone)
        except TypeError:  # a plain dict or string in a hand-built state
            return False
        with self._lock:
            data.pop(slot, None)  # re-inserted last: the newest
            data[slot] = (ref, value)
            while len(data) > self._size:
                try:
                    data.pop(next(iter(data)), None)
                except RuntimeError:  # an entry's object died meanwhile (its callback): again
                    continue
        return True
