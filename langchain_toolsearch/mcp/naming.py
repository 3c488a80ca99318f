"""Exposed names of MCP tools: `MCPToolRoute`, namespacing and collision messages."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from langchain_core.tools import StructuredTool

from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch.errors import ToolSearchConfigError

__all__ = ["MCPToolRoute", "NamespaceMode", "assign_names", "collision_message"]

logger = logging.getLogger("langchain_toolsearch.mcp.library")  # where users filter MCP logs

NamespaceMode = Literal["on-collision", "always"]
"""How exposed tool names are built from server and tool names."""


@dataclass(frozen=True)
class MCPToolRoute:
    """Where an exposed MCP tool name is sent.

    Attributes:
        server: Name of the server in the client's ``connections``.
        tool: The tool's own name on that server.
    """

    server: str
    tool: str


def assign_names(
    listed: Mapping[str, list[tuple[str, StructuredTool]]], namespace: NamespaceMode
) -> dict[str, tuple[MCPToolRoute, StructuredTool]]:
    """Exposed name -> (route, adapter tool) of every listed tool (meta names namespaced).

    Args:
        listed: Server name -> ``(original name, tool)`` pairs.
        namespace: The naming mode.

    Returns:
        The exposed names.

    Raises:
        ValueError: Two tools get the same exposed name.
    """
    owners: dict[str, set[str]] = {}
    for server, pairs in listed.items():
        for original, _ in pairs:
            owners.setdefault(original, set()).add(server)

    named: dict[str, tuple[MCPToolRoute, StructuredTool]] = {}
    for server in sorted(listed):
        for original, tool in listed[server]:
            reserved = original in META_TOOL_NAMES
            if reserved and namespace != "always":
                logger.warning(
                    "MCP server %r has a tool named %r, which is reserved for the tool-search "
                    "meta tools; it is exposed as %r",
                    server,
                    original,
                    f"{server}_{original}",
                )
            if namespace == "always" or reserved or len(owners[original]) > 1:
                exposed = f"{server}_{original}"
            else:
                exposed = original
            route = MCPToolRoute(server=server, tool=original)
            if exposed in named:
                raise ToolSearchConfigError(collision_message(exposed, named[exposed][0], route))
            named[exposed] = (route, tool)
    return named


def collision_message(exposed: str, first: MCPToolRoute, second: MCPToolRoute) -> str:
    """The error message for two routes given the same exposed name, with the fix."""
    if first.server == second.server:
        return (
            f"MCP server {first.server!r} lists the tool {first.tool!r} more than once, "
            f"so {exposed!r} would be ambiguous. Fix the server, or leave it out of the "
            "MultiServerMCPClient connections."
        )
    return (
        f"MCP tool name collision: tool {first.tool!r} on server {first.server!r} and "
        f"tool {second.tool!r} on server {second.server!r} would both be exposed as "
        f"{exposed!r}. Rename one of these servers in the MultiServerMCPClient "
        f"connections (for example {second.server!r} -> {second.server + '2'!r}) so the "
        "server-prefixed names differ."
    )
