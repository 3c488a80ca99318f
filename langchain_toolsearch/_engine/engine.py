"""The engine: one question per step for the shells (middleware, node, meta tools).

* model step: :meth:`Engine.model_step` (the request scope in; the tools to
  bind, in order, and the system hint out);
* tool step: :meth:`Engine.tool_step` (allowed, which instance runs, or the
  error message);
* the meta tools: :meth:`Engine.search_step` and :meth:`Engine.load_step`.

Each is engine logic written once (see :mod:`._engine.drive`) and run sync
or async by the shell. The engine holds only what is the same for every
request: options, static library and index, filter policy, storage strategy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tools import BaseTool

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._engine import binding, guard, load, search
from langchain_toolsearch._engine.drive import Decisions
from langchain_toolsearch._engine.resolve import Resolver
from langchain_toolsearch._engine.scope import RequestScope, ScopeBuilder
from langchain_toolsearch.library import LibraryTool, ToolLibrary
from langchain_toolsearch.options import ToolSearchOptions
from langchain_toolsearch.policy import ToolPolicy
from langchain_toolsearch.search.index import BM25ToolIndex, ToolIndex, build_index
from langchain_toolsearch.storage.strategy import choose_storage
from langchain_toolsearch.types import FilterPhase, ToolSearchFilterArgs

__all__ = ["Engine", "ModelStep"]


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


def _always_ready(state: Any) -> bool:
    return True


class Engine:
    """Search, load, bind and guard for one middleware or node.

    Args:
        options: The validated options.
    """

    def __init__(self, options: ToolSearchOptions) -> None:
        self.options = options
        tools = options.tools
        library = tools if isinstance(tools, ToolLibrary) else ToolLibrary(tools)
        index = options.index
        factory: Callable[[Sequence[Any]], ToolIndex] = (
            index if callable(index) and not isinstance(index, ToolIndex) else BM25ToolIndex.build
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
        self.policy = ToolPolicy(options.filter, timeout=options.filter_timeout)
        self.storage = choose_storage(
            options.storage, ttl=options.ttl, clock=options.clock, store=options.store
        )
        self.bindable = binding.Bindable()
        self.state_ready: Callable[[Any], bool] = _always_ready
        """Whether a graph state can carry this package's keys (the node checks its
        schema; the middleware's schema always has them). Loads are refused otherwise."""

    # -- what every request shares ------------------------------------------------------

    @property
    def library(self) -> ToolLibrary:
        """The static library."""
        return self.scopes.library

    @property
    def hint(self) -> str:
        """The short system-prompt hint for the configured flow."""
        return P.SYSTEM_HINT_ONE_STEP if self.options.auto_load else P.SYSTEM_HINT_TWO_STEP

    # -- building blocks -----------------------------------------------------------------

    def allowed(
        self, entries: Sequence[LibraryTool], scope: RequestScope, phase: FilterPhase
    ) -> Decisions[list[LibraryTool]]:
        """``entries`` the filter allows in ``phase`` for this request, in order."""
        if not entries or not self.policy.enabled:
            return list(entries)
        verdicts = yield [
            ToolSearchFilterArgs(
                tool_name=e.name,
                tool=e.tool,
                config=scope.config,
                phase=phase,
                context=scope.context,
            )
            for e in entries
        ]
        return [e for e, ok in zip(entries, verdicts, strict=True) if ok]

    def loaded(self, scope: RequestScope) -> Decisions[list[str]]:
        """Loaded names of this request in load order (before the ``active`` filter)."""
        return (
            yield from self.storage.loaded(
                scope.thread_id, scope.state, scope.graph_store, scope.library.resolve
            )
        )

    def usable(
        self, entries: Sequence[LibraryTool], scope: RequestScope
    ) -> Decisions[list[LibraryTool]]:
        """Loaded ``entries`` this request may use.

        Loads read from messages or graph state (a run's input can forge both)
        or from a LangGraph store (its clients can write it) are re-checked in
        phase ``load``.
        """
        if self.storage.receipts or self.storage.shared or scope.thread_id is None:
            entries = yield from self.allowed(entries, scope, "load")
        return (yield from self.allowed(entries, scope, "active"))

    def unstorable(self, scope: RequestScope) -> str:
        """Why loads of this request cannot be stored (model-facing), or ``""``."""
        return self.storage.unstorable(
            scope.thread_id, scope.graph_store, self.state_ready(scope.state)
        )

    def record(
        self, scope: RequestScope, names: Sequence[str], origin: str | None
    ) -> Decisions[dict[str, Any]]:
        """Store loads; return the graph-state update that carries them (if any)."""
        return (yield from self.storage.record(scope.thread_id, scope.graph_store, names, origin))

    def active(self, scope: RequestScope) -> Decisions[list[LibraryTool]]:
        """Loaded tools to bind for this request, in load order, filter-checked, bindable."""
        names = yield from self.loaded(scope)
        entries = [e for n in names if (e := scope.library.get(n))]
        usable = yield from self.usable(entries, scope)
        return [e for e in usable if self.bindable(e.tool)]

    # -- the one question per step ---------------------------------------------------------

    def split_agent_tools(
        self, tools: Sequence[BaseTool | Mapping[str, Any]], meta: Sequence[BaseTool]
    ) -> tuple[list[BaseTool], list[BaseTool | dict[str, Any]]]:
        """(tools searchable per request, tools bound as they are) of an agent or node."""
        return binding.split_agent_tools(
            tools, meta, self.library, per_request=self.scopes.per_request
        )

    def model_step(self, scope: RequestScope, meta: Sequence[BaseTool]) -> Decisions[ModelStep]:
        """What to bind for this model step.

        Raises:
            StoreMissingError: ``storage="store"`` and this run has no store.
        """
        self.storage.check(scope.thread_id, scope.graph_store)
        active = yield from self.active(scope)
        return ModelStep(
            tools=binding.order_tools(meta, scope.direct, active),
            loaded=[e.name for e in active],
            hint=self.hint,
        )

    def tool_step(
        self, scope: RequestScope, call: ToolCall, registered: BaseTool | None
    ) -> Decisions[BaseTool | ToolMessage | None]:
        """May ``call`` run: ``None`` (as registered), the tool to run, or the error answer."""
        return (yield from guard.guard(self, scope, call, registered))

    def search_step(
        self, scope: RequestScope, query: object, call_id: str | None
    ) -> Decisions[tuple[dict[str, Any], bool, dict[str, Any]]]:
        """Run ``search_tools``: (receipt, is error, graph-state update)."""
        outcome = yield from search.search(self, scope, query)
        update: dict[str, Any] = {}
        if self.options.auto_load and outcome.results:
            outcome, update = yield from load.activate(self, scope, outcome, call_id)
        body = search.search_receipt(outcome, auto_load=self.options.auto_load)
        return body, outcome.error, update

    def load_step(
        self, scope: RequestScope, args: Mapping[str, Any], call_id: str | None
    ) -> Decisions[tuple[dict[str, Any], bool, dict[str, Any]]]:
        """Run ``load_tool``: (receipt, is error, graph-state update)."""
        outcome, update = yield from load.load(self, scope, args, call_id)
        return outcome.receipt(), not outcome.success, update

    def search_results(self, scope: RequestScope, query: object) -> Decisions[list[Any]]:
        """The hits ``search_tools`` would show for ``query`` in this request."""
        outcome = yield from search.search(self, scope, query)
        return outcome.results
