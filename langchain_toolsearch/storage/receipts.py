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
        except ValueError:
            return None
        return parsed if isinstance(parsed, Mapping) else None
    return None


def parse_names(value: object) -> list[str] | None:
    """``tool_names`` as a list of strings: a list, or a JSON list sent as a string.

    Returns ``None`` for any other form (the caller answers naming the accepted ones).
    """
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if isinstance(value, list) and all(isinstance(n, str) for n in value):
        return list(value)
    return None


def requested_names(args: Mapping[str, Any]) -> list[str]:
    """The names a ``load_tool`` call asked for (``tool_name`` first), unvalidated."""
    names: list[str] = []
    if isinstance(args.get("tool_name"), str):
        names.append(args["tool_name"])
    names.extend(parse_names(args.get("tool_names")) or [])
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
        receipt = _as_receipt(message) if call is not None else None
        if call is None or receipt is None:
            continue
        names: list[Any] = []
        if call["name"] == P.LOAD_TOOL_NAME and _counts(receipt, message):
            requested = {
                (resolve(n) if resolve is not None else None) or n
                for n in requested_names(call["args"])
            }
            listed = [*(receipt.get("loaded") or []), *(receipt.get("already_loaded") or [])]
            names = [n for n in listed if n in requested]
        elif call["name"] == P.SEARCH_TOOL_NAME and message.status != "error":
            activation = receipt.get("activation")
            if isinstance(activation, Mapping) and activation.get("type") == AUTO_LOAD_RECEIPT_TYPE:
                names = list(activation.get("loaded") or [])
        loaded.update(dict.fromkeys(n for n in names if isinstance(n, str)))
    return list(loaded)
