"""A stdio MCP server that rejects its token: it prints ``fatal: token=<token> rejected``
to stderr and exits with code 1 before answering (its token comes from ``--token``).

With ``--after N`` it serves one tool, ``echo``, for ``N`` calls first, then rejects
the token and exits in the middle of the next call.
"""

from __future__ import annotations

import argparse
import os
import sys

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def reject(token: str) -> None:
    print("starting token check", file=sys.stderr, flush=True)
    print(f"fatal: token={token} rejected", file=sys.stderr, flush=True)
    os._exit(1)  # at once, even inside a request


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--token", required=True)
    parser.add_argument("--after", type=int, default=0)
    args = parser.parse_args()
    if args.after <= 0:
        reject(args.token)
    server: Server = Server("token-rejecting")
    served = [0]

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        schema = {"type": "object", "properties": {"text": {"type": "string"}}}
        return [types.Tool(name="echo", description="Echo the text.", inputSchema=schema)]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, str]) -> list[types.TextContent]:
        served[0] += 1
        if served[0] > args.after:
            reject(args.token)
        return [types.TextContent(type="text", text=arguments.get("text", ""))]

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main()
