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
4. Collect tools (`ToolCollector`, `langchain_toolsearch.config.sources`),
   source by source, in this order; a later source's tool with an id
   already seen replaces the earlier tool whole (description override
   included) and a warning is logged:

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
`ResolvedTools.failures` (and, structured, in `ResolvedTools.errors`) and
skipped; the rest still resolves.

Caching. Two layers, both per resolver instance and safe to share between
callers:

* Stored records (the agent config and its saved MCP clients) are read once
  and reused; their head (which version is the draft / published one) is
  re-read at most every ``refresh_interval`` seconds (default 5), and at once
  after a write through the same ``ToolConfigStore``. So a ``save`` or
  ``publish`` made in this process is used by the next resolution, and one
  made in any other process by every resolution that starts more than
  ``refresh_interval`` seconds after it.
* A resolved tool set is reused while what it depends on is unchanged: the
  agent id and resolved version, the saved clients' versions, the values of
  the request-context fields its rules read, a salted fingerprint of the
  caller's credential (``auth_token_key``) and, when tool providers take
  part, the whole request context (a provider sees all of it). Entries live
  ``cache_ttl`` seconds (default 60; MCP servers' and providers' tool lists
  are fetched again after it), ``refresh_interval`` seconds when a server or
  provider failed (so a recovered one is seen soon), and the
  ``cache_size`` most recent (default 256) are kept. ``cache_ttl=0`` turns
  this layer off; ``agent_config=`` calls are never cached. Values count by
  what they hold, never by their ``repr`` (a ``SecretStr`` by its secret); a
  request holding an object other than JSON values, pydantic secrets and
  models, and dataclasses is not cached.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Literal, TypeAlias

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config

