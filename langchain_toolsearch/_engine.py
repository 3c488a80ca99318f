"""The composition root: the options turned into the engine, its model step and tool step.

:class:`Engine` holds the library, the index, the scope builder, access, the modes and
the hint; :meth:`Engine.model_step` decides what a model call binds, and
:meth:`Engine.tool_step` what a tool call may run, both as logic (see
:mod:`langchain_toolsearch._effects`). :class:`ThreadState` is the thread-state helpers
the middleware and the node share.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.errors import GraphBubbleUp
from langgraph.store.base import BaseStore

from langchain_toolsearch import _access as binding
from langchain_toolsearch import _guard as guard
from langchain_toolsearch import _modes as native
from langchain_toolsearch import _prompts as P
from langchain_toolsearch import _steps as load
from langchain_toolsearch import _steps as search
from langchain_toolsearch._access import Access, ToolPolicy, WorkingSet
from langchain_toolsearch._effects import Effect, Logic, adrive, drive
from langchain_toolsearch._learning import Learner
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch._modes import DEFAULT_AUTO_MAX_TOKENS, AutoMode
from langchain_toolsearch._options import ToolSearchOptions
from langchain_toolsearch._scope import RequestScope, Resolver, ScopeBuilder
from langchain_toolsearch._steps import Catalog, schema_tokens
from langchain_toolsearch._support import CauseLog, count, counts, seconds_of
from langchain_toolsearch.errors import (
    StoreMissingError,
    ToolSearchConfigError,
    ToolSearchError,
    ToolSearchTypeError,
    _LoadsStoreError,
)
from langchain_toolsearch.search import BM25ToolIndex, ToolIndex
from langchain_toolsearch.search._bm25 import build_index
from langchain_toolsearch.storage._store import LOADED_NAMESPACE
from langchain_toolsearch.storage._strategy import (
    LoadedToolStore,
    Storage,
    choose_storage,
)
from langchain_toolsearch.types import SourceFailure, StateStats

# -- engine: The engine: one question per step for the shells (middleware, node, meta tools).

logger = logging.getLogger(__name__)


def hybrid(embeddings: Any, store: Any = None) -> Callable[[Sequence[Any]], ToolIndex]:
    """The index factory of ``embeddings=`` (vectors in ``store`` if given, else a local file)."""
    from langchain_toolsearch.search import SemanticIndexFactory
    from langchain_toolsearch.search._vectors import default_cache

    return SemanticIndexFactory(embeddings, cache=default_cache(store))


@dataclass(frozen=True)
class ModelStep:
    """The answer to a model step.

    Attributes:
        tools: What to bind: meta tools, tools bound as they are, then loaded tools.
        loaded: Names of the loaded tools among :attr:`tools`.
        hint: The system-prompt hint.
    """

    tools: list[BaseTool | dict[str, Any]]
    loaded: list[str]
    hint: str


def working_set(options: ToolSearchOptions) -> WorkingSet | None:
    """The working-set bound of ``max_loaded`` / ``max_loaded_tokens`` (``None``: unbounded)."""
    if options.max_loaded is None and options.max_loaded_tokens is None:
        return None
    return WorkingSet(options.max_loaded, options.max_loaded_tokens, cost=schema_tokens)


_SEARCHED = object()
"""``mode="auto"`` did not bind the called tool whole: the guard decides."""


class Engine:
    """Search, load, bind and guard for one middleware or node.

    Args:
        options: The validated options.
        state_ready: Whether a graph state can carry this package's keys (else loads
            are refused).
    """

    def __init__(
        self, options: ToolSearchOptions, *, state_ready: Callable[[Any], bool] | None = None
    ) -> None:
        self.options = options
        self.hint = P.SYSTEM_HINT_ONE_STEP if options.auto_load else P.SYSTEM_HINT_TWO_STEP
        if options.provider:
            self.hint = P.SYSTEM_HINT_NATIVE
        if options.mode == "stable":
            self.hint += P.SYSTEM_HINT_STABLE
        """The short system-prompt hint for the configured flow."""
        self.stable = options.mode == "stable"
        """``mode="stable"``: no loaded tool is bound; the model calls them with ``call_tool``."""
        tools = options.tools
        library = tools if isinstance(tools, ToolLibrary) else ToolLibrary(tools or ())
        index = (
            options.index
            if options.embeddings is None
            else hybrid(options.embeddings, options.store)
        )
        factory: Callable[[Sequence[Any]], ToolIndex] = (
            index  # a factory, or an index class (a class passes the ToolIndex check too)
            if callable(index) and (isinstance(index, type) or not isinstance(index, ToolIndex))
            else BM25ToolIndex.build
        )
        resolver = (
            Resolver(
                options.resolve_tools,
                timeout=seconds_of(options.resolve_timeout),
                on_error=options.on_error,
            )
            if options.include_resolved_tools
            else None
        )
        self.scopes = ScopeBuilder(
            library=library,
            index=build_index(index, library.documents()),
            index_factory=factory,
            resolver=resolver,
        )
        self.access = Access(
            policy=ToolPolicy(options.filter, timeout=seconds_of(options.filter_timeout)),
            storage=choose_storage(
                options.storage,
                ttl=None if options.ttl is None else seconds_of(options.ttl),
                clock=None,
                store=options.store,
            ),
            bindable=binding.Bindable(),
            **({"state_ready": state_ready} if state_ready is not None else {}),
            working_set=working_set(options),
            pinned=tuple(n for n in options.pinned if isinstance(n, str)),
        )
        self.auto = (
            AutoMode(
                max_tokens=options.auto_max_tokens or DEFAULT_AUTO_MAX_TOKENS,
                max_tools=options.auto_max_tools,
            )
            if options.mode == "auto"
            else None
        )
        """``mode="auto"``: its budget and the counts of its decisions."""
        self.catalog = (
            Catalog(library, auto_load=options.auto_load, max_tokens=options.catalog_max_tokens)
            if options.inject_catalog
            else None
        )
        self.learner = Learner(options.learning, options.store) if options.learning else None
        """``learning=``: the evidence of use, and its ranking."""
        self.search_failures = CauseLog(
            logger, "tool search: search_tools failed (%s): %s; answered as unavailable"
        )
        """Logs failed searches once per cause."""

    # -- what every request shares ------------------------------------------------------

    @property
    def library(self) -> ToolLibrary:
        """The static library."""
        return self.scopes.library

    @property
    def storage(self) -> Storage:
        """The storage strategy."""
        return self.access.storage

    @property
    def policy(self) -> ToolPolicy:
        """The filter policy."""
        return self.access.policy

    def loaded(self, scope: RequestScope) -> Logic[list[str]]:
        """Loaded names of this request in load order (before the ``active`` filter)."""
        return self.access.loaded(scope)

    # -- the one question per step ---------------------------------------------------------

    def split_agent_tools(
        self, tools: Sequence[BaseTool | Mapping[str, Any]], meta: Sequence[BaseTool]
    ) -> tuple[list[BaseTool], list[BaseTool | dict[str, Any]]]:
        """(tools searchable per request, tools bound as they are) of an agent or node."""
        return binding.split_agent_tools(
            tools, meta, self.library, per_request=self.scopes.per_request
        )

    def model_step(
        self,
        scope: RequestScope,
        meta: Sequence[BaseTool],
        *,
        with_hint: bool = False,
        count: bool = True,
    ) -> Logic[ModelStep]:
        """What to bind for this model step.

        Args:
            scope: The request scope.
            meta: The meta tools.
            with_hint: Compute the hint (``False``: :attr:`ModelStep.hint` is ``""``).
            count: Count a ``mode="auto"`` decision in the stats.

        Raises:
            StoreMissingError: ``storage="store"`` and this run has no store.
        """
        self.access.storage.check(scope.thread_id, scope.graph_store)
        if self.auto is not None:
            decision = yield from self.auto.decide(self.access, scope, record=count)
            if decision.bind_all:  # the whole set: no meta tool, no hint
                tools = binding.order_tools((), scope.direct, decision.tools, self.access.bindable)
                return ModelStep(tools=tools, loaded=[], hint="")
        kept, evicted = yield from self.access.working(scope)
        active = yield from self.access.active_of(kept, scope)
        hint = (yield from self._hint(scope, evicted)) if with_hint else ""
        if self.options.provider:
            tools = yield from self.native_tools(scope, meta)
        else:  # stable: pinned tools only, they never change
            bound = [e for e in active if e.name in self.access.pinned] if self.stable else active
            tools = binding.order_tools(meta, scope.direct, bound, self.access.bindable)
        return ModelStep(tools=tools, loaded=[e.name for e in active], hint=hint)

    def native_tools(
        self, scope: RequestScope, meta: Sequence[BaseTool]
    ) -> Logic[list[BaseTool | dict[str, Any]]]:
        """``provider=`` only: meta, direct, then every usable tool deferred."""
        deferred = yield from native.deferred(self.access, scope)
        return native.native_tools(meta, scope.direct, self.access.bindable, deferred)

    @property
    def static_hint(self) -> bool:
        """Whether every request's hint is :attr:`hint`."""
        return self.catalog is None and self.auto is None and self.access.working_set is None

    def hint_for(self, scope: RequestScope) -> Logic[str]:
        """The request's hint: :attr:`hint`, catalog, evicted tools; ``""`` if bound whole."""
        if self.static_hint:
            return self.hint
        if self.auto is not None and (yield from self.auto.decide(self.access, scope)).bind_all:
            return ""
        evicted: list[str] = []
        if self.access.working_set is not None:
            _, evicted = yield from self.access.working(scope)
        return (yield from self._hint(scope, evicted))

    def _hint(self, scope: RequestScope, evicted: list[str]) -> Logic[str]:
        hint = self.hint
        if self.catalog is not None:
            listing = yield from self.catalog.text(self.access, scope)
            hint = f"{hint}\n\n{listing}" if listing else hint
        working = self.access.working_set
        notice = working.notice(evicted, auto_load=self.options.auto_load) if working else ""
        return f"{hint}\n\n{notice}" if notice else hint

    def pre_check(self, call: ToolCall, registered: BaseTool | None) -> object:
        """What a tool step decides without a request scope (:func:`.guard.pre_check`)."""
        return guard.pre_check(call, registered, per_request=self.scopes.per_request)

    def tool_step(
        self, scope: RequestScope, call: ToolCall, registered: BaseTool | None
    ) -> Logic[BaseTool | ToolMessage | None]:
        """May ``call`` run: ``None``, the tool to run, or the answer (auto-mode sets run whole)."""
        if self.auto is not None:
            whole = yield from self._bound_whole(scope, call, registered)
            if whole is None or isinstance(whole, BaseTool):  # bound whole: it runs
                return whole
        auto_load, recover = self.options.auto_load, ""
        if self.options.load_on_call:
            recover = P.TOOL_LOADED_ON_CALL_STABLE if self.stable else P.TOOL_LOADED_ON_CALL
        answer = yield from guard.guard(
            self.access, scope, call, registered, auto_load=auto_load, load_on_call=recover
        )
        return answer

    def _bound_whole(
        self, scope: RequestScope, call: ToolCall, registered: BaseTool | None
    ) -> Logic[BaseTool | object | None]:
        """Auto mode: the tool to run if bound whole (``None``: registered), or `_SEARCHED`."""
        assert self.auto is not None
        name = call["name"]
        if registered is None and name in scope.bound:  # bound on another agent, not this one
            return _SEARCHED
        decision = yield from self.auto.decide(self.access, scope)
        if not decision.bind_all:
            return _SEARCHED
        entry = next((e for e in decision.tools if e.name == name), None)
        if entry is None:
            return _SEARCHED
        return None if registered is not None else entry.tool

    def _search(
        self, scope: RequestScope, query: object, queries: object = None
    ) -> Logic[search.SearchOutcome]:
        options = self.options
        if self.learner is not None:
            scope = yield from self.learner.scoped(scope)
        outcome = yield from search.search(
            self.access,
            scope,
            query,
            queries,
            top_k=options.top_k,
            min_score=float(options.min_score),
            auto_load=options.auto_load,
            native=options.provider is not None,
        )
        return outcome

    def search_step(
        self, scope: RequestScope, args: Mapping[str, Any], call_id: str | None
    ) -> Logic[tuple[dict[str, Any], bool, dict[str, Any]]]:
        """Run ``search_tools``: (receipt, is error, update); a failing index answers an error."""
        count("toolsearch.search.calls")
        try:
            outcome = yield from self._search(scope, args.get("query"), args.get("queries"))
        except (ToolSearchError, GraphBubbleUp):  # ours, or LangGraph's interrupt: not an outage
            raise
        except Exception as exc:  # an index or store outage: the run goes on
            if self.options.on_error == "raise":
                raise
            self.search_failures.failed(exc)
            failed = P.SEARCH_STORE_FAILED if isinstance(exc, _LoadsStoreError) else P.SEARCH_FAILED
            outcome = search.SearchOutcome(results=[], message=failed, error=True)
        if not outcome.results:
            count("toolsearch.search.no_hit")
        update: dict[str, Any] = {}
        if self.options.auto_load and outcome.results:
            outcome, update = yield from load.activate(self.access, scope, outcome, call_id)
        body = search.search_receipt(outcome, auto_load=self.options.auto_load)
        if self.stable and "activation" in body:
            loaded = body["activation"]["loaded"]
            body["tools"] = yield from native.definitions(self.access, scope, loaded)
        return body, outcome.error, update

    def load_step(
        self, scope: RequestScope, args: Mapping[str, Any], call_id: str | None
    ) -> Logic[tuple[dict[str, Any], bool, dict[str, Any]]]:
        """Run ``load_tool``: (receipt, is error, graph-state update)."""
        count("toolsearch.load.calls")
        outcome, update = yield from load.load(self.access, scope, args, call_id)
        body = outcome.receipt()
        if self.stable:  # the definitions the model calls through call_tool
            names = body["loaded"] + body["already_loaded"]
            body["tools"] = yield from native.definitions(self.access, scope, names)
        return body, not outcome.success, update

    def search_results(self, scope: RequestScope, query: object) -> Logic[list[Any]]:
        """The hits ``search_tools`` would show for ``query`` in this request."""
        outcome = yield from self._search(scope, query)
        return outcome.results


