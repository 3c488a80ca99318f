"""A bounded pool of long-lived MCP client sessions, shared by sync and async callers.

One ``mcp.ClientSession`` per `SessionKey` (scope, server, transport, SHA-256 digests
of the other settings and of the headers: never a secret), each living in a task on
the package's helper loop (`langchain_toolsearch._effects`).

* **Bounded**: at most ``max_sessions``; one more closes the least recently used
  idle session (busy ones are never closed).
* **Idle**: a session unused for ``idle_timeout`` seconds is closed.
* **Reconnects**: a dead session is discarded; a call that surely never ran is sent
  once more on a new one, a call lost mid-flight raises; listings retry once.
* **Hung servers**: a cancelled call (e.g. timed out) sets its session aside and pings
  it; later requests wait at most 0.25 s for the answer, then open a new session.
  Answering within ``ping_timeout`` seconds, it serves again (a new one closes once
  unused); else it closes once its calls in flight end, at the latest at the last of
  their deadlines (``ping_timeout`` seconds more for calls with none). One check per
  session: many calls timing out together replace it once. Set-aside sessions are not
  counted in ``max_sessions``; at most ``max_sessions`` are (one more closes the oldest).
* **Tool lists** are cached per session for ``tools_ttl`` seconds or until
  ``notifications/tools/list_changed``; one listing in flight per session.
* **Client versions**: sessions of scope ``"<client>@<N>"`` retire once a newer
  version is asked for, closed ``retire_after`` seconds after their last call.
* **Closing**: ``close()`` / ``aclose()``, ``with`` / ``async with``, and ``atexit``.
* **Failures** an operator sees (`MCPFailures`): one WARNING per cause on the logger
  ``langchain_toolsearch.mcp._pool``, and counts in `PoolStats`, e.g.::

    tool search: MCP call to tool 'sleep' on server 'p' failed (TimeoutError): no answer
    within 3 s; the call was cancelled; the model got an error message
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import logging
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

import anyio

from langchain_toolsearch._effects import on_bridge, on_bridge_loop, run_sync
from langchain_toolsearch._support import CauseLog, count, describe, positive_seconds
from langchain_toolsearch.errors import (
    MCPPoolClosedError,
    MCPPoolError,
    ToolSearchConfigError,
    ToolSearchTypeError,
)
from langchain_toolsearch.mcp._session import (
    CALL_DEADLINE,
    PooledSession,
    Retirement,
    SessionEntry,
    SessionKey,
    StderrTail,
    ToolListing,
    answers_ping,
    connection_lost,
    is_list_changed,
    list_all,
    never_sent,
    open_session,
    session_key,
    unless_gone,
    watched_http_factory,
    with_headers,
    with_last_line,
)

logger = logging.getLogger("langchain_toolsearch.mcp._pool")  # where users filter pool logs
reports_log = logging.getLogger("langchain_toolsearch.mcp._pool")  # one line per failure cause

_CLOSE_TIMEOUT = 10.0  # seconds allowed for closing all sessions
_VERDICT_WAIT = 0.25  # seconds a request waits for a ping a healthy server answers at once
_HTTP = frozenset({"streamable_http", "streamable-http", "http", "sse"})
_COUNTS = (
    "started",
    "reconnects",
    "evicted",
    "expired",
    "tool_lists",
    "shared_lists",
    "unresponsive",
    "retired",
    "kept",
)

FailureKind = Literal["call", "listing", "session"]
"""What failed: a tool call, listing a server's tools, or an open session."""

_TEMPLATES: dict[FailureKind, str] = {
    "call": "tool search: MCP call to tool {tool} on server {server} failed (%s): %s; "
    "the model got an error message",
    "listing": "tool search: MCP server {server} could not be listed (%s): %s; "
    "continuing without its tools",
    "session": "tool search: MCP session to server {server} was lost (%s): %s; "
    "a new session is opened for the next request",
}
_COUNTERS: dict[FailureKind, str] = {
    "call": "call_failures",
    "listing": "list_failures",
    "session": "session_failures",
}


