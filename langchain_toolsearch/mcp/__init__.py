"""MCP servers as tool libraries: listing, the session pool, guarded calls.

* :mod:`.library`: ``load_mcp_library`` and ``MCPLibrary`` (servers -> tools).
* :mod:`.pool`: ``MCPSessionPool``, one started session per server and key.
* :mod:`.session`: a pooled session and its tool listing.
* :mod:`.calls`: a listed MCP tool as a guarded, time-bounded LangChain tool.
* :mod:`.keys`: session keys and pool statistics.
* :mod:`.headers`: request headers merged by case-insensitive name.
* :mod:`.naming`: exposed tool names and their routes.

Nothing here imports ``langchain-mcp-adapters`` until a server is reached
(``pip install 'langchain-toolsearch[mcp]'``).
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
