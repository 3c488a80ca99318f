"""One pooled MCP session's state and the requests that watch it (helper loop only)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from langchain_toolsearch.errors import ToolSearchError
from langchain_toolsearch.mcp.keys import SessionKey

if TYPE_CHECKING:
    import httpx
    from mcp import ClientSession
    from mcp.types import Tool

    from langchain_toolsearch.mcp.session import ToolListing
    from langchain_toolsearch.mcp.stdio import StderrTail

__all__ = [
    "SessionEntry",
    "answers_ping",
    "is_list_changed",
    "list_all",
    "unless_gone",
    "watched_http_factory",
]

T = TypeVar("T")


class SessionEntry:
    """One pooled session and the task that holds it open.

    Attributes:
        key: The session's key.
        connection: The adapter connection it was opened with.
        session: The open session (``None`` until ready and after it closed).
        busy: Requests using it now.
        last_used: ``time.monotonic()`` of the last request's end.
        listing: The cached tool list; ``listed_at`` when it was fetched.
        flight: The tool listing in flight (``None`` when none runs).
        checking: The ``ping`` check in flight after a cancelled call.
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
        self.busy = 0
        self.last_used = time.monotonic()
        self.listing: ToolListing | None = None
        self.listed_at = 0.0
        self.flight: asyncio.Task[ToolListing] | None = None
        self.checking: asyncio.Task[None] | None = None
        self.failure: BaseException | None = None
        self.stale = False
        self.dead = False
        self.retired = False
        self.stderr: StderrTail | None = None


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
