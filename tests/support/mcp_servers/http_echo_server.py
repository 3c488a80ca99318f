"""Streamable-HTTP MCP server whose tools report what the HTTP request carried.

Tools:

* ``whoami`` - returns the ``Authorization`` header of the request that
  called it, or ``"<no authorization header>"``.
* ``add`` - adds two integers (a plain tool for allowlist tests).
* ``search`` - returns ``"<server name> searched: <query>"``.

Run: ``python http_echo_server.py --port 8123 [--name echo]``; it serves
``http://127.0.0.1:<port>/mcp`` (stateless, JSON responses) with uvicorn.
"""

from __future__ import annotations

import argparse

import uvicorn
from mcp.server.fastmcp import Context, FastMCP


def build_server(name: str, *, label: str = "echo", **settings: bool) -> FastMCP:
    """The echo tools on a FastMCP server (``settings``: transport options such as
    ``stateless_http``); ``label`` names the server in ``search``'s description."""
    server = FastMCP(name, host="127.0.0.1", log_level="WARNING", **settings)

    @server.tool()
    def whoami(ctx: Context) -> str:  # type: ignore[type-arg]
        """Report the Authorization header this request carried."""
        request = ctx.request_context.request
        header = request.headers.get("authorization") if request is not None else None
        return header or "<no authorization header>"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool(description=f"Search the {label} server's documents.")
    def search(query: str) -> str:
        return f"{name} searched: {query}"

    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--name", default="echo")
    args = parser.parse_args()
    app = build_server(args.name, stateless_http=True, json_response=True).streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