# -- thread_state: Thread state for code: unloading, clearing, and the loaded-tool store's figures.

if TYPE_CHECKING:
    from langchain_toolsearch._engine import Engine


CONTEXT_UNLOAD = (
    '{operation}: storage="context" keeps loads in the message history (load receipts), '
    "which this does not rewrite; bound the working set with max_loaded=... (the least "
    'recently used tools leave the prompt), or use storage="in-memory" / "store"'
)


def _check_removable(operation: str, backend: LoadedToolStore | None) -> None:
    """Refuse an unload where the loads cannot be removed.

    Raises:
        ToolSearchConfigError: ``"context"`` storage, or a store without ``remove``.
    """
    if backend is None:
        raise ToolSearchConfigError(CONTEXT_UNLOAD.format(operation=operation))
    method = getattr(backend, "remove", None)
    if operation == "aunload":
        method = getattr(backend, "aremove", None) or method
    if not callable(method):
        raise ToolSearchConfigError(
            f"{operation} cannot unload from a {type(backend).__name__}: give it a "
            "remove(thread_id, names) -> list[str] method (and aremove for async)"
        )


class ThreadState:
    """``unload``, ``clear_state`` and ``get_state_stats`` (and async forms) of the shells."""

    _engine: Engine

    @property
    def loaded_tool_store(self) -> LoadedToolStore | None:
        """Where thread loads live, if fixed at construction (``None``: context, or graph store)."""
        return self._engine.storage.backend()

    def _stored_loads(self, operation: str) -> LoadedToolStore | None:
        """Where ``operation`` reads or clears (``None`` for ``"context"``).

        Raises:
            StoreMissingError: ``storage="store"`` without ``store=``.
        """
        storage = self._engine.storage
        backend = storage.backend()
        if backend is None and storage.mode == "store":
            raise StoreMissingError(
                f'{operation} with storage="store" needs the store: pass store=... to the '
                f"tool search (the graph's store is only known inside a run); the loads live "
                f"in the namespace {LOADED_NAMESPACE} + (<thread id>,) of your LangGraph store"
            )
        return backend

    @staticmethod
    def _thread_id(operation: str, thread_id: object) -> str:
        if not isinstance(thread_id, str) or not thread_id:
            raise ToolSearchTypeError(
                f"{operation} expects a thread id string (config['configurable']['thread_id']), "
                f"got {thread_id!r}"
            )
        return thread_id

    def _unloading(
        self, operation: str, thread_id: object, names: object, store: BaseStore | None
    ) -> tuple[str, list[str], LoadedToolStore | None]:
        """(thread id, names resolved like ``load_tool``'s, backend) of an unload."""
        storage = self._engine.storage
        backend = storage.backend(store) if store is not None else self._stored_loads(operation)
        tid = self._thread_id(operation, thread_id)
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, Sequence) or not all(isinstance(n, str) for n in names):
            raise ToolSearchTypeError(
                f"{operation} expects a tool name or a list of tool names, got {names!r}"
            )
        resolve = self._engine.library.resolve
        return tid, list(dict.fromkeys(resolve(n) or n for n in names)), backend

    def unload(
        self, thread_id: str, names: str | Sequence[str], *, store: BaseStore | None = None
    ) -> list[str]:
        """Unload tools of ``thread_id``: unbound and not callable from its next step.

        Returns the names removed; the others keep their order (a reload goes to the end).
        ``store``: the graph's store, unless one was given at construction.

        Raises:
            StoreMissingError: ``storage="store"`` and no store.
            ToolSearchConfigError: ``storage="context"``, or a custom store without ``remove``.
            ToolSearchTypeError: ``thread_id`` is not a non-empty string, or ``names`` not a
                name or a list of names.
        """
        return list(drive(self._unload("unload", thread_id, names, store)))

    async def aunload(
        self, thread_id: str, names: str | Sequence[str], *, store: BaseStore | None = None
    ) -> list[str]:
        """Async :meth:`unload`."""
        return list(await adrive(self._unload("aunload", thread_id, names, store)))

    def _unload(
        self, operation: str, thread_id: object, names: object, store: BaseStore | None
    ) -> Logic[Any]:
        tid, wanted, backend = self._unloading(operation, thread_id, names, store)
        _check_removable(operation, backend)
        return (yield Effect.method(backend, "remove", tid, wanted))

    def clear_state(self, thread_id: str) -> None:
        """Forget the loads of ``thread_id`` (a no-op for ``"context"``).

        Raises:
            StoreMissingError: ``storage="store"`` without ``store=``.
            ToolSearchTypeError: ``thread_id`` is not a non-empty string.
        """
        drive(self._clear("clear_state", "clear", self._thread_id("clear_state", thread_id)))

    async def aclear_state(self, thread_id: str) -> None:
        """Async :meth:`clear_state`."""
        tid = self._thread_id("aclear_state", thread_id)
        await adrive(self._clear("aclear_state", "clear", tid))

    def clear_all_state(self) -> None:
        """Forget the loads of every thread."""
        drive(self._clear("clear_all_state", "clear_all"))

    async def aclear_all_state(self) -> None:
        """Async :meth:`clear_all_state`."""
        await adrive(self._clear("aclear_all_state", "clear_all"))

    def _clear(self, operation: str, method: str, *args: str) -> Logic[None]:
        backend = self._stored_loads(operation)
        if backend is not None:
            yield Effect.method(backend, method, *args)

    def forget_learned(self, scope: str, *, store: BaseStore | None = None) -> None:
        """Forget what ``learning=`` kept for scope key ``scope`` (in memory, and in ``store``).

        ``store``: the graph's store, unless one was given at construction.
        """
        drive(self._forget("forget_learned", scope, store))

    async def aforget_learned(self, scope: str, *, store: BaseStore | None = None) -> None:
        """Async :meth:`forget_learned`."""
        await adrive(self._forget("aforget_learned", scope, store))

    def _forget(self, operation: str, scope: object, store: BaseStore | None) -> Logic[None]:
        learner = self._engine.learner
        if learner is None:
            raise ToolSearchConfigError(
                f"{operation}: learning is off; pass learning=Learning(...)"
            )
        if not isinstance(scope, str) or not scope:
            raise ToolSearchTypeError(f"{operation} expects a scope key string, got {scope!r}")
        return (yield from learner.forget(scope, store))

    def get_state_stats(self) -> StateStats:
        """The loaded-tool store's size, the source failures seen, and auto-mode decisions.

        ``thread_count`` and ``oldest_access_time`` (epoch s; ``None`` for ``"store"``);
        zero for ``"context"``.

        Raises:
            StoreMissingError: ``"store"`` without ``store=``.
            ToolSearchConfigError: A custom store without a ``stats()`` method.
        """
        return drive(self._state_stats("get_state_stats"))

    def _source_failures(self) -> tuple[SourceFailure, ...]:
        """Distinct causes of failing tool sources seen by this instance, oldest first."""
        resolver = self._engine.scopes.resolver
        found = [*self._engine.policy.failures.snapshot()]
        if resolver is not None:
            found.extend(resolver.failures.snapshot())
        return tuple(sorted(found, key=lambda f: f.last_seen))

    def _state_stats(self, operation: str) -> Logic[StateStats]:
        """The stats; a LangGraph store's ``astats`` in async code (``"store"`` mode)."""
        read = partial(self._store_stats, operation)
        astats = getattr(self._engine.storage.backend(), "astats", None)
        if self._engine.storage.mode == "store" and callable(astats):
            found = yield Effect(read, astats)
        else:
            found = yield Effect.same(read)
        assert isinstance(found, StateStats)
        return self._with_counts(found)

    def _with_counts(self, stats: StateStats) -> StateStats:
        """``stats`` with this instance's source failures and auto-mode decisions."""
        auto = self._engine.auto
        return replace(
            stats,
            source_failures=self._source_failures(),
            auto_mode=auto.stats() if auto is not None else None,
            counters=counts(),
        )

    def _store_stats(self, operation: str) -> StateStats:
        storage = self._engine.storage
        if storage.mode == "context":
            return StateStats(thread_count=0, oldest_access_time=None, storage="context")
        backend = self._stored_loads(operation)
        stats = getattr(backend, "stats", None)
        if callable(stats):
            found = stats()
            if isinstance(found, StateStats):
                return found
        threads = getattr(backend, "thread_ids", None)
        if callable(threads):
            count = len(threads())
            return StateStats(thread_count=count, oldest_access_time=None, storage=storage.mode)
        raise ToolSearchConfigError(
            f"{operation} cannot read a {type(backend).__name__}: give it a stats() "
            f"method returning StateStats (namespace {LOADED_NAMESPACE} for LangGraph stores)"
        )

    async def aget_state_stats(self) -> StateStats:
        """Async :meth:`get_state_stats`."""
        return await adrive(self._state_stats("aget_state_stats"))

    def cleanup_now(self) -> int:
        """Run the in-memory TTL sweep now; the number of threads evicted."""
        backend = self._engine.storage.backend()
        cleanup = getattr(backend, "cleanup_now", None)
        return int(cleanup()) if callable(cleanup) else 0
