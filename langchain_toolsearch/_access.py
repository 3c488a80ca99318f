"""What a request may see, has loaded and may use: the filter, the loads, the working set.

:class:`ToolPolicy` runs the filter hook (fails closed, never on the event loop);
:class:`WorkingSet` bounds the loaded tools (``max_loaded``, ``max_loaded_tokens``);
:class:`Bindable` decides which tools a provider can bind; :class:`Access` joins them
with the storage as engine logic.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import operator
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._effects import (
    Effect,
    Logic,
    detached_timeout,
    in_hook_thread,
    is_async_callable,
    on_bridge_loop,
    run_sync,
)
from langchain_toolsearch._library import LibraryTool, ToolLibrary
from langchain_toolsearch._prompts import META_TOOL_NAMES, model_text
from langchain_toolsearch._scope import RequestScope
from langchain_toolsearch._support import (
    FailureLog,
    WeakIdentityMap,
    positive_seconds,
    request_secrets,
    source_name,
)
from langchain_toolsearch.errors import (
    ToolSearchConfigError,
    ToolSearchTimeoutError,
    ToolSearchTypeError,
    UnusableIdentifier,
)
from langchain_toolsearch.storage._context import HistoryMemo, state_value
from langchain_toolsearch.storage._strategy import Storage
from langchain_toolsearch.types import FilterFn, FilterPhase, ToolSearchFilterArgs

# -- policy: The filter hook: request-aware allow/deny decisions in three phases, failing closed.

logger = logging.getLogger(__name__)


_GRACE = 0.5
"""Seconds a sync caller waits past ``filter_timeout`` for a batch before denying it all."""


async def _answer(hook: FilterFn, args: ToolSearchFilterArgs) -> object:
    value: Any = hook(args)
    return await value if inspect.isawaitable(value) else value


async def _awaited(value: Awaitable[object]) -> object:
    return await value


class ToolPolicy:
    """Wraps the user's filter hook with fail-closed semantics and a timeout.

    Args:
        filter: The hook, or ``None`` to allow everything.
        timeout: Seconds one decision may take (then denied). Timeouts and raising
            hooks are logged at WARNING once per cause (redacted), then at DEBUG.

    Raises:
        ToolSearchTypeError: ``filter`` is not callable.
        ToolSearchConfigError: ``timeout`` is not seconds > 0.
    """

    def __init__(self, filter: FilterFn | None = None, *, timeout: float = 10.0) -> None:
        if filter is not None and not callable(filter):
            raise ToolSearchTypeError(
                f"filter must be a callable (ToolSearchFilterArgs) -> bool, got {type(filter)!r}"
            )
        self._filter = filter
        self._async = is_async_callable(filter)
        self.timeout = positive_seconds("filter_timeout", timeout)
        self._timed_out = False
        self.failures = FailureLog(logger)
        """Distinct causes of filter exceptions (for ``get_state_stats``)."""
        self._name = source_name(filter) if filter is not None else "filter"

    @property
    def enabled(self) -> bool:
        """Whether a hook is set."""
        return self._filter is not None

    @staticmethod
    def _verdict(args: ToolSearchFilterArgs, value: object) -> bool:
        if value is True:
            return True
        if value is not False:
            logger.warning(
                "tool search filter returned a %s for %s (phase %s); only True allows, denying",
                type(value).__name__,
                args.tool_name,
                args.phase,
            )
        return False

    def _deny(self, args: ToolSearchFilterArgs, exc: BaseException) -> bool:
        if isinstance(exc, TimeoutError):
            level = logging.DEBUG if self._timed_out else logging.WARNING
            self._timed_out = True
            logger.log(
                level,
                "tool search filter gave no answer within %s s for %s (phase %s); denying",
                self.timeout,
                args.tool_name,
                args.phase,
            )
            return False
        # once per distinct cause (filter, type, message without secrets), then at DEBUG
        secrets = request_secrets(args.config, args.context)
        self.failures.failed(self._name, exc, "filter", secrets)
        logger.debug("the filter failed for %s (phase %s)", args.tool_name, args.phase)
        return False

    async def _one(self, args: ToolSearchFilterArgs, ctx: contextvars.Context) -> bool:
        assert self._filter is not None
        hook = self._filter
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            async with detached_timeout(self.timeout):
                if self._async:  # on the package's loop: a blocking one never stalls the caller's
                    value: Any = await on_bridge_loop(ctx.copy().run(_answer, hook, args))
                else:  # never on the event loop
                    value = await in_hook_thread(ctx.copy().run, hook, args)
                    if inspect.isawaitable(value):
                        value = await on_bridge_loop(_awaited(value))
            if loop.time() - started > self.timeout:  # answered, but too late: still no
                raise ToolSearchTimeoutError
        except Exception as exc:  # fail closed on anything the hook raises, timeouts included
            return self._deny(args, exc)
        return self._verdict(args, value)

    async def acheck_many(
        self, batch: Sequence[ToolSearchFilterArgs], ctx: contextvars.Context | None = None
    ) -> list[bool]:
        """Decide a batch concurrently; answers in order."""
        if self._filter is None or not batch:
            return [True] * len(batch)
        context = ctx if ctx is not None else contextvars.copy_context()
        return list(await asyncio.gather(*(self._one(a, context) for a in batch)))

    def check_many(self, batch: Sequence[ToolSearchFilterArgs]) -> list[bool]:
        """Decide a batch from sync code, concurrently on the package's helper loop."""
        if self._filter is None or not batch:
            return [True] * len(batch)
        try:  # the cases run concurrently: the batch takes about one timeout at most
            return run_sync(
                self.acheck_many(batch, contextvars.copy_context()), timeout=self.timeout + _GRACE
            )
        except TimeoutError as exc:  # the package's loop is held by a blocking async hook
            return [self._deny(args, exc) for args in batch]

    def check(self, args: ToolSearchFilterArgs) -> bool:
        """Decide one case synchronously."""
        return self.check_many([args])[0]

    async def acheck(self, args: ToolSearchFilterArgs) -> bool:
        """Decide one case asynchronously."""
        return (await self.acheck_many([args]))[0]


