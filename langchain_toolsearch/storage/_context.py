"""``storage="context"``: loads derived from the message history, and the graph-state keys.

* Receipts: a tool is loaded while a successful ``load_tool`` receipt (or an auto-load
  activation receipt of ``search_tools``) for it answers a tool call the model really
  made. Plain search results never count. The engine re-checks every receipt with
  the filter (phase ``load``, then ``active``), so a forged or stale receipt binds
  nothing the filter denies now.
* :class:`HistoryMemo`: a message history read once per step. Every tool call of one
  model step runs on the same graph state, so on the same ``messages`` list object;
  the memo reads that list once and hands the value to the other calls: one AI
  message with ``n`` tool calls costs one read of the history, not ``n``. An entry is
  keyed by the history's last message (by identity, weakly) and used only if the list
  presented still holds the very message objects it was read from, in the same order
  (checked through weak references). So an entry never keeps a message alive and goes
  when that message does: nothing derived from one request outlives its messages on
  the shared memo. A copied list, a list changed in place or a new list at a reused
  address is read afresh. The value is a pure function of those messages, so whoever
  presents them gets what a fresh read would give. The messages are not expected to
  change in place while a step runs (LangGraph makes a new list and new messages at
  every step).
* The graph-state keys this package keeps, their reducer, and the state schemas:
  ``toolsearch_loaded`` holds the loads of a run without a thread id (that run only);
  ``toolsearch_tools``: the node form writes the loaded names to bind this step.
  None of them can be written by a run's input: in the middleware form they are
  marked ``OmitFromInput``; in the node form compile the graph with
  ``StateGraph(ToolSearchState, input_schema=ToolSearchInput)``. Input schemas do not
  cover every way in (``Command(update=...)`` on a resume, a copied state), so entries
  are also signed by a :class:`StateSigner` of the instance that wrote them, and
  unsigned or forged entries are ignored.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import operator
import os
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Generic, NotRequired, TypeVar, cast

from langchain.agents.middleware.types import AgentState, OmitFromInput, ResponseT
from langchain_core.messages import AIMessage, AnyMessage, ToolCall, ToolMessage
from langgraph.graph import MessagesState

from langchain_toolsearch import _prompts as P
from langchain_toolsearch._support import WeakIdentityMap

_T = TypeVar("_T")


# -- graph-state keys ---------------------------------------------------------------------

LOADED_KEY = "toolsearch_loaded"
"""Loads of a run without a thread id."""
TOOLS_KEY = "toolsearch_tools"
"""Node form: loaded tool names to bind this step."""


class StateSigner:
    """Signs tool names kept in graph state with a key of this process (HMAC-SHA256).

    An entry reads ``"<name>#<32 hex digits>"``. The key is made at construction
    and never leaves the process, so only the instance that wrote an entry can
    verify it: after a restart, earlier entries are ignored (fail closed).
    """

    def __init__(self) -> None:
        self._key = os.urandom(32)

    def sign(self, name: str) -> str:
        """``name`` with its signature appended."""
        raw = name.encode("utf-8", "surrogatepass")
        return f"{name}#{hmac.new(self._key, raw, hashlib.sha256).hexdigest()[:32]}"

    def sign_all(self, names: Iterable[str]) -> list[str]:
        """:meth:`sign` of each name, in order."""
        return [self.sign(n) for n in names]

    def verified(self, entries: Iterable[object]) -> list[str]:
        """The names of the entries this signer wrote, in order; anything else is dropped."""
        names: list[str] = []
        for entry in entries:
            if isinstance(entry, str):
                name = entry.rpartition("#")[0]
                if name and hmac.compare_digest(self.sign(name), entry):
                    names.append(name)
        return names


def merge_loaded(left: list[str] | None, right: list[str] | None) -> list[str]:
    """Reducer for ``toolsearch_loaded``: append names not yet present, in order."""
    merged = dict.fromkeys(left or [])
    merged.update(dict.fromkeys(right or []))
    return list(merged)


def state_value(state: Any, key: str) -> Any:
    """``state[key]`` of a dict or object state, else ``None``."""
    if isinstance(state, Mapping):
        return state.get(key)
    return getattr(state, key, None)


def state_names(state: Any, key: str) -> list[str]:
    """The strings of the list at ``state[key]`` (``[]`` if absent or malformed)."""
    value = state_value(state, key)
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def messages_of(state: Any) -> list[AnyMessage]:
    """The ``messages`` of a graph state (dict or object), else ``[]``."""
    msgs = state_value(state, "messages")
    return list(msgs) if isinstance(msgs, list) else []


class ToolSearchAgentState(AgentState[ResponseT]):
    """Agent state with this package's keys; the run's input can set none of them."""

    toolsearch_loaded: NotRequired[Annotated[list[str], merge_loaded, OmitFromInput]]


class ToolSearchState(MessagesState):
    """``MessagesState`` plus the keys the node reads and writes.

    Compile with ``input_schema=ToolSearchInput`` so a run's input cannot set them.
    """

    toolsearch_loaded: NotRequired[Annotated[list[str], merge_loaded]]
    toolsearch_tools: NotRequired[list[str]]


class ToolSearchInput(MessagesState):
    """Input schema for a node graph: the messages only (``StateGraph(..., input_schema=...)``)."""


# -- a history read once per step ------------------------------------------------------------


def _refs(messages: Sequence[Any]) -> tuple[weakref.ref[Any], ...] | None:
    """Weak references to ``messages``, or ``None`` if one cannot be referenced weakly."""
    try:
        return tuple(map(weakref.ref, messages))
    except TypeError:  # a plain dict or string in a hand-built state
        return None


def _same(refs: tuple[weakref.ref[Any], ...], messages: Sequence[Any]) -> bool:
    """Whether ``messages`` are the live objects ``refs`` point at, in order (C-speed loop)."""
    return len(refs) == len(messages) and all(map(operator.is_, map(operator.call, refs), messages))


class HistoryMemo(Generic[_T]):
    """``read(messages)`` once per history, remembered while its last message lives.

    Workload: a long history whose step makes many tool calls, each reading
    its receipts (``make bench``, "Speed paths, on and off": 1,000 earlier
    messages, then 1,000 calls in one AI message).

    Thread-safe: concurrent calls presenting the same history read it once (a
    miss reads under a lock, so the tool calls of a step that ToolNode runs in
    threads wait for the first read instead of each reading). Holds no message
    strongly.

    Args:
        read: Derives the value from a history; must depend on nothing but
            the messages (the value is shared by every caller presenting
            the same message objects), and the value must not be mutated.
        size: Most histories remembered (count; each holds one weak reference
            per message, so the bound keeps a long run's memory linear).
    """

    def __init__(self, read: Callable[[Sequence[Any]], _T], *, size: int = 32) -> None:
        self._read = read
        self._entries: WeakIdentityMap[tuple[tuple[weakref.ref[Any], ...], _T]]
        self._entries = WeakIdentityMap(size=size)
        self._miss = threading.Lock()
        self.reads = 0
        """Histories read (misses), for tests and stats."""

    def __len__(self) -> int:
        """Histories remembered now (those whose last message is alive)."""
        return len(self._entries)

    def get(self, messages: Sequence[Any]) -> _T:
        """The value for ``messages``: remembered, else read (and remembered)."""
        if not messages:
            return self._read(messages)
        found = self._remembered(messages)
        if found is not None:
            return found[0]
        with self._miss:
            found = self._remembered(messages)  # read by another thread meanwhile
            if found is not None:
                return found[0]
            value = self._read(messages)
            self.reads += 1
            refs = _refs(messages)
            if refs is not None:
                self._entries.put(messages[-1], (refs, value))
        return value

    def _remembered(self, messages: Sequence[Any]) -> tuple[_T] | None:
        entry = self._entries.get(messages[-1])
        if entry is not None and _same(entry[0], messages):
            return (entry[1],)
        return None


# -- receipts --------------------------------------------------------------------------------

AUTO_LOAD_RECEIPT_TYPE = "tool-search-auto-load"
"""``activation.type`` of a ``search_tools`` receipt that loaded its hits."""


def _as_receipt(message: ToolMessage) -> Mapping[str, Any] | None:
    if isinstance(message.artifact, Mapping):
        return message.artifact
    if isinstance(message.content, str):
        try:
            parsed = json.loads(message.content)
        except (ValueError, RecursionError):  # deeply nested JSON exhausts the stack
            return None
        return parsed if isinstance(parsed, Mapping) else None
    return None


def parse_names(value: object) -> list[str] | None:
    """One or more tool names in any form a model sends them, or ``None``.

    Accepted: a list of strings, a JSON list of strings in a string
    (``'["a", "b"]'``), a comma-separated string (``"a, b"``) and a bare
    name (``"a"``). Names are stripped; empty ones are dropped. Anything
    else (a number, a list holding a non-string, JSON that is not a list of
    strings) is ``None``,
    and the caller answers naming the accepted forms.
    """
    if isinstance(value, str):
        text = value.strip()
        if not text.startswith(("[", "{")):
            return [n for part in text.split(",") if (n := part.strip())]
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):  # deeply nested JSON exhausts the stack
            return None
    if isinstance(value, list) and all(isinstance(n, str) for n in value):
        return [n for item in value if (n := item.strip())]
    return None


def requested_names(args: object) -> list[str] | None:
    """The names a ``load_tool`` call asks for (``tool_name`` first), or ``None``.

    Either argument may hold one name or several in any form
    :func:`parse_names` accepts (a list in ``tool_name``, a bare name in
    ``tool_names``...). ``None`` when an argument holds something else, or
    ``args`` is not an object (a number, a list, a string, ``None``).
    """
    if not isinstance(args, Mapping):
        return None
    names: list[str] = []
    for key in ("tool_name", "tool_names"):
        value = args.get(key)
        if value is None:
            continue
        parsed = parse_names(value)
        if parsed is None:
            return None
        names.extend(parsed)
    return names


def _counts(receipt: Mapping[str, Any], message: ToolMessage) -> bool:
    """A successful load, or a partial one (``success: false`` with names not found)."""
    if receipt.get("success") is True:
        return message.status != "error"
    return receipt.get("success") is False and bool(receipt.get("not_found"))


@dataclass(frozen=True)
class Receipt:
    """One genuine receipt, before names are resolved.

    Attributes:
        requested: ``load_tool``: the names its call asked for, as sent;
            ``None`` for an auto-load activation of ``search_tools``.
        listed: The names the receipt lists as loaded (strings only).
    """

    requested: tuple[str, ...] | None
    listed: tuple[str, ...]


def _strings(value: object) -> tuple[str, ...]:
    return tuple(n for n in value if isinstance(n, str)) if isinstance(value, list) else ()


def receipt_of(call: ToolCall, message: ToolMessage) -> Receipt | None:
    """The receipt ``message`` gives as the answer to ``call``, if it is one."""
    name = call["name"]
    # only meta-tool answers are receipts: other tools' output is never parsed
    if name not in (P.LOAD_TOOL_NAME, P.SEARCH_TOOL_NAME):
        return None
    receipt = _as_receipt(message)
    if receipt is None:
        return None
    if name == P.LOAD_TOOL_NAME:
        if not _counts(receipt, message):
            return None
        listed = (*_strings(receipt.get("loaded")), *_strings(receipt.get("already_loaded")))
        return Receipt(tuple(requested_names(call.get("args")) or ()), listed)
    activation = receipt.get("activation")
    if message.status == "error" or not isinstance(activation, Mapping):
        return None
    if activation.get("type") != AUTO_LOAD_RECEIPT_TYPE:
        return None
    return Receipt(None, _strings(activation.get("loaded")))


def answered(messages: Sequence[AnyMessage]) -> Iterator[tuple[ToolCall, ToolMessage]]:
    """Each tool message with the tool call of an earlier ``AIMessage`` it answers, in order."""
    calls: dict[str, ToolCall] = {}
    for message in messages:
        if isinstance(message, AIMessage):
            calls.update((cast(str, c["id"]), c) for c in message.tool_calls if c.get("id"))
        elif isinstance(message, ToolMessage) and (call := calls.get(message.tool_call_id)):
            yield call, message


def _read(messages: Sequence[AnyMessage]) -> tuple[Receipt, ...]:
    """The genuine receipts in ``messages``, in order (one pass over the history)."""
    return tuple(r for c, m in answered(messages) if (r := receipt_of(c, m)) is not None)


_HISTORIES: HistoryMemo[tuple[Receipt, ...]] = HistoryMemo(lambda messages: _read(messages))
"""Receipts per history list: the tool calls of one model step read their history once."""


def _names(receipts: Sequence[Receipt], resolve: Callable[[str], str | None] | None) -> list[str]:
    loaded: dict[str, None] = {}
    for receipt in receipts:
        if receipt.requested is None:
            loaded.update(dict.fromkeys(receipt.listed))
            continue
        requested = {(resolve(n) if resolve is not None else None) or n for n in receipt.requested}
        loaded.update(dict.fromkeys(n for n in receipt.listed if n in requested))
    return list(loaded)


def receipts_in(
    messages: Sequence[AnyMessage], resolve: Callable[[str], str | None] | None = None
) -> list[str]:
    """Tool names loaded by genuine receipts in ``messages``, in first-load order.

    A receipt counts only if it is a successful (or partial) ``load_tool``
    result (or an auto-load activation in a ``search_tools`` result) whose
    ``tool_call_id`` answers a matching tool call of an earlier ``AIMessage``;
    a ``load_tool`` receipt counts only for names that call asked for.

    Args:
        messages: The history.
        resolve: Maps a requested name (original, alias or provider-safe) to the
            name receipts list; identity if omitted.
    """
    return _names(_read(messages), resolve)


def receipts_of(state: Any, resolve: Callable[[str], str | None] | None = None) -> list[str]:
    """:func:`receipts_in` of a graph state's ``messages``, read once per history list.

    The tool calls of one model step share their state's ``messages`` list:
    the first call reads it, the others get the receipts it found (see
    :class:`HistoryMemo`), so a step
    with ``n`` calls costs one read of the history.
    """
    messages = state_value(state, "messages")
    if not isinstance(messages, list):
        return []
    return _names(_HISTORIES.get(messages), resolve)
