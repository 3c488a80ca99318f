"""The engine: one question per step for the shells (middleware, node, meta tools).

``model_step`` (what to bind, the hint), ``tool_step`` (may a call run, which
instance), ``search_step`` and ``load_step``. It holds only what every request shares.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.errors import GraphBubbleUp

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._effects import Logic
from langchain_toolsearch._engine import binding, guard, load, native, search
from langchain_toolsearch._engine.access import Access
from langchain_toolsearch._engine.auto_mode import DEFAULT_AUTO_MAX_TOKENS, AutoMode
from langchain_toolsearch._engine.listing import Catalog
from langchain_toolsearch._engine.resolve import Resolver
from langchain_toolsearch._engine.schema_tokens import schema_tokens
from langchain_toolsearch._engine.scope import RequestScope, ScopeBuilder
from langchain_toolsearch._engine.working_set import WorkingSet
from langchain_toolsearch._internal.durations import seconds_of
from langchain_toolsearch._internal.failures import CauseLog
from langchain_toolsearch._options import ToolSearchOptions
from langchain_toolsearch.errors import ToolSearchError
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.policy import ToolPolicy
from langchain_toolsearch.search.index import BM25ToolIndex, ToolIndex, build_index
from langchain_toolsearch.storage.strategy import Storage, _LoadsStoreError, choose_storage

__all__ = ["Engine", "ModelStep", "hybrid"]

logger = logging.getLogger(__name__)


def hybrid(embeddings: Any, store: Any = None) -> Callable[[Sequence[Any]], ToolIndex]:
    """The index factory of ``embeddings=`` (vectors in ``store`` if given, else a local file)."""
    from langchain_toolsearch.search.semantic import SemanticIndexFactory
    from langchain_toolsearch.search.vector_cache import default_cache

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
        """The short system-prompt hint for the configured flow."""
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
        tools = (
            (yield from self.native_tools(scope, meta))
            if self.options.provider
            else binding.order_tools(meta, scope.direct, active, self.access.bindable)
        )
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
        auto_load = self.options.auto_load
        answer = yield from guard.guard(self.access, scope, call, registered, auto_load=auto_load)
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
        return search.search(
            self.access,
            scope,
            query,
            queries,
            top_k=options.top_k,
            min_score=float(options.min_score),
            auto_load=options.auto_load,
            native=options.provider is not None,
        )

    def search_step(
        self, scope: RequestScope, args: Mapping[str, Any], call_id: str | None
    ) -> Logic[tuple[dict[str, Any], bool, dict[str, Any]]]:
        """Run ``search_tools``: (receipt, is error, update); a failing index answers an error."""
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
        update: dict[str, Any] = {}
        if self.options.auto_load and outcome.results:
            outcome, update = yield from load.activate(self.access, scope, outcome, call_id)
        body = search.search_receipt(outcome, auto_load=self.options.auto_load)
        return body, outcome.error, update

    def load_step(
        self, scope: RequestScope, args: Mapping[str, Any], call_id: str | None
    ) -> Logic[tuple[dict[str, Any], bool, dict[str, Any]]]:
        """Run ``load_tool``: (receipt, is error, graph-state update)."""
        outcome, update = yield from load.load(self.access, scope, args, call_id)
        return outcome.receipt(), not outcome.success, update

    def search_results(self, scope: RequestScope, query: object) -> Logic[list[Any]]:
        """The hits ``search_tools`` would show for ``query`` in this request."""
        outcome = yield from self._search(scope, query)
        return outcome.results
