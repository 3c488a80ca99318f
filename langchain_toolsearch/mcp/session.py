"""The stand-in MCP session whose requests go through an `MCPSessionPool`, and `ToolListing`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from langchain_toolsearch._effects import on_bridge_loop
from langchain_toolsearch.mcp.keys import SessionKey

if TYPE_CHECKING:
    from mcp.types import CallToolResult, ListToolsResult, Tool

__all__ = ["PoolBackend", "PooledSession", "ToolListing"]


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
