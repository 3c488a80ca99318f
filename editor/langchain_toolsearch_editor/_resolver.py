"""`ToolResolver`: an agent's tools per request, from its stored config; and its planner.

Sources, in order: code tools, registered tools, saved MCP clients' tools,
integrations', tool providers' (`config.sources`). A resolution is reused for
``cache_ttl`` seconds by requests with the same records' versions, values at the
rules' fields and auth token (`config.cache`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, TypeAlias

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

from langchain_toolsearch._effects import Effect, Logic, flow_logic, run_sync
from langchain_toolsearch._shell import current_config
from langchain_toolsearch._support import FailureLog, redact, request_secrets
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.types import SourceFailure
from langchain_toolsearch_editor._cache import RequestPlanner, ResolutionCache, failure_kind
from langchain_toolsearch_editor._explain import (
    Outcomes,
    ResolutionReport,
    explain_resolution,
    recorded,
    recording,
)
from langchain_toolsearch_editor._models import (
    AUTH_TOKEN_KEY,
    AgentToolConfig,
    ToolProvider,
    VersionSelector,
    check_version,
)
from langchain_toolsearch_editor._records import shells
from langchain_toolsearch_editor._sources import ResolvedTools, ToolCollector, ToolsArg
from langchain_toolsearch_editor._store import ToolConfigStore

logger = logging.getLogger(__name__)


StoredConfigMode: TypeAlias = Literal["tools", "descriptions", "ignore"]
"""What a stored config may change: ``"tools"`` all, ``"descriptions"`` code tools', or nothing."""

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
        store: Holds the agent config and saved MCP clients.
        agent_id: The stored config's id; ``None``: empty (code tools only).
        code_tools: Tools in code (sequence by name, or id -> tool); given (even
            empty): a code-defined agent, which gets no provider tools.
        registry: Tools stored configs may select by id.
        integrations: Integration id -> its tools.
        tool_providers: Provider id -> `ToolProvider`.
        mode: `StoredConfigMode`; ``"descriptions"`` uses no MCP, integrations
            or providers.
        version: ``"draft"``, ``"published"`` or a number; MCP references
            without a ``version`` follow it (published -> published, else draft).
        mcp_timeout: Seconds to list a server's tools and per call, when it has
            no ``timeout``; ``None``: none.
        provider_timeout: Seconds per provider (list + resolve); ``None``: none.
        auth_token_key: Context key sent as ``Authorization: Bearer`` to HTTP
            servers (default key: else the seed's ``"mastra__authToken"``).
        refresh_interval: Seconds a record's head is trusted (how soon another
            process's ``save`` / ``publish`` is seen); ``0``: always read.
        cache_ttl: Seconds a resolution is reused for equal inputs; ``0``: never.
        cache_size: Most resolutions kept (>= 1).
        clock: The monotonic clock (seconds) cached resolutions age by.

    Raises:
        ToolSearchConfigError: Unknown ``mode`` / ``version``, bad seconds or
            ``cache_size``, ``agent_id`` without ``store``, duplicate tool ids.
        ToolSearchTypeError: Tools not ``BaseTool``, a provider not a
            `ToolProvider`, a ``store`` not a `ToolConfigStore`.
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
            msg = f"store must be a ToolConfigStore, not {type(store).__name__}"
            raise ToolSearchTypeError(msg)
        if agent_id is not None and store is None:
            raise ToolSearchConfigError("agent_id needs a store: pass store=ToolConfigStore(...)")
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
            check_version(version)
        except ValueError as exc:
            raise ToolSearchConfigError(f"version {exc}") from None
        self._cache = ResolutionCache(
            refresh_interval=float(refresh_interval),
            cache_ttl=float(cache_ttl),
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
            code=tool_map(code_tools or (), "code_tools"),
            registry=tool_map(registry or {}, "registry"),
            integrations={
                str(key): tool_map(tools, f"integrations[{key!r}]")
                for key, tools in (integrations or {}).items()
            },
            providers=provider_map(tool_providers or {}),
            select=mode == "tools",
            mcp_timeout=mcp_timeout,
            provider_timeout=provider_timeout,
            token_key=auth_token_key,
        )

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
        return f"ToolResolver(agent_id={self._planner.agent_id!r})"

    def _call(self, config: RunnableConfig) -> Logic[ResolvedTools]:
        """`aresolve` for ``resolve_tools=`` (``call_sync``: a sync run's); the tool search logs."""
        resolved, *_ = yield from self._run(config, None, None, None, log=False)
        return resolved

    def _resolve(
        self,
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
        version: VersionSelector | None = None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None = None,
    ) -> Logic[ResolvedTools]:
        """The tools for one request, with failures, sources and replacements (maybe cached).

        The sync form runs the sources on a private loop (safe inside an event loop).

        Args:
            config: The request's config; ``None``: the running graph's (or empty).
            context: The run's context; ``None``: the running graph's.
            version: This call's version.
            agent_config: Used instead of the stored config (never cached).

        Raises:
            ToolConfigError: An invalid ``agent_config`` or stored config (a missing
                one is a failure under ``"agent_config"``).
            ValueError: A bad ``version``.
        """
        resolved, *_ = yield from self._run(config, context, version, agent_config, log=True)
        return resolved

    def _explain(
        self,
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
        version: VersionSelector | None = None,
        agent_config: AgentToolConfig | Mapping[str, Any] | None = None,
    ) -> Logic[ResolutionReport]:
        """`aresolve` (never cached) recording its rule outcomes: why each tool is in or out."""
        resolved, outcomes, stored = yield from self._run(
            config, context, version, agent_config, log=False, explain=True
        )
        tools = self._collector
        known = (tools.code, tools.registry, tools.integrations)
        agent_id = self._planner.agent_id
        return explain_resolution(agent_id, stored, resolved, outcomes, known, tools.select)

    call_sync, __call__ = shells(_call)
    resolve, aresolve = shells(_resolve)
    explain, aexplain = shells(_explain)

    def _run(self, config: Any, *args: Any, log: bool, explain: bool = False) -> Logic[_Run]:
        """Plan; then answer from the cache (never when explaining), or collect and keep."""
        config = current_config() if config is None else config
        with recording(explain) as outcomes:
            plan_flow = self._planner.plan(config, *args)  # no store: reads nothing
            store = _NO_STORE if self._planner.store is None else self._planner.store.store
            plan, key = yield from flow_logic(store, plan_flow)
            cached = None if explain else self._cache.get(key)
            if cached is not None:
                return cached, outcomes, plan.stored

            def collect() -> Coroutine[Any, Any, ResolvedTools]:
                return self._collector.collect(plan, config)

            def on_bridge() -> ResolvedTools:  # the sync form: another thread records too
                return run_sync(recorded(outcomes, collect()) if explain else collect())

            resolved = yield Effect(on_bridge, collect)
        if resolved.failures:  # redacted errors, logged once per cause unless ``log=False``
            secrets = request_secrets(config, args[0])
            errors = tuple(
                SourceFailure(path, failure_kind(path), "", redact(reason, secrets))
                for path, reason in resolved.failures.items()
            )
            resolved = replace(resolved, errors=errors)
            for error in errors if log else ():
                self._failures.record(replace(error, source=f"{self.name}: {error.source}"))
        if not explain:
            self._cache.put(key, resolved)
        return resolved, outcomes, plan.stored


_Run: TypeAlias = tuple[ResolvedTools, Outcomes, AgentToolConfig]
"""A request's result, the rule outcomes recorded (when explaining), the agent config merged."""


class _NoStore:
    """Stands in for a store when none is given (plans then read nothing)."""

    def batch(self, ops: Any) -> list[Any]:
        raise AssertionError("no store to read from")


_NO_STORE: Any = _NoStore()


def tool_map(tools: ToolsArg, label: str) -> dict[str, BaseTool]:
    """Tools by id; raises on duplicates and non-tools."""
    pairs: list[tuple[str, Any]]
    if isinstance(tools, Mapping):
        pairs = [(str(key), value) for key, value in tools.items()]
    elif isinstance(tools, Sequence) and not isinstance(tools, str):
        pairs = [(getattr(value, "name", ""), value) for value in tools]
    else:
        kind = type(tools).__name__
        msg = f"{label} must be a sequence of tools or a mapping id -> tool, got {kind}"
        raise ToolSearchTypeError(msg)
    out: dict[str, BaseTool] = {}
    for tool_id, tool in pairs:
        if not isinstance(tool, BaseTool):
            msg = f"{label}: {tool_id or tool!r} is a {type(tool).__name__}, not a BaseTool"
            raise ToolSearchTypeError(msg)
        if not tool_id:
            raise ToolSearchConfigError(f"{label}: a tool has an empty id")
        if tool_id in out:
            msg = f"{label}: two tools have the id {tool_id!r}; ids must be unique"
            raise ToolSearchConfigError(msg)
        out[tool_id] = tool
    return out


def provider_map(providers: Mapping[str, ToolProvider]) -> dict[str, ToolProvider]:
    """Providers by id; raises on one that is not a `ToolProvider`."""
    for key, provider in providers.items():
        if not isinstance(provider, ToolProvider):
            msg = (
                f"tool_providers[{key!r}] must implement ToolProvider (async list_tools() "
                f"and resolve_tools()), got {type(provider).__name__}"
            )
            raise ToolSearchTypeError(msg)
    return {str(key): provider for key, provider in providers.items()}
