"""`ToolConfigStore`: versioned agent tool configs and saved MCP clients.

Each kind is `VersionedRecords` in any LangGraph `BaseStore`, under ``prefix``
(default ``("toolsearch",)``)::

    (*prefix, "agent_tool_configs")       agent tool configs (`AgentToolConfig`)
    (*prefix, "mcp_clients")              saved MCP clients (`MCPClientConfig`)

Several writers are safe on memory, SQLite and PostgreSQL stores
(`langchain_toolsearch.config.write_guard`); others warn (`SingleWriterWarning`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from langgraph.store.base import BaseStore

from langchain_toolsearch.config.models import AgentToolConfig
from langchain_toolsearch.config.parsing import parse_agent_config, parse_mcp_client
from langchain_toolsearch.config.records import VersionedRecords
from langchain_toolsearch.config.servers import MCPClientConfig
from langchain_toolsearch.config.write_guard import write_guard
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError

__all__ = ["ToolConfigStore"]


class ToolConfigStore:
    """Versioned agent tool configs and saved MCP clients in a LangGraph `BaseStore`.

    Example:
        ```python
        from langgraph.store.memory import InMemoryStore
        from langchain_toolsearch import ToolConfigStore

        configs = ToolConfigStore(InMemoryStore())
        configs.mcp_clients.create("time", {"servers": {"time": {"command": "mcp-server-time"}}})
        configs.agents.save("support", {"tools": {"get_weather": {}},
                                        "mcp_clients": {"time": {}}})
        configs.agents.publish("support")            # the draft becomes published
        configs.agents.get("support", "published")   # -> AgentToolConfig

        # compare-and-set: save only if nobody saved since version 1 was read
        seen = configs.agents.info("support").latest_version
        configs.agents.save("support", {"tools": {}}, if_version=seen, publish=True)
        ```

    Attributes:
        agents: `VersionedRecords` of `AgentToolConfig`, keyed by agent id.
        mcp_clients: `VersionedRecords` of `MCPClientConfig`, keyed by client id.

    Args:
        store: Any LangGraph `BaseStore`; sync methods need its ``batch``,
            async ones its ``abatch``.
        namespace: Namespace prefix for every item written (labels must not
            contain ``"."``).
        clock: Epoch-seconds clock used for timestamps (for tests).
        lock_timeout: Seconds a write waits for its record's write lock
            before `WriteLockError` (default 30).

    Raises:
        TypeError: If ``store`` is not a `BaseStore`.
        ValueError: If ``namespace`` is empty or has an empty label or one
            containing ``"."``, or ``lock_timeout`` is not a positive number.
    """

    def __init__(
        self,
        store: BaseStore,
        *,
        namespace: Sequence[str] = ("toolsearch",),
        clock: Callable[[], float] = time.time,
        lock_timeout: float = 30.0,
    ) -> None:
        if not isinstance(store, BaseStore):
            msg = f"store must be a langgraph BaseStore (e.g. InMemoryStore), got {store!r}"
            raise ToolSearchTypeError(msg)
        if (
            isinstance(lock_timeout, bool)
            or not isinstance(lock_timeout, int | float)
            or not 0 < lock_timeout < float("inf")
        ):
            msg = f"lock_timeout must be a positive number of seconds, got {lock_timeout!r}"
            raise ToolSearchConfigError(msg)
        prefix = tuple(namespace)
        if not prefix or any(
            not isinstance(label, str) or not label or "." in label for label in prefix
        ):
            msg = f"namespace must be non-empty labels without '.', got {namespace!r}"
            raise ToolSearchConfigError(msg)
        self.store = store
        guard = write_guard(store, timeout=float(lock_timeout))
        self.agents: VersionedRecords[AgentToolConfig] = VersionedRecords(
            store,
            (*prefix, "agent_tool_configs"),
            parse_agent_config,
            "agent tool config",
            clock,
            guard,
        )
        self.mcp_clients: VersionedRecords[MCPClientConfig] = VersionedRecords(
            store, (*prefix, "mcp_clients"), parse_mcp_client, "saved MCP client", clock, guard
        )
