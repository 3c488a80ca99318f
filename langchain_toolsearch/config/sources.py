"""Collecting one request's tools, source by source, into `ResolvedTools`.

`ToolResolver` reads the store into a `RequestPlan`, then a `ToolCollector`
contacts the plan's MCP servers and tool providers concurrently and merges
the sources in order: code tools, registered tools, saved MCP servers'
tools (through the server's and the agent's allowlists), integration tools,
tool provider tools. Source order, allowlists and description precedence are
described in `langchain_toolsearch.config.resolver`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.errors import GraphBubbleUp

from langchain_toolsearch._internal.bridge import detached_timeout
from langchain_toolsearch.config.connections import (
    BadAuthToken,
    ServerTools,
    bearer_token,
    load_server_tools,
)
from langchain_toolsearch.config.merging import (
    MCPToolSource,
    ResolvedTools,
    _active,
    _description,
    _Merged,
    _pick,
)
from langchain_toolsearch.config.models import (
    AUTH_TOKEN_KEY,
    MASTRA_AUTH_TOKEN_KEY,
    AgentToolEntry,
    MCPClientRef,
    SourceRef,
)
from langchain_toolsearch.config.providers import ToolProvider
from langchain_toolsearch.config.records import VersionInfo
from langchain_toolsearch.config.servers import MCPClientConfig

__all__ = ["RequestPlan", "ToolCollector"]

# Resolution warnings keep the resolver's logger name, whichever module logs them.
logger = logging.getLogger("langchain_toolsearch.config.resolver")


@dataclass
class RequestPlan:
    """Everything read from the store for one request."""

    context: dict[str, Any]
    tools: dict[str, AgentToolEntry] | None
    mcp: list[tuple[str, int, MCPClientRef, MCPClientConfig]]
    """Saved MCP clients: (id, the version resolved, the agent's reference, the client)."""
    integrations: dict[str, SourceRef]
    providers: dict[str, SourceRef]
    failures: dict[str, str]
    version: VersionInfo | None


class ToolCollector:
    """Turns a `RequestPlan` into `ResolvedTools` (built by `ToolResolver`).

    Args:
        code: Tools defined in code, by id.
        registry: Tools that stored configs may select by id.
        integrations: Integration id -> its tools by id.
        providers: Provider id -> `ToolProvider`.
        select: Whether the stored config may add and remove tools
            (``mode="tools"``); otherwise it only overrides descriptions of
            the code tools.
        mcp_timeout: Seconds per saved MCP server without its own
            ``timeout``; ``None``: none.
        provider_timeout: Seconds per provider; ``None``: none.
        token_key: Request-context key of the bearer token for HTTP servers.
    """

    def __init__(
        self,
        *,
        code: dict[str, BaseTool],
        registry: dict[str, BaseTool],
        integrations: dict[str, dict[str, BaseTool]],
        providers: dict[str, ToolProvider],
        select: bool,
        mcp_timeout: float | None,
        provider_timeout: float | None,
        token_key: str,
    ) -> None:
        self._code = code
        self._registry = registry
        self._integrations = integrations
        self._providers = providers
        self._select = select
        self._mcp_timeout = mcp_timeout
        self._provider_timeout = provider_timeout
        self._token_key = token_key

    async def collect(self, plan: RequestPlan, config: RunnableConfig) -> ResolvedTools:
        """Contact the plan's MCP servers and providers, then merge every source in order."""
        failures = dict(plan.failures)
        merged = _Merged()
        routes: dict[str, MCPToolSource] = {}

        # MCP servers and providers are contacted concurrently, merged in order.
        mcp_jobs = self._mcp_jobs(plan)
        provider_jobs = {
            provider_id: self._provider_job(provider_id, source, plan, config)
            for provider_id, source in plan.providers.items()
            if provider_id in self._providers
        }
        mcp_results, provider_results = await asyncio.gather(
            asyncio.gather(*(job for *_, job in mcp_jobs)),
            asyncio.gather(*provider_jobs.values()),
        )
        self._add_code_and_registry(plan.tools, merged, failures)
        for (client_id, ref, client, _), result in zip(mcp_jobs, mcp_results, strict=True):
            self._add_mcp_server(
                client_id, ref, client, result, plan.context, merged, routes, failures
            )
        self._add_integrations(plan, merged, failures)
        outcomes = dict(zip(provider_jobs, provider_results, strict=True))
        self._add_providers(plan, outcomes, merged, failures)

        return ResolvedTools(
            tools=list(merged.tools.values()),
            failures=failures,
            sources=dict(merged.sources),
            replaced=tuple(merged.replaced),
            mcp_routes={
                key: value
                for key, value in routes.items()
                if merged.sources.get(key, "").startswith("mcp:")
            },
            version=plan.version,
        )

    def _add_mcp_server(
        self,
        client_id: str,
        ref: MCPClientRef,
        client: MCPClientConfig,
        result: ServerTools,
        ctx: Mapping[str, Any],
        merged: _Merged,
        routes: dict[str, MCPToolSource],
        failures: dict[str, str],
    ) -> None:
        """Source 3: one server of a saved MCP client, through both allowlists."""
        where = f"mcp_clients.{client_id}.servers.{result.server}"
        if result.failure is not None:
            failures[where] = result.failure  # logged by the resolver, once, without secrets
            return
        server_entries = _active(client.servers[result.server].tools, ctx)
        agent_entries = None if isinstance(ref.tools, str) else _active(ref.tools, ctx)
        for tool in result.tools:
            route = result.routes[tool.name]
            keys = (tool.name, route.tool)  # namespaced id first, then the tool's own name
            server_entry = _pick(server_entries, keys)
            agent_entry = _pick(agent_entries, keys)
            if (server_entries is not None and server_entry is None) or (
                agent_entries is not None and agent_entry is None
            ):
                continue
            description = _description(agent_entry)
            if description is None:  # the agent's override beats the server's
                description = _description(server_entry)
            merged.put(tool.name, tool, f"mcp:{client_id}/{result.server}", description)
            routes[tool.name] = MCPToolSource(client_id, result.server, route.tool)

    def _add_integrations(
        self, plan: RequestPlan, merged: _Merged, failures: dict[str, str]
    ) -> None:
        """Source 4: integration tools."""
        for integration_id, source in plan.integrations.items():
            where = f"integration_tools.{integration_id}"
            if integration_id not in self._integrations:
                failures[where] = f"integration {integration_id!r} is not registered"
                continue
            available = self._integrations[integration_id]
            allowed = _active(source.tools, plan.context)
            for tool_id, tool in available.items():
                if allowed is None or tool_id in allowed:
                    entry = allowed.get(tool_id) if allowed is not None else None
                    merged.put(tool_id, tool, f"integration:{integration_id}", _description(entry))
            for tool_id in allowed or {}:
                if tool_id not in available:
                    failures[f"{where}.tools.{tool_id}"] = (
                        f"integration {integration_id!r} has no tool {tool_id!r}"
                    )

    def _add_providers(
        self,
        plan: RequestPlan,
        outcomes: Mapping[str, tuple[list[str], dict[str, BaseTool]] | str],
        merged: _Merged,
        failures: dict[str, str],
    ) -> None:
        """Source 5: tool provider tools."""
        for provider_id, source in plan.providers.items():
            where = f"tool_providers.{provider_id}"
            if provider_id not in self._providers:
                failures[where] = f"tool provider {provider_id!r} is not registered"
                continue
            outcome = outcomes[provider_id]
            if isinstance(outcome, str):
                failures[where] = outcome  # logged by the resolver, once, without secrets
                continue
            wanted, got = outcome
            chosen = _active(source.tools, plan.context)
            for tool_id in wanted:
                if tool_id in got:
                    entry = chosen.get(tool_id) if chosen is not None else None
                    merged.put(
                        tool_id, got[tool_id], f"provider:{provider_id}", _description(entry)
                    )
                else:
                    failures[f"{where}.tools.{tool_id}"] = (
                        f"tool provider {provider_id!r} did not resolve {tool_id!r}"
                    )

    def _add_code_and_registry(
        self,
        selection: dict[str, AgentToolEntry] | None,
        merged: _Merged,
        failures: dict[str, str],
    ) -> None:
        """Sources 1 and 2: tools defined in code, then registered tools.

        Code tools are kept (as the seed system's code agents keep theirs):
        an entry re-describes one, ``{"remove": true}`` removes one (mode
        ``"tools"`` only), any other id adds that registered tool.
        """
        entries = selection or {}
        for tool_id, tool in self._code.items():
            entry = entries.get(tool_id)
            if entry is not None and entry.remove and self._select:
                continue
            merged.put(tool_id, tool, "code", None if entry is None else entry.description)
        for tool_id, entry in entries.items():
            where = f"tools.{tool_id}"
            if entry.remove:
                if tool_id not in self._code:
                    failures[where] = f"'remove': no tool with id {tool_id!r} is defined in code"
                elif not self._select:
                    failures[where] = (
                        "not removed: mode 'descriptions' only changes descriptions of the "
                        "tools defined in code"
                    )
            elif not self._select:
                continue  # descriptions only: nothing is added
            elif tool_id in self._registry:
                merged.put(tool_id, self._registry[tool_id], "registry", entry.description)
            elif tool_id not in self._code:
                failures[where] = (
                    f"no tool with id {tool_id!r} is defined in code or in the registry"
                )

    def _mcp_jobs(
        self, plan: RequestPlan
    ) -> list[tuple[str, MCPClientRef, MCPClientConfig, Awaitable[ServerTools]]]:
        token: str | None = None
        bad_token: str | None = None
        key = self._token_key
        if key == AUTH_TOKEN_KEY and plan.context.get(key) is None:
            key = MASTRA_AUTH_TOKEN_KEY  # the seed system's name for the same token
        try:
            token = bearer_token(plan.context.get(key), key=key)
        except BadAuthToken as exc:
            bad_token = str(exc)
        jobs: list[tuple[str, MCPClientRef, MCPClientConfig, Awaitable[ServerTools]]] = []
        for client_id, version, ref, client in plan.mcp:
            # The version is in the pool key: a new version never reuses the old one's session.
            scope = f"{client_id}@{version}"
            for name, server in client.servers.items():
                if bad_token is not None and server.type == "http":
                    job: Awaitable[ServerTools] = _done(ServerTools(server=name, failure=bad_token))
                else:
                    job = load_server_tools(
                        name,
                        server,
                        token=token,
                        default_timeout=self._mcp_timeout,
                        scope=scope,
                    )
                jobs.append((client_id, ref, client, job))
        return jobs

    async def _provider_job(
        self, provider_id: str, ref: SourceRef, plan: RequestPlan, config: RunnableConfig
    ) -> tuple[list[str], dict[str, BaseTool]] | str:
        provider = self._providers[provider_id]
        entries = _active(ref.tools, plan.context)
        try:
            async with detached_timeout(self._provider_timeout):
                if entries is None:
                    listed = await provider.list_tools()
                    wanted = list(dict.fromkeys(str(info["id"]) for info in listed))
                else:
                    wanted = list(entries)
                if not wanted:
                    return [], {}
                tools = await provider.resolve_tools(
                    list(wanted), config=config, context=dict(plan.context)
                )
        except GraphBubbleUp:
            raise
        except TimeoutError:
            seconds = self._provider_timeout
            return f"tool provider {provider_id!r} did not answer within {seconds:g} s"
        except Exception as exc:
            text = str(exc).strip()
            return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        got: dict[str, BaseTool] = {}
        for tool in tools:
            if not isinstance(tool, BaseTool):
                return f"resolve_tools returned a {type(tool).__name__}, not a BaseTool"
            if tool.name in wanted and tool.name not in got:
                got[tool.name] = tool
        return wanted, got


async def _done(value: ServerTools) -> ServerTools:
    return value
