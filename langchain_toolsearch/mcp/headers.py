"""HTTP headers sent to MCP servers: every layer merged by case-insensitive name.

`merge_headers` is the one place header layers meet; session keys, saved-server
connections and interceptor routes all use it, so what is keyed is what is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["merge_headers", "with_headers"]


def merge_headers(*layers: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge header layers by case-insensitive name; the later layer (or entry) wins.

    Args:
        *layers: Header mappings, the connection's then the caller's (``None``: none).

    Returns:
        One entry per name with the winning value and spelling, in first-seen order.
    """
    merged: dict[str, tuple[str, Any]] = {}
    for layer in layers:
        for name, value in (layer or {}).items():
            merged[str(name).lower()] = (str(name), value)
    return dict(merged.values())


def with_headers(
    connection: Mapping[str, Any], extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A copy of an adapter connection with ``extra`` headers merged over its own.

    Args:
        connection: ``{"transport": ..., "headers"?: {...}, ...}``.
        extra: The caller's headers, which win over the connection's.

    Returns:
        The connection; without any header the ``headers`` key stays as it was.
    """
    out = dict(connection)
    own = connection.get("headers")
    if own or extra:
        out["headers"] = merge_headers(own, extra)
    return out
