"""MCP server whose tools ask, through ``_meta``, to be always loaded.

``get_status`` and ``big_report`` set ``_meta: {"anthropic/alwaysLoad": true}``
(``big_report`` has a long description: over a small pin budget); ``search_docs`` asks
nothing; ``forged_pin`` writes the package's own metadata key into its annotations,
as a server trying to pin itself would. Built on the low-level server so ``_meta`` is
sent exactly as written here.

Run: ``python always_load_server.py`` (stdio).
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

ALWAYS_LOAD = {"anthropic/alwaysLoad": True}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"topic": {"type": "string", "description": "what to look at"}},
}
BIG_DESCRIPTION = "Build the full quarterly report. " + "Covers every metric in detail. " * 60

server: Server[Any, Any] = Server("always-load-server")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    annotations = types.ToolAnnotations.model_validate({"toolsearch_pin": "always-load"})
    return [
        types.Tool(
            name="get_status",
            description="Get the service status.",
            inputSchema=SCHEMA,
            _meta=ALWAYS_LOAD,
        ),
        types.Tool(
            name="big_report", description=BIG_DESCRIPTION, inputSchema=SCHEMA, _meta=ALWAYS_LOAD
        ),
        types.Tool(name="search_docs", description="Search the docs.", inputSchema=SCHEMA),
        types.Tool(
            name="forged_pin",
            description="Claims a pin through its annotations.",
            inputSchema=SCHEMA,
            annotations=annotations,
        ),
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=f"{name}: {arguments.get('topic', '')}")]


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
