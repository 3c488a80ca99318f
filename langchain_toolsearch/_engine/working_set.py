"""The bounded working set: which of a thread's loaded tools stay bound (``max_loaded``).

Loads accumulate in a thread; with ``max_loaded`` (a count) and/or
``max_loaded_tokens`` (estimated schema tokens, see
:mod:`~langchain_toolsearch._engine.schema_tokens`) only the most recently
used of them are bound and callable, the *working set*; the others are
evicted, least recently used first, until the set fits. The most recently
used tool always stays, even alone over ``max_loaded_tokens``.

*Used* means loaded (a ``load_tool`` receipt listing the tool, an auto-load
activation listing it) or called (a tool call of it that was answered, not
refused and not failed). Use is
read from the request's message history, so the working set is a pure
function of (the loads the storage holds, the messages), whatever the storage
mode: the same in-memory, in the message receipts (``"context"``), in a
LangGraph store, after a restart, in every replica. Tools never used in the
history (loaded in earlier runs whose messages are gone) rank by load order,
older first, behind every tool used in it.

The working set keeps the load order of what stays (a provider's prompt
cache keeps the prefix up to the first evicted tool). An evicted tool is no
longer loaded as far as the model, the guard and ``get_loaded_tools`` are
concerned; ``load_tool`` loads it again (that load is a use, so it stays).
Nothing is written: the storage keeps the names (unload them for good with
``unload``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool

from langchain_toolsearch import _prompts as P
from langchain_toolsearch.library import ToolLibrary
from langchain_toolsearch.storage.history import HistoryMemo
from langchain_toolsearch.storage.state_keys import state_value

__all__ = ["EVICTED_SHOWN", "WorkingSet", "last_uses"]

EVICTED_SHOWN = 10
"""Most evicted names the hint lists (the most recently used ones)."""


def _names(value: object) -> list[str]:
    return [n for n in value if isinstance(n, str)] if isinstance(value, list) else []


def _read(messages: Sequence[Any]) -> dict[str, int]:
    """Name -> index of the ``AIMessage`` whose call last used it.

    A call counts once answered: a tool call by a ``ToolMessage`` that is no
    error (a refused or failed call is no use), a ``load_tool`` call for the
    names its receipt lists as loaded or already loaded, a ``search_tools``
    call for those its auto-load activation lists.
    """
    uses: dict[str, int] = {}
    calls: dict[str, tuple[str, int]] = {}
    for i, message in enumerate(messages):
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                calls[call.get("id") or ""] = (call["name"], i)
            continue
        if not isinstance(message, ToolMessage) or message.tool_call_id not in calls:
            continue
        name, at = calls[message.tool_call_id]
        receipt = message.artifact if isinstance(message.artifact, Mapping) else {}
        if name == P.LOAD_TOOL_NAME:
            listed = [*_names(receipt.get("loaded")), *_names(receipt.get("already_loaded"))]
        elif name == P.SEARCH_TOOL_NAME:
            activation = receipt.get("activation")
            listed = _names(activation.get("loaded")) if isinstance(activation, Mapping) else []
        else:
            listed = [name] if message.status != "error" else []
        uses.update(dict.fromkeys(listed, at))
    return uses


_HISTORIES: HistoryMemo[dict[str, int]] = HistoryMemo(_read)
"""Uses per history: the tool calls of one step read their history once."""


def last_uses(state: Any, resolve: Callable[[str], str | None]) -> dict[str, int]:
    """Library name -> index of the last message in ``state["messages"]`` that used it."""
    messages = state_value(state, "messages")
    if not isinstance(messages, list) or not messages:
        return {}
    found: dict[str, int] = {}
    for raw, at in _HISTORIES.get(messages).items():
        name = resolve(raw) or raw
        if at > found.get(name, -1):
            found[name] = at
    return found


@dataclass(frozen=True)
class WorkingSet:
    """The bound of the working set (``max_loaded``, ``max_loaded_tokens``; ``None``: none).

    Attributes:
        max_count: Most tools kept (count).
        max_tokens: Most estimated schema tokens kept.
        cost: A tool's estimated schema tokens
            (:func:`~langchain_toolsearch._engine.schema_tokens.schema_tokens`).
    """

    max_count: int | None = None
    max_tokens: int | None = None
    cost: Callable[[BaseTool], int] = lambda tool: 0

    def split(
        self, names: Sequence[str], state: Any, library: ToolLibrary
    ) -> tuple[list[str], list[str]]:
        """(kept, in load order; evicted, most recently used first) of the loaded ``names``.

        Names not in ``library`` (a request's tool that is gone) are kept at
        no cost: they bind nothing.
        """
        if self.max_count is not None and len(names) <= self.max_count and self.max_tokens is None:
            return list(names), []
        uses = last_uses(state, library.resolve)
        ranked = sorted(range(len(names)), key=lambda p: (uses.get(names[p], -1), p), reverse=True)
        kept: set[int] = set()
        evicted: list[str] = []
        count = tokens = 0
        full = False
        for p in ranked:
            entry = library.get(names[p])
            if entry is None:
                kept.add(p)
                continue
            cost = self.cost(entry.tool) if self.max_tokens is not None else 0
            full = full or (
                count > 0
                and (
                    (self.max_count is not None and count + 1 > self.max_count)
                    or (self.max_tokens is not None and tokens + cost > self.max_tokens)
                )
            )
            if full:
                evicted.append(names[p])
                continue
            kept.add(p)
            count, tokens = count + 1, tokens + cost
        return [n for p, n in enumerate(names) if p in kept], evicted

    def notice(self, evicted: Sequence[str], *, auto_load: bool) -> str:
        """The hint's sentence naming the evicted tools (``""`` when none)."""
        if not evicted:
            return ""
        shown = ", ".join(evicted[:EVICTED_SHOWN])
        if len(evicted) > EVICTED_SHOWN:
            shown += P.WORKING_SET_MORE.format(count=len(evicted) - EVICTED_SHOWN)
        how = P.WORKING_SET_HOW_AUTO if auto_load else P.WORKING_SET_HOW_LOAD
        return P.WORKING_SET_EVICTED.format(names=shown, how=how)