@dataclass(frozen=True)
class PoolStats:
    """Counts since the pool was made.

    Attributes:
        open: Sessions open (or opening) now.
        started: Sessions opened (stdio: server processes started).
        reconnects: Sessions discarded because the server or connection failed.
        evicted: Idle sessions closed to stay within ``max_sessions``.
        expired: Sessions closed after ``idle_timeout``.
        tool_lists: Tool lists fetched from servers.
        shared_lists: Tool-list requests that awaited the listing in flight.
        unresponsive: Sessions that did not answer ``ping`` after a cancelled call (closed
            once their calls in flight ended or their deadlines passed).
        retired: Sessions of an older client version closed once unused.
        call_failures: Tool calls that got no answer (timeout, lost connection, ...).
        list_failures: Failed listings of a server's tools.
        session_failures: Open sessions lost on their own (server exited, connection dropped).
        kept: Sessions that answered that ``ping`` and serve again (the server was slow).
    """

    open: int
    started: int
    reconnects: int
    evicted: int
    expired: int
    tool_lists: int
    shared_lists: int = 0
    unresponsive: int = 0
    retired: int = 0
    call_failures: int = 0
    list_failures: int = 0
    session_failures: int = 0
    kept: int = 0


def _leaf(exc: BaseException) -> BaseException:
    """The first non-group exception inside ``exc`` (``exc`` itself if it is none)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


class MCPFailures:
    """Logs MCP failures once per cause and counts them (thread-safe).

    Logged through `langchain_toolsearch._support.CauseLog` on the logger
    ``langchain_toolsearch.mcp._pool``; counted here (`PoolStats`) and in the process's
    counters ``toolsearch.mcp.*`` by server and cause (`langchain_toolsearch._support`).

    Args:
        size: Most (what, server, tool) places remembered, each with 64 causes.
    """

    def __init__(self, *, size: int = 256) -> None:
        self._size = size
        self._logs: OrderedDict[tuple[str, str, str], CauseLog] = OrderedDict()
        self._counts = dict.fromkeys(_COUNTERS.values(), 0)
        self._lock = threading.Lock()

    def record(
        self,
        kind: FailureKind,
        exc: BaseException,
        *,
        server: str,
        tool: str = "",
        log: bool = True,
    ) -> None:
        """Count a failure of ``kind``; log it (WARNING if new) unless ``log`` is false.

        Args:
            kind: What failed.
            exc: Why (exception groups: their first leaf).
            server: The server's name.
            tool: The tool's own name (calls).
            log: ``False`` when the caller reports it itself.
        """
        count(f"toolsearch.mcp.{_COUNTERS[kind]}", server=server, cause=type(_leaf(exc)).__name__)
        with self._lock:
            self._counts[_COUNTERS[kind]] += 1
            if not log:
                return
            place = (kind, server, tool)
            cause_log = self._logs.pop(place, None)
            if cause_log is None:
                message = _TEMPLATES[kind].format(
                    server=repr(server).replace("%", "%%"), tool=repr(tool).replace("%", "%%")
                )
                cause_log = CauseLog(reports_log, message)
            self._logs[place] = cause_log
            while len(self._logs) > self._size:
                self._logs.popitem(last=False)
        cause_log.failed(_leaf(exc))

    def counts(self) -> dict[str, int]:
        """``{"call_failures", "list_failures", "session_failures"}`` counted so far."""
        with self._lock:
            return dict(self._counts)


class MCPSessionPool:
    """Long-lived MCP sessions keyed by `SessionKey` (see the module docstring).

    Example:
        ```python
        with MCPSessionPool(max_sessions=8, idle_timeout=120) as pool:
            library = await load_mcp_library(client, pool=pool)
        ```

    Args:
        max_sessions: Most sessions kept open (>= 1), and most set aside besides.
        idle_timeout: Seconds a session may stay unused; ``None``: forever.
        tools_ttl: Seconds a tool list is reused; ``None``: until the server announces
            a change.
        connect_timeout: Seconds to start a server and initialize; ``None``: no limit.
        ping_timeout: Seconds a session whose call was cancelled has to answer ``ping``;
            without an answer, the seconds more its calls with no deadline may run.
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
        # open, serving no new request (checked, draining), oldest first; <= max_sessions
        self._aside: dict[SessionEntry, None] = {}
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
        opened = len(self._entries) + len(self._aside)
        return PoolStats(open=opened, **self._counts, **self.failures.counts())

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

    # -- requests (helper loop) -------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _use(
        self, key: SessionKey, connection: Mapping[str, Any]
    ) -> AsyncIterator[SessionEntry]:
        checks = [e.checking for e in self._aside if e.key == key and e.checking is not None]
        if key not in self._entries and checks:  # the session is checked: not a long wait
            await asyncio.wait(checks, timeout=min(_VERDICT_WAIT, self.ping_timeout))
        if self._closed:
            raise MCPPoolClosedError("this MCPSessionPool is closed; make a new one")
        self._retirement.asked(key, (*self._entries.values(), *self._aside))
        entry = self._entries.get(key)
        if entry is None or entry.dead:
            entry = self._open(key, connection)
            if self._retirement.is_old(key):
                self._retirement.retire(entry)
        deadline = CALL_DEADLINE.get()
        entry.deadlines.append(deadline)
        try:
            await asyncio.shield(entry.ready)
            yield entry
        finally:
            entry.deadlines.remove(deadline)
            entry.last_used = time.monotonic()
            self._retirement.released(entry)
            if entry.draining and entry.busy == 0:
                self._discard(entry, None)

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
        if entry.stderr is not None:
            with_last_line(exc, entry.stderr.last)
        if not entry.stop.is_set():  # closed on purpose (retired, evicted): no failure
            self.failures.record("session", exc, server=entry.key.server)
        self._discard(entry, "reconnects")

    # -- sessions: opening, holding, checking, closing (helper loop) ------------------

    def _open(self, key: SessionKey, connection: Mapping[str, Any]) -> SessionEntry:
        idle = sorted((e for e in self._entries.values() if e.busy == 0), key=lambda e: e.last_used)
        while len(self._entries) >= self.max_sessions and idle:
            self._discard(idle.pop(0), "evicted")
        entry = SessionEntry(key, connection)
        self._entries[key] = entry
        # shared for many requests: made in an empty context, never the opener's
        loop = asyncio.get_running_loop()
        entry.task = loop.create_task(self._hold(entry), context=contextvars.Context())
        if self.idle_timeout is not None and (self._sweeper is None or self._sweeper.done()):
            self._sweeper = loop.create_task(self._sweep(), context=contextvars.Context())
        return entry

    async def _hold(self, entry: SessionEntry) -> None:
        """Open the session, keep it open until told to stop, then close it."""
        connection = dict(entry.connection)
        kwargs = dict(connection.get("session_kwargs") or {})
        outer = kwargs.get("message_handler")

        async def on_message(message: Any) -> None:
            if is_list_changed(message):
                entry.stale = True
            if outer is not None:
                await outer(message)

        kwargs["message_handler"] = on_message
        connection["session_kwargs"] = kwargs
        if connection.get("transport") in _HTTP and connection.get("httpx_client_factory") is None:
            connection["httpx_client_factory"] = watched_http_factory(
                lambda exc: self._broken(entry, exc)
            )
        ended: BaseException = ConnectionError("the session ended on its own")
        if connection.get("transport") == "stdio":
            entry.stderr = StderrTail(tuple((connection.get("env") or {}).values()))
        try:
            async with open_session(connection, entry.stderr) as session:
                with anyio.fail_after(self.connect_timeout):
                    await session.initialize()
                entry.session = session
                self._counts["started"] += 1
                entry.ready.set_result(None)
                await entry.stop.wait()
        except BaseException as exc:
            if entry.stderr is not None and not isinstance(exc, asyncio.CancelledError):
                exc = with_last_line(exc, await entry.stderr.settle())
            if not entry.ready.done():
                if isinstance(exc, asyncio.CancelledError):
                    exc = ConnectionError("the MCP session was closed while starting")
                entry.ready.set_exception(exc)
                entry.ready.exception()  # retrieved: no "never retrieved" warning
            else:
                ended = exc
                logger.debug(
                    "MCP session %s/%s closed with %s: %s",
                    entry.key.scope,
                    entry.key.server,
                    *describe(exc),
                )
        finally:
            if entry.stderr is not None:
                entry.stderr.close()
            if not entry.dead and entry.ready.done() and not entry.stop.is_set():
                self._counts["reconnects"] += 1  # the transport failed on its own
                if entry.ready.exception() is None:  # a failed start is reported by its caller
                    self.failures.record("session", ended, server=entry.key.server)
            entry.session = None
            entry.dead = True
            entry.gone.set()
            self._aside.pop(entry, None)
            if self._entries.get(entry.key) is entry:
                del self._entries[entry.key]

    def _broken(self, entry: SessionEntry, exc: BaseException) -> None:
        """The HTTP connection of ``entry`` failed: its requests fail now."""
        if entry.dead or not entry.ready.done():
            return  # closing already, or still opening (the open fails by itself)
        logger.info(
            "MCP session %s/%s: the connection failed (%s: %s); the session is discarded",
            entry.key.scope,
            entry.key.server,
            *describe(exc),
        )
        entry.failure = exc
        self._discard(entry, "reconnects")
        entry.gone.set()

    def _retire(self, entry: SessionEntry) -> None:
        self._discard(entry, "retired")

    def _check(self, entry: SessionEntry) -> None:
        """A call on ``entry`` was cancelled: set it aside and ``ping`` it (once, not per call).

        Later requests open a new session meanwhile; see `_ping` for the verdict.
        """
        if self._entries.get(entry.key) is not entry:
            return  # set aside already, or closed
        del self._entries[entry.key]
        while len(self._aside) >= self.max_sessions:  # the one set aside longest ago closes
            self._give_up(next(iter(self._aside)))
        self._aside[entry] = None
        entry.checking = asyncio.get_running_loop().create_task(
            self._ping(entry), context=contextvars.Context()
        )

    async def _ping(self, entry: SessionEntry) -> None:
        healthy = await answers_ping(entry, self.ping_timeout)
        if entry.dead:
            return
        if healthy:  # only slow: it serves again; one opened meanwhile closes once unused
            self._counts["kept"] += 1
            self._aside.pop(entry, None)
            opened = self._entries.get(entry.key)
            self._entries[entry.key] = entry
            if opened is not None:
                self._drain(opened)
            return
        logger.warning(
            "MCP server %r (scope %r) did not answer ping within %g s after a call was "
            "cancelled; later requests use a new session, this one closes once its calls "
            "in flight end or time out",
            entry.key.server,
            entry.key.scope,
            self.ping_timeout,
        )
        self._counts["unresponsive"] += 1
        self._drain(entry)
        # the latest deadline of its requests in flight; ping_timeout more for those with none
        now = time.monotonic()
        last = max(
            (now + self.ping_timeout if d is None else d for d in entry.deadlines), default=now
        )
        asyncio.get_running_loop().call_later(last - now, self._give_up, entry)

    def _drain(self, entry: SessionEntry) -> None:
        """Give ``entry`` no new request; close it once its requests in flight end."""
        if self._entries.get(entry.key) is entry:
            del self._entries[entry.key]
        self._aside[entry] = None
        entry.draining = True
        if entry.busy == 0:
            self._discard(entry, None)

    def _give_up(self, entry: SessionEntry) -> None:
        """Close ``entry`` now: its requests in flight fail with ``ConnectionError``."""
        self._discard(entry, None)
        entry.gone.set()

    def _discard(self, entry: SessionEntry, reason: str | None) -> None:
        """Stop using ``entry`` (counted under ``reason``); its task closes it."""
        self._aside.pop(entry, None)
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
        while (self._entries or self._aside) and not self._closed:
            await asyncio.sleep(interval)
            now = time.monotonic()
            for entry in list(self._entries.values()):
                if entry.busy == 0 and now - entry.last_used >= self.idle_timeout:
                    self._discard(entry, "expired")

    async def _close_all(self) -> None:
        self._closed = True
        _OPEN_POOLS.discard(self)
        for entry in (*self._entries.values(), *self._aside):
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
