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
from typing import Any, cast

from langchain_core.messages import AIMessage, AnyMessage, ToolCall, ToolMessage

from langchain_toolsearch import _prompts as P

__all__ = ["AUTO_LOAD_RECEIPT_TYPE", "parse_names", "receipts_in", "requested_names"]

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


def requested_names(args: Mapping[str, Any]) -> list[str] | None:
    """The names a ``load_tool`` call asks for (``tool_name`` first), or ``None``.

    Either argument may hold one name or several in any form
    :func:`parse_names` accepts (a list in ``tool_name``, a bare name in
    ``tool_names``...). ``None`` when an argument holds something else.
    """
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
    calls: dict[str, ToolCall] = {}
    loaded: dict[str, None] = {}
    for message in messages:
        if isinstance(message, AIMessage):
            for made in message.tool_calls:
                if made.get("id"):
                    calls[cast(str, made["id"])] = made
            continue
        if not isinstance(message, ToolMessage):
            continue
        call = calls.get(message.tool_call_id)
        # only meta-tool answers are receipts: other tools' output is never parsed
        is_meta = call is not None and call["name"] in (P.LOAD_TOOL_NAME, P.SEARCH_TOOL_NAME)
        receipt = _as_receipt(message) if is_meta else None
        if call is None or receipt is None:
            continue
        names: list[Any] = []
        if call["name"] == P.LOAD_TOOL_NAME and _counts(receipt, message):
            requested = {
                (resolve(n) if resolve is not None else None) or n
                for n in requested_names(call["args"]) or []
            }
            listed = [*(receipt.get("loaded") or []), *(receipt.get("already_loaded") or [])]
            names = [n for n in listed if n in requested]
        elif call["name"] == P.SEARCH_TOOL_NAME and message.status != "error":
            activation = receipt.get("activation")
            if isinstance(activation, Mapping) and activation.get("type") == AUTO_LOAD_RECEIPT_TYPE:
                names = list(activation.get("loaded") or [])
        loaded.update(dict.fromkeys(n for n in names if isinstance(n, str)))
    return list(loaded)
