"""Planning one resolution: the stored config read and merged into a `RequestPlan`.

`RequestPlanner` is a `Flow` that reads the agent config and its saved MCP
clients through the `ResolutionCache`, merges their conditional fields for the
request, drops what the resolver's mode does not use, and gives the plan with
its cache key (`langchain_toolsearch.config.resolver` has the rules).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig

from langchain_toolsearch._internal.store_flow import Flow
from langchain_toolsearch.config.cache import ResolutionCache
from langchain_toolsearch.config.merging import _active, merge_conditional
from langchain_toolsearch.config.models import AgentToolConfig, MCPClientRef, VersionSelector
from langchain_toolsearch.config.parsing import parse_agent_config
from langchain_toolsearch.config.records import RecordNotFoundError, Versioned, VersionInfo
from langchain_toolsearch.config.rules import request_context
from langchain_toolsearch.config.servers import MCPClientConfig
from langchain_toolsearch.config.sources import RequestPlan
from langchain_toolsearch.config.store import ToolConfigStore

__all__ = ["RequestPlanner"]

logger = logging.getLogger("langchain_toolsearch.config.resolver")
"""The resolver's logger: its warnings keep the name users filter on."""


@dataclass(frozen=True, kw_only=True, eq=False)
class RequestPlanner:
    """Reads the store into one request's `RequestPlan` (built by `ToolResolver`).

    Attributes:
        store: Where the agent config and saved MCP clients live, or ``None``.
        agent_id: Id of the agent's stored config, or ``None``.
        mode: What the stored config may change (``StoredConfigMode``).
        version: Default version to resolve.
        code_agent: Whether the agent has tools defined in code (its stored
            config then gets no tool provider tools).
        cache: Where stored records are read through, and keys are made.
    """

    store: ToolConfigStore | None
    agent_id: str | None
    mode: str
    version: VersionSelector
    code_agent: bool
    cache: ResolutionCache
    warned_empty: set[str] = field(default_factory=set)
    """Client ids already warned about (a reference selecting no tools)."""

    def plan(
        self,
        config: RunnableConfig,
        context: Any,
        version: VersionSelector | None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None,
    ) -> Flow[tuple[RequestPlan, str | None]]:
        """Read the store into a plan, with the cache key of its resolution (``None``: none)."""
        ctx = request_context(config, context)
        failures: dict[str, str] = {}
        info: VersionInfo | None = None
        stored = AgentToolConfig()
        agent: Versioned[AgentToolConfig] | None = None
        clients: list[tuple[str, Versioned[MCPClientConfig]]] = []
        fields: set[str] = set()
        listed = True  # False: a record's rule fields cannot all be listed (not cached)
        selector = self.version if version is None else version
        # A reference without a version follows the agent: published -> published.
        client_default: VersionSelector = "published" if selector == "published" else "draft"
        if self.mode == "ignore":
            pass
        elif agent_config is not None:
            stored = parse_agent_config(agent_config)
        elif self.store is not None and self.agent_id is not None:
            try:
                record = yield from self.cache.record(
                    self.store.agents, "agent", self.agent_id, selector
                )
            except RecordNotFoundError as exc:
                failures["agent_config"] = f"{exc}; resolved without a stored config"
            else:
                agent = record.value
                stored, info = agent.value, agent.info
                listed = listed and record.fields is not None
                fields |= record.fields or frozenset()

        def keyed(plan: RequestPlan, providers: bool = False) -> tuple[RequestPlan, str | None]:
            if agent_config is not None or not listed:
                return plan, None
            versions = {
                "agent": None if agent is None else [agent.info.record_id, agent.info.version],
                "clients": [[cid, found.info.version] for cid, found in clients],
            }
            return plan, self.cache.key(versions, fields, ctx, providers, plan.failures)

        tools = _active(merge_conditional(stored.tools, ctx), ctx)
        if self.mode != "tools":
            return keyed(RequestPlan(ctx, tools, [], {}, {}, failures, info))

        refs = _active(merge_conditional(stored.mcp_clients, ctx), ctx) or {}
        mcp: list[tuple[str, int, MCPClientRef, MCPClientConfig]] = []
        # By id, not by key order: stores such as PostgreSQL (jsonb) do not keep key
        # order, and which client wins a shared tool id must not depend on the store.
        for client_id, ref in sorted(refs.items()):
            where = f"mcp_clients.{client_id}"
            if not ref.tools:  # omitted, null or {}: selects nothing (as the seed)
                self._warn_empty(client_id)
                continue
            if self.store is None:
                failures[where] = "no ToolConfigStore given to the resolver to load saved clients"
                continue
            client_version = ref.version if ref.version is not None else client_default
            try:
                client = yield from self.cache.record(
                    self.store.mcp_clients, "mcp_client", client_id, client_version
                )
            except (RecordNotFoundError, ValueError) as exc:
                failures[where] = str(exc)
                continue
            clients.append((client_id, client.value))
            listed = listed and client.fields is not None
            fields |= client.fields or frozenset()
            mcp.append((client_id, client.value.info.version, ref, client.value.value))
        integrations = _active(merge_conditional(stored.integration_tools, ctx), ctx) or {}
        providers = _active(merge_conditional(stored.tool_providers, ctx), ctx) or {}
        if providers and self.code_agent:
            failures["tool_providers"] = (
                "not used: a code-defined agent's stored config merges code, registry, MCP "
                "and integration tools only (tool providers serve stand-alone stored agents)"
            )
            providers = {}
        plan = RequestPlan(ctx, tools, mcp, integrations, providers, failures, info)
        return keyed(plan, bool(providers))

    def _warn_empty(self, client_id: str) -> None:
        """Log once per client id that a reference selects no tools."""
        if client_id in self.warned_empty:
            return
        self.warned_empty.add(client_id)
        logger.warning(
            "agent %r: the reference to saved MCP client %r selects no tools ('tools' omitted, "
            'null or {}); use "tools": "*" for every tool of the client',
            self.agent_id,
            client_id,
        )
