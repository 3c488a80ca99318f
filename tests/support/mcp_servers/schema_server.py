"""MCP server whose ``fetch_page`` tool has an awkward input schema.

The input schema uses a ``$ref`` into ``$defs`` (``Page`` with a required
integer ``n``), an integer enum ``[0, 1, 3]``, ``anyOf[string, null]`` and a
property whose schema is just ``true``. A second, plain tool ``echo`` lives on
the same server. Built on the low-level server so the schema is sent exactly
as written here.

Run: ``python schema_server.py`` (stdio).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

FETCH_PAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "Page": {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "description": "1-based page number"},
                "size": {"type": "integer", "description": "items per page"},
            },
            "required": ["n"],
        }
    },
    "properties": {
        "page": {"$ref": "#/$defs/Page"},
        "mode": {"type": "integer", "enum": [0, 1, 3], "description": "0=raw, 1=text, 3=html"},
        "cursor": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "extra": True,
    },
    "required": ["page", "mode"],
}

ECHO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string", "description": "text to echo back"}},
    "required": ["text"],
}

server: Server[Any, Any] = Server("schema-server")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name="fetch_page",
            description="Fetch one page of a paginated listing.",
            inputSchema=FETCH_PAGE_SCHEMA,
        ),
        types.Tool(name="echo", description="Echo the given text back.", inputSchema=ECHO_SCHEMA),
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
    if name == "fetch_page":
        text = "fetch_page " + json.dumps(arguments, sort_keys=True)
    elif name == "echo":
        text = f"echo: {arguments['text']}"
    else:
        raise ValueError(f"unknown tool {name!r}")
    return [types.TextContent(type="text", text=text)]


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
