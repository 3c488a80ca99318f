"""MCP server whose ``headers`` tool returns every header line of the HTTP request that called it.

``headers`` answers a JSON list of ``[name, value]`` pairs, one per header line
received (duplicates included, names lower-cased by the HTTP server), so a
test sees a header sent twice. One process serves both transports: stateless
streamable HTTP on ``/mcp`` and the legacy SSE transport on ``/sse``.

Run: ``python header_echo_server.py --port N``.
"""

from __future__ import annotations

import argparse
import json

import uvicorn
from mcp.server.fastmcp import Context, FastMCP


def build_server() -> FastMCP:
    """The ``headers`` tool on a FastMCP server."""
    server = FastMCP("headers", host="127.0.0.1", log_level="WARNING", stateless_http=True)

    @server.tool()
    def headers(ctx: Context) -> str:  # type: ignore[type-arg]
        """Report every header line of this request."""
        request = ctx.request_context.request
        pairs = [] if request is None else [[k, v] for k, v in request.headers.items()]
        return json.dumps(pairs)

    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    mcp_server = build_server()
    app = mcp_server.streamable_http_app()
    app.router.routes.extend(mcp_server.sse_app().routes)  # /sse and /messages/
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
