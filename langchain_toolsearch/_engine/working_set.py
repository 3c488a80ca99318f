"""The bounded working set: which of a thread's loaded tools stay bound (``max_loaded``).

With ``max_loaded`` (count) and/or ``max_loaded_tokens`` (estimated schema tokens) only
the most recently used loaded tools stay bound and callable; the least recently used
are evicted until the set fits (the most recent always stays). A use is a load or an
answered call, read from the message history, so the set is a function of the stored
loads and the messages in every storage mode. Tools the history never uses start the
set in load order; a tool joining the set goes to the end (prompt-cache friendly).
Nothing is written: ``load_tool`` brings an evicted tool back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool

from langchain_toolsearch import _prompts as P
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.storage._context import HistoryMemo, state_value

__all__ = ["EVICTED_SHOWN", "WorkingSet", "uses_in"]

EVICTED_SHOWN = 10
"""Most evicted names the hint lists (the most recently used ones)."""


def _names(value: object) -> list[str]:
    return [n for n in value if isinstance(n, str)] if isinstance(value, list) else []


def _read(messages: Sequence[Any]) -> tuple[str, ...]:
    """The tool names used in ``messages`` (answered calls, load receipts), oldest first."""
    uses: list[str] = []
    calls: dict[str, str] = {}
    for message in messages:
        if isinstance(message, AIMessage):
            calls.update((c.get("id") or "", c["name"]) for c in message.tool_calls)
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
        elif message.status != "error":
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
