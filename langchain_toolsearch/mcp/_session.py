"""One pooled MCP session: its key and headers, its state, its stand-in, its retirement.

* `merge_headers` / `with_headers`: the one place header layers meet; session keys,
  saved-server connections and interceptor routes all use it, so what is keyed is
  what is sent.
* `SessionKey` (`session_key`): what one pooled session depends on; never a secret.
* `SessionEntry` and the requests that watch it (helper loop only); `PooledSession`,
  the stand-in ``ClientSession`` whose requests go through the pool, and `ToolListing`.
* `Retirement`: sessions of scope ``"<client>@<N>"`` close ``after`` seconds after
  their last call once a newer version of the client was asked for.
* `connection_lost` / `never_sent`: what a transport failure means for a session.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import re
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import anyio

from langchain_toolsearch._effects import on_bridge_loop
from langchain_toolsearch._support import mask, redact
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchError

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import CallToolResult, ListToolsResult, Tool

logger = logging.getLogger("langchain_toolsearch.mcp._pool")  # where users filter pool logs

T = TypeVar("T")

CLOSED_STREAM_ERRORS = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream)
"""Errors of a stream the other side closed."""

_VERSIONED = re.compile(r"^(?P<client>.+)@(?P<version>\d{1,18})$")


# -- headers and keys ---------------------------------------------------------------------


def merge_headers(*layers: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge header layers by case-insensitive name; the later layer (or entry) wins.

    Args:
        *layers: Header mappings, the connection's then the caller's (``None``: none).

    Returns:
        One entry per name with the winning value and spelling, in first-seen order.
    """
    merged: dict[str, tuple[str, Any]] = {}
    for layer in layers:
        for name, value in (layer or {}).items():
            merged[str(name).lower()] = (str(name), value)
    return dict(merged.values())


