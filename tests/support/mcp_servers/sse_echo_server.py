"""SSE-only MCP server (the legacy HTTP+SSE transport), for the SSE fallback.

Same tools as ``http_echo_server.py`` (``whoami``, ``add``, ``search``).
It serves only ``GET /sse`` and ``POST /messages/``: a streamable HTTP
request to ``/sse`` fails, so a client must fall back to SSE.

Run: ``python sse_echo_server.py --port 8124 [--name sse]``; the endpoint is
``http://127.0.0.1:<port>/sse``.
"""

from __future__ import annotations

import argparse

import uvicorn
from mcp.server.fastmcp import Context, FastMCP


def build_server(name: str) -> FastMCP:
    server = FastMCP(name, host="127.0.0.1", log_level="WARNING")

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

    @server.tool()
    def search(query: str) -> str:
        """Search the SSE server's documents."""
        return f"{name} searched: {query}"

    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--name", default="sse")
    args = parser.parse_args()
    app = build_server(args.name).sse_app()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
