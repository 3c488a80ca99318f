"""`UIState`: what every page of the configuration UI works on (store, tool sources, options).

One `UIState` is built by `langchain_toolsearch.ui.app.create_app` and kept
on the Starlette application (``app.state.ui``). It holds the
`ToolConfigStore`, the tool sources a `ToolResolver` needs to resolve an
agent the way the application does (``registry``, ``integrations``,
``tool_providers``, ``code_tools``), the embeddings of the search
playground's hybrid mode, and the secret that signs the page's CSRF tokens.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_toolsearch.config.models import ToolProvider, VersionSelector
from langchain_toolsearch.config.records import VersionedRecords
from langchain_toolsearch.config.resolver import ToolResolver, _tool_map
from langchain_toolsearch.config.sources import ToolsArg
from langchain_toolsearch.config.store import ToolConfigStore

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.tools import BaseTool

__all__ = ["KIND_LABELS", "AuthHook", "UIState"]

AuthHook = Callable[[Any], bool]
"""``auth(request) -> bool``: a user-supplied check of each request (a Starlette
``Request``); ``False`` answers 401 and shows nothing."""

KIND_LABELS = {"agent": "agent", "mcp-client": "saved MCP client"}
"""Record kind (``agent`` / ``mcp-client``, as the CLI names them) -> what the page calls it."""


@dataclass
class UIState:
    """The store and tool sources the pages work on.

    Attributes:
        configs: The stored tool configuration.
        registry: Tool id -> tool that agents may select under ``tools``.
        code_tools: Tools defined in code for every agent (``None``: agents
            are stand-alone stored agents, as the CLI resolves them).
        integrations: Integration id -> its tools.
        tool_providers: Provider id -> `ToolProvider`.
        embeddings: LangChain ``Embeddings`` for the search playground's
            hybrid mode (``None``: BM25 only).
        mcp_timeout: Seconds allowed per MCP server when listing its tools.
        csrf_secret: Key that signs CSRF tokens (random per app).
        token: The access token every request must carry (``None``: none).
        auth: A user-supplied request check (``None``: none).
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

    @classmethod
    def build(
        cls,
        configs: ToolConfigStore,
        *,
        registry: ToolsArg | None = None,
        code_tools: ToolsArg | None = None,
        integrations: Mapping[str, ToolsArg] | None = None,
        tool_providers: Mapping[str, ToolProvider] | None = None,
        **options: Any,
    ) -> UIState:
        """A state with the tool sources normalised (sequences become id -> tool maps).

        Raises:
            ToolSearchConfigError: On duplicate tool ids.
            ToolSearchTypeError: On tools that are not ``BaseTool``.
        """
        return cls(
            configs,
            registry=_tool_map(registry, "registry") if registry else {},
            code_tools=None if code_tools is None else _tool_map(code_tools, "code_tools"),
            integrations=dict(integrations or {}),
            tool_providers=dict(tool_providers or {}),
            **options,
        )

    def records(self, kind: str) -> VersionedRecords[Any]:
        """The records of ``kind`` (``"agent"`` or ``"mcp-client"``)."""
        return self.configs.agents if kind == "agent" else self.configs.mcp_clients

    def resolver(self, agent_id: str, version: VersionSelector = "draft") -> ToolResolver:
        """A fresh, uncached `ToolResolver` for ``agent_id`` with this UI's tool sources.

        Fresh (``cache_ttl=0``, ``refresh_interval=0``) so a page always shows
        what the store holds now.
        """
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