from langchain_toolsearch._internal.bridge import run_sync
from langchain_toolsearch._internal.failures import FailureLog, redact, request_secrets
from langchain_toolsearch._internal.store_flow import arun_flow, run_flow
from langchain_toolsearch.config.cache import ResolutionCache, failure_kind
from langchain_toolsearch.config.merging import (
    MCPToolSource,
    Replacement,
    ResolvedTools,
    ToolsArg,
    _tool_map,
    merge_conditional,
)
from langchain_toolsearch.config.models import (
    AUTH_TOKEN_KEY,
    AgentToolConfig,
    VersionSelector,
    _check_version,
)
from langchain_toolsearch.config.planning import RequestPlanner
from langchain_toolsearch.config.providers import ToolProvider
from langchain_toolsearch.config.sources import ToolCollector
from langchain_toolsearch.config.store import ToolConfigStore
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.types import SourceFailure

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
        refresh_interval: Seconds a stored record's head (its draft and
            published version numbers) is trusted before it is read again:
            the bound within which a ``save`` / ``publish`` made in any
            process reaches this resolver. ``0``: read on every call.
        cache_ttl: Seconds a resolved tool set is reused for requests with
            the same inputs (see the module docstring); ``0``: no reuse.
        cache_size: Most resolved tool sets kept (count, >= 1).
        clock: Monotonic seconds clock for both bounds (for tests).

    Raises:
        ToolSearchConfigError: (a ``ValueError``) On an unknown ``mode`` or
            ``version``, a non-positive timeout, a negative
            ``refresh_interval`` or ``cache_ttl``, a ``cache_size`` below 1,
            ``agent_id`` without ``store``, or duplicate tool ids.
        ToolSearchTypeError: (a ``TypeError``) On tools that are not
            ``BaseTool``, a provider that does not implement `ToolProvider`,
            or a ``store`` that is not a `ToolConfigStore`.
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
        refresh_interval: float = 5.0,
        cache_ttl: float = 60.0,
        cache_size: int = 256,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if mode not in _MODES:
            msg = f"unknown mode {mode!r}; use one of {', '.join(map(repr, _MODES))}"
            raise ToolSearchConfigError(msg)
        if store is not None and not isinstance(store, ToolConfigStore):
            msg = f"store must be a ToolConfigStore, got {type(store).__name__}"
            raise ToolSearchTypeError(msg)
        if agent_id is not None and store is None:
            msg = "agent_id needs a store: pass store=ToolConfigStore(...)"
            raise ToolSearchConfigError(msg)
        for label, seconds in (
            ("mcp_timeout", mcp_timeout),
            ("provider_timeout", provider_timeout),
        ):
            if seconds is not None and not seconds > 0:
                msg = f"{label} must be a positive number of seconds or None, got {seconds!r}"
                raise ToolSearchConfigError(msg)
        if not isinstance(auth_token_key, str) or not auth_token_key:
            raise ToolSearchConfigError("auth_token_key must be a non-empty string")
        for label, seconds in (("refresh_interval", refresh_interval), ("cache_ttl", cache_ttl)):
            if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
                raise ToolSearchConfigError(f"{label} must be seconds >= 0, got {seconds!r}")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 1:
            raise ToolSearchConfigError(f"cache_size must be an int >= 1, got {cache_size!r}")
        try:
            _check_version(version)
        except ValueError as exc:
            raise ToolSearchConfigError(f"version {exc}") from None
        self._store = store
        self._agent_id = agent_id
        code = _tool_map(code_tools or (), "code_tools")
        registry_map = _tool_map(registry or {}, "registry")
        integration_maps = {
            str(key): _tool_map(tools, f"integrations[{key!r}]")
            for key, tools in (integrations or {}).items()
        }
        providers: dict[str, ToolProvider] = {}
        for key, provider in (tool_providers or {}).items():
            if not isinstance(provider, ToolProvider):
                msg = (
                    f"tool_providers[{key!r}] must implement ToolProvider (async list_tools() "
                    f"and resolve_tools()), got {type(provider).__name__}"
                )
                raise ToolSearchTypeError(msg)
            providers[str(key)] = provider
        self._cache = ResolutionCache(
            refresh_interval=refresh_interval,
            cache_ttl=cache_ttl,
            cache_size=cache_size,
            clock=clock,
            mode=mode,
            token_key=auth_token_key,
        )
        self._planner = RequestPlanner(
            store=store,
            agent_id=agent_id,
            mode=mode,
            version=version,
            code_agent=code_tools is not None,
            cache=self._cache,
        )
        self._failures = FailureLog(logger)
        self._collector = ToolCollector(
            code=code,
            registry=registry_map,
            integrations=integration_maps,
            providers=providers,
            select=mode == "tools",
            mcp_timeout=mcp_timeout,
            provider_timeout=provider_timeout,
            token_key=auth_token_key,
        )

    # -- public API -------------------------------------------------------------------

    @property
    def cache_hits(self) -> int:
        """Resolutions answered from the cache (count; for tests and benchmarks)."""
        return self._cache.hits

    @property
    def cache_misses(self) -> int:
        """Resolutions that contacted the sources (count; for tests and benchmarks)."""
        return self._cache.misses

    @property
    def name(self) -> str:
        """How failures of this resolver are named: ``ToolResolver(agent_id='...')``."""
        return f"ToolResolver(agent_id={self._agent_id!r})"

    async def __call__(self, config: RunnableConfig) -> ResolvedTools:
        """`aresolve` for ``config``: pass the resolver itself as ``resolve_tools=``.

        The tool search then also reads ``errors`` (failing MCP servers and
        providers are logged under this resolver's name, shown by
        ``get_state_stats`` and decided by ``on_error``).
        """
        return await self._aresolve(config, None, None, None, log=False)

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
            agent_config: Use this config instead of the stored one (never cached).

        Returns:
            The tools and a report (failures, sources, replacements), possibly
            a cached one (see the module docstring).

        Raises:
            ToolConfigError: If ``agent_config``, or the stored agent config,
                is invalid (the stored one only if it was written by other
                means than `ToolConfigStore`). A missing config is not an
                error: it is reported under ``"agent_config"``.
            ValueError: If ``version`` is not a valid selector.
        """
        return await self._aresolve(config, context, version, agent_config, log=True)

    async def _aresolve(
        self,
        config: RunnableConfig | None,
        context: Any,
        version: VersionSelector | None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None,
        *,
        log: bool,
    ) -> ResolvedTools:
        config = _config_or_current(config)
        plan_flow = self._planner.plan(config, context, version, agent_config)
        if self._store is None:
            plan, key = run_flow(_NO_STORE, plan_flow)
        else:
            plan, key = await arun_flow(self._store.store, plan_flow)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        resolved = await self._collector.collect(plan, config)
        return self._keep(key, resolved, config, context, log=log)

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
        return self._resolve(config, context, version, agent_config, log=True)

    def call_sync(self, config: RunnableConfig) -> ResolvedTools:
        """Sync `__call__`: what the tool search runs in a sync run.

        Like `resolve`, but failures are left to the tool search to log (under
        this resolver's name, once per cause), so each is logged once.
        """
        return self._resolve(config, None, None, None, log=False)

    def _resolve(
        self,
        config: RunnableConfig | None,
        context: Any,
        version: VersionSelector | None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None,
        *,
        log: bool,
    ) -> ResolvedTools:
        config = _config_or_current(config)
        plan_flow = self._planner.plan(config, context, version, agent_config)
        store = self._store.store if self._store is not None else _NO_STORE
        plan, key = run_flow(store, plan_flow)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        resolved = run_sync(self._collector.collect(plan, config))
        return self._keep(key, resolved, config, context, log=log)

    # -- resolved tool sets -----------------------------------------------------------

    def _keep(
        self,
        key: str | None,
        resolved: ResolvedTools,
        config: RunnableConfig,
        context: Any,
        *,
        log: bool,
    ) -> ResolvedTools:
        """Add structured errors (logged once per cause); keep the result for equal inputs.

        Called as ``resolve_tools`` (``log=False``), the tool search logs them.
        """
        if resolved.failures:
            secrets = request_secrets(config, context)
            errors = tuple(
                SourceFailure(
                    source=path,
                    kind=failure_kind(path),
                    error="",
                    message=redact(reason, secrets),
                )
                for path, reason in resolved.failures.items()
            )
            resolved = replace(resolved, errors=errors)
            for error in errors if log else ():  # once per distinct cause
                self._failures.record(replace(error, source=f"{self.name}: {error.source}"))
        self._cache.put(key, resolved)
        return resolved


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
