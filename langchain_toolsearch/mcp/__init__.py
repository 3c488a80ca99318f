"""MCP servers as tool libraries: listing, the session pool, guarded calls.

``library`` (``load_mcp_library``), ``pool`` (``MCPSessionPool``), ``session``,
``calls``, ``keys``, ``headers``, ``naming``; ``langchain-mcp-adapters`` (the
``[mcp]`` extra) is imported only when a server is reached.
"""

from __future__ import annotations

from langchain_toolsearch.mcp.library import (
    MCPLibrary,
    MCPToolRoute,
    load_mcp_library,
    load_mcp_tools,
    multi_server_mcp_client,
)
from langchain_toolsearch.mcp.pool import (
    MCPPoolClosedError,
    MCPPoolError,
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
