"""Per-request tools: running resolvers safely and keeping only tools that can work.

Sources: ``resolve_tools``, ``config["configurable"]["toolsearch_resolve_tools"]``
(a callable or tools) and the tools bound on the agent / node. They run once per run
(outside a run, each time), never on an event loop, within ``resolve_timeout`` seconds.
A failing source adds nothing (``on_error="skip"``, logged once per cause) or raises
`ToolSourceError`. Tools no provider takes become ``"config"`` failures; tools that
clash with others are dropped with a warning; an answer that is not tools raises.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.errors import GraphBubbleUp

from langchain_toolsearch._effects import detached_timeout, in_hook_thread, run_sync
from langchain_toolsearch._engine.runs import Runs, run_of
from langchain_toolsearch._internal.failures import (
    FailureLog,
    describe,
    redact,
    request_secrets,
    source_name,
)
from langchain_toolsearch._internal.schema_checks import sound_tools, tool_problem
from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch.errors import ToolSearchTypeError, ToolSourceError
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.policy import is_async_callable
from langchain_toolsearch.types import OnError, ResolveToolsFn, SourceFailure

__all__ = ["CONFIG_RESOLVER_KEY", "Resolution", "ResolveToolsFn", "Resolver", "usable_tools"]

logger = logging.getLogger(__name__)

CONFIG_RESOLVER_KEY = "toolsearch_resolve_tools"
"""``config["configurable"]`` key for a per-call resolver (a callable or a list of tools)."""


def _checked(value: Any) -> list[BaseTool]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ToolSearchTypeError(
            "a per-request tool resolver must return a sequence of BaseTool, "
            f"got {type(value).__name__}"
        )
    wrong = sorted({type(t).__name__ for t in value if not isinstance(t, BaseTool)})
    if wrong:
        raise ToolSearchTypeError(
            "a per-request tool resolver must return a sequence of BaseTool, "
            f"got items of type {', '.join(wrong)}"
        )
    return list(value)


def _why_unusable(tool: BaseTool, static: ToolLibrary, seen: set[str]) -> str:
    name = tool.name
    if not isinstance(name, str) or not name.strip():
        return "it has no name"
    problem = tool_problem(tool)
    if problem is not None:
        return problem
    if name in META_TOOL_NAMES:
        return "its name is reserved for the tool-search meta tools"
    if name in seen:
        return "another tool of this request has the same name"
    if static.get(name) is not None:
        return "a tool of the static library has the same name"
    try:
        convert_to_openai_tool(tool)
    except Exception as exc:
        return f"its schema cannot be converted ({type(exc).__name__})"
    return ""


def usable_tools(tools: Sequence[BaseTool], static: ToolLibrary) -> tuple[bool, ...]:
    """Which of ``tools`` can work beside ``static`` (each one dropped is logged)."""
    seen: set[str] = set()
    keep: list[bool] = []
    for tool in tools:
        why = _why_unusable(tool, static, seen)
        if why:
            shown = tool.name.encode("utf-8", "backslashreplace").decode("ascii", "replace")
            logger.warning("tool search: dropped per-request tool %r: %s", shown[:80], why)
        else:
            seen.add(tool.name)
        keep.append(not why)
    return tuple(keep)


@dataclass(frozen=True)
class Resolution:
    """What a step's tool sources gave.

    Attributes:
        tools: Their tools, in source order.
        failures: Sources that failed (or reported failing parts), never a secret.
        views: The run's library / index views over these tools (filled by the scope builder).
    """

    tools: tuple[BaseTool, ...] = ()
    failures: tuple[SourceFailure, ...] = ()
    views: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def unavailable(self) -> bool:
        return any(f.unavailable for f in self.failures)


class Resolver:
    """Runs a request's tool sources once per run, with a timeout, never on the event loop.

    Args:
        resolver: ``resolve_tools`` (sync or async), or ``None``.
        timeout: Seconds each source may take.
        on_error: ``"skip"`` (a failing source adds nothing) or ``"raise"``.
    """

    def __init__(
        self, resolver: ResolveToolsFn | None, *, timeout: float, on_error: OnError = "skip"
    ) -> None:
        self._resolver = resolver
        self.timeout = timeout
        self.on_error: OnError = on_error
        self.failures = FailureLog(logger)
        """Distinct failure causes seen (for ``get_state_stats``)."""
        self._runs = Runs[Resolution]()
        self.calls = 0
        """Resolutions run (not from a run's cache)."""

    def _sources(self, config: RunnableConfig) -> list[tuple[str, Any]]:
        sources: list[tuple[str, Any]] = []
        if self._resolver is not None:
            sources.append((source_name(self._resolver), self._resolver))
        extra = (config.get("configurable") or {}).get(CONFIG_RESOLVER_KEY)
        if extra is not None:
            sources.append((f"configurable.{CONFIG_RESOLVER_KEY}", extra))
        return sources

    async def _one(
        self, name: str, source: Any, config: RunnableConfig, ctx: contextvars.Context
    ) -> Resolution:
        if not callable(source):
            return _as_resolution(name, source)
        try:
            async with detached_timeout(self.timeout):
                if is_async_callable(source):
                    value = ctx.copy().run(source, config)
                else:
                    value = await in_hook_thread(ctx.copy().run, source, config)
                if inspect.isawaitable(value):
                    value = await value
        except GraphBubbleUp:
            raise
        except Exception as exc:
            return self._failed(name, exc, config)
        return _as_resolution(name, value, request_secrets(config))

    def _settle(self, resolution: Resolution, *, fresh: bool = False) -> Resolution:
        """Log fresh failures (once per cause); raise failures with ``on_error="raise"``."""
        for failure in resolution.failures if fresh else ():
            self.failures.record(failure)
        if self.on_error == "raise" and resolution.failures:
            shown = "; ".join(
                f"{f.source}: {f.error + ': ' if f.error else ''}{f.message}"
                for f in resolution.failures
            )
            raise ToolSourceError(
                f"tool source(s) failed (on_error='raise'): {shown}", resolution.failures
            )
        return resolution

    async def _run_sources(
        self, sources: list[tuple[str, Any]], config: RunnableConfig, ctx: contextvars.Context
    ) -> Resolution:
        self.calls += 1
        parts = await asyncio.gather(*(self._one(n, s, config, ctx) for n, s in sources))
        return Resolution(
            tools=tuple(t for p in parts for t in p.tools),
            failures=tuple(f for p in parts for f in p.failures),
        )

    async def aresolve(
        self, config: RunnableConfig, ctx: contextvars.Context | None = None
    ) -> Resolution:
        """The tools of every source for ``config``, in source order; once per run.

        Raises:
            ToolSourceError: A source failed and ``on_error="raise"``.
            ToolSearchTypeError: A source returned something that is not tools.
        """
        sources = self._sources(config)
        # the caller's context, not this task's: on the helper loop (sync callers) the
        # ambient runtime may be another, finished run's
        run = ctx.run(run_of, config) if ctx is not None else run_of(config)
        if run is None:
            if not sources:
                return Resolution()
            context = ctx if ctx is not None else contextvars.copy_context()
            return self._settle(await self._run_sources(sources, config, context), fresh=True)
        cached = self._runs.get(run)
        if cached is not None:
            return self._settle(cached)
        if not sources:
            return self._runs.put(run, Resolution())
        pending = self._runs.pending(run)
        if pending is not None:
            return self._settle(await asyncio.shield(pending))
        future = self._runs.start(run)
        try:
            context = ctx if ctx is not None else contextvars.copy_context()
            found = await self._run_sources(sources, config, context)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters re-raise it, nobody else needs to
            raise
        finally:
            self._runs.finish(run, future)
        found = self._runs.put(run, found)
        future.set_result(found)
        return self._settle(found, fresh=True)

    def _failed(self, name: str, exc: Exception, config: RunnableConfig) -> Resolution:
        error, message = describe(exc, request_secrets(config))
        if isinstance(exc, TimeoutError):
            message = f"timed out: no answer within {self.timeout:g} s"
        return Resolution(failures=(SourceFailure(name, "resolver", error, message),))

    def _resolve_here(self, sources: list[tuple[str, Any]], config: RunnableConfig) -> Resolution:
        """Sources with a sync form, run in this thread."""
        self.calls += 1
        parts: list[Resolution] = []
        for name, source in sources:
            sync = _sync_form(source)
            if sync is None:
                parts.append(_as_resolution(name, source))
                continue
            try:
                value = sync(config)
            except GraphBubbleUp:
                raise
            except Exception as exc:
                parts.append(self._failed(name, exc, config))
            else:
                parts.append(_as_resolution(name, value, request_secrets(config)))
        return Resolution(
            tools=tuple(t for p in parts for t in p.tools),
            failures=tuple(f for p in parts for f in p.failures),
        )

    def resolve(self, config: RunnableConfig) -> Resolution:
        """Sync :meth:`aresolve`; sources with a sync form run in this thread outside a loop."""
        sources = self._sources(config)
        run = run_of(config)
        cached = self._runs.get(run) if run is not None else None
        if cached is not None:
            return self._settle(cached)
        if not sources:
            return Resolution() if run is None else self._runs.put(run, Resolution())
        if all(not callable(s) or _sync_form(s) is not None for _, s in sources) and (
            not _loop_running()
        ):
            found = self._resolve_here(sources, config)
            if run is not None:
                found = self._runs.put(run, found)
            return self._settle(found, fresh=True)
        return run_sync(self.aresolve(config, contextvars.copy_context()))


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _sync_form(source: Any) -> Any:
    """The sync form of a source that has one (`ToolResolver.call_sync`), else ``None``."""
    from langchain_toolsearch.config.resolver import ToolResolver

    return source.call_sync if isinstance(source, ToolResolver) else None


def _sound(name: str, resolution: Resolution) -> Resolution:
    """``resolution`` less the tools no provider can take, each a ``"config"`` failure."""
    kept, dropped = sound_tools(name, resolution.tools)
    if not dropped:
        return resolution
    return Resolution(tools=kept, failures=(*resolution.failures, *dropped))


def _as_resolution(name: str, value: Any, secrets: frozenset[str] = frozenset()) -> Resolution:
    """`_answer`, less the tools no provider can take (`_sound`)."""
    return _sound(name, _answer(name, value, secrets))


def _answer(name: str, value: Any, secrets: frozenset[str] = frozenset()) -> Resolution:
    """A source's answer: tools, or a result with ``tools`` and ``errors`` or ``failures``.

    Raises:
        ToolSearchTypeError: Anything else.
    """
    tools = getattr(value, "tools", None)
    if tools is None or isinstance(value, BaseTool):
        return Resolution(tools=tuple(_checked(value)))
    errors = getattr(value, "errors", None)
    if isinstance(errors, Sequence):
        failures = tuple(
            replace(e, source=f"{name}: {e.source}") for e in errors if isinstance(e, SourceFailure)
        )
        return Resolution(tools=tuple(_checked(tools)), failures=failures)
    reasons = getattr(value, "failures", None)
    if isinstance(reasons, Mapping):
        failures = tuple(
            SourceFailure(f"{name}: {server}", "mcp", "", redact(str(reason), secrets))
            for server, reason in reasons.items()
        )
        return Resolution(tools=tuple(_checked(tools)), failures=failures)
    return Resolution(tools=tuple(_checked(value)))