# -- working_set: The bounded working set: which of a thread's loaded tools stay bound

EVICTED_SHOWN = 10
"""Most evicted names the hint lists (the most recently used ones)."""


LOADED_ON_CALL = "toolsearch_loaded_on_call"
"""Artifact key of a ``load_on_call`` answer (the called name): a use of that tool."""


def _names(value: object) -> list[str]:
    return [n for n in value if isinstance(n, str)] if isinstance(value, list) else []


def _read(messages: Sequence[Any]) -> tuple[str, ...]:
    """The tool names used in ``messages`` (answered calls, load receipts), oldest first."""
    uses: list[str] = []
    calls: dict[str, str] = {}
    for message in messages:
        if isinstance(message, AIMessage):
            for c in message.tool_calls:  # call_tool's use is of the tool it names
                args, stable = c.get("args"), c["name"] == P.CALL_TOOL_NAME
                inner = args.get("tool_name") if stable and isinstance(args, Mapping) else None
                calls[c.get("id") or ""] = inner if isinstance(inner, str) else c["name"]
            continue
        if not isinstance(message, ToolMessage) or message.tool_call_id not in calls:
            continue
        name = calls[message.tool_call_id]
        receipt = message.artifact if isinstance(message.artifact, Mapping) else {}
        if name == P.LOAD_TOOL_NAME:
            uses += [*_names(receipt.get("loaded")), *_names(receipt.get("already_loaded"))]
        elif name == P.SEARCH_TOOL_NAME:
            activation = receipt.get("activation")
            uses += _names(activation.get("loaded")) if isinstance(activation, Mapping) else []
        elif message.status != "error" or receipt.get(LOADED_ON_CALL) == name:
            uses.append(name)
    return tuple(uses)


_HISTORIES: HistoryMemo[tuple[str, ...]] = HistoryMemo(_read)
"""Uses per history: the tool calls of one step read their history once."""


