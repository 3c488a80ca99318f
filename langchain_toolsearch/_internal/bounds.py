"""Tool output cut to a number of characters, with a marker the model can read.

Text is cut where the bound falls; other blocks are kept whole or left out; an
artifact over the bound is dropped. Also the package's one token estimate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import ToolMessage

from langchain_toolsearch._prompts import TOOL_OUTPUT_DROPPED, TOOL_OUTPUT_TRUNCATED
from langchain_toolsearch.errors import ToolSearchConfigError

__all__ = [
    "DEFAULT_MAX_OUTPUT_CHARS",
    "bound_content",
    "bound_result",
    "check_limit",
    "estimate_tokens",
]


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: UTF-8 bytes / 4, rounded up (characters / 4 for ASCII)."""
    return (len(text.encode("utf-8", "surrogatepass")) + 3) // 4


DEFAULT_MAX_OUTPUT_CHARS = 100_000
"""Characters of an MCP tool's output kept unless ``max_output_chars`` says otherwise."""


def check_limit(name: str, limit: object) -> int | None:
    """``limit`` if it is ``None`` or an int >= 1.

    Raises:
        ToolSearchConfigError: Otherwise, naming ``name``.
    """
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        msg = f"{name} must be an int >= 1 (characters) or None (no bound), got {limit!r}"
        raise ToolSearchConfigError(msg)
    return limit


def _size(value: Any, limit: int) -> int:
    """Characters of the strings in ``value`` (nested), stopping once above ``limit``."""
    total = 0
    stack = [value]
    while stack and total <= limit:
        item = stack.pop()
        total += 1 if not isinstance(item, str) else len(item)
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return total


def _text_of(block: Any) -> str | None:
    if isinstance(block, str):
        return block
    if isinstance(block, Mapping) and block.get("type") == "text":
        text = block.get("text")
        return text if isinstance(text, str) else None
    return None


def bound_content(content: Any, limit: int | None) -> Any:
    """``content`` cut to ``limit`` characters plus the marker (itself when it fits).

    Args:
        content: A string or a list of strings and content blocks.
        limit: Characters kept (``None``: no bound).

    Returns:
        ``content``, or a string (for a string) or a list ending with the marker block.
    """
    if limit is None:
        return content
    if isinstance(content, str):
        if len(content) <= limit:
            return content
        return content[:limit] + TOOL_OUTPUT_TRUNCATED.format(
            shown=limit, total=len(content), dropped=""
        )
    if not isinstance(content, list):
        return content
    sizes = [len(text) if (text := _text_of(b)) is not None else _size(b, limit) for b in content]
    total = sum(sizes)
    if total <= limit:
        return content
    kept: list[Any] = []
    left, dropped = limit, 0
    for block, size in zip(content, sizes, strict=True):
        text = _text_of(block)
        if size <= left:
            kept.append(block)
            left -= size
        elif text is not None and left > 0:
            cut = text[:left]
            kept.append(cut if isinstance(block, str) else {**block, "text": cut})
            left = 0
        elif text is None:
            dropped += 1
    shown = limit - left
    more = TOOL_OUTPUT_DROPPED.format(count=dropped) if dropped else ""
    marker = TOOL_OUTPUT_TRUNCATED.format(shown=shown, total=total, dropped=more)
    kept.append({"type": "text", "text": marker})
    return kept


def bound_result(result: Any, limit: int | None) -> Any:
    """A tool's return value with its content bounded (`bound_content`).

    Args:
        result: Content, a ``(content, artifact)`` pair, or a ``ToolMessage``; anything
            else (a ``Command``) is returned as is.
        limit: Characters kept (``None``: no bound).

    Returns:
        The same shape, bounded; an artifact over the bound becomes ``None``.
    """
    if limit is None:
        return result
    if isinstance(result, ToolMessage):
        bounded = bound_content(result.content, limit)
        return (
            result if bounded is result.content else result.model_copy(update={"content": bounded})
        )
    if isinstance(result, tuple) and len(result) == 2:
        content, artifact = result
        if artifact is not None and _size(artifact, limit) > limit:
            artifact = None
        return bound_result(content, limit), artifact
    return bound_content(result, limit)
