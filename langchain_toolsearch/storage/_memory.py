"""``storage="in-memory"``: :class:`InMemoryLoadedToolStore`, per-thread loads with a TTL.

A per-``thread_id`` map in this process, swept on a daemon timer and on
access. Names keep their load order (loads only append, so provider prompt
caches keep their prefix).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.types import StateStats

__all__ = ["InMemoryLoadedToolStore"]


@dataclass
class _Entry:
    names: dict[str, str | None] = field(default_factory=dict)  # name -> loading call id
    last_access: float = 0.0


class InMemoryLoadedToolStore:
    """Process-local loaded-tool state with TTL eviction.

    Args:
        ttl: Seconds a thread's state lives after its last access; ``0``
            disables expiry.
        clock: The clock entries age by (epoch seconds), like cachetools' ``timer=``.
        sweep_interval: Seconds between full sweeps (on a daemon timer and
            on access); default ``min(max(ttl / 2, 1), 60)``.
        start_timer: Start the background sweeper thread (lazily, on the
            first write). The thread holds only a weak reference and stops
            when the store is garbage-collected.

    Raises:
        ToolSearchConfigError: If ``ttl`` is negative or not a number.
    """

    def __init__(
        self,
        *,
        ttl: float = 3600.0,
        clock: Callable[[], float] = time.time,
        sweep_interval: float | None = None,
        start_timer: bool = True,
    ) -> None:
        if not isinstance(ttl, int | float) or isinstance(ttl, bool) or ttl < 0:
            raise ToolSearchConfigError(
                f"ttl must be a number of seconds >= 0 (0 disables expiry), got {ttl!r}"
            )
        self.ttl = float(ttl)
        self._clock = clock
        self._interval = (
            float(sweep_interval)
            if sweep_interval is not None
            else min(max(self.ttl / 2.0, 1.0), 60.0)
        )
        self._lock = threading.Lock()
        self._threads: dict[str, _Entry] = {}
        self._last_sweep = clock()
        self._start_timer = start_timer and self.ttl > 0
        self._timer_started = False
        self._stop = threading.Event()

    # -- timer -----------------------------------------------------------------

    def _ensure_timer(self) -> None:
        if not self._start_timer or self._timer_started:
            return
        self._timer_started = True
        ref = weakref.ref(self)
        stop = self._stop
        interval = self._interval

        def loop() -> None:
            while not stop.wait(interval):
                store = ref()
                if store is None:
                    return
                store.cleanup_now()
                del store

        threading.Thread(target=loop, name="toolsearch-ttl-sweeper", daemon=True).start()

    def close(self) -> None:
        """Stop the background sweeper."""
        self._stop.set()

    def __del__(self) -> None:
        stop = getattr(self, "_stop", None)  # absent if __init__ raised
        if stop is not None:
            stop.set()

    # -- sweeping ----------------------------------------------------------------

    def _expired(self, entry: _Entry, now: float) -> bool:
        return self.ttl > 0 and now - entry.last_access > self.ttl

    def _sweep_locked(self, now: float) -> int:
        self._last_sweep = now
        if self.ttl <= 0:
            return 0
        dead = [tid for tid, e in self._threads.items() if self._expired(e, now)]
        for tid in dead:
            del self._threads[tid]
        if dead and not self._threads:
            self._threads = {}  # give the table's memory back
        return len(dead)

    def _touch_locked(self, thread_id: str, now: float, *, create: bool) -> _Entry | None:
        if self.ttl > 0 and now - self._last_sweep >= self._interval:
            self._sweep_locked(now)
        entry = self._threads.get(thread_id)
        if entry is not None and self._expired(entry, now):
            del self._threads[thread_id]
            entry = None
        if entry is None and create:
            entry = self._threads[thread_id] = _Entry()
        if entry is not None:
            entry.last_access = now
        return entry

    # -- LoadedToolStore -------------------------------------------------------------

    def get(self, thread_id: str) -> list[str]:
        """Loaded names of ``thread_id`` in load order; refreshes its TTL."""
        with self._lock:
            entry = self._touch_locked(thread_id, self._clock(), create=False)
            return list(entry.names) if entry else []

    def add(self, thread_id: str, names: Iterable[str], *, origin: str | None = None) -> list[str]:
        """Append names not yet loaded (in order); return the newly added ones.

        Args:
            thread_id: The thread.
            names: Tool names to load.
            origin: The tool-call id of the ``load_tool``/``search_tools`` call
                that loads them (see :meth:`origin`).
        """
        with self._lock:
            entry = self._touch_locked(thread_id, self._clock(), create=True)
            assert entry is not None
            added = [n for n in dict.fromkeys(names) if n not in entry.names]
            entry.names.update(dict.fromkeys(added, origin))
        self._ensure_timer()
        return added

    def origin(self, thread_id: str, name: str) -> str | None:
        """The tool-call id that loaded ``name`` on ``thread_id`` (``None`` if unknown).

        The execution guard uses it to refuse a call made in the same model
        step as the ``load_tool`` call that loaded the tool: the model could
        not have seen that tool bound.
        """
        with self._lock:
            entry = self._threads.get(thread_id)
            return entry.names.get(name) if entry is not None else None

    async def aget(self, thread_id: str) -> list[str]:
        """:meth:`get` (no I/O: the lock is held for microseconds)."""
        return self.get(thread_id)

    async def aadd(
        self, thread_id: str, names: Sequence[str], *, origin: str | None = None
    ) -> list[str]:
        """:meth:`add` (no I/O)."""
        return self.add(thread_id, names, origin=origin)

    async def aorigin(self, thread_id: str, name: str) -> str | None:
        """:meth:`origin` (no I/O)."""
        return self.origin(thread_id, name)

    def remove(self, thread_id: str, names: Iterable[str]) -> list[str]:
        """Unload ``names`` of ``thread_id`` (the others keep their order); return those removed.

        A name loaded again later goes to the end of the load order.
        """
        with self._lock:
            entry = self._touch_locked(thread_id, self._clock(), create=False)
            if entry is None:
                return []
            removed = [n for n in dict.fromkeys(names) if n in entry.names]
            for name in removed:
                del entry.names[name]
            return removed

    async def aremove(self, thread_id: str, names: Sequence[str]) -> list[str]:
        """:meth:`remove` (no I/O)."""
        return self.remove(thread_id, names)

    def clear(self, thread_id: str) -> None:
        """Forget ``thread_id``; its next run starts with nothing loaded."""
        with self._lock:
            self._threads.pop(thread_id, None)

    def clear_all(self) -> None:
        """Forget every thread."""
        with self._lock:
            self._threads = {}

    def stats(self) -> StateStats:
        """Thread count and the oldest last-access time (epoch seconds)."""
        with self._lock:
            oldest = min((e.last_access for e in self._threads.values()), default=None)
            return StateStats(thread_count=len(self._threads), oldest_access_time=oldest)

    def cleanup_now(self) -> int:
        """Run a TTL sweep now; return the number of threads evicted."""
        with self._lock:
            return self._sweep_locked(self._clock())
