"""One tool listing in flight per pooled session (every concurrent request awaits it, a
failure reaches all of them and is not kept), and which scopes name a client version.
Fake sessions; no server runs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from langchain_toolsearch._effects import on_bridge_loop
from langchain_toolsearch.mcp import MCPSessionPool
from langchain_toolsearch.mcp._session import (
    PooledSession,
    SessionEntry,
    client_version,
    session_key,
)

HTTP = {"transport": "streamable_http", "url": "https://mcp.example/mcp", "timeout": 30}


class CountingSession:
    """Answers ``tools/list`` after a pause, counting the requests; fails while told to."""

    def __init__(self) -> None:
        self.listed = 0
        self.failing = False

    async def list_tools(self, cursor: str | None = None) -> Any:
        from mcp.types import ListToolsResult, Tool

        self.listed += 1
        await asyncio.sleep(0.05)
        if self.failing:
            raise ValueError("the server refused the listing")
        return ListToolsResult(tools=[Tool(name="t", inputSchema={"type": "object"})])


def fake_pool(monkeypatch: pytest.MonkeyPatch, session: CountingSession) -> MCPSessionPool:
    pool = MCPSessionPool(idle_timeout=None)

    def fake_open(key: Any, connection: Any) -> SessionEntry:
        entry = SessionEntry(key, connection)
        entry.session = session  # type: ignore[assignment]
        entry.ready.set_result(None)
        pool._entries[key] = entry
        return entry

    monkeypatch.setattr(pool, "_open", fake_open)
    return pool


async def test_concurrent_listings_share_one_request(monkeypatch: pytest.MonkeyPatch) -> None:
    session = CountingSession()
    pool = fake_pool(monkeypatch, session)
    pooled = PooledSession(pool, session_key(HTTP, server="docs"), HTTP)
    found = await asyncio.gather(*(on_bridge_loop(pool._listing(pooled)) for _ in range(200)))
    assert session.listed == 1 and len({id(listing) for listing in found}) == 1
    assert pool.stats().tool_lists == 1 and pool.stats().shared_lists == 199


async def test_a_failed_listing_reaches_every_waiter_and_is_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = CountingSession()
    session.failing = True
    pool = fake_pool(monkeypatch, session)
    pooled = PooledSession(pool, session_key(HTTP, server="docs"), HTTP)
    outcomes = await asyncio.gather(
        *(on_bridge_loop(pool._listing(pooled)) for _ in range(20)), return_exceptions=True
    )
    assert session.listed == 1
    assert all(isinstance(o, ValueError) and "refused" in str(o) for o in outcomes)
    session.failing = False  # the next request lists again
    listing = await on_bridge_loop(pool._listing(pooled))
    assert [t.name for t in listing.tools] == ["t"] and session.listed == 2


async def test_a_cancelled_waiter_leaves_the_listing_to_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = CountingSession()
    pool = fake_pool(monkeypatch, session)
    pooled = PooledSession(pool, session_key(HTTP, server="docs"), HTTP)
    first = asyncio.ensure_future(on_bridge_loop(pool._listing(pooled)))
    second = asyncio.ensure_future(on_bridge_loop(pool._listing(pooled)))
    await asyncio.sleep(0.01)
    first.cancel()
    listing = await second
    assert [t.name for t in listing.tools] == ["t"] and session.listed == 1


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        ("team@3", ("team", 3)),
        ("a@b@12", ("a@b", 12)),
        ("team", None),
        ("team@", None),
        ("team@v2", None),
        ("", None),
    ],
)
def test_only_a_scope_ending_in_a_version_number_names_a_client_version(
    scope: str, expected: tuple[str, int] | None
) -> None:
    assert client_version(session_key(HTTP, server="docs", scope=scope)) == expected
