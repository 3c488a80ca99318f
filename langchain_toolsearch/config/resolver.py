"""`ToolResolver`: an agent's stored tool config + a request -> a list of tools.

Per request: the request context (`request_context`); the agent's
`AgentToolConfig` at the selected version; each conditional field merged
(matching variants shallow-merged in order; entries whose ``rules`` do not
match dropped); then tools collected source by source (`ToolCollector`): code
tools, registered tools selected under ``tools``, saved MCP clients' tools
(ids ``server_tool``), integration tools, and, for stand-alone stored agents
only, tool provider tools. A later source's tool with an id already seen
replaces the earlier one whole (a warning is logged). Allowlists, description
precedence, client versions and failures: ``docs/config.md`` ("Resolution").

Caching, per resolver and safe to share: stored records are re-read at most
every ``refresh_interval`` seconds (at once after a write through the same
`ToolConfigStore`); a resolved tool set is reused for ``cache_ttl`` seconds
while its inputs are unchanged (versions, the rule fields read, the
credential's salted fingerprint, the whole context when providers take part;
`langchain_toolsearch.config.cache`). ``explain`` / ``aexplain`` are never
cached (`langchain_toolsearch.config.explain`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import Any, Literal, TypeAlias, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config

from langchain_toolsearch._internal.bridge import run_sync
from langchain_toolsearch._internal.failures import FailureLog, redact, request_secrets
from langchain_toolsearch._internal.store_flow import arun_flow, run_flow
from langchain_toolsearch.config.cache import ResolutionCache, failure_kind
from langchain_toolsearch.config.explain import ResolutionReport, explain_resolution
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
    RuleGroup,
    VersionSelector,
    _check_version,
)
from langchain_toolsearch.config.parsing import parse_agent_config
from langchain_toolsearch.config.planning import RequestPlanner
from langchain_toolsearch.config.providers import ToolProvider
from langchain_toolsearch.config.rules import recording_rules
from langchain_toolsearch.config.sources import RequestPlan, ToolCollector
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
T = TypeVar("T")


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
        self._mode = mode
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
        self._known = (code, registry_map, integration_maps)
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
        return (await self._arun(config, None, None, None, log=False))[0]

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
        return (await self._arun(config, context, version, agent_config, log=True))[0]

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
        return self._run(config, context, version, agent_config, log=True)[0]

    def call_sync(self, config: RunnableConfig) -> ResolvedTools:
        """Sync `__call__`: what the tool search runs in a sync run.

        Like `resolve`, but failures are left to the tool search to log (under
        this resolver's name, once per cause), so each is logged once.
        """
        return self._run(config, None, None, None, log=False)[0]

    async def aexplain(
        self,
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
        version: VersionSelector | None = None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None = None,
    ) -> ResolutionReport:
        """`aresolve`, never cached, read back into why each tool is in or out.

        The same resolution code runs, recording the rule outcomes it uses
        (`langchain_toolsearch.config.explain`); failures are in the report,
        not logged. Arguments and errors as `aresolve`.
        """
        resolved, plan, outcomes = await self._arun(
            config, context, version, agent_config, log=False, explain=True
        )
        assert plan is not None  # explain=True never answers from the cache
        return self._report(plan, resolved, outcomes, await self._stored(plan, agent_config))

    def explain(
        self,
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
        version: VersionSelector | None = None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None = None,
    ) -> ResolutionReport:
        """Sync `aexplain`, as `resolve` is to `aresolve`."""
        resolved, plan, outcomes = self._run(
            config, context, version, agent_config, log=False, explain=True
        )
        assert plan is not None  # explain=True never answers from the cache
        stored = run_sync(self._stored(plan, agent_config))
        return self._report(plan, resolved, outcomes, stored)

    # -- one request ------------------------------------------------------------------

    async def _arun(
        self,
        config: Any,
        context: Any,
        version: Any,
        agent_config: Any,
        *,
        log: bool,
        explain: bool = False,
    ) -> _Run:
        """Plan, answer from the cache (not when explaining) or collect, keep."""
        config = _config_or_current(config)
        with _recording(explain) as outcomes:
            plan_flow = self._planner.plan(config, context, version, agent_config)
            if self._store is None:
                plan, key = run_flow(_NO_STORE, plan_flow)
            else:
                plan, key = await arun_flow(self._store.store, plan_flow)
            cached = None if explain else self._cache.get(key)
            if cached is not None:
                return cached, None, outcomes
            resolved = await self._collector.collect(plan, config)
        key = None if explain else key
        return self._keep(key, resolved, config, context, log=log), plan, outcomes

    def _run(
        self,
        config: Any,
        context: Any,
        version: Any,
        agent_config: Any,
        *,
        log: bool,
        explain: bool = False,
    ) -> _Run:
        """Sync `_arun`: the store read with ``batch``, sources on the bridge's loop."""
        config = _config_or_current(config)
        with _recording(explain) as outcomes:
            plan_flow = self._planner.plan(config, context, version, agent_config)
            store = self._store.store if self._store is not None else _NO_STORE
            plan, key = run_flow(store, plan_flow)
            cached = None if explain else self._cache.get(key)
            if cached is not None:
                return cached, None, outcomes
            collect = self._collector.collect(plan, config)
            resolved = run_sync(_recorded(outcomes, collect) if explain else collect)
        key = None if explain else key
        return self._keep(key, resolved, config, context, log=log), plan, outcomes

    async def _stored(self, plan: RequestPlan, agent_config: Any) -> AgentToolConfig:
        """The agent config ``plan`` merged (a stored version never changes: read again)."""
        if self._mode == "ignore":
            return AgentToolConfig()
        if agent_config is not None:
            return parse_agent_config(agent_config)
        if self._store is None or self._agent_id is None or plan.version is None:
            return AgentToolConfig()
        return await self._store.agents.aget(self._agent_id, plan.version.version)

    def _report(
        self, plan: RequestPlan, resolved: ResolvedTools, outcomes: Any, stored: AgentToolConfig
    ) -> ResolutionReport:
        code, registry, integrations = self._known
        return explain_resolution(
            agent_id=self._agent_id,
            stored=stored,
            plan=plan,
            resolved=resolved,
            outcomes=outcomes,
            code=code,
            registry=registry,
            integrations=integrations,
            select=self._mode == "tools",
        )

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


_Run: TypeAlias = tuple[ResolvedTools, RequestPlan | None, list[tuple[RuleGroup, bool]]]
"""A request's result, its plan (``None``: from the cache) and the rule outcomes recorded."""


def _recording(on: bool) -> AbstractContextManager[list[tuple[RuleGroup, bool]]]:
    return recording_rules() if on else nullcontext([])


async def _recorded(outcomes: list[tuple[RuleGroup, bool]], coro: Awaitable[T]) -> T:
    """Await ``coro`` recording its rule outcomes into ``outcomes`` (from another thread)."""
    with recording_rules() as inner:
        try:
            return await coro
        finally:
            outcomes.extend(inner)


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
