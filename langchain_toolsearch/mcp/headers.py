"""HTTP headers sent to MCP servers: every layer merged by case-insensitive name.

Header names are case-insensitive (RFC 9110, section 5.1): ``Authorization``
and ``authorization`` are one header. `merge_headers` is the one place where
header layers meet (a connection's own headers, then a tool interceptor's
per-caller headers): names are compared lower-cased, a later layer's value
replaces an earlier one's (within one mapping, the later entry wins), and
each header is sent once, under the spelling of the value that won. The
session key, the saved-server connection and the interceptor route all use
it, so what is keyed is exactly what is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["merge_headers", "with_headers"]


def merge_headers(*layers: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge header layers by case-insensitive name; the later layer wins.

    Args:
        *layers: Header mappings, first the connection's, then the caller's
            (``None`` or empty: nothing to add).

    Returns:
        One entry per header name (compared lower-cased), with the value and
        the spelling of the last layer (or entry) that set it, in the order
        the names were first seen.
    """
    merged: dict[str, tuple[str, Any]] = {}
    for layer in layers:
        for name, value in (layer or {}).items():
            merged[str(name).lower()] = (str(name), value)
    return dict(merged.values())


def with_headers(
    connection: Mapping[str, Any], extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A copy of an adapter connection whose headers are merged (`merge_headers`).

    Args:
        connection: ``{"transport": ..., "headers"?: {...}, ...}``.
        extra: The caller's headers, which win over the connection's.

    Returns:
        The connection with ``headers`` = the connection's headers then
        ``extra``, merged; without any header the ``headers`` key is left as
        it was (absent stays absent).
    """
    out = dict(connection)
    own = connection.get("headers")
    if own or extra:
        out["headers"] = merge_headers(own, extra)
    return out
