"""``storage="context"``: loads derived from the message history alone.

A tool is loaded while a successful ``load_tool`` receipt (or an auto-load
activation receipt of ``search_tools``) for it answers a tool call the model
really made. Plain search results never count. The engine re-checks every
receipt with the filter (phase ``load``, then ``active``), so a forged or
stale receipt binds nothing the filter denies now.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.messages import AIMessage, AnyMessage, ToolCall, ToolMessage

from langchain_toolsearch import _prompts as P
from langchain_toolsearch.storage.history import HistoryMemo
from langchain_toolsearch.storage.state_keys import state_value

__all__ = [
    "AUTO_LOAD_RECEIPT_TYPE",
    "parse_names",
    "receipts_in",
    "receipts_of",
    "requested_names",
]

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
class _Receipt:
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


def _receipt_of(call: ToolCall, message: ToolMessage) -> _Receipt | None:
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
        return _Receipt(tuple(requested_names(call.get("args")) or ()), listed)
    activation = receipt.get("activation")
    if message.status == "error" or not isinstance(activation, Mapping):
        return None
    if activation.get("type") != AUTO_LOAD_RECEIPT_TYPE:
        return None
    return _Receipt(None, _strings(activation.get("loaded")))


def _read(messages: Sequence[AnyMessage]) -> tuple[_Receipt, ...]:
    """The genuine receipts in ``messages``, in order (one pass over the history)."""
    calls: dict[str, ToolCall] = {}
    found: list[_Receipt] = []
    for message in messages:
        if isinstance(message, AIMessage):
            for made in message.tool_calls:
                if made.get("id"):
                    calls[cast(str, made["id"])] = made
        elif isinstance(message, ToolMessage):
            call = calls.get(message.tool_call_id)
            receipt = _receipt_of(call, message) if call is not None else None
            if receipt is not None:
                found.append(receipt)
    return tuple(found)


_HISTORIES: HistoryMemo[tuple[_Receipt, ...]] = HistoryMemo(lambda messages: _read(messages))
"""Receipts per history list: the tool calls of one model step read their history once."""


def _names(receipts: Sequence[_Receipt], resolve: Callable[[str], str | None] | None) -> list[str]:
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
    :class:`~langchain_toolsearch.storage.history.HistoryMemo`), so a step
    with ``n`` calls costs one read of the history.
    """
    messages = state_value(state, "messages")
    if not isinstance(messages, list):
        return []
    return _names(_HISTORIES.get(messages), resolve)
