"""MCP server that records each start, for the session-pool tests.

On start it appends ``start <pid>`` to the file given with ``--log``, so a
test counts how many times the server was started. Tools:

* ``pid`` - the server process id.
* ``whoami`` - over HTTP, ``"<Authorization header>|<mcp-session-id>"``.
* ``grow`` - adds a tool named ``name`` (answering ``"grown <name>"``) and
  sends ``notifications/tools/list_changed``.
* ``echo`` - returns ``text``.
* ``sleep`` - waits ``seconds``, then answers.
* ``freeze`` - blocks the whole process for ``seconds`` (no request, not even
  ``ping``, is answered meanwhile): a hung server.

Each ``tools/list`` it answers appends ``list <pid>`` to the same log.

Run: ``python pool_server.py --log FILE`` (stdio) or
``python pool_server.py --log FILE --port N`` (stateful streamable HTTP on
``http://127.0.0.1:N/mcp``).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import anyio
from mcp.server.fastmcp import Context, FastMCP

LOG = ""


class _CountingServer(FastMCP):  # type: ignore[type-arg]
    """FastMCP that logs every ``tools/list`` it answers."""

    async def list_tools(self) -> Any:
        if LOG:
            with open(LOG, "a", encoding="utf-8") as log:
                log.write(f"list {os.getpid()}\n")
        return await super().list_tools()


def build_server() -> FastMCP:
    """The server and its tools."""
    server = _CountingServer("pool", host="127.0.0.1", log_level="WARNING")

    @server.tool()
    def pid() -> int:
        """Return the server's process id."""
        return os.getpid()

    @server.tool()
    def whoami(ctx: Context) -> str:  # type: ignore[type-arg]
        """Report the Authorization header and MCP session id of this request."""
        request = ctx.request_context.request
        if request is None:
            return "<stdio>"
        auth = request.headers.get("authorization") or "<none>"
        return f"{auth}|{request.headers.get('mcp-session-id')}"

    @server.tool()
    async def grow(name: str, ctx: Context) -> str:  # type: ignore[type-arg]
        """Add a tool called ``name`` and announce the change."""

        def grown() -> str:
            return f"grown {name}"

        server.add_tool(grown, name=name, description=f"A tool added at run time: {name}.")
        await ctx.session.send_tool_list_changed()
        return f"added {name}"

    @server.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    @server.tool()
    async def sleep(seconds: float) -> str:
        """Wait ``seconds``, then answer."""
        await anyio.sleep(seconds)
        return f"slept {seconds}"

    @server.tool()
    async def freeze(seconds: float) -> str:
        """Block the whole server for ``seconds`` (a hung server)."""
        time.sleep(seconds)
        return f"froze {seconds}"

    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--log", required=True)
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    LOG = args.log
    with open(args.log, "a", encoding="utf-8") as log:
        log.write(f"start {os.getpid()}\n")
    mcp_server = build_server()
    if args.port is None:
        mcp_server.run("stdio")
    else:
        import uvicorn

        app = mcp_server.streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
