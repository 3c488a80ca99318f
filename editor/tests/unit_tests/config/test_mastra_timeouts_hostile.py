"""Hostile Mastra timeouts get a clear error; what is exported re-imports.

A 400-digit timeout, ``0`` and sub-millisecond values are refused at
construction naming seconds, never an ``OverflowError``; every client that
validates exports to a Mastra form that `MCPClientConfig.from_mastra` takes
back with the same timeout.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langchain_toolsearch.errors import ToolSearchError
from langchain_toolsearch_editor._servers import MAX_TIMEOUT, MIN_TIMEOUT, MCPClientConfig


def client(timeout: Any, kind: str = "stdio") -> dict[str, Any]:
    server: dict[str, Any] = (
        {"type": "stdio", "command": "srv"}
        if kind == "stdio"
        else {"type": "http", "url": "http://127.0.0.1:9/mcp"}
    )
    return {"name": "n", "servers": {"s": {**server, "timeout": timeout}}}


HOSTILE = [10**400, -(10**400), 0, 0.0, -1, 1e-10, 1e300, float("nan"), float("inf"), "5", True]


@pytest.mark.parametrize("kind", ["stdio", "http"])
@pytest.mark.parametrize("timeout", HOSTILE, ids=repr)
def test_hostile_timeouts_are_refused_naming_seconds(timeout: Any, kind: str) -> None:
    with pytest.raises((ValueError, ToolSearchError), match="seconds"):
        MCPClientConfig.model_validate(client(timeout, kind))


@pytest.mark.parametrize("kind", ["stdio", "http"])
@pytest.mark.parametrize("timeout_ms", [10**400, 0, 0.5, 1e-7, float("inf")], ids=repr)
def test_hostile_mastra_timeouts_are_refused_not_crashing(timeout_ms: Any, kind: str) -> None:
    with pytest.raises(ToolSearchError, match=r"servers\.s\.timeout"):
        MCPClientConfig.from_mastra(client(timeout_ms, kind))


@settings(max_examples=300, deadline=None)
@given(
    seconds=st.floats(min_value=MIN_TIMEOUT, max_value=MAX_TIMEOUT, allow_nan=False),
    kind=st.sampled_from(["stdio", "http"]),
)
def test_what_to_mastra_exports_from_mastra_imports(seconds: float, kind: str) -> None:
    ours = MCPClientConfig.model_validate(client(seconds, kind))
    back = MCPClientConfig.from_mastra(ours.to_mastra())
    assert back.servers["s"].timeout == pytest.approx(seconds, rel=1e-6)
    again = MCPClientConfig.from_mastra(back.to_mastra())
    assert again.servers["s"].timeout == pytest.approx(seconds, rel=1e-6)