def with_headers(
    connection: Mapping[str, Any], extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A copy of an adapter connection with ``extra`` headers merged over its own.

    Args:
        connection: ``{"transport": ..., "headers"?: {...}, ...}``.
        extra: The caller's headers, which win over the connection's.

    Returns:
        The connection; without any header the ``headers`` key stays as it was.
    """
    out = dict(connection)
    own = connection.get("headers")
    if own or extra:
        out["headers"] = merge_headers(own, extra)
    return out


@dataclass(frozen=True)
class SessionKey:
    """What one pooled session depends on; holds no secret.

    Attributes:
        scope: Caller's label, e.g. the saved MCP client id (``""``: none).
        server: Server name.
        transport: ``"stdio"``, ``"streamable_http"``, ``"sse"``, ...
        settings: SHA-256 (hex) of every other setting but headers (objects by identity).
        credential: SHA-256 (hex) of the merged headers, or ``None`` without headers.
    """

    scope: str
    server: str
    transport: str
    settings: str
    credential: str | None


def _default(obj: Any) -> Any:
    if isinstance(obj, timedelta):
        return obj.total_seconds()
    return f"<{type(obj).__qualname__} {id(obj):x}>"


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=_default, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def session_key(connection: Mapping[str, Any], *, server: str, scope: str = "") -> SessionKey:
    """The `SessionKey` of a ``langchain_mcp_adapters`` connection dict.

    Args:
        connection: ``{"transport": ..., ...}`` as the adapters take it.
        server: Server name.
        scope: Caller's label, e.g. a saved client id.

    Returns:
        The key; headers enter as a SHA-256 of what is sent (`merge_headers`).

    Raises:
        ToolSearchConfigError: ``connection`` has no ``transport``.
    """
    if "transport" not in connection:
        msg = f"MCP connection for server {server!r} has no 'transport'"
        raise ToolSearchConfigError(msg)
    headers = merge_headers(connection.get("headers"))  # as sent: one value per name
    settings = {k: v for k, v in connection.items() if k != "headers"}
    credential = None
    if headers:
        pairs = sorted(
            ([str(k).lower(), v] for k, v in headers.items()),
            key=lambda pair: json.dumps(pair, sort_keys=True, default=_default),
        )
        credential = _digest(pairs)
    return SessionKey(
        scope=scope,
        server=server,
        transport=str(connection["transport"]),
        settings=_digest(settings),
        credential=credential,
    )


# -- the stand-in session ---------------------------------------------------------------


class PoolBackend(Protocol):
    """What a `PooledSession` asks of its pool (`MCPSessionPool` implements it)."""

    def session(
        self, connection: Mapping[str, Any], *, server: str, scope: str = ""
    ) -> PooledSession:
        """A stand-in session for ``connection`` (e.g. other headers) on the same pool."""
        ...

    def _current_listing(self, key: SessionKey) -> ToolListing | None: ...

    async def _listing(self, pooled: PooledSession) -> ToolListing: ...

    async def _call(
        self, pooled: PooledSession, args: tuple[Any, ...], kw: dict[str, Any]
    ) -> Any: ...


@dataclass(frozen=True)
class ToolListing:
    """One fetched tool list of a pooled session.

    Attributes:
        session: Stand-in session whose requests go through the pool.
        tools: The server's tools (all pages).
        memo: Values callers derive from ``tools``, kept while this listing is current.
    """

    session: PooledSession
    tools: tuple[Tool, ...]
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)


class PooledSession:
    """Stands in for an ``mcp.ClientSession``: each request goes through the pool.

    Works with ``langchain_mcp_adapters.tools.load_mcp_tools(session, ...)`` from any
    loop or thread.

    Attributes:
        key: The session's `SessionKey`.
        connection: The adapter connection (with its headers).
    """

    def __init__(self, pool: PoolBackend, key: SessionKey, connection: Mapping[str, Any]):
        self.pool = pool
        self.key = key
        self.connection = dict(connection)

    def __repr__(self) -> str:
        return f"PooledSession(scope={self.key.scope!r}, server={self.key.server!r})"

    async def listing(self) -> ToolListing:
        """The current `ToolListing` (see `MCPSessionPool.list_tools`)."""
        current = self.pool._current_listing(self.key)
        if current is not None:  # no hop to the helper loop for a cached list
            return current
        return await on_bridge_loop(self.pool._listing(self))

    async def list_tools(self, cursor: str | None = None, **_: Any) -> ListToolsResult:
        """All the server's tools in one page, from the pool's cache."""
        from mcp.types import ListToolsResult

        listing = await self.listing()
        return ListToolsResult(tools=list(listing.tools))

    async def call_tool(self, *args: Any, **kwargs: Any) -> CallToolResult:
        """``ClientSession.call_tool`` on the pooled session (same arguments).

        Raises:
            MCPPoolClosedError: The pool is closed.
            Exception: What the session raised (a call that never reached it is retried once).
        """
        result: CallToolResult = await on_bridge_loop(self.pool._call(self, args, kwargs))
        return result


# -- one session's state and the requests that watch it (helper loop only) --------------


CALL_DEADLINE: ContextVar[float | None] = ContextVar("toolsearch_mcp_deadline", default=None)
"""``time.monotonic()`` by which the caller gives up on its MCP request (``None``: never)."""


class SessionEntry:
    """One pooled session and the task that holds it open.

    Attributes:
        key: The session's key.
        connection: The adapter connection it was opened with.
        session: The open session (``None`` until ready and after it closed).
        deadlines: The `CALL_DEADLINE` of each request using it now.
        last_used: ``time.monotonic()`` of the last request's end.
        listing: The cached tool list; ``listed_at`` when it was fetched.
        flight: The tool listing in flight (``None`` when none runs).
        checking: The ``ping`` check after a cancelled call (the pool set it aside).
        draining: Taking no new request; closed once ``busy`` is 0 (a hung one: at the
            latest at the last of its requests' deadlines).
        failure: The transport error that broke the connection, if any.
        retired: A newer version of its client was asked for.
        stderr: A stdio server's stderr (its last line names it in failures).
    """

    def __init__(self, key: SessionKey, connection: Mapping[str, Any]) -> None:
        self.key = key
        self.connection = dict(connection)
        self.session: ClientSession | None = None
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.stop = asyncio.Event()
        self.gone = asyncio.Event()  # set when the session is closed, for any reason
        self.task: asyncio.Task[None] | None = None
        self.deadlines: list[float | None] = []
        self.last_used = time.monotonic()
        self.listing: ToolListing | None = None
        self.listed_at = 0.0
        self.flight: asyncio.Task[ToolListing] | None = None
        self.checking: asyncio.Task[None] | None = None
        self.failure: BaseException | None = None
        self.stale = False
        self.dead = False
        self.draining = False
        self.retired = False
        self.stderr: StderrTail | None = None

    @property
    def busy(self) -> int:
        """Requests using it now."""
        return len(self.deadlines)


def is_list_changed(message: Any) -> bool:
    """Whether an incoming MCP message is ``notifications/tools/list_changed``."""
    method = getattr(getattr(message, "root", None), "method", None)
    return method == "notifications/tools/list_changed"


async def unless_gone(entry: SessionEntry, request: Coroutine[Any, Any, T]) -> T:
    """Await ``request``, failing at once if the session closes meanwhile.

    Raises:
        Exception: The transport error that broke the connection, else ``ConnectionError``.
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
        if entry.failure is not None:
            raise entry.failure
        raise ConnectionError("the connection to the MCP server was lost during the call")
    return task.result()


async def answers_ping(entry: SessionEntry, timeout: float) -> bool:
    """Whether the session answers an MCP ``ping`` within ``timeout`` seconds."""
    session = entry.session
    if session is None or entry.dead:
        return False
    try:
        with anyio.fail_after(timeout):
            await unless_gone(entry, session.send_ping())
    except Exception:
        return False
    return True


async def list_all(session: ClientSession | None) -> list[Tool]:
    """Every page of ``tools/list``.

    Raises:
        ToolSearchError: The server returned more than 1,000 pages.
    """
    assert session is not None
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(1000):
        page = await session.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor:
            return tools
    raise ToolSearchError("tools/list returned more than 1,000 pages")


def watched_http_factory(on_broken: Callable[[BaseException], None]) -> Any:
    """An ``httpx_client_factory`` (``mcp``'s defaults) calling ``on_broken`` on a broken link."""
    import httpx
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    class _Watched(httpx.AsyncByteStream):
        def __init__(self, inner: httpx.AsyncByteStream) -> None:
            self.inner = inner

        async def __aiter__(self) -> Any:
            try:
                async for chunk in self.inner:
                    yield chunk
            except httpx.TransportError as exc:
                on_broken(exc)
                raise

        async def aclose(self) -> None:
            await self.inner.aclose()

    class _Watching(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.AsyncHTTPTransport()

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            try:
                response = await self.inner.handle_async_request(request)
            except httpx.TransportError as exc:
                on_broken(exc)
                raise
            stream = response.stream
            assert isinstance(stream, httpx.AsyncByteStream)
            response.stream = _Watched(stream)
            return response

        async def aclose(self) -> None:
            await self.inner.aclose()

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx.Timeout | None = None,
        auth: httpx.Auth | None = None,
    ) -> httpx.AsyncClient:
        if timeout is None:
            timeout = httpx.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
        return httpx.AsyncClient(headers=headers, timeout=timeout, auth=auth, transport=_Watching())

    return factory


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` means the session is unusable (closed stream, transport error)."""
    if isinstance(exc, BaseExceptionGroup):
        return any(connection_lost(inner) for inner in exc.exceptions)
    if isinstance(exc, (*CLOSED_STREAM_ERRORS, OSError, EOFError)):
        return True
    from mcp.shared.exceptions import McpError
    from mcp.types import CONNECTION_CLOSED

    if isinstance(exc, McpError):
        return exc.error.code == CONNECTION_CLOSED or "session terminated" in str(exc).lower()
    import httpx  # comes with mcp

    return isinstance(exc, httpx.TransportError)


def never_sent(exc: BaseException) -> bool:
    """Whether a request that failed with ``exc`` surely did not run (safe to resend)."""
    if isinstance(exc, BaseExceptionGroup):
        return all(never_sent(inner) for inner in exc.exceptions)
    if isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError)):
        return True
    from mcp.shared.exceptions import McpError

    if isinstance(exc, McpError):
        return "session terminated" in str(exc).lower()
    import httpx

    return isinstance(exc, httpx.ConnectError)


# -- client versions ----------------------------------------------------------------------


def client_version(key: SessionKey) -> tuple[str, int] | None:
    """``(client, version)`` of a key whose scope is ``"<client>@<N>"``, else ``None``."""
    match = _VERSIONED.match(key.scope)
    if match is None:
        return None
    return match["client"], int(match["version"])


class Retirement:
    """Which sessions an older client version holds, and closing them when unused.

    Args:
        after: Seconds a retired session may stay unused before it is closed.
        close: Closes an entry (the pool's discard, counted as retired).
    """

    def __init__(self, *, after: float, close: Callable[[SessionEntry], None]) -> None:
        self.after = after
        self._close = close
        self._newest: dict[str, int] = {}

    def asked(self, key: SessionKey, entries: Iterable[SessionEntry]) -> None:
        """A request asked for ``key``: retire every session of an older version."""
        found = client_version(key)
        if found is None:
            return
        client, version = found
        if version <= self._newest.get(client, -1):
            return
        self._newest[client] = version
        for entry in list(entries):
            other = client_version(entry.key)
            if other is not None and other[0] == client and other[1] < version:
                self.retire(entry)

    def is_old(self, key: SessionKey) -> bool:
        """Whether a newer version of ``key``'s client was asked for."""
        found = client_version(key)
        return found is not None and found[1] < self._newest.get(found[0], -1)

    def retire(self, entry: SessionEntry) -> None:
        """Mark ``entry`` retired; it is closed once unused for ``after`` seconds."""
        if entry.retired or entry.dead:
            return
        entry.retired = True
        logger.info(
            "MCP session %s/%s is retired: a newer version of the client was asked for; "
            "it closes %g s after its last call",
            entry.key.scope,
            entry.key.server,
            self.after,
        )
        self.released(entry)

    def released(self, entry: SessionEntry) -> None:
        """A request stopped using ``entry``: schedule its closing if retired and unused."""
        if entry.retired and entry.busy == 0 and not entry.dead:
            asyncio.get_running_loop().call_later(self.after, self._maybe_close, entry)

    def _maybe_close(self, entry: SessionEntry) -> None:
        unused = time.monotonic() - entry.last_used
        if entry.dead or entry.busy > 0 or unused < self.after * 0.9:
            return  # in use again: the next release schedules it again
        self._close(entry)


LAST_LINE = "the server's last stderr line: {line}"
"""The note a failed stdio session's exception gets."""
_BRACED = re.compile(r"\$\{([^}]+)\}")
"""``${VAR}`` in an ``env`` value: expanded from this process's environment (as the adapters do)."""


class StderrTail:
    """A stdio server's stderr: a pipe whose lines a thread masks, writes on and keeps the last of.

    Args:
        secrets: Values never shown (the server's ``env`` values).

    Attributes:
        file: The pipe's write end, the ``errlog`` of ``mcp``'s ``stdio_client``.
        last: The last non-empty line, redacted (``""``: none yet).
    """

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        read_fd, write_fd = os.pipe()
        self.file = os.fdopen(write_fd, "w")
        self.last = ""
        self._secrets = tuple(s for s in secrets if len(s) >= 4)
        reader = os.fdopen(read_fd, "r", encoding="utf-8", errors="replace")
        self._thread = threading.Thread(
            target=self._pump, args=(reader,), name="toolsearch-mcp-stderr", daemon=True
        )
        self._thread.start()

    def _pump(self, reader: Any) -> None:
        with reader:
            for line in reader:
                if not line.strip():
                    continue
                self.last = redact(line, self._secrets)
                with contextlib.suppress(Exception):  # a closed or replaced sys.stderr
                    sys.stderr.write(mask(line.rstrip("\n"), self._secrets) + "\n")

    def close(self) -> None:
        """Close this process's write end (the reader ends once the server's is closed too)."""
        with contextlib.suppress(OSError):
            self.file.close()

    async def settle(self, timeout: float = 1.0) -> str:
        """The last line once the server's stderr ended (or after ``timeout`` seconds)."""
        self.close()
        for _ in range(max(1, int(timeout / 0.02))):
            if not self._thread.is_alive():
                break
            await asyncio.sleep(0.02)
        return self.last


def with_last_line(exc: BaseException, line: str) -> BaseException:
    """``exc`` (and each exception inside a group) with a note naming the server's last line."""
    if not line:
        return exc
    note = LAST_LINE.format(line=line)
    inner = exc.exceptions if isinstance(exc, BaseExceptionGroup) else ()
    for leaf in inner:
        with_last_line(leaf, line)
    if note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)
    return exc


@contextlib.asynccontextmanager
async def open_session(
    connection: Mapping[str, Any], tail: StderrTail | None
) -> AsyncIterator[ClientSession]:
    """A session over ``connection``: stdio ones with ``tail`` as the server's stderr.

    Other transports (and stdio without a ``tail``) open as langchain-mcp-adapters does.
    """
    if tail is None:
        from langchain_mcp_adapters.sessions import create_session

        async with create_session(connection) as session:  # type: ignore[arg-type]
            yield session
        return
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = connection.get("env")
    params = StdioServerParameters(
        command=connection["command"],
        args=list(connection.get("args") or []),
        env=None if env is None else {k: _expand(v) for k, v in env.items()},
        cwd=connection.get("cwd"),
        encoding=connection.get("encoding") or "utf-8",
        encoding_error_handler=connection.get("encoding_error_handler") or "strict",
    )
    async with stdio_client(params, errlog=tail.file) as (read, write):
        tail.close()  # the server holds its own copy now
        async with ClientSession(read, write, **(connection.get("session_kwargs") or {})) as s:
            yield s


def _expand(value: str) -> str:
    return _BRACED.sub(lambda m: os.environ.get(m.group(1), m.group(0)), value)