def uses_in(state: Any, resolve: Callable[[str], str | None]) -> list[str]:
    """The library names used in ``state["messages"]``, one per use, oldest first."""
    messages = state_value(state, "messages")
    if not isinstance(messages, list) or not messages:
        return []
    return [resolve(raw) or raw for raw in _HISTORIES.get(messages)]


@dataclass(frozen=True)
class WorkingSet:
    """The bound of the working set (``None``: none).

    Attributes:
        max_count: Most tools kept.
        max_tokens: Most estimated schema tokens kept.
        cost: A tool's estimated schema tokens.
    """

    max_count: int | None = None
    max_tokens: int | None = None
    cost: Callable[[BaseTool], int] = lambda tool: 0

    def split(
        self, names: Sequence[str], state: Any, library: ToolLibrary
    ) -> tuple[list[str], list[str]]:
        """(kept, in working order; evicted, most recent first) of the loaded ``names``.

        Replays the history: unused loads start the set, each use refreshes or appends a
        tool, past the bound the least recently used leaves. Names not in ``library`` cost 0.
        """
        stored = dict.fromkeys(names)
        known = [n for n in stored if library.get(n) is not None]
        uses = [n for n in uses_in(state, library.resolve) if n in stored and library.get(n)]
        used = set(uses)
        order = [n for n in known if n not in used]  # loaded, never used in the history
        recency = {n: -len(order) + i for i, n in enumerate(order)}  # older loads first
        left: dict[str, int] = {}
        self._fit(order, recency, left, None, library)
        for step, name in enumerate(uses):
            recency[name] = step
            left.pop(name, None)
            if name not in order:
                order.append(name)
                self._fit(order, recency, left, name, library)
        evicted = sorted(left, key=lambda n: recency[n], reverse=True)
        return [*order, *(n for n in stored if library.get(n) is None)], evicted

    def _fit(
        self,
        order: list[str],
        recency: dict[str, int],
        left: dict[str, int],
        newest: str | None,
        library: ToolLibrary,
    ) -> None:
        """Evict from ``order`` (into ``left``) the least recently used until it fits."""
        while len(order) > 1 and self._over(order, library):
            victim = min((n for n in order if n != newest), key=lambda n: recency[n])
            order.remove(victim)
            left[victim] = recency[victim]

    def _over(self, order: Sequence[str], library: ToolLibrary) -> bool:
        if self.max_count is not None and len(order) > self.max_count:
            return True
        if self.max_tokens is None:
            return False
        total = 0
        for name in order:
            entry = library.get(name)
            total += self.cost(entry.tool) if entry is not None else 0
        return total > self.max_tokens

    def notice(self, evicted: Sequence[str], *, auto_load: bool) -> str:
        """The hint's sentence naming the evicted tools (``""`` when none)."""
        if not evicted:
            return ""
        shown = ", ".join(evicted[:EVICTED_SHOWN])
        if len(evicted) > EVICTED_SHOWN:
            shown += P.WORKING_SET_MORE.format(count=len(evicted) - EVICTED_SHOWN)
        how = P.WORKING_SET_HOW_AUTO if auto_load else P.WORKING_SET_HOW_LOAD
        return P.WORKING_SET_EVICTED.format(names=shown, how=how)


# -- binding: What the model is bound with: meta tools, tools bound as they are, then loaded tools.


def tool_name(tool: BaseTool | Mapping[str, Any]) -> str | None:
    """The name of a tool or of a provider tool dict."""
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, Mapping):
        fn = tool.get("function")
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            return cast(str, fn["name"])
        name = tool.get("name")
        return name if isinstance(name, str) else None
    return None


