"""What a request may see, has loaded and may use: the filter and the storage as engine logic."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from langchain_toolsearch._effects import Effect, Logic
from langchain_toolsearch._engine.binding import Bindable
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch._engine.working_set import WorkingSet
from langchain_toolsearch.library import LibraryTool
from langchain_toolsearch.policy import ToolPolicy
from langchain_toolsearch.storage.strategy import Storage
from langchain_toolsearch.types import FilterPhase, ToolSearchFilterArgs

__all__ = ["Access"]


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
    """

    policy: ToolPolicy
    storage: Storage
    bindable: Bindable
    state_ready: Callable[[Any], bool] = _always_ready
    working_set: WorkingSet | None = None

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
        verdicts = yield Effect(
            partial(self.policy.check_many, batch), partial(self.policy.acheck_many, batch)
        )
        return [e for e, ok in zip(entries, verdicts, strict=True) if ok]

    def loaded(self, scope: RequestScope) -> Logic[list[str]]:
        """Loaded names of this request in load order, within the working set."""
        kept, _ = yield from self.working(scope)
        return kept

    def working(self, scope: RequestScope) -> Logic[tuple[list[str], list[str]]]:
        """(loaded names in the working set, in load order; evicted, most recent first)."""
        names: list[str] = yield self.storage.loaded(
            scope.thread_id, scope.state, scope.graph_store, scope.library.resolve, scope.config
        )
        if self.working_set is None:
            return names, []
        return self.working_set.split(names, scope.state, scope.library)

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
