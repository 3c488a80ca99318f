"""MCP failures as an operator sees them: one WARNING per cause, and counts for `PoolStats`.

Logged through `langchain_toolsearch._support.CauseLog` on the logger
``langchain_toolsearch.mcp.reports``, e.g.::

    tool search: MCP call to tool 'sleep' on server 'p' failed (TimeoutError): no answer
    within 3 s; the call was cancelled; the model got an error message
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Literal

from langchain_toolsearch._support import CauseLog

__all__ = ["FailureKind", "MCPFailures"]

logger = logging.getLogger(__name__)

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


def _leaf(exc: BaseException) -> BaseException:
    """The first non-group exception inside ``exc`` (``exc`` itself if it is none)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


class MCPFailures:
    """Logs MCP failures once per cause and counts them (thread-safe).

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
                cause_log = CauseLog(logger, message)
            self._logs[place] = cause_log
            while len(self._logs) > self._size:
                self._logs.popitem(last=False)
        cause_log.failed(_leaf(exc))

    def counts(self) -> dict[str, int]:
        """``{"call_failures", "list_failures", "session_failures"}`` counted so far."""
        with self._lock:
            return dict(self._counts)
