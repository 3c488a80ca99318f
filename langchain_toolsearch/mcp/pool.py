"""A bounded pool of long-lived MCP client sessions, shared by sync and async callers.

An `MCPSessionPool` keeps one ``mcp.ClientSession`` per `SessionKey`: the
caller's scope (e.g. the saved client id and version, ``"id@3"``), the server
name, the transport, a SHA-256 digest of the other transport settings
(command, args, env, url, timeout, ...) and a SHA-256 fingerprint of the
headers (the caller's ``Authorization``). The key never holds a secret; a
Bearer token never shares a session with another token.

Each session lives in one task on the package's helper event loop
(`langchain_toolsearch._internal.bridge`), which opens it with
``langchain_mcp_adapters.sessions.create_session`` and closes it when told, so
a stdio server starts once and is reused across steps, runs, threads and event
loops. Requests from other loops are handed to the helper loop.

* **Bounded**: at most ``max_sessions`` sessions; opening one more closes the
  least recently used idle session (a session in use is never closed, so the
  count may exceed the bound while more than ``max_sessions`` are busy).
* **Idle**: a session unused for ``idle_timeout`` seconds is closed.
* **Reconnects**: a session whose server exited or whose connection dropped
  is discarded; the next request opens a new one. A tool call that surely
  did not run (the stream was already closed, the connection was refused,
  or the server no longer knew the session) is sent once more on the new
  session; a call lost mid-flight is not (it may have run) and raises.
  Listing tools is always retried once.
* **Tool lists** are cached per session and fetched again after
  ``tools_ttl`` seconds or as soon as the server sends
  ``notifications/tools/list_changed``.
* **Closing**: ``close()`` / ``aclose()``, ``with`` / ``async with``, and every
  open pool is closed at interpreter exit (``atexit``).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import logging
import time
import weakref
from collections.abc import AsyncIterator, Coroutine, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from langchain_toolsearch._internal.bridge import on_bridge, on_bridge_loop, run_sync
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchError, ToolSearchTypeError
from langchain_toolsearch.mcp.calls import connection_lost, never_sent
from langchain_toolsearch.mcp.headers import with_headers
from langchain_toolsearch.mcp.keys import PoolStats, SessionKey, session_key
from langchain_toolsearch.mcp.reports import MCPFailures
from langchain_toolsearch.mcp.session import PooledSession, ToolListing

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import Tool

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

T = TypeVar("T")

_CLOSE_TIMEOUT = 10.0  # seconds allowed for closing all sessions


class MCPPoolError(ToolSearchError, RuntimeError):
    """An `MCPSessionPool` was used in a way it cannot serve."""


class MCPPoolClosedError(MCPPoolError):
    """A closed `MCPSessionPool` was asked for a session."""


class _Entry:
    """One pooled session and the task that holds it open (helper loop only)."""

    def __init__(self, key: SessionKey, connection: Mapping[str, Any]) -> None:
        self.key = key
        self.connection = dict(connection)
        self.session: ClientSession | None = None
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.stop = asyncio.Event()
        self.gone = asyncio.Event()  # set when the session is closed, for any reason
        self.task: asyncio.Task[None] | None = None
        self.busy = 0
        self.last_used = time.monotonic()
        self.listing: ToolListing | None = None
        self.listed_at = 0.0
        self.stale = False
        self.dead = False


def _is_list_changed(message: Any) -> bool:
    method = getattr(getattr(message, "root", None), "method", None)
    return method == "notifications/tools/list_changed"


class MCPSessionPool:
    """Long-lived MCP sessions keyed by `SessionKey` (see the module docstring).

    Example:
        ```python
        with MCPSessionPool(max_sessions=8, idle_timeout=120) as pool:
            library = await load_mcp_library(client, pool=pool)
        ```

    Args:
        max_sessions: Most sessions kept open (count, >= 1).
        idle_timeout: Seconds a session may stay unused before it is closed;
            ``None``: never.
        tools_ttl: Seconds a fetched tool list is reused before it is fetched
            again (a ``tools/list_changed`` notification refetches at once);
            ``None``: until the server announces a change.
        connect_timeout: Seconds allowed to start a server and initialize
            the session; ``None``: no limit.

    Raises:
        ToolSearchConfigError: (a ``ValueError``) If a count or a number of
            seconds is not positive.
    """

    def __init__(
        self,
        *,
        max_sessions: int = 32,
        idle_timeout: float | None = 300.0,
        tools_ttl: float | None = 300.0,
        connect_timeout: float | None = 60.0,
    ) -> None:
        if isinstance(max_sessions, bool) or not isinstance(max_sessions, int) or max_sessions < 1:
            msg = f"max_sessions must be a positive int, got {max_sessions!r}"
            raise ToolSearchConfigError(msg)
        for label, seconds in (
            ("idle_timeout", idle_timeout),
            ("tools_ttl", tools_ttl),
            ("connect_timeout", connect_timeout),
        ):
            if seconds is not None and not seconds > 0:
                msg = f"{label} must be a positive number of seconds or None, got {seconds!r}"
                raise ToolSearchConfigError(msg)
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self.tools_ttl = tools_ttl
        self.connect_timeout = connect_timeout
        self._entries: dict[SessionKey, _Entry] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._closed = False
        self._counts = dict.fromkeys(
            ("started", "reconnects", "evicted", "expired", "tool_lists"), 0
        )
        self.failures = MCPFailures()
        """MCP failures seen through this pool: logged once per cause, counted in `stats`."""
        _OPEN_POOLS.add(self)

    # -- public API -------------------------------------------------------------------

    def session(
        self, connection: Mapping[str, Any], *, server: str, scope: str = ""
    ) -> PooledSession:
        """A stand-in ``ClientSession`` for ``connection`` whose requests use this pool.

        Nothing is started until its first request.

        Raises:
            ToolSearchConfigError: If ``connection`` has no ``transport``.
        """
        connection = with_headers(connection)  # one value per header name, as keyed
        return PooledSession(self, session_key(connection, server=server, scope=scope), connection)

    async def list_tools(
        self, connection: Mapping[str, Any], *, server: str, scope: str = ""
    ) -> ToolListing:
        """The server's tools, from the cache while it is current.

        Starts (or reuses) the session. The same `ToolListing` object is
        returned until the list is fetched again.

        Raises:
            MCPPoolClosedError: If the pool is closed.
            Exception: Whatever starting the server or listing raised (the
                session is discarded first when the connection failed).
        """
        return await self.session(connection, server=server, scope=scope).listing()

    def stats(self) -> PoolStats:
        """Counts of open, started, reconnected, evicted and expired sessions."""
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
            MCPPoolError: (a ``RuntimeError``) If called on the package's
                helper event loop (use ``await aclose()`` there).
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

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> MCPSessionPool:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- helper loop ------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _use(self, key: SessionKey, connection: Mapping[str, Any]) -> AsyncIterator[_Entry]:
        if self._closed:
            raise MCPPoolClosedError("this MCPSessionPool is closed; make a new one")
        entry = self._entries.get(key)
        if entry is None or entry.dead:
            entry = self._open(key, connection)
        entry.busy += 1
        try:
            await asyncio.shield(entry.ready)
            yield entry
        finally:
            entry.busy -= 1
            entry.last_used = time.monotonic()

    def _open(self, key: SessionKey, connection: Mapping[str, Any]) -> _Entry:
        idle = sorted((e for e in self._entries.values() if e.busy == 0), key=lambda e: e.last_used)
        while len(self._entries) >= self.max_sessions and idle:
            self._discard(idle.pop(0), "evicted")
        entry = _Entry(key, connection)
        self._entries[key] = entry
        # shared for many requests: made in an empty context, never the opener's
        loop = asyncio.get_running_loop()
        entry.task = loop.create_task(self._hold(entry), context=contextvars.Context())
        if self.idle_timeout is not None and (self._sweeper is None or self._sweeper.done()):
            self._sweeper = loop.create_task(self._sweep(), context=contextvars.Context())
        return entry

    async def _hold(self, entry: _Entry) -> None:
        """Open the session, keep it open until told to stop, then close it."""
        from langchain_mcp_adapters.sessions import create_session

        connection = dict(entry.connection)
        kwargs = dict(connection.get("session_kwargs") or {})
        outer = kwargs.get("message_handler")

        async def on_message(message: Any) -> None:
            if _is_list_changed(message):
                entry.stale = True
            if outer is not None:
                await outer(message)

        kwargs["message_handler"] = on_message
        connection["session_kwargs"] = kwargs
        ended: BaseException = ConnectionError("the session ended on its own")
        try:
            async with create_session(connection) as session:  # type: ignore[arg-type]
                with anyio.fail_after(self.connect_timeout):
                    await session.initialize()
                entry.session = session
                self._counts["started"] += 1
                entry.ready.set_result(None)
                await entry.stop.wait()
        except BaseException as exc:
            if not entry.ready.done():
                if isinstance(exc, asyncio.CancelledError):
                    exc = ConnectionError("the MCP session was closed while starting")
                entry.ready.set_exception(exc)
                entry.ready.exception()  # retrieved: no "never retrieved" warning
            else:
                ended = exc
                logger.debug(
                    "MCP session %s/%s closed with %r", entry.key.scope, entry.key.server, exc
                )
        finally:
            if not entry.dead and entry.ready.done() and not entry.stop.is_set():
                self._counts["reconnects"] += 1  # the transport failed on its own
                self.failures.record("session", ended, server=entry.key.server)
            entry.session = None
            entry.dead = True
            entry.gone.set()
            if self._entries.get(entry.key) is entry:
                del self._entries[entry.key]

    def _discard(self, entry: _Entry, reason: str | None) -> None:
        """Stop using ``entry`` (counted under ``reason``); its task closes it."""
        if self._entries.get(entry.key) is entry:
            del self._entries[entry.key]
        if not entry.dead:
            entry.dead = True
            if reason is not None:
                self._counts[reason] += 1
        entry.stop.set()
        if entry.task is not None and not entry.task.done():
            if not entry.ready.done():
                entry.task.cancel()
            self._closing.add(entry.task)
            entry.task.add_done_callback(self._closing.discard)

    async def _sweep(self) -> None:
        assert self.idle_timeout is not None
        interval = max(0.05, min(self.idle_timeout / 4, 30.0))
        while self._entries and not self._closed:
            await asyncio.sleep(interval)
            now = time.monotonic()
            for entry in list(self._entries.values()):
                if entry.busy == 0 and now - entry.last_used >= self.idle_timeout:
                    self._discard(entry, "expired")

    async def _listing(self, pooled: PooledSession) -> ToolListing:
        for attempt in (1, 2):
            async with self._use(pooled.key, pooled.connection) as entry:
                if entry.listing is not None and not entry.stale and not self._expired(entry):
                    return entry.listing
                try:
                    entry.stale = False
                    # as a call: a server that died meanwhile fails the listing at once
                    tools = await _unless_gone(entry, _list_all(entry.session))
                except Exception as exc:
                    if attempt == 2 or not connection_lost(exc):
                        raise
                    self.failures.record("session", exc, server=entry.key.server)
                    self._discard(entry, "reconnects")
                    continue
                self._counts["tool_lists"] += 1
                entry.listing = ToolListing(session=pooled, tools=tuple(tools))
                entry.listed_at = time.monotonic()
                return entry.listing
        raise AssertionError("unreachable")  # pragma: no cover

    def _current_listing(self, key: SessionKey) -> ToolListing | None:
        """The cached listing of ``key`` if it can be used as is (any thread)."""
        entry = self._entries.get(key)
        if entry is None or self._closed or entry.dead or entry.stale or self._expired(entry):
            return None
        entry.last_used = time.monotonic()
        return entry.listing

    def _expired(self, entry: _Entry) -> bool:
        ttl = self.tools_ttl
        return ttl is not None and time.monotonic() - entry.listed_at >= ttl

    async def _call(self, pooled: PooledSession, args: tuple[Any, ...], kw: dict[str, Any]) -> Any:
        for attempt in (1, 2):
            async with self._use(pooled.key, pooled.connection) as entry:
                session = entry.session
                assert session is not None
                try:
                    return await _unless_gone(entry, session.call_tool(*args, **kw))
                except Exception as exc:
                    if not connection_lost(exc):
                        raise
                    self.failures.record("session", exc, server=entry.key.server)
                    self._discard(entry, "reconnects")
                    # Only a request that surely did not run is sent again.
                    if attempt == 2 or not never_sent(exc):
                        raise
        raise AssertionError("unreachable")  # pragma: no cover

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


async def _unless_gone(entry: _Entry, request: Coroutine[Any, Any, T]) -> T:
    """Await ``request``, failing at once if the session closes meanwhile.

    Raises:
        ConnectionError: The session closed (its transport failed) first.
    """
    task = asyncio.ensure_future(request)
    gone = asyncio.ensure_future(entry.gone.wait())
    try:
        await asyncio.wait((task, gone), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        gone.cancel()
    if not task.done():
        task.cancel()
        raise ConnectionError("the connection to the MCP server was lost during the call")
    return task.result()


async def _list_all(session: ClientSession | None) -> list[Tool]:
    """Every page of ``tools/list`` (at most 1,000 pages)."""
    assert session is not None
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(1000):
        page = await session.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor:
            return tools
    raise MCPPoolError("tools/list returned more than 1,000 pages")


_OPEN_POOLS: weakref.WeakSet[MCPSessionPool] = weakref.WeakSet()
_default: MCPSessionPool | None = None


def default_pool() -> MCPSessionPool:
    """The process-wide pool used by stored MCP clients and `load_mcp_library`.

    Made on first use with the default settings; made again after it was
    closed. Replace it with `set_default_pool`.
    """
    global _default
    if _default is None or _default.closed:
        _default = MCPSessionPool()
    return _default


def set_default_pool(pool: MCPSessionPool) -> MCPSessionPool | None:
    """Use ``pool`` where no pool is given; returns the previous one (not closed).

    Raises:
        ToolSearchTypeError: (a ``TypeError``) If ``pool`` is not an `MCPSessionPool`.
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