def split_agent_tools(
    tools: Sequence[BaseTool | Mapping[str, Any]],
    meta: Sequence[BaseTool],
    library: ToolLibrary,
    *,
    per_request: bool,
) -> tuple[list[BaseTool], list[BaseTool | dict[str, Any]]]:
    """Split the tools bound on an agent/node into (searchable per request, bound as they are).

    Meta tools (compared by identity) are left out. With ``per_request`` the
    agent's own ``BaseTool`` objects become searchable and are withheld until
    loaded; provider tools (dicts) always stay bound.

    Raises:
        ToolSearchConfigError: A tool is named like a meta tool or a library tool, or
            its name is not model text (``model_text`` would alter it).
    """
    if len(tools) == len(meta) and all(map(operator.is_, tools, meta)):
        return [], []  # only the meta tools (every step of an agent with no tools of its own)
    others = [t for t in tools if not any(t is m for m in meta)]
    reserved = sorted(n for t in others if (n := tool_name(t)) in META_TOOL_NAMES)
    if reserved:
        raise ToolSearchConfigError(
            f"a tool bound on the agent is named {reserved}, which is reserved for the "
            "tool-search meta tools; rename it (or use a single ToolSearchMiddleware)"
        )
    hidden = sorted(
        ascii(n) for t in others if (n := tool_name(t)) is not None and model_text(n) != n
    )
    if hidden:
        raise ToolSearchConfigError(
            f"tools bound on the agent are named {hidden}, with invisible, control or "
            "format characters the model is never shown; rename them (letters, digits, "
            "_ and -, as providers require)"
        )
    clash = sorted(n for t in others if (n := tool_name(t)) is not None and library.get(n))
    if clash:
        raise ToolSearchConfigError(
            f"tools {clash} are both bound directly on the agent and in the tool-search "
            "library; a tool must be in one of the two: remove it from the agent's tools "
            "(library tools are bound once loaded), or from the library passed as tools=... "
            "(with include_resolved_tools=True the agent's tools are searched too, as "
            "LangChain's tool-selection middleware does)"
        )
    bound = [t for t in others if per_request and isinstance(t, BaseTool)]
    direct = [t if isinstance(t, BaseTool) else dict(t) for t in others if t not in bound]
    return bound, direct


def order_tools(
    meta: Sequence[BaseTool],
    direct: Sequence[BaseTool | dict[str, Any]],
    loaded: Sequence[LibraryTool],
    bindable: Bindable | None = None,
) -> list[BaseTool | dict[str, Any]]:
    """Binding order: meta tools, tools bound as they are, then loaded tools in load order.

    With ``bindable`` each tool other than the meta tools is its bound view
    (:meth:`Bindable.view`: texts through ``model_text``); a loaded tool
    without one is left out.
    """
    if bindable is None:
        return [*meta, *direct, *(e.tool for e in loaded)]
    view = bindable.view
    shown = [v for e in loaded if (v := view(e.tool)) is not None]
    return [*meta, *(bindable.view_direct(t) for t in direct), *shown]


_IDENTIFIERS = frozenset({"enum", "const", "required"})
"""Schema keys whose strings the model sends back: the tool reads them as given."""


def clean_schema(value: Any, *, identifier: bool = False, depth: int = 0) -> Any:
    """``value`` (a JSON schema) with every string and key through ``model_text``.

    Returns ``value`` itself when nothing changes. Descriptions keep their
    lines. Strings the model sends back (property names, ``enum``/``const``
    values, ``required`` names) are not altered: if one is not clean the
    schema is unusable.

    Raises:
        UnusableIdentifier: A property name or allowed value carries hidden characters,
            or the schema is nested over 200 levels.
    """
    if depth > 200:
        raise UnusableIdentifier("nested over 200 levels")
    if isinstance(value, str):
        if identifier:
            if model_text(value) != value:
                raise UnusableIdentifier(
                    "a parameter name or allowed value carries hidden characters"
                )
            return value
        return model_text(value, lines=True)
    if isinstance(value, list):
        items = [clean_schema(v, identifier=identifier, depth=depth + 1) for v in value]
        return value if all(map(operator.is_, items, value)) else items
    if isinstance(value, Mapping):
        changed = False
        out: dict[Any, Any] = {}
        for key, item in value.items():
            names = key == "properties"
            new_key = key
            if isinstance(key, str) and (model_text(key) != key):
                if identifier or names:
                    raise UnusableIdentifier("a parameter name carries hidden characters")
                new_key = model_text(key)
            if names and isinstance(item, Mapping):
                for pname in item:
                    if isinstance(pname, str) and model_text(pname) != pname:
                        raise UnusableIdentifier("a parameter name carries hidden characters")
            new = clean_schema(item, identifier=key in _IDENTIFIERS, depth=depth + 1)
            changed = changed or new is not item or new_key != key
            out[new_key] = new
        return out if changed else value
    return value


