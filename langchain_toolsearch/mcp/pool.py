"""A bounded pool of long-lived MCP client sessions, shared by sync and async callers.

One ``mcp.ClientSession`` per `SessionKey` (scope, server, transport, SHA-256 digests
of the other settings and of the headers: never a secret), each living in a task on
the package's helper loop (`langchain_toolsearch._effects`).

* **Bounded**: at most ``max_sessions``; one more closes the least recently used
  idle session (busy ones are never closed).
* **Idle**: a session unused for ``idle_timeout`` seconds is closed.
* **Reconnects**: a dead session is discarded; a call that surely never ran is sent
  once more on a new one, a call lost mid-flight raises; listings retry once.
* **Hung servers**: after a cancelled call the session must answer ``ping`` within
  ``ping_timeout`` seconds, else it is replaced.
* **Tool lists** are cached per session for ``tools_ttl`` seconds or until
  ``notifications/tools/list_changed``; one listing in flight per session.
* **Client versions**: sessions of scope ``"<client>@<N>"`` retire once a newer
  version is asked for, closed ``retire_after`` seconds after their last call.
* **Closing**: ``close()`` / ``aclose()``, ``with`` / ``async with``, and ``atexit``.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import logging
import time
import weakref
from collections.abc import AsyncIterator, Mapping
from datetime import timedelta
from typing import Any

from langchain_toolsearch._effects import on_bridge, on_bridge_loop, run_sync
from langchain_toolsearch._support import positive_seconds
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchError, ToolSearchTypeError
from langchain_toolsearch.mcp.calls import connection_lost, never_sent
from langchain_toolsearch.mcp.headers import with_headers
from langchain_toolsearch.mcp.holding import SessionHolder
from langchain_toolsearch.mcp.keys import PoolStats, SessionKey, session_key
from langchain_toolsearch.mcp.lifecycle import SessionEntry, list_all, unless_gone
from langchain_toolsearch.mcp.reports import MCPFailures
from langchain_toolsearch.mcp.session import PooledSession, ToolListing
from langchain_toolsearch.mcp.versions import Retirement

__all__ = [
    "MCPPoolClosedError",
    "MCPPoolError",
    "MCPSessionPool",
    "PoolStats",
    "PooledSession",
    "SessionKey",
    "ToolListing",
    "default_pool",
    "session_key",
    "set_default_pool",
]

logger = logging.getLogger(__name__)

_CLOSE_TIMEOUT = 10.0  # seconds allowed for closing all sessions
_COUNTS: tuple[str, ...] = (
    "started",
    "reconnects",
    "evicted",
    "expired",
    "tool_lists",
    "shared_lists",
)
_COUNTS += ("unresponsive", "retired")


class MCPPoolError(ToolSearchError, RuntimeError):
    """An `MCPSessionPool` was used in a way it cannot serve."""


class MCPPoolClosedError(MCPPoolError):
    """A closed `MCPSessionPool` was asked for a session."""


class MCPSessionPool(SessionHolder):
    """Long-lived MCP sessions keyed by `SessionKey` (see the module docstring).

    Example:
        ```python
        with MCPSessionPool(max_sessions=8, idle_timeout=120) as pool:
            library = await load_mcp_library(client, pool=pool)
        ```

    Args:
        max_sessions: Most sessions kept open (>= 1).
        idle_timeout: Seconds a session may stay unused; ``None``: forever.
        tools_ttl: Seconds a tool list is reused; ``None``: until the server announces
            a change.
        connect_timeout: Seconds to start a server and initialize; ``None``: no limit.
        ping_timeout: Seconds a session whose call was cancelled has to answer ``ping``.
        retire_after: Seconds an older client version's session may stay unused once a
            newer version was asked for.

    Raises:
        ToolSearchConfigError: A count or a number of seconds is not positive.
    """

    def __init__(
        self,
        *,
        max_sessions: int = 32,
        idle_timeout: float | timedelta | None = 300.0,
        tools_ttl: float | timedelta | None = 300.0,
        connect_timeout: float | timedelta | None = 60.0,
        ping_timeout: float | timedelta = 5.0,
        retire_after: float | timedelta = 5.0,
    ) -> None:
        if isinstance(max_sessions, bool) or not isinstance(max_sessions, int) or max_sessions < 1:
            msg = f"max_sessions must be a positive int, got {max_sessions!r}"
            raise ToolSearchConfigError(msg)
        idle_timeout, tools_ttl, connect_timeout = (
            None if value is None else positive_seconds(label, value)
            for label, value in (
                ("idle_timeout", idle_timeout),
                ("tools_ttl", tools_ttl),
                ("connect_timeout", connect_timeout),
            )
        )
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self.tools_ttl = tools_ttl
        self.connect_timeout = connect_timeout
        self.ping_timeout = positive_seconds("ping_timeout", ping_timeout)
        after = positive_seconds("retire_after", retire_after)
        self._retirement = Retirement(after=after, close=self._retire)
        self._entries: dict[SessionKey, SessionEntry] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._closed = False
        self._counts = dict.fromkeys(_COUNTS, 0)
        self.failures = MCPFailures()
        """MCP failures seen through this pool: logged once per cause, counted in `stats`."""
        _OPEN_POOLS.add(self)

    # -- public API -------------------------------------------------------------------

    def session(
        self, connection: Mapping[str, Any], *, server: str, scope: str = ""
    ) -> PooledSession:
        """A stand-in ``ClientSession`` for ``connection`` (started at its first request).

        Raises:
            ToolSearchConfigError: ``connection`` has no ``transport``.
        """
        connection = with_headers(connection)  # one value per header name, as keyed
        return PooledSession(self, session_key(connection, server=server, scope=scope), connection)

    async def list_tools(
        self, connection: Mapping[str, Any], *, server: str, scope: str = ""
    ) -> ToolListing:
        """The server's tools (the same `ToolListing` while cached).

        Raises:
            MCPPoolClosedError: The pool is closed.
            Exception: Whatever starting the server or listing raised.
        """
        return await self.session(connection, server=server, scope=scope).listing()

    def stats(self) -> PoolStats:
        """Counts of sessions and of tool listings since the pool was made (`PoolStats`)."""
        return PoolStats(open=len(self._entries), **self._counts, **self.failures.counts())

    @property
    def closed(self) -> bool:
        """Whether `close` / `aclose` ran."""
        return self._closed

    async def aclose(self) -> None:
        """Close every session (stdio servers exit) and refuse new ones; idempotent."""
        await on_bridge_loop(self._close_all())

    def close(self) -> None:
        """Sync `aclose`.

        Raises:
            MCPPoolError: Called on the package's helper event loop (use ``await aclose()``).
        """
        if not self._entries and not self._closing:  # nothing runs: no loop needed
            self._closed = True
            _OPEN_POOLS.discard(self)
            return
        if on_bridge():
            raise MCPPoolError("MCPSessionPool.close() on the helper loop: await aclose()")
        run_sync(self._close_all(), timeout=_CLOSE_TIMEOUT + 5)

    def __enter__(self) -> MCPSessionPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> MCPSessionPool:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- helper loop ------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _use(
        self, key: SessionKey, connection: Mapping[str, Any]
    ) -> AsyncIterator[SessionEntry]:
        if self._closed:
            raise MCPPoolClosedError("this MCPSessionPool is closed; make a new one")
        self._retirement.asked(key, self._entries.values())
        entry = self._entries.get(key)
        while entry is not None and entry.checking is not None and not entry.checking.done():
            await asyncio.shield(entry.checking)  # a suspect session: wait for its verdict
            entry = self._entries.get(key)
        if entry is None or entry.dead:
            entry = self._open(key, connection)
            if self._retirement.is_old(key):
                self._retirement.retire(entry)
        entry.busy += 1
        try:
            await asyncio.shield(entry.ready)
            yield entry
        finally:
            entry.busy -= 1
            entry.last_used = time.monotonic()
            self._retirement.released(entry)

    async def _listing(self, pooled: PooledSession) -> ToolListing:
        for attempt in (1, 2):
            async with self._use(pooled.key, pooled.connection) as entry:
                if entry.listing is not None and not entry.stale and not self._expired(entry):
                    return entry.listing
                flight = entry.flight
                if flight is None or flight.done():
                    flight = entry.flight = asyncio.get_running_loop().create_task(
                        self._fetch(entry, pooled), context=contextvars.Context()
                    )
                    flight.add_done_callback(_retrieved)
                else:  # one listing in flight per session: wait for it
                    self._counts["shared_lists"] += 1
                try:
                    return await asyncio.shield(flight)
                except Exception as exc:
                    if attempt == 2 or not connection_lost(exc):
                        raise
                    self._lost(entry, exc)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _fetch(self, entry: SessionEntry, pooled: PooledSession) -> ToolListing:
        entry.stale = False
        # as a call: a server that died meanwhile fails the listing at once
        tools = await unless_gone(entry, list_all(entry.session))
        self._counts["tool_lists"] += 1
        entry.listing = ToolListing(session=pooled, tools=tuple(tools))
        entry.listed_at = time.monotonic()
        return entry.listing

    def _current_listing(self, key: SessionKey) -> ToolListing | None:
        """The cached listing of ``key`` if it can be used as is (any thread)."""
        entry = self._entries.get(key)
        if entry is None or self._closed or entry.dead or entry.stale or self._expired(entry):
            return None
        entry.last_used = time.monotonic()
        return entry.listing

    def _expired(self, entry: SessionEntry) -> bool:
        ttl = self.tools_ttl
        return ttl is not None and time.monotonic() - entry.listed_at >= ttl

    async def _call(self, pooled: PooledSession, args: tuple[Any, ...], kw: dict[str, Any]) -> Any:
        for attempt in (1, 2):
            async with self._use(pooled.key, pooled.connection) as entry:
                session = entry.session
                assert session is not None
                try:
                    return await unless_gone(entry, session.call_tool(*args, **kw))
                except asyncio.CancelledError:
                    self._check(entry)  # a hung server must not cost every later call
                    raise
                except Exception as exc:
                    if not connection_lost(exc):
                        raise
                    self._lost(entry, exc)
                    # Only a request that surely did not run is sent again.
                    if attempt == 2 or not never_sent(exc):
                        raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _lost(self, entry: SessionEntry, exc: Exception) -> None:
        if not entry.stop.is_set():  # closed on purpose (retired, evicted): no failure
            self.failures.record("session", exc, server=entry.key.server)
        self._discard(entry, "reconnects")

    async def _close_all(self) -> None:
        self._closed = True
        _OPEN_POOLS.discard(self)
        for entry in list(self._entries.values()):
            self._discard(entry, None)
        if self._sweeper is not None:
            self._sweeper.cancel()
        tasks = list(self._closing)
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=_CLOSE_TIMEOUT)
            for task in pending:
                task.cancel()


def _retrieved(task: asyncio.Task[Any]) -> None:
    """Mark a listing's failure retrieved (its waiters may all be gone)."""
    if not task.cancelled():
        task.exception()


_OPEN_POOLS: weakref.WeakSet[MCPSessionPool] = weakref.WeakSet()
_default: MCPSessionPool | None = None


def default_pool() -> MCPSessionPool:
    """The process-wide default pool (made on first use and after it was closed)."""
    global _default
    if _default is None or _default.closed:
        _default = MCPSessionPool()
    return _default


def set_default_pool(pool: MCPSessionPool) -> MCPSessionPool | None:
    """Use ``pool`` where no pool is given; returns the previous one (not closed).

    Raises:
        ToolSearchTypeError: ``pool`` is not an `MCPSessionPool`.
    """
    global _default
    if not isinstance(pool, MCPSessionPool):
        msg = f"expected an MCPSessionPool, got {type(pool).__name__}"
        raise ToolSearchTypeError(msg)
    previous, _default = _default, pool
    return previous


@atexit.register
def _close_open_pools() -> None:
    """Close every open pool at interpreter exit (stdio servers exit cleanly)."""
    for pool in list(_OPEN_POOLS):
        with contextlib.suppress(Exception):
            pool.close()
