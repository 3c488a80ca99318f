"""One request's view: its config, thread, context, state, store, and the tools it searches.

:class:`ScopeBuilder` builds a :class:`RequestScope` per step from the step's own
inputs; per-request tools come from :class:`Resolver` (``resolve_tools``, the
``toolsearch_resolve_tools`` config key, the agent's tools), merged with the static
library into one view (:class:`ChainedLibrary`, :class:`MergedIndex`).
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import heapq
import inspect
import json
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Protocol, runtime_checkable

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.errors import GraphBubbleUp
from langgraph.store.base import BaseStore

from langchain_toolsearch._effects import (
    Effect,
    Logic,
    detached_timeout,
    drive,
    in_hook_thread,
    is_async_callable,
    run_sync,
)
from langchain_toolsearch._library import LibraryTool, ToolLibrary, sound_tools, tool_problem
from langchain_toolsearch._prompts import META_TOOL_NAMES
from langchain_toolsearch._support import (
    CauseLog,
    FailureLog,
    Runs,
    describe,
    redact,
    request_secrets,
    run_of,
    source_name,
)
from langchain_toolsearch.errors import ToolSearchTypeError, ToolSourceError
from langchain_toolsearch.search import BM25ToolIndex, ScoredTool, ToolDocument, ToolIndex, arank
from langchain_toolsearch.types import OnError, ResolveToolsFn, SourceFailure

# -- views: Views that chain the static library and index with one request's tools (no copies).


def _schema_of(tool: BaseTool) -> Any:
    schema: Any = tool.tool_call_schema
    if isinstance(schema, dict):
        return schema
    try:
        return schema.model_json_schema()
    except Exception:  # an exotic schema still fingerprints by name and description
        return repr(schema)


_DIGESTS: dict[int, tuple[weakref.ref[BaseTool], str, str, Any, bytes]] = {}
"""id(tool) -> (the tool, name, description, args schema, digest) of tools seen alive."""


def _forget_key(key: int, ref: weakref.ref[BaseTool]) -> None:
    entry = _DIGESTS.get(key)
    if entry is not None and entry[0] is ref:
        _DIGESTS.pop(key, None)


def _digest(tool: BaseTool) -> bytes:
    """SHA-256 of a tool's name, description and call schema, memoised per live instance."""
    key = id(tool)
    name, description, schema = tool.name, tool.description or "", tool.args_schema
    entry = _DIGESTS.get(key)
    if (
        entry is not None
        and entry[0]() is tool
        and entry[1] == name
        and entry[2] == description
        and entry[3] is schema
    ):
        return entry[4]
    problem = tool_problem(tool)  # bounded; such a tool is dropped, its schema never written
    schema_text = _schema_of(tool) if problem is None else f"unusable: {problem}"
    text = json.dumps([name, description, schema_text], sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode("utf-8", "replace")).digest()
    try:
        ref = weakref.ref(tool, partial(_forget_key, key))
    except TypeError:  # not weakly referenceable: not memoised
        return digest
    _DIGESTS[key] = (ref, name, description, schema, digest)
    return digest


def tool_fingerprint(tools: Sequence[BaseTool]) -> str:
    """SHA-256 over the tools' names, descriptions and call schemas, in order."""
    digest = hashlib.sha256()
    for tool in tools:
        digest.update(_digest(tool))
    return digest.hexdigest()


async def close(hits: AsyncIterator[ScoredTool]) -> None:
    """Close an async ranking left before its end (an async generator's ``aclose``)."""
    aclose = getattr(hits, "aclose", None)
    if aclose is not None:
        await aclose()


