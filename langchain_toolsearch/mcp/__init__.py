"""MCP servers as tool libraries: listing, the session pool, guarded calls.

`load_mcp_library` (an `MCPLibrary`) and the `MCPSessionPool` its sessions live in;
``langchain-mcp-adapters`` (the ``[mcp]`` extra) is imported only when a server is
reached. Modules: ``_session`` (one pooled session), ``_pool`` (the pool),
``_library`` (the library).
"""

from __future__ import annotations

from langchain_toolsearch.errors import MCPPoolClosedError, MCPPoolError
from langchain_toolsearch.mcp._library import (
    MCPLibrary,
    MCPToolRoute,
    load_mcp_library,
    load_mcp_tools,
    multi_server_mcp_client,
)
from langchain_toolsearch.mcp._pool import (
    MCPSessionPool,
    PoolStats,
    default_pool,
    set_default_pool,
)

__all__ = [
    "MCPLibrary",
    "MCPPoolClosedError",
    "MCPPoolError",
    "MCPSessionPool",
    "MCPToolRoute",
    "PoolStats",
    "default_pool",
    "load_mcp_library",
    "load_mcp_tools",
    "multi_server_mcp_client",
    "set_default_pool",
]
