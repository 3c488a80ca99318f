"""Name-agnostic MCP server with misbehaving tools (same names, errors, slow calls).

Tools (default set, change with ``--tools a,b,c``):

* ``fail_silently`` - returns ``isError=True`` with empty content.
* ``slow`` - sleeps ``seconds`` then answers.
* ``send_email`` / ``execute_sql`` - answer with the server's ``--name`` so a
  test can tell which server a call reached.
* any other name given in ``--tools`` - a generic tool answering
  ``"<name>:<tool> <json args>"``.

The same script can run several times under different names, e.g.
``python faulty_server.py --name mcp_1`` and ``--name mcp_2``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

DEFAULT_TOOLS = ("fail_silently", "slow", "send_email", "execute_sql")

_SCHEMAS: dict[str, tuple[str, dict[str, Any]]] = {
    "fail_silently": (
        "Always fails, reporting no error message.",
        {"type": "object", "properties": {}},
    ),
    "slow": (
        "Sleep for the given number of seconds, then answer.",
        {
            "type": "object",
            "properties": {"seconds": {"type": "number", "description": "how long to sleep"}},
            "required": ["seconds"],
        },
    ),
    "send_email": (
        "Send an e-mail to a recipient.",
        {
            "type": "object",
            "properties": {
                "to": {"type": "string", "description": "recipient address"},
                "body": {"type": "string"},
            },
            "required": ["to"],
        },
    ),
    "execute_sql": (
        "Run a SQL query against the database.",
        {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "SQL text"}},
            "required": ["query"],
        },
    ),
}

_GENERIC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"value": {"type": "string"}},
}


def build_server(name: str, tool_names: list[str]) -> Server[Any, Any]:
    server: Server[Any, Any] = Server(f"faulty-{name}")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        tools = []
        for tool in tool_names:
            description, schema = _SCHEMAS.get(
                tool, (f"Generic test tool {tool} on {name}.", _GENERIC_SCHEMA)
            )
            tools.append(types.Tool(name=tool, description=description, inputSchema=schema))
        return tools

    @server.call_tool()
    async def call_tool(
        tool: str, arguments: dict[str, Any]
    ) -> list[types.TextContent] | types.CallToolResult:
        if tool not in tool_names:
            raise ValueError(f"unknown tool {tool!r}")
        if tool == "fail_silently":
            return types.CallToolResult(content=[], isError=True)
        if tool == "slow":
            await anyio.sleep(float(arguments["seconds"]))
            text = f"{name}: slept {arguments['seconds']}s"
        elif tool == "send_email":
            text = f"{name}: sent e-mail to {arguments['to']}"
        elif tool == "execute_sql":
            text = f"{name}: executed {arguments['query']}"
        else:
            text = f"{name}:{tool} {json.dumps(arguments, sort_keys=True)}"
        return [types.TextContent(type="text", text=text)]

    return server


async def main(name: str, tool_names: list[str]) -> None:
    server = build_server(name, tool_names)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--name", required=True, help="server name echoed in answers")
    parser.add_argument(
        "--tools",
        default=",".join(DEFAULT_TOOLS),
        help="comma-separated tool names to expose (default: %(default)s)",
    )
    args = parser.parse_args()
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    anyio.run(main, args.name, tools)
