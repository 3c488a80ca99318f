"""`ToolResolver`: an agent's stored tool config + a request -> a list of tools.

Resolution, for one request:

1. Build the request context from the `RunnableConfig` (and the run's
   context) with `request_context`.
2. Load the agent's `AgentToolConfig` (draft by default, or the published
   version, or a version number) from the `ToolConfigStore`.
3. Merge each conditional field: the variants whose rules match are
   shallow-merged in order (a later variant's key replaces an earlier
   one's); when none matches, the field counts as omitted. Entries and
   references whose own ``rules`` do not match are dropped.
4. Collect tools, source by source, in this order; a later source's tool
   with an id already seen replaces the earlier tool whole (description
   override included) and a warning is logged:

   1. tools defined in code (``code_tools``),
   2. tools registered by id (``registry``) and selected under ``tools``,
   3. tools of saved MCP clients (``mcp_clients``), ids ``server_tool``,
   4. integration tools (``integration_tools``),
   5. tool provider tools (``tool_providers``), for stand-alone stored
      agents only: an agent with tools defined in code (``code_tools``
      given, even empty) stops after integration tools, as the seed's
      code-agent overrides do (its ``tool_providers`` are reported under
      ``failures["tool_providers"]``).

Allowlists: a saved server's ``tools`` and an integration's or provider's
``tools``: omitted or ``null`` = no restriction, ``{}`` = nothing. An agent's
reference to a saved MCP client: omitted, ``null`` or ``{}`` = nothing (a
warning is logged once per resolver and client), ``"*"`` = everything the
server level allows, a map = those. Description precedence: the agent's
entry, then (MCP only) the server's entry, then the tool's own.

Versions of saved MCP clients: a reference without ``version`` follows the
agent: the client's published version when the agent is resolved at
``"published"``, its draft otherwise.

An MCP server, integration or provider that fails is reported in
`ResolvedTools.failures` and skipped; the rest still resolves. Nothing is
cached: each call lists the MCP servers again (with this caller's token).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.config import get_config
from langgraph.errors import GraphBubbleUp

from langchain_toolsearch._async import run_sync
from langchain_toolsearch.config.connections import (
    BadAuthToken,
    ServerTools,
    bearer_token,
    load_server_tools,
)
from langchain_toolsearch.config.merging import (
    MCPToolSource,
    Replacement,
    ResolvedTools,
    ToolsArg,
    _active,
    _description,
    _Merged,
    _pick,
    _tool_map,
    merge_conditional,
)
from langchain_toolsearch.config.models import (
    AUTH_TOKEN_KEY,
    MASTRA_AUTH_TOKEN_KEY,
    AgentToolConfig,
    MCPClientRef,
    SourceRef,
    ToolEntry,
    VersionSelector,
    _check_version,
)
from langchain_toolsearch.config.parsing import parse_agent_config
from langchain_toolsearch.config.providers import ToolProvider
from langchain_toolsearch.config.rules import request_context
from langchain_toolsearch.config.servers import MCPClientConfig
from langchain_toolsearch.config.store import (
    Flow,
    RecordNotFoundError,
    ToolConfigStore,
    VersionInfo,
    arun_flow,
    run_flow,
)

__all__ = [
    "MCPToolSource",
    "Replacement",
    "ResolvedTools",
    "StoredConfigMode",
    "ToolResolver",
    "merge_conditional",
]

logger = logging.getLogger(__name__)

StoredConfigMode: TypeAlias = Literal["tools", "descriptions", "ignore"]
"""What a stored config may change for an agent with tools defined in code:
``"tools"`` add and remove tools and override descriptions; ``"descriptions"``
only override descriptions of the code-defined tools; ``"ignore"`` nothing."""

_MODES = ("tools", "descriptions", "ignore")


@dataclass
class _Plan:
    """Everything read from the store for one request."""

    context: dict[str, Any]
    tools: dict[str, ToolEntry] | None
    mcp: list[tuple[str, MCPClientRef, MCPClientConfig]]
    integrations: dict[str, SourceRef]
    providers: dict[str, SourceRef]
    failures: dict[str, str]
    version: VersionInfo | None


class ToolResolver:
    """Resolves an agent's tools for each request from its stored config.

    Example:
        ```python
        resolver = ToolResolver(
            store=ToolConfigStore(store), agent_id="support",
            code_tools=[get_weather], registry={"send_email": send_email},
        )
        resolved = await resolver.aresolve({"configurable": {"plan": "pro"}})
        resolved.failures          # {} when every source answered
        agent = create_agent(model, middleware=[ToolSearchMiddleware(tools=resolved.tools)])
        ```

    Args:
        store: Where the agent config and saved MCP clients live. Needed for
            ``agent_id`` and for ``mcp_clients``.
        agent_id: Id of the agent's stored config. Without it (and without
            ``agent_config`` per call) the config is empty: code tools only.
        code_tools: Tools defined in code for this agent (sequence: ids are
            names; mapping: id -> tool). Giving it (even empty) makes this a
            code-defined agent whose stored config cannot add tool provider
            tools; ``None`` (default): a stand-alone stored agent.
        registry: Tools that stored configs may select by id under ``tools``.
        integrations: Integration id -> its tools (sequence or mapping).
        tool_providers: Provider id -> `ToolProvider`.
        mode: What the stored config may change (`StoredConfigMode`):
            ``"tools"`` (default), ``"descriptions"`` (description overrides of
            code tools only; ``mcp_clients``, integrations and providers are
            not used) or ``"ignore"``.
        version: Default version to resolve: ``"draft"`` (latest saved),
            ``"published"`` or a version number. MCP client references
            without their own ``version`` use the clients' published version
            when this is ``"published"``, their draft otherwise.
        mcp_timeout: Seconds allowed to list a saved MCP server's tools and
            for each call, when the server has no ``timeout``; ``None``: none.
        provider_timeout: Seconds allowed per provider (listing + resolving);
            ``None``: none.
        auth_token_key: Request-context key whose value is sent as
            ``Authorization: Bearer`` to HTTP MCP servers. With the default
            key, the seed system's ``"mastra__authToken"`` is accepted too
            (used when the default key is absent).

    Raises:
        ValueError: On an unknown ``mode`` or ``version``, a non-positive
            timeout, ``agent_id`` without ``store``, or duplicate tool ids.
        TypeError: On tools that are not ``BaseTool``, a provider that does
            not implement `ToolProvider`, or a ``store`` that is not a
            `ToolConfigStore`.
    """

    def __init__(
        self,
        *,
        store: ToolConfigStore | None = None,
        agent_id: str | None = None,
        code_tools: ToolsArg | None = None,
        registry: ToolsArg | None = None,
        integrations: Mapping[str, ToolsArg] | None = None,
        tool_providers: Mapping[str, ToolProvider] | None = None,
        mode: StoredConfigMode = "tools",
        version: VersionSelector = "draft",
        mcp_timeout: float | None = 30.0,
        provider_timeout: float | None = 30.0,
        auth_token_key: str = AUTH_TOKEN_KEY,
    ) -> None:
        if mode not in _MODES:
            msg = f"unknown mode {mode!r}; use one of {', '.join(map(repr, _MODES))}"
            raise ValueError(msg)
        if store is not None and not isinstance(store, ToolConfigStore):
            msg = f"store must be a ToolConfigStore, got {type(store).__name__}"
            raise TypeError(msg)
        if agent_id is not None and store is None:
            msg = "agent_id needs a store: pass store=ToolConfigStore(...)"
            raise ValueError(msg)
        for label, seconds in (
            ("mcp_timeout", mcp_timeout),
            ("provider_timeout", provider_timeout),
        ):
            if seconds is not None and not seconds > 0:
                msg = f"{label} must be a positive number of seconds or None, got {seconds!r}"
                raise ValueError(msg)
        if not isinstance(auth_token_key, str) or not auth_token_key:
            raise ValueError("auth_token_key must be a non-empty string")
        try:
            _check_version(version)
        except ValueError as exc:
            raise ValueError(f"version {exc}") from None
        self._store = store
        self._agent_id = agent_id
        self._code_agent = code_tools is not None
        self._code = _tool_map(code_tools or (), "code_tools")
        self._warned_empty: set[str] = set()  # client ids already warned about
        self._registry = _tool_map(registry or {}, "registry")
        self._integrations = {
            str(key): _tool_map(tools, f"integrations[{key!r}]")
            for key, tools in (integrations or {}).items()
        }
        self._providers: dict[str, ToolProvider] = {}
        for key, provider in (tool_providers or {}).items():
            if not isinstance(provider, ToolProvider):
                msg = (
                    f"tool_providers[{key!r}] must implement ToolProvider (async list_tools() "
                    f"and resolve_tools()), got {type(provider).__name__}"
                )
                raise TypeError(msg)
            self._providers[str(key)] = provider
        self._mode: StoredConfigMode = mode
        self._version = version
        self._mcp_timeout = mcp_timeout
        self._provider_timeout = provider_timeout
        self._token_key = auth_token_key

    # -- public API -------------------------------------------------------------------

    async def aresolve(
        self,
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
        version: VersionSelector | None = None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None = None,
    ) -> ResolvedTools:
        """Resolve the tools for one request.

        Args:
            config: The request's `RunnableConfig`; ``None`` uses the running
                graph's config (or an empty one outside a run).
            context: The run's context (``runtime.context``); ``None`` takes it
                from ``config`` when it is a running graph's.
            version: Overrides the resolver's default version for this call.
            agent_config: Use this config instead of the stored one.

        Returns:
            The tools and a report (failures, sources, replacements).

        Raises:
            ToolConfigError: If ``agent_config``, or the stored agent config,
                is invalid (the stored one only if it was written by other
                means than `ToolConfigStore`). A missing config is not an
                error: it is reported under ``"agent_config"``.
            ValueError: If ``version`` is not a valid selector.
        """
        config = _config_or_current(config)
        plan_flow = self._plan(config, context, version, agent_config)
        if self._store is None:
            plan = run_flow(_NO_STORE, plan_flow)
        else:
            plan = await arun_flow(self._store.store, plan_flow)
        return await self._collect(plan, config)

    def resolve(
        self,
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
        version: VersionSelector | None = None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None = None,
    ) -> ResolvedTools:
        """Sync `aresolve` (MCP servers and providers run on a private event loop).

        Reads the store with its sync ``batch``; safe to call from a thread
        that runs an event loop (the async part then runs in a helper thread).
        """
        config = _config_or_current(config)
        plan_flow = self._plan(config, context, version, agent_config)
        plan = run_flow(self._store.store if self._store is not None else _NO_STORE, plan_flow)
        return run_sync(self._collect(plan, config))

    # -- planning (store reads) -------------------------------------------------------

    def _plan(
        self,
        config: RunnableConfig,
        context: Any,
        version: VersionSelector | None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None,
    ) -> Flow[_Plan]:
        ctx = request_context(config, context)
        failures: dict[str, str] = {}
        info: VersionInfo | None = None
        stored = AgentToolConfig()
        selector = self._version if version is None else version
        # A reference without a version follows the agent: published -> published.
        client_default: VersionSelector = "published" if selector == "published" else "draft"
        if self._mode == "ignore":
            pass
        elif agent_config is not None:
            stored = parse_agent_config(agent_config)
        elif self._store is not None and self._agent_id is not None:
            try:
                found = yield from self._store.agents._get(self._agent_id, selector)
            except RecordNotFoundError as exc:
                failures["agent_config"] = f"{exc}; resolved without a stored config"
                logger.warning("agent %r: %s", self._agent_id, failures["agent_config"])
            else:
                stored, info = found.value, found.info

        tools = _active(merge_conditional(stored.tools, ctx), ctx)
        if self._mode != "tools":
            return _Plan(ctx, tools, [], {}, {}, failures, info)

        refs = _active(merge_conditional(stored.mcp_clients, ctx), ctx) or {}
        mcp: list[tuple[str, MCPClientRef, MCPClientConfig]] = []
        # By id, not by key order: stores such as PostgreSQL (jsonb) do not keep key
        # order, and which client wins a shared tool id must not depend on the store.
        for client_id, ref in sorted(refs.items()):
            where = f"mcp_clients.{client_id}"
            if not ref.tools:  # omitted, null or {}: selects nothing (as the seed)
                self._warn_empty(client_id)
                continue
            if self._store is None:
                failures[where] = "no ToolConfigStore given to the resolver to load saved clients"
                continue
            client_version = ref.version if ref.version is not None else client_default
            try:
                client = yield from self._store.mcp_clients._get(client_id, client_version)
            except (RecordNotFoundError, ValueError) as exc:
                failures[where] = str(exc)
                continue
            mcp.append((client_id, ref, client.value))
        integrations = _active(merge_conditional(stored.integration_tools, ctx), ctx) or {}
        providers = _active(merge_conditional(stored.tool_providers, ctx), ctx) or {}
        if providers and self._code_agent:
            failures["tool_providers"] = (
                "not used: a code-defined agent's stored config merges code, registry, MCP "
                "and integration tools only (tool providers serve stand-alone stored agents)"
            )
            providers = {}
        return _Plan(ctx, tools, mcp, integrations, providers, failures, info)

    def _warn_empty(self, client_id: str) -> None:
        """Log once per client id that a reference selects no tools."""
        if client_id in self._warned_empty:
            return
        self._warned_empty.add(client_id)
        logger.warning(
            "agent %r: the reference to saved MCP client %r selects no tools ('tools' omitted, "
            'null or {}); use "tools": "*" for every tool of the client',
            self._agent_id,
            client_id,
        )

    # -- collecting tools -------------------------------------------------------------

    async def _collect(self, plan: _Plan, config: RunnableConfig) -> ResolvedTools:
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
            failures[where] = result.failure
            logger.warning("saved MCP %s contributes no tools: %s", where, result.failure)
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

    def _add_integrations(self, plan: _Plan, merged: _Merged, failures: dict[str, str]) -> None:
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
        plan: _Plan,
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
                failures[where] = outcome
                logger.warning("%s contributes no tools: %s", where, outcome)
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
        selection: dict[str, ToolEntry] | None,
        merged: _Merged,
        failures: dict[str, str],
    ) -> None:
        """Sources 1 and 2: tools defined in code, then registered tools."""
        if self._mode != "tools":  # descriptions only (or nothing): the code tools stay
            for tool_id, tool in self._code.items():
                entry = selection.get(tool_id) if selection is not None else None
                merged.put(tool_id, tool, "code", _description(entry))
            return
        for tool_id, tool in self._code.items():
            if selection is None or tool_id in selection:
                entry = selection.get(tool_id) if selection is not None else None
                merged.put(tool_id, tool, "code", _description(entry))
        for tool_id, entry in (selection or {}).items():
            if tool_id in self._registry:
                merged.put(tool_id, self._registry[tool_id], "registry", _description(entry))
            elif tool_id not in self._code:
                failures[f"tools.{tool_id}"] = (
                    f"no tool with id {tool_id!r} is defined in code or in the registry"
                )

    def _mcp_jobs(
        self, plan: _Plan
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
        for client_id, ref, client in plan.mcp:
            for name, server in client.servers.items():
                if bad_token is not None and server.type == "http":
                    job: Awaitable[ServerTools] = _done(ServerTools(server=name, failure=bad_token))
                else:
                    job = load_server_tools(
                        name, server, token=token, default_timeout=self._mcp_timeout
                    )
                jobs.append((client_id, ref, client, job))
        return jobs

    async def _provider_job(
        self, provider_id: str, ref: SourceRef, plan: _Plan, config: RunnableConfig
    ) -> tuple[list[str], dict[str, BaseTool]] | str:
        provider = self._providers[provider_id]
        entries = _active(ref.tools, plan.context)
        try:
            async with asyncio.timeout(self._provider_timeout):
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


def _config_or_current(config: RunnableConfig | None) -> RunnableConfig:
    if config is not None:
        return config
    try:
        return get_config()
    except RuntimeError:
        return {}


class _NoStore:
    """Stands in for a store when none is given (plans then read nothing)."""

    def batch(self, ops: Any) -> list[Any]:
        raise AssertionError("no store to read from")


_NO_STORE: Any = _NoStore()
