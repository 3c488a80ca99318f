"""`UIState`: the store, tool sources and options every page works on (``app.state.ui``)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_toolsearch_editor._models import ToolProvider, VersionSelector
from langchain_toolsearch_editor._records import VersionedRecords
from langchain_toolsearch_editor._resolver import ToolResolver
from langchain_toolsearch_editor._sources import ToolsArg
from langchain_toolsearch_editor._store import ToolConfigStore, records_of

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.tools import BaseTool

AuthHook = Callable[[Any], bool]
"""``auth(request) -> bool`` on a Starlette ``Request``; ``False`` answers 401."""

KIND_LABELS = {"agent": "agent", "mcp-client": "saved MCP client"}
"""Record kind (as the CLI names it) -> what the page calls it."""
KIND_PATHS = {"agent": "agents", "mcp-client": "clients"}
"""Record kind -> its URL segment."""
PATH_KINDS = {path: kind for kind, path in KIND_PATHS.items()}
"""URL segment -> record kind."""


@dataclass
class UIState:
    """The store and tool sources the pages work on (arguments of `create_app`).

    Attributes:
        configs: The stored tool configuration.
        registry: Tool id -> tool agents may select under ``tools``.
        code_tools: Tools in code for every agent (``None``: stand-alone stored agents).
        integrations: Integration id -> its tools.
        tool_providers: Provider id -> `ToolProvider`.
        embeddings: For the search playground's hybrid mode (``None``: BM25 only).
        mcp_timeout: Seconds per MCP server when listing its tools.
        csrf_secret: Key signing CSRF tokens (random per app).
        token: Access token every request must carry (``None``: none).
        auth: Request check of the user's (``None``: none).
        allowed_hosts: ``Host`` names accepted (``"*"``, ``"*.example.com"`` patterns);
            ``None``: loopback names only on a loopback connection (`host_allowed`).
    """

    configs: ToolConfigStore
    registry: dict[str, BaseTool] = field(default_factory=dict)
    code_tools: dict[str, BaseTool] | None = None
    integrations: dict[str, ToolsArg] = field(default_factory=dict)
    tool_providers: dict[str, ToolProvider] = field(default_factory=dict)
    embeddings: Embeddings | None = None
    mcp_timeout: float = 20.0
    csrf_secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    token: str | None = None
    auth: AuthHook | None = None
    allowed_hosts: tuple[str, ...] | None = None

    def records(self, kind: str) -> VersionedRecords[Any]:
        """The records of ``kind`` (``"agent"`` or ``"mcp-client"``)."""
        return records_of(self.configs, kind)

    def resolver(self, agent_id: str, version: VersionSelector = "draft") -> ToolResolver:
        """An uncached `ToolResolver` for ``agent_id`` over these sources (reads the store now)."""
        return ToolResolver(
            store=self.configs,
            agent_id=agent_id,
            version=version,
            code_tools=self.code_tools,
            registry=self.registry,
            integrations=self.integrations,
            tool_providers=self.tool_providers,
            mcp_timeout=self.mcp_timeout,
            refresh_interval=0,
            cache_ttl=0,
        )
