"""The engine: one question per step for the shells (middleware, node, meta tools).

:meth:`Engine.model_step` (what to bind, and the hint), :meth:`Engine.tool_step`
(may a call run, and which instance), :meth:`Engine.search_step` and
:meth:`Engine.load_step`; each is engine logic (:mod:`.drive`). The engine holds
only what every request shares: options, static library and index, filter
policy, storage strategy.
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
from langchain_toolsearch._engine import binding, guard, load, search
from langchain_toolsearch._engine.access import Access
from langchain_toolsearch._engine.drive import Logic
from langchain_toolsearch._engine.listing import Catalog
from langchain_toolsearch._engine.resolve import Resolver
from langchain_toolsearch._engine.scope import RequestScope, ScopeBuilder
from langchain_toolsearch._internal.failures import CauseLog
from langchain_toolsearch.errors import ToolSearchError
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.options import ToolSearchOptions
from langchain_toolsearch.policy import ToolPolicy
from langchain_toolsearch.search.index import BM25ToolIndex, ToolIndex, build_index
from langchain_toolsearch.storage.strategy import Storage, _LoadsStoreError, choose_storage

__all__ = ["Engine", "ModelStep", "hybrid"]

logger = logging.getLogger(__name__)


def hybrid(embeddings: Any) -> Callable[[Sequence[Any]], ToolIndex]:
    """The index factory of ``embeddings=``: ``SemanticIndexFactory`` (imported on first use)."""
    from langchain_toolsearch.search.semantic import SemanticIndexFactory

    return SemanticIndexFactory(embeddings)


@dataclass(frozen=True)
class ModelStep:
    """The answer to a model step.

    Attributes:
        tools: What to bind, in order: meta tools, tools bound as they are,
            then loaded tools in load order.
        loaded: Names of the loaded tools among :attr:`tools`.
        hint: The system-prompt hint for the configured flow.
    """

    tools: list[BaseTool | dict[str, Any]]
    loaded: list[str]
    hint: str


class Engine:
    """Search, load, bind and guard for one middleware or node.

    Args:
        options: The validated options.
        state_ready: Whether a graph state can carry this package's keys (the
            node checks its schema; the middleware's always has them). Loads
            are refused otherwise.
    """

    def __init__(
        self, options: ToolSearchOptions, *, state_ready: Callable[[Any], bool] | None = None
    ) -> None:
        self.options = options
        self.hint = P.SYSTEM_HINT_ONE_STEP if options.auto_load else P.SYSTEM_HINT_TWO_STEP
        """The short system-prompt hint for the configured flow."""
        tools = options.tools
        library = tools if isinstance(tools, ToolLibrary) else ToolLibrary(tools or ())
        index = options.index if options.embeddings is None else hybrid(options.embeddings)
        factory: Callable[[Sequence[Any]], ToolIndex] = (
            index  # a factory, or an index class (a class passes the ToolIndex check too)
            if callable(index) and (isinstance(index, type) or not isinstance(index, ToolIndex))
            else BM25ToolIndex.build
        )
        resolver = (
            Resolver(
                options.resolve_tools,
                timeout=float(options.resolve_timeout),
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
            policy=ToolPolicy(options.filter, timeout=options.filter_timeout),
            storage=choose_storage(
                options.storage, ttl=options.ttl, clock=options.clock, store=options.store
            ),
            bindable=binding.Bindable(),
            **({"state_ready": state_ready} if state_ready is not None else {}),
        )
        self.catalog = (
            Catalog(library, auto_load=options.auto_load, max_tokens=options.catalog_max_tokens)
            if options.inject_catalog
            else None
        )
        self.search_failures = CauseLog(
            logger, "tool search: search_tools failed (%s): %s; answered as unavailable"
        )
        """Logs failed searches once per cause (see :meth:`search_step`)."""

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
        self, scope: RequestScope, meta: Sequence[BaseTool], *, with_hint: bool = False
    ) -> Logic[ModelStep]:
        """What to bind for this model step.

        Args:
            scope: The request scope.
            meta: The meta tools.
            with_hint: Compute the hint (with ``inject_catalog``, this request's
                catalog); ``False`` (the node: its model node asks ``hint_for``):
                :attr:`ModelStep.hint` is ``""``.

        Raises:
            StoreMissingError: ``storage="store"`` and this run has no store.
        """
        self.access.storage.check(scope.thread_id, scope.graph_store)
        active = yield from self.access.active(scope)
        hint = ""
        if with_hint:
            hint = self.hint if self.catalog is None else (yield from self.hint_for(scope))
        return ModelStep(
            tools=binding.order_tools(meta, scope.direct, active, self.access.bindable),
            loaded=[e.name for e in active],
            hint=hint,
        )

    def hint_for(self, scope: RequestScope) -> Logic[str]:
        """The system hint of this request: :attr:`hint`, plus its catalog (``inject_catalog``)."""
        if self.catalog is None:
            return self.hint
        listing = yield from self.catalog.text(self.access, scope)
        return f"{self.hint}\n\n{listing}" if listing else self.hint

    def pre_check(self, call: ToolCall, registered: BaseTool | None) -> object:
        """What a tool step decides without a request scope (see :func:`.guard.pre_check`)."""
        return guard.pre_check(call, registered, per_request=self.scopes.per_request)

    def tool_step(
        self, scope: RequestScope, call: ToolCall, registered: BaseTool | None
    ) -> Logic[BaseTool | ToolMessage | None]:
        """May ``call`` run (after :meth:`pre_check`): ``None``, the tool to run, or the answer."""
        return guard.guard(self.access, scope, call, registered, auto_load=self.options.auto_load)

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
        )

    def search_step(
        self, scope: RequestScope, args: Mapping[str, Any], call_id: str | None
    ) -> Logic[tuple[dict[str, Any], bool, dict[str, Any]]]:
        """Run ``search_tools`` (``args``: ``query``, ``queries``): (receipt, is error, update).

        A search that fails (the index or its store raises) answers an error
        receipt and is logged once per cause, unless ``on_error="raise"``.
        """
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
        """The hits ``search_tools`` would show for ``query`` (one or several) in this request."""
        outcome = yield from self._search(scope, query)
        return outcome.results
