"""Tool sources of a resolution: collected, merged in order, returned as `ResolvedTools`.

Sources: code tools, registered tools, saved MCP servers', integrations',
providers'; a later source's tool with an id already seen replaces the earlier
one whole (warned, `Replacement`). `merge_conditional` picks a field's variants.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeAlias, TypeVar, cast

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.errors import GraphBubbleUp

from langchain_toolsearch._effects import detached_timeout
from langchain_toolsearch.types import SourceFailure
from langchain_toolsearch_editor._models import (
    AUTH_TOKEN_KEY,
    MASTRA_AUTH_TOKEN_KEY,
    AgentToolConfig,
    AgentToolEntry,
    MCPClientRef,
    SourceRef,
    ToolEntry,
    ToolProvider,
    Variant,
    VersionInfo,
)
from langchain_toolsearch_editor._rules import evaluate_rules
from langchain_toolsearch_editor._servers import (
    MCPClientConfig,
    ServerTools,
    bearer_token,
    load_server_tools,
)
from langchain_toolsearch_editor.errors import BadAuthToken

logger = logging.getLogger("langchain_toolsearch_editor._resolver")

ToolsArg: TypeAlias = Sequence[BaseTool] | Mapping[str, BaseTool]
"""Tools as a sequence (ids are the tool names) or a mapping id -> tool."""

ValueT = TypeVar("ValueT")


class Replacement(NamedTuple):
    """A ``tool_id`` two sources gave: ``replaced`` (the dropped one's source) ``by`` the kept."""

    tool_id: str
    replaced: str
    by: str


@dataclass(frozen=True)
class MCPToolSource:
    """Where a resolved MCP tool comes from: saved ``client`` id, ``server``, own ``tool`` name."""

    client: str
    server: str
    tool: str


@dataclass(frozen=True)
class ResolvedTools:
    """The tools resolved for one request.

    Attributes:
        tools: Named by their (unique) ids, for ``ToolSearchMiddleware(tools=...)``.
        failures: Source path (``"mcp_clients.docs.servers.search"``,
            ``"tools.unknown_id"``, ``"agent_config"``, ...) -> why it was skipped.
        sources: Tool id -> ``"code"``, ``"registry"``, ``"mcp:<client>/<server>"``,
            ``"integration:<id>"`` or ``"provider:<id>"``.
        replaced: Ids more than one source gave, in merge order.
        mcp_routes: MCP tool id -> its `MCPToolSource`.
        version: The stored config version used, or ``None``.
        errors: ``failures`` as `SourceFailure` (redacted), in order.
    """

    tools: list[BaseTool]
    failures: Mapping[str, str] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    replaced: Sequence[Replacement] = ()
    mcp_routes: Mapping[str, MCPToolSource] = field(default_factory=dict)
    version: VersionInfo | None = None
    errors: Sequence[SourceFailure] = ()

    @property
    def names(self) -> list[str]:
        """Tool names, in order."""
        return [tool.name for tool in self.tools]


def merge_conditional(
    value: ValueT | list[Variant[ValueT]] | None, context: Mapping[str, Any]
) -> ValueT | None:
    """A conditional field's value for a request (a plain value as is).

    For variants: the shallow merge, in order, of those whose rules match (``None``: none).
    """
    if not isinstance(value, list):
        return value
    merged: dict[str, Any] | None = None
    for variant in value:
        if evaluate_rules(variant.rules, context):
            merged = {**(merged or {}), **cast("Mapping[str, Any]", variant.value)}
    return cast("ValueT | None", merged)


EntryT = TypeVar("EntryT", AgentToolEntry, ToolEntry, SourceRef, MCPClientRef)


def active_variants(
    entries: Mapping[str, EntryT] | None, context: Mapping[str, Any]
) -> dict[str, EntryT] | None:
    """Drop entries whose rules do not match; keep ``None`` (no allowlist) as is."""
    if entries is None:
        return None
    return {key: entry for key, entry in entries.items() if evaluate_rules(entry.rules, context)}


@dataclass
class _Merged:
    """Tools collected so far, by id, in first-seen order; the MCP ones' routes; failures."""

    failures: dict[str, str]
    tools: dict[str, BaseTool] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    replaced: list[Replacement] = field(default_factory=list)
    routes: dict[str, MCPToolSource] = field(default_factory=dict)

    def put(self, tool_id: str, tool: BaseTool, source: str, description: str | None) -> None:
        update: dict[str, Any] = {}
        if tool.name != tool_id:
            update["name"] = tool_id
        if description is not None and description != tool.description:
            update["description"] = description
        if update:
            tool = tool.model_copy(update=update)
        if tool_id in self.tools:
            previous = self.sources[tool_id]
            why = "tool id %r from %s replaces the tool from %s (a later source wins whole)"
            logger.warning(why, tool_id, source, previous)
            self.replaced.append(Replacement(tool_id, previous, source))
        self.tools[tool_id] = tool
        self.sources[tool_id] = source


def _pick(entries: Mapping[str, ToolEntry] | None, keys: Sequence[str]) -> ToolEntry | None:
    return next((entries[key] for key in keys if key in entries), None) if entries else None


def _description(entry: ToolEntry | None) -> str | None:
    return entry.description if entry is not None else None


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
    stored: AgentToolConfig
    """The agent config merged: the stored one at ``version``, the given one, or empty."""


_MCPJob: TypeAlias = tuple[str, MCPClientRef, MCPClientConfig, Awaitable[ServerTools]]
"""One saved server's listing: client id, the agent's reference, the client, the listing."""
_Offer: TypeAlias = tuple[list[str], dict[str, BaseTool]] | str
"""A provider's answer: the ids asked for and the tools it gave by id, or its failure."""


@dataclass(frozen=True, kw_only=True)
class ToolCollector:
    """Turns a `RequestPlan` into `ResolvedTools` (`ToolResolver`'s arguments, by id).

    ``select``: the stored config may add and remove tools (``mode="tools"``).
    """

    code: dict[str, BaseTool]
    registry: dict[str, BaseTool]
    integrations: dict[str, dict[str, BaseTool]]
    providers: dict[str, ToolProvider]
    select: bool
    mcp_timeout: float | None
    provider_timeout: float | None
    token_key: str

    async def collect(self, plan: RequestPlan, config: RunnableConfig) -> ResolvedTools:
        """Contact the MCP servers and providers concurrently, then merge sources in order."""
        merged = _Merged(dict(plan.failures))
        mcp_jobs = self._mcp_jobs(plan)
        provider_jobs = {
            provider_id: self._provider_job(provider_id, source, plan, config)
            for provider_id, source in plan.providers.items()
            if provider_id in self.providers
        }
        mcp_results, provider_results = await asyncio.gather(
            asyncio.gather(*(job for *_, job in mcp_jobs)), asyncio.gather(*provider_jobs.values())
        )
        self._add_code_and_registry(plan.tools, merged)
        for job, result in zip(mcp_jobs, mcp_results, strict=True):
            self._add_mcp_server(job, result, plan.context, merged)
        self._add_integrations(plan, merged)
        self._add_providers(plan, dict(zip(provider_jobs, provider_results, strict=True)), merged)

        routes = merged.routes
        kept = {k: v for k, v in routes.items() if merged.sources.get(k, "").startswith("mcp:")}
        tools, sources = list(merged.tools.values()), dict(merged.sources)
        replaced = tuple(merged.replaced)
        return ResolvedTools(tools, merged.failures, sources, replaced, kept, plan.version)

    def _add_mcp_server(
        self, job: _MCPJob, result: ServerTools, ctx: Mapping[str, Any], merged: _Merged
    ) -> None:
        client_id, ref, client, _ = job
        where = f"mcp_clients.{client_id}.servers.{result.server}"
        if result.failure is not None:
            merged.failures[where] = result.failure  # logged by the resolver, once, no secrets
            return
        server_entries = active_variants(client.servers[result.server].tools, ctx)
        agent_entries = None if isinstance(ref.tools, str) else active_variants(ref.tools, ctx)
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
            merged.routes[tool.name] = MCPToolSource(client_id, result.server, route.tool)

    def _add_integrations(self, plan: RequestPlan, merged: _Merged) -> None:
        failures = merged.failures
        for integration_id, source in plan.integrations.items():
            where = f"integration_tools.{integration_id}"
            if integration_id not in self.integrations:
                failures[where] = f"integration {integration_id!r} is not registered"
                continue
            available = self.integrations[integration_id]
            allowed = active_variants(source.tools, plan.context)
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
        self, plan: RequestPlan, outcomes: Mapping[str, _Offer], merged: _Merged
    ) -> None:
        failures = merged.failures
        for provider_id, source in plan.providers.items():
            where = f"tool_providers.{provider_id}"
            if provider_id not in self.providers:
                failures[where] = f"tool provider {provider_id!r} is not registered"
                continue
            outcome = outcomes[provider_id]
            if isinstance(outcome, str):
                failures[where] = outcome  # logged by the resolver, once, without secrets
                continue
            wanted, got = outcome
            chosen = active_variants(source.tools, plan.context)
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
        self, selection: dict[str, AgentToolEntry] | None, merged: _Merged
    ) -> None:
        entries, failures = selection or {}, merged.failures
        for tool_id, tool in self.code.items():
            entry = entries.get(tool_id)
            if entry is not None and entry.remove and self.select:
                continue
            merged.put(tool_id, tool, "code", None if entry is None else entry.description)
        for tool_id, entry in entries.items():
            where = f"tools.{tool_id}"
            if entry.remove:
                if tool_id not in self.code:
                    failures[where] = f"'remove': no tool with id {tool_id!r} is defined in code"
                elif not self.select:
                    failures[where] = (
                        "not removed: mode 'descriptions' only changes descriptions of the "
                        "tools defined in code"
                    )
            elif not self.select:
                continue  # descriptions only: nothing is added
            elif tool_id in self.registry:
                merged.put(tool_id, self.registry[tool_id], "registry", entry.description)
            elif tool_id not in self.code:
                failures[where] = (
                    f"no tool with id {tool_id!r} is defined in code or in the registry"
                )

    def _mcp_jobs(self, plan: RequestPlan) -> list[_MCPJob]:
        token: str | None = None
        bad_token: str | None = None
        key = self.token_key
        if key == AUTH_TOKEN_KEY and plan.context.get(key) is None:
            key = MASTRA_AUTH_TOKEN_KEY  # the seed system's name for the same token
        try:
            token = bearer_token(plan.context.get(key), key=key)
        except BadAuthToken as exc:
            bad_token = str(exc)
        jobs: list[_MCPJob] = []
        for client_id, version, ref, client in plan.mcp:
            scope = f"{client_id}@{version}"
            for name, server in client.servers.items():
                if bad_token is not None and server.type == "http":
                    failed = ServerTools(server=name, failure=bad_token)
                    job: Awaitable[ServerTools] = asyncio.sleep(0, failed)  # known already
                else:
                    job = load_server_tools(
                        name, server, token=token, default_timeout=self.mcp_timeout, scope=scope
                    )
                jobs.append((client_id, ref, client, job))
        return jobs

    async def _provider_job(
        self, provider_id: str, ref: SourceRef, plan: RequestPlan, config: RunnableConfig
    ) -> _Offer:
        provider = self.providers[provider_id]
        entries = active_variants(ref.tools, plan.context)
        try:
            async with detached_timeout(self.provider_timeout):
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
            seconds = self.provider_timeout
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
