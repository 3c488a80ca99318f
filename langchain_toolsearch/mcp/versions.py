"""Retiring the pooled sessions of a client's older versions (helper loop only).

Scopes ``"<client>@<N>"`` name version ``N``; once a newer version is asked for, an
older one's sessions close ``after`` seconds after their last call.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Iterable

from langchain_toolsearch.mcp.keys import SessionKey
from langchain_toolsearch.mcp.lifecycle import SessionEntry

__all__ = ["Retirement", "client_version"]

logger = logging.getLogger("langchain_toolsearch.mcp.pool")

_VERSIONED = re.compile(r"^(?P<client>.+)@(?P<version>\d{1,18})$")


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
