"""Stdio MCP sessions whose server's stderr is redacted: `StderrTail`, `open_session`.

A stdio server's stderr goes to a pipe read by a thread: each line is
written to ``sys.stderr`` masked by the one table of credential shapes (and
the server's own ``env`` values), and the last line is kept. A failure of the
server's session then names that line (redacted) in the package's failure
line, as an exception note (`with_last_line`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
import threading
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from langchain_toolsearch._internal.failures import mask, redact

if TYPE_CHECKING:
    from mcp import ClientSession

__all__ = ["LAST_LINE", "StderrTail", "open_session", "with_last_line"]

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