class ChainedLibrary(ToolLibrary):
    """The static library followed by one request's tools (a view; nothing is copied)."""

    def __init__(self, first: ToolLibrary, second: ToolLibrary) -> None:
        self._first = first
        self._second = second

    def __len__(self) -> int:
        return len(self._first) + len(self._second)

    def __iter__(self) -> Iterator[LibraryTool]:
        yield from self._first
        yield from self._second

    def __contains__(self, name: object) -> bool:
        return name in self._first or name in self._second

    def get(self, name: str) -> LibraryTool | None:
        return self._first.get(name) or self._second.get(name)

    @property
    def names(self) -> list[str]:
        return [*self._first.names, *self._second.names]

    def documents(self) -> list[ToolDocument]:
        return [*self._first.documents(), *self._second.documents()]

    def suggest(self, name: str, *, limit: int = 5) -> list[str]:
        both = self._first.suggest(name, limit=limit) + self._second.suggest(name, limit=limit)
        return sorted(dict.fromkeys(both))[:limit]


class MergedIndex:
    """Ranks several indexes as one: their hits merged by ``(-score, name)``."""

    def __init__(self, *indexes: ToolIndex) -> None:
        self.indexes = indexes

    def rank(self, query: str) -> Iterator[ScoredTool]:
        """Yield the hits of every index, best first, ties by name."""
        return heapq.merge(
            *(index.rank(query) for index in self.indexes), key=lambda h: (-h.score, h.name)
        )

    async def arank(self, query: str) -> AsyncIterator[ScoredTool]:
        """Async :meth:`rank`, lazily (``arank`` of each index, else ``rank`` in a thread)."""
        parts = [arank(index, query) for index in self.indexes]
        heads: list[tuple[float, str, int, ScoredTool]] = []
        try:
            for i, part in enumerate(parts):
                hit = await anext(part, None)
                if hit is not None:
                    heapq.heappush(heads, (-hit.score, hit.name, i, hit))
            while heads:
                _, _, i, hit = heapq.heappop(heads)
                yield hit
                following = await anext(parts[i], None)
                if following is not None:
                    heapq.heappush(heads, (-following.score, following.name, i, following))
        finally:
            for part in parts:
                await close(part)

    def __len__(self) -> int:
        return sum(len(i) for i in self.indexes)


# -- resolve: Per-request tools: running resolvers safely and keeping only tools that can work.

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

    @staticmethod
    def merged(parts: Sequence[Resolution]) -> Resolution:
        """The tools and failures of ``parts``, in order."""
        tools = tuple(t for p in parts for t in p.tools)
        return Resolution(tools=tools, failures=tuple(f for p in parts for f in p.failures))


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
        return Resolution.merged(parts)

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
        return Resolution.merged(parts)

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


@runtime_checkable
class SyncResolveTools(Protocol):
    """A ``resolve_tools`` source with a sync form, run as such in sync runs.

    (``ToolResolver`` of the stored tool configuration is one.)
    """

    def call_sync(self, config: RunnableConfig) -> Any:
        """What the source answers, computed synchronously."""
        ...


def _sync_form(source: Any) -> Any:
    """The sync form of a source that has one (:class:`SyncResolveTools`), else ``None``."""
    return source.call_sync if isinstance(source, SyncResolveTools) else None


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


# -- scope: The request scope: everything one step of one request needs, as one immutable value.


def thread_id_of(config: RunnableConfig | Mapping[str, Any] | None) -> str | None:
    """The checkpointer's thread id of a run, or ``None``."""
    if not config:
        return None
    tid = (config.get("configurable") or {}).get("thread_id")
    return None if tid is None or tid == "" else str(tid)


@dataclass(frozen=True)
class RequestScope:
    """What one step of one request sees. Immutable; built per step, never stored.

    Attributes:
        config: The run's ``RunnableConfig`` (``{}`` outside a run).
        thread_id: ``config["configurable"]["thread_id"]`` or ``None``.
        context: The run's context (LangGraph ``Runtime.context``), or ``None``.
        state: The graph state of this step.
        graph_store: The graph's LangGraph store of this step, or ``None``.
        library: The static library, chained with this request's tools.
        index: The index over :attr:`library`.
        bound: Names of agent / node tools this request searches and withholds.
        direct: Tools bound as they are, after the meta tools.
        unavailable: Whether a tool source failed for this request.
    """

    config: RunnableConfig
    thread_id: str | None
    context: Any
    state: Any
    graph_store: BaseStore | None
    library: ToolLibrary
    index: ToolIndex
    bound: frozenset[str] = frozenset()
    direct: tuple[BaseTool | dict[str, Any], ...] = ()
    unavailable: bool = False


