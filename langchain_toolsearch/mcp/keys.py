"""Value types of the MCP session pool: `SessionKey` (and `session_key`), `PoolStats`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.mcp.headers import merge_headers

__all__ = ["PoolStats", "SessionKey", "session_key"]


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
        unresponsive: Sessions replaced for not answering ``ping`` after a cancelled call.
        retired: Sessions of an older client version closed once unused.
        call_failures: Tool calls that got no answer (timeout, lost connection, ...).
        list_failures: Failed listings of a server's tools.
        session_failures: Open sessions lost on their own (server exited, connection dropped).
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