class Bindable:
    """Whether providers can take a tool's schema, and the tool's bound view; cached per tool.

    A tool is bindable when LangChain converts its schema and its parameter
    names and allowed values are model text (``model_text`` leaves them as
    they are: the model sends them back). Its bound view is the tool itself
    when its name, description and schema are model text, else a copy
    (``model_copy``) whose description and ``args_schema`` (the JSON schema
    the model is sent) went through ``model_text``; the user's tool is never
    changed, and the copy is never run (the library's tool is). The cache
    holds tools weakly and keeps only texts: a request's own tools (built
    with its caller's credentials) never outlive the request because of it.
    """

    def __init__(self, max_entries: int = 20_000) -> None:
        self._known: WeakIdentityMap[_Verdict] = WeakIdentityMap(size=max_entries)

    def _verdict(self, tool: BaseTool) -> _Verdict:
        known = self._known.get(tool)
        if known is not None:
            return known
        verdict: _Verdict
        try:
            function = convert_to_openai_tool(tool)["function"]
            parameters = function.get("parameters", {})
            cleaned = clean_schema(parameters)
            description = model_text(tool.description or "", lines=True)
            if cleaned is parameters and description == (tool.description or ""):
                verdict = True
            else:
                verdict = (description, cleaned)
        except Exception as exc:
            logger.warning(
                "tool search: tool %r is not bound: its schema cannot be converted (%s)",
                model_text(tool.name[:80]),
                model_text(str(exc)[:120])
                if isinstance(exc, UnusableIdentifier)
                else type(exc).__name__,
            )
            verdict = False
        self._known.put(tool, verdict)
        return verdict

    def warm(self, tools: Sequence[BaseTool]) -> Effect[None]:
        """Check the tools not checked yet: inline when sync, in a worker thread when async.

        Converting many schemas (1,000 tools loaded in one step) takes seconds;
        off the event loop, other requests go on meanwhile.
        """
        cold = [t for t in tools if self._known.get(t) is None]
        if not cold:
            return Effect.of(None)

        def run() -> None:
            for tool in cold:
                self._verdict(tool)

        async def arun() -> None:
            await asyncio.to_thread(run)

        return Effect(run, arun)

    def __call__(self, tool: BaseTool) -> bool:
        """Check ``tool``, logging a warning the first time it fails."""
        return self._verdict(tool) is not False

    def view(self, tool: BaseTool) -> BaseTool | None:
        """What the model is bound with for ``tool`` (see the class), ``None`` if not bindable."""
        verdict = self._verdict(tool)
        if verdict is True or verdict is False:
            return tool if verdict else None
        description, schema = verdict
        return tool.model_copy(update={"description": description, "args_schema": schema})

    def definition(self, tool: BaseTool) -> dict[str, Any] | None:
        """The bound view as an OpenAI function (name, description, parameters), or ``None``."""
        view = self.view(tool)
        return None if view is None else dict(convert_to_openai_tool(view)["function"])

    def view_direct(self, tool: BaseTool | dict[str, Any]) -> BaseTool | dict[str, Any]:
        """The bound view of a tool bound as it is (a provider dict: its strings cleaned).

        A tool whose schema cannot be converted is bound as it is (the
        provider answers for it).
        """
        if isinstance(tool, BaseTool):
            return self.view(tool) or tool
        try:
            cleaned: dict[str, Any] = clean_schema(tool)
        except UnusableIdentifier:
            return tool
        return cleaned


_Verdict = bool | tuple[str, Any]
"""``False``: not bindable; ``True``: bound as it is; else the bound copy's texts."""


# -- access: What a request may see, has loaded and may use: the filter and the storage as


def _always_ready(state: Any) -> bool:
    return True


