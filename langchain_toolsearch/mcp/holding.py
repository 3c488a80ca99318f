"""Opening, holding, checking and closing the sessions of an `MCPSessionPool` (helper loop)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Mapping
from typing import Any

import anyio

from langchain_toolsearch._internal.failures import describe
from langchain_toolsearch.mcp.keys import SessionKey
from langchain_toolsearch.mcp.lifecycle import (
    SessionEntry,
    answers_ping,
    is_list_changed,
    watched_http_factory,
)
from langchain_toolsearch.mcp.reports import MCPFailures
from langchain_toolsearch.mcp.stdio import StderrTail, open_session, with_last_line
from langchain_toolsearch.mcp.versions import Retirement

__all__ = ["SessionHolder"]

logger = logging.getLogger("langchain_toolsearch.mcp.pool")

_HTTP = frozenset({"streamable_http", "streamable-http", "http", "sse"})


class SessionHolder:
    """The session lifecycle of an `MCPSessionPool`.

    Attributes:
        max_sessions: Most sessions kept open.
        idle_timeout: Seconds unused before a session is closed, or ``None``.
        connect_timeout: Seconds allowed to open a session, or ``None``.
        ping_timeout: Seconds a suspect session has to answer ``ping``.
    """

    max_sessions: int
    idle_timeout: float | None
    connect_timeout: float | None
    ping_timeout: float
    _entries: dict[SessionKey, SessionEntry]
    _closing: set[asyncio.Task[None]]
    _sweeper: asyncio.Task[None] | None
    _closed: bool
    _counts: dict[str, int]
    failures: MCPFailures
    _retirement: Retirement

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
        """A call on ``entry`` was cancelled: ask the server for a ``ping``."""
        if entry.dead or (entry.checking is not None and not entry.checking.done()):
            return
        entry.checking = asyncio.get_running_loop().create_task(
            self._ping(entry), context=contextvars.Context()
        )

    async def _ping(self, entry: SessionEntry) -> None:
        if await answers_ping(entry, self.ping_timeout) or entry.dead:
            return
        logger.warning(
            "MCP server %r (scope %r) did not answer ping within %g s after a call was "
            "cancelled; the session is replaced (calls in flight on it fail now)",
            entry.key.server,
            entry.key.scope,
            self.ping_timeout,
        )
        self._discard(entry, "unresponsive")

    def _discard(self, entry: SessionEntry, reason: str | None) -> None:
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
