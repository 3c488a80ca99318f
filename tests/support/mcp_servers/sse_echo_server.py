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
from http_echo_server import build_server  # the script's folder is on sys.path

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--name", default="sse")
    args = parser.parse_args()
    app = build_server(args.name, label="SSE").sse_app()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