@dataclass(frozen=True)
class Access:
    """The filter and the storage of one middleware or node, asked per request.

    Attributes:
        policy: The filter hook, fail-closed, with its timeout.
        storage: Where loads live.
        bindable: Whether providers can take a tool's schema.
        state_ready: Whether a graph state can carry this package's keys.
        working_set: The bound on what stays loaded (``max_loaded``), if any.
        pinned: Names of the pinned tools: loaded first, outside the working set.
    """

    policy: ToolPolicy
    storage: Storage
    bindable: Bindable
    state_ready: Callable[[Any], bool] = _always_ready
    working_set: WorkingSet | None = None
    pinned: tuple[str, ...] = ()

    def allowed(
        self, entries: Sequence[LibraryTool], scope: RequestScope, phase: FilterPhase
    ) -> Logic[list[LibraryTool]]:
        """``entries`` the filter allows in ``phase`` for this request, in order."""
        if not entries or not self.policy.enabled:
            return list(entries)
        batch = [
            ToolSearchFilterArgs(
                tool_name=e.name,
                tool=e.tool,
                config=scope.config,
                phase=phase,
                context=scope.context,
            )
            for e in entries
        ]
        verdicts = yield Effect.method(self.policy, "check_many", batch)
        return [e for e, ok in zip(entries, verdicts, strict=True) if ok]

    def loaded(self, scope: RequestScope) -> Logic[list[str]]:
        """Loaded names of this request in load order, within the working set."""
        kept, _ = yield from self.working(scope)
        return kept

    def working(self, scope: RequestScope) -> Logic[tuple[list[str], list[str]]]:
        """(pinned, then loaded names in the working set in load order; evicted, latest first)."""
        names: list[str] = yield self.storage.loaded(
            scope.thread_id, scope.state, scope.graph_store, scope.library.resolve, scope.config
        )
        pinned = self.pinned
        names = [n for n in names if n not in pinned] if pinned else names
        if self.working_set is None:
            return [*pinned, *names], []
        kept, evicted = self.working_set.split(names, scope.state, scope.library)
        return [*pinned, *kept], evicted

    def usable(
        self, entries: Sequence[LibraryTool], scope: RequestScope
    ) -> Logic[list[LibraryTool]]:
        """Loaded ``entries`` this request may use (forgeable loads checked in phase ``load``)."""
        storage = self.storage
        if storage.receipts or storage.shared or scope.thread_id is None:
            entries = yield from self.allowed(entries, scope, "load")
        return (yield from self.allowed(entries, scope, "active"))

    def unstorable(self, scope: RequestScope) -> str:
        """Why loads of this request cannot be stored (model-facing), or ``""``."""
        return self.storage.unstorable(
            scope.thread_id, scope.graph_store, self.state_ready(scope.state)
        )

    def record(
        self, scope: RequestScope, names: Sequence[str], origin: str | None
    ) -> Logic[dict[str, Any]]:
        """Store loads; return the graph-state update that carries them (if any)."""
        update: dict[str, Any] = yield self.storage.record(
            scope.thread_id, scope.graph_store, names, origin, scope.state, scope.config
        )
        return update

    def origin(self, scope: RequestScope, name: str) -> Logic[str | None]:
        """The id of the tool call that loaded ``name`` in this thread, if known."""
        found: str | None = yield self.storage.origin(scope.thread_id, scope.graph_store, name)
        return found

    def active(self, scope: RequestScope) -> Logic[list[LibraryTool]]:
        """Loaded tools to bind for this request, in load order, filter-checked, bindable."""
        names = yield from self.loaded(scope)
        return (yield from self.active_of(names, scope))

    def active_of(self, names: Sequence[str], scope: RequestScope) -> Logic[list[LibraryTool]]:
        get, bindable = scope.library.get, self.bindable
        entries = [e for n in names if (e := get(n))]
        if self.policy.enabled:  # no filter: every loaded entry is usable
            entries = yield from self.usable(entries, scope)
        yield bindable.warm([e.tool for e in entries])  # new schemas: off the event loop
        return [e for e in entries if bindable(e.tool)]
