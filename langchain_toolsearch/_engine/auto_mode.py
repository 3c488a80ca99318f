"""``mode="auto"``: bind a request's whole library when it fits a budget, else search.

The tools a request may use (phases ``load`` and ``active``, bindable) are counted in
filter batches until over the budget (``auto_max_tokens`` estimated schema tokens,
``auto_max_tools``); within it they are bound in library order with no meta tool and
no hint. The tool step decides again on its own scope. Decisions are counted for
``get_state_stats().auto_mode``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from langchain_toolsearch._effects import Logic
from langchain_toolsearch._engine.access import Access
from langchain_toolsearch._engine.schema_tokens import schema_tokens
from langchain_toolsearch._engine.scope import RequestScope
from langchain_toolsearch.library import LibraryTool
from langchain_toolsearch.types import AutoModeStats

__all__ = ["DEFAULT_AUTO_MAX_TOKENS", "AutoDecision", "AutoMode"]

logger = logging.getLogger(__name__)

DEFAULT_AUTO_MAX_TOKENS = 10_000
"""``auto_max_tokens`` unless given: 10% of a 100k-token context."""
_BATCH = 64  # tools per filter batch


@dataclass(frozen=True)
class AutoDecision:
    """One request's decision.

    Attributes:
        bind_all: Whether the request's tools are bound whole.
        tools: The tools bound whole, in library order (``()`` when searching).
        count: Tools counted (when searching, up to the one over the budget).
        tokens: Their estimated schema tokens.
    """

    bind_all: bool
    tools: tuple[LibraryTool, ...] = ()
    count: int = 0
    tokens: int = 0


class AutoMode:
    """The budget of ``mode="auto"`` and the counts of its decisions.

    Args:
        max_tokens: Most estimated schema tokens bound whole.
        max_tools: Most tools bound whole (``None``: no count bound).
    """

    def __init__(self, *, max_tokens: int, max_tools: int | None) -> None:
        self.max_tokens = max_tokens
        self.max_tools = max_tools
        self._lock = threading.Lock()
        self._bind_all = 0
        self._search = 0
        self._last: AutoDecision | None = None

    def _over(self, count: int, tokens: int) -> bool:
        return tokens > self.max_tokens or (self.max_tools is not None and count > self.max_tools)

    def decide(
        self, access: Access, scope: RequestScope, *, record: bool = False
    ) -> Logic[AutoDecision]:
        """Bind this request's tools whole, or search (``record``: count it, log at DEBUG)."""
        entries: Iterator[LibraryTool] = iter(scope.library)
        kept: list[LibraryTool] = []
        tokens = 0
        decision: AutoDecision | None = None
        while decision is None and (batch := list(islice(entries, _BATCH))):
            allowed = yield from access.allowed(batch, scope, "load")
            allowed = yield from access.allowed(allowed, scope, "active")
            for entry in allowed:
                if not access.bindable(entry.tool):
                    continue
                kept.append(entry)
                tokens += schema_tokens(entry.tool)
                if self._over(len(kept), tokens):
                    decision = AutoDecision(bind_all=False, count=len(kept), tokens=tokens)
                    break
        if decision is None:
            decision = AutoDecision(
                bind_all=True, tools=tuple(kept), count=len(kept), tokens=tokens
            )
        if record:
            self._record(decision)
        return decision

    def _record(self, decision: AutoDecision) -> None:
        summary = AutoDecision(decision.bind_all, (), decision.count, decision.tokens)
        with self._lock:
            if decision.bind_all:
                self._bind_all += 1
            else:
                self._search += 1
            self._last = summary  # counts only: no tool of the request stays here
        logger.debug(
            "tool search: mode='auto' %s (%s%d tools, ~%d schema tokens; budget %d tokens%s)",
            "binds the request's tools whole" if decision.bind_all else "searches",
            "" if decision.bind_all else "over budget at ",
            decision.count,
            decision.tokens,
            self.max_tokens,
            f", {self.max_tools} tools" if self.max_tools is not None else "",
        )

    def stats(self) -> AutoModeStats:
        """Counts of the model steps decided each way, and the last decision."""
        with self._lock:
            last = self._last
            return AutoModeStats(
                bind_all=self._bind_all,
                search=self._search,
                last=None if last is None else ("bind_all" if last.bind_all else "search"),
                last_tools=0 if last is None else last.count,
                last_tokens=0 if last is None else last.tokens,
                max_tokens=self.max_tokens,
                max_tools=self.max_tools,
            )