@dataclass(frozen=True)
class _Views:
    """A request's library and index views over a tool set, kept while the instances live."""

    tools: tuple[BaseTool, ...]
    library: ToolLibrary
    index: ToolIndex
    bound: frozenset[str]


class _LRU:
    def __init__(self, size: int) -> None:
        self._data: OrderedDict[str, Any] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: str) -> Any:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self._size:
                self._data.popitem(last=False)


class ScopeBuilder:
    """Builds :class:`RequestScope` values for the engine.

    Args:
        library: The static library.
        index: The static index.
        index_factory: Builds a request's index: its ``request_index`` if it has one
            (async runs: ``arequest_index``), else itself (async runs: ``abuild``); a
            factory without the async form is called as is in async runs too.
        resolver: The request's tool sources (``None`` without ``include_resolved_tools``).
        cache_size: Most per-request indexes kept (LRU).
    """

    def __init__(
        self,
        *,
        library: ToolLibrary,
        index: ToolIndex,
        index_factory: Callable[[Sequence[ToolDocument]], ToolIndex],
        resolver: Resolver | None,
        cache_size: int = 128,
    ) -> None:
        self.library = library
        self.index = index
        request = getattr(index_factory, "request_index", None)
        self._factory: Callable[[Sequence[ToolDocument]], ToolIndex] = request or index_factory
        self._afactory: Callable[[Sequence[ToolDocument]], Awaitable[ToolIndex]] | None = getattr(
            index_factory, "arequest_index" if request else "abuild", None
        )
        """The async form of :attr:`_factory` (``None``: the sync one, on the loop)."""
        self.resolver = resolver
        self.index_failures = CauseLog(
            logger,
            "tool search: indexing a request's own tools failed (%s: %s); "
            "searching them by BM25 alone for this request",
        )
        """Logs a failing request-index factory once per cause."""
        self._indexes = _LRU(cache_size)
        self._lock = threading.Lock()
        self.index_builds = 0
        """Per-request indexes built (cache misses)."""
        self.library_builds = 0
        """Per-request libraries built (new tool instances)."""

    @property
    def per_request(self) -> bool:
        """Whether requests have their own tools (``include_resolved_tools``)."""
        return self.resolver is not None

    # -- scopes --------------------------------------------------------------------------

    def _plan(self, tools: Sequence[BaseTool]) -> tuple[str, Any, tuple[bool, ...]]:
        """Cache key, cached ``(keep, index)`` or ``None``, and on a miss which tools work."""
        key = tool_fingerprint(tools)
        cached = self._indexes.get(key)
        if cached is not None:
            return key, cached, ()
        return key, None, usable_tools(tools, self.library)

    @staticmethod
    def _kept(tools: Sequence[BaseTool], keep: Sequence[bool]) -> list[BaseTool]:
        return [t for t, ok in zip(tools, keep, strict=True) if ok]

    def _part(self, tools: Sequence[BaseTool], cached: Any) -> tuple[ToolLibrary, ToolIndex] | None:
        keep, index = cached
        if index is None:
            return None
        with self._lock:
            self.library_builds += 1
        return ToolLibrary(self._kept(tools, keep)), index

    def _store(self, key: str, keep: tuple[bool, ...], index: ToolIndex | None) -> Any:
        cached = (keep, index)
        with self._lock:
            self.index_builds += 1
        self._indexes.put(key, cached)
        return cached

    def _request_part(
        self, tools: Sequence[BaseTool]
    ) -> Logic[tuple[ToolLibrary, ToolIndex] | None]:
        """Library and index of a request's own tools (``None``: none works); cached by content."""
        key, cached, keep = self._plan(tools)
        if cached is None:
            kept = self._kept(tools, keep)
            if not kept:
                cached = self._store(key, keep, None)
            else:
                documents = ToolLibrary(kept).documents()
                build, abuild = partial(self._factory, documents), self._afactory
                effect = Effect(build, partial(abuild, documents)) if abuild else Effect.same(build)
                try:
                    cached = self._store(key, keep, (yield effect))
                except Exception as exc:  # the request goes on with BM25 over its tools
                    cached = (keep, self._fallback(documents, exc))
        return self._part(tools, cached)

    def _fallback(self, documents: Sequence[ToolDocument], exc: Exception) -> ToolIndex:
        """A BM25 index of a request's tools when the factory failed (not cached)."""
        self.index_failures.failed(exc)
        return BM25ToolIndex.build(documents)

    @staticmethod
    def _identity(tools: Sequence[BaseTool], bound: int) -> str:
        return f"{bound}:" + ",".join(str(id(t)) for t in tools)

    def _known_views(
        self, tools: Sequence[BaseTool], bound: int, kept: dict[str, Any]
    ) -> _Views | None:
        """The run's views of these very tool instances (`Resolution.views`), if built before."""
        views: _Views | None = kept.get(self._identity(tools, bound))
        if views is None or len(views.tools) != len(tools):
            return None
        if any(a is not b for a, b in zip(views.tools, tools, strict=True)):
            return None
        return views

    def _new_views(
        self,
        tools: Sequence[BaseTool],
        bound: Sequence[BaseTool],
        part: tuple[ToolLibrary, ToolIndex] | None,
        kept: dict[str, Any],
    ) -> _Views:
        library, index = self.library, self.index
        bound_names: frozenset[str] = frozenset()
        if part is not None:
            extra, own_index = part
            library = ChainedLibrary(self.library, extra)
            index = MergedIndex(self.index, own_index)
            bound_names = frozenset(t.name for t in bound if extra.get(t.name) is not None)
        views = _Views(tuple(tools), library, index, bound_names)
        kept[self._identity(tools, len(bound))] = views
        return views

    def _views_for(
        self, own: Sequence[BaseTool], bound: Sequence[BaseTool], kept: dict[str, Any]
    ) -> Logic[_Views | None]:
        if not own:
            return None
        known = self._known_views(own, len(bound), kept)
        if known is not None:
            return known
        part = yield from self._request_part(own)
        return self._new_views(own, bound, part, kept)

    def _scope(
        self,
        config: RunnableConfig,
        state: Any,
        graph_store: BaseStore | None,
        context: Any,
        direct: Sequence[BaseTool | dict[str, Any]],
        views: _Views | None,
        unavailable: bool,
    ) -> RequestScope:
        return RequestScope(
            config=config,
            thread_id=thread_id_of(config),
            context=context,
            state=state,
            graph_store=graph_store,
            library=self.library if views is None else views.library,
            index=self.index if views is None else views.index,
            bound=frozenset() if views is None else views.bound,
            direct=tuple(direct),
            unavailable=unavailable,
        )

    def scope(
        self,
        config: RunnableConfig,
        state: Any,
        *,
        graph_store: BaseStore | None = None,
        context: Any = None,
        bound: Sequence[BaseTool] = (),
        direct: Sequence[BaseTool | dict[str, Any]] = (),
    ) -> Logic[RequestScope]:
        """The scope of one step, as logic (resolvers and the request index's build as effects).

        Args:
            config: The run's config.
            state: The graph state.
            graph_store: The graph's store.
            context: The run's context.
            bound: Agent / node tools to search this request (``include_resolved_tools``).
            direct: Tools bound as they are.
        """
        resolver = self.resolver
        if resolver is None:  # the static library only: nothing to resolve or chain
            return self._scope(config, state, graph_store, context, direct, None, False)
        # a fresh resolution, never a shared one: its ``views`` hold this request's tools
        found = yield Effect(
            partial(resolver.resolve, config),
            lambda: resolver.aresolve(config, contextvars.copy_context()),
        )
        own = [*bound, *found.tools] if self.per_request else []
        views = yield from self._views_for(own, bound, found.views)
        return self._scope(config, state, graph_store, context, direct, views, found.unavailable)

    def build(self, config: RunnableConfig, state: Any, **parts: Any) -> RequestScope:
        """:meth:`scope` run synchronously (resolvers on the package's helper loop)."""
        return drive(self.scope(config, state, **parts))
