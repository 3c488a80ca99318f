"""Session keys of the MCP pool (what a session depends on, never a secret), the
pool's argument checks, and the deprecated ``load_mcp_tools`` name. No server runs."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any, ClassVar

import pytest

from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.mcp import (
    MCPSessionPool,
    load_mcp_library,
    load_mcp_tools,
    set_default_pool,
)
from langchain_toolsearch.mcp._session import session_key

HTTP = {"transport": "streamable_http", "url": "https://mcp.example/mcp", "timeout": 30}


def with_token(token: str, name: str = "Authorization") -> dict[str, Any]:
    return {**HTTP, "headers": {name: f"Bearer {token}"}}


def test_two_tokens_give_two_keys_and_neither_holds_the_secret() -> None:
    alice = session_key(with_token("s3cret-alice"), server="docs", scope="client")
    bob = session_key(with_token("s3cret-bob"), server="docs", scope="client")
    assert alice != bob
    assert alice.credential is not None and len(alice.credential) == 64
    for key in (alice, bob):
        assert "s3cret" not in repr(key)
    # the same token (header name in any case) is the same session
    assert (
        session_key(with_token("s3cret-alice", "authorization"), server="docs", scope="client")
        == alice
    )


def test_keys_follow_transport_settings_scope_and_server() -> None:
    base = session_key(HTTP, server="docs")
    assert base.credential is None
    assert session_key(dict(HTTP), server="docs") == base
    assert session_key({**HTTP, "timeout": 5}, server="docs") != base
    assert session_key({**HTTP, "url": "https://other/mcp"}, server="docs") != base
    assert session_key(HTTP, server="docs", scope="client-2") != base
    assert session_key(HTTP, server="wiki") != base
    stdio = {"transport": "stdio", "command": "srv", "args": ["--a"]}
    assert session_key(stdio, server="s") != session_key({**stdio, "args": ["--b"]}, server="s")
    assert session_key(stdio, server="s") != session_key({**stdio, "env": {"K": "v"}}, server="s")


def test_a_connection_without_transport_is_refused() -> None:
    with pytest.raises(ToolSearchConfigError, match="no 'transport'"):
        session_key({"url": "https://x"}, server="docs")


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"max_sessions": 0}, "max_sessions must be a positive int"),
        ({"max_sessions": True}, "max_sessions must be a positive int"),
        ({"idle_timeout": 0}, "idle_timeout must be a number of seconds > 0"),
        ({"tools_ttl": -1}, "tools_ttl must be a number of seconds > 0"),
        ({"connect_timeout": 0}, "connect_timeout must be a number of seconds > 0"),
        ({"ping_timeout": timedelta(0)}, "ping_timeout must be a number of seconds > 0"),
        ({"retire_after": "5s"}, "retire_after must be a number of seconds > 0"),
    ],
)
def test_bad_pool_settings_raise_at_construction(options: dict[str, Any], match: str) -> None:
    with pytest.raises(ToolSearchConfigError, match=match):
        MCPSessionPool(**options)


def test_pool_durations_take_a_timedelta_as_seconds() -> None:
    pool = MCPSessionPool(
        idle_timeout=timedelta(minutes=5),
        tools_ttl=timedelta(seconds=30),
        connect_timeout=None,
        ping_timeout=timedelta(milliseconds=1500),
    )
    assert (pool.idle_timeout, pool.tools_ttl, pool.connect_timeout) == (300.0, 30.0, None)
    assert pool.ping_timeout == 1.5


def test_pool_arguments_are_type_checked() -> None:
    with pytest.raises(ToolSearchTypeError, match="expected an MCPSessionPool"):
        set_default_pool("pool")  # type: ignore[arg-type]

    class Client:
        connections: ClassVar[dict[str, Any]] = {}
        tool_name_prefix = False

    with pytest.raises(ToolSearchTypeError, match="pool must be an MCPSessionPool"):
        asyncio.run(load_mcp_library(Client(), pool=object()))  # type: ignore[arg-type]


def test_a_pool_that_never_opened_a_session_closes_at_once() -> None:
    with MCPSessionPool() as pool:
        assert pool.stats().open == 0
    assert pool.closed
    pool.close()  # idempotent


def test_the_old_load_mcp_tools_name_warns_and_forwards() -> None:
    with pytest.warns(DeprecationWarning, match=r"use load_mcp_library\(client\)"):
        pending = load_mcp_tools(None)  # type: ignore[arg-type]
    with pytest.raises(ToolSearchTypeError, match="expects a langchain_mcp_adapters"):
        asyncio.run(pending)


async def test_a_saved_clients_sessions_are_keyed_by_the_version_resolved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new version of a saved MCP client never reuses the old
    version's pooled session, even when its server settings are unchanged."""
    from langgraph.store.memory import InMemoryStore

    import langchain_toolsearch_editor._sources as sources
    from langchain_toolsearch_editor import ToolConfigStore, ToolResolver
    from langchain_toolsearch_editor._servers import MCPServer, ServerTools

    scopes: list[tuple[str, str]] = []

    async def fake_load(name: str, server: MCPServer, **options: Any) -> ServerTools:
        scopes.append((name, options["scope"]))
        return ServerTools(server=name)

    monkeypatch.setattr(sources, "load_server_tools", fake_load)
    configs = ToolConfigStore(InMemoryStore())
    server = {"servers": {"files": {"command": "srv", "args": ["--root", "/data"]}}}
    configs.mcp_clients.save("team", server)
    configs.agents.save("agent", {"mcp_clients": {"team": {"tools": "*"}}})
    resolver = ToolResolver(store=configs, agent_id="agent", refresh_interval=0, cache_ttl=0)

    await resolver.aresolve()
    configs.mcp_clients.save("team", server)  # version 2, the same settings
    await resolver.aresolve()
    await resolver.aresolve(version="draft")
    pinned = ToolConfigStore(InMemoryStore())
    pinned.mcp_clients.save("team", server)
    pinned.mcp_clients.save("team", server)
    pinned.agents.save("agent", {"mcp_clients": {"team": {"tools": "*", "version": 1}}})
    await ToolResolver(store=pinned, agent_id="agent", refresh_interval=0).aresolve()

    assert scopes == [
        ("files", "team@1"),
        ("files", "team@2"),
        ("files", "team@2"),
        ("files", "team@1"),
    ]
    connection = {"transport": "stdio", "command": "srv", "args": ["--root", "/data"]}
    assert session_key(connection, server="files", scope="team@1") != session_key(
        connection, server="files", scope="team@2"
    )


async def test_a_listing_whose_session_closes_meanwhile_fails_at_once_and_is_retried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server killed while the pool lists its tools: the listing does not wait out its
    timeout on the dead session, it is sent again on a new one (listing runs nothing)."""
    from mcp.types import ListToolsResult, Tool

    from langchain_toolsearch.mcp._session import PooledSession, SessionEntry

    class Hanging:  # the dead server: the request is never answered
        async def list_tools(self, cursor: str | None = None) -> ListToolsResult:
            await asyncio.Event().wait()
            raise AssertionError("unreachable")

    class Live:
        async def list_tools(self, cursor: str | None = None) -> ListToolsResult:
            return ListToolsResult(tools=[Tool(name="t", inputSchema={"type": "object"})])

    pool = MCPSessionPool(idle_timeout=None)
    key = session_key(HTTP, server="docs")
    opened: list[Any] = []

    def fake_open(key: Any, connection: Any) -> Any:
        entry = SessionEntry(key, connection)
        entry.session = Hanging() if not opened else Live()  # type: ignore[assignment]
        entry.ready.set_result(None)
        pool._entries[key] = entry
        opened.append(entry)
        return entry

    monkeypatch.setattr(pool, "_open", fake_open)

    async def kill_first() -> None:
        while not opened:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        opened[0].gone.set()  # what the session's task does when its transport fails

    killer = asyncio.create_task(kill_first())
    listing = await asyncio.wait_for(pool._listing(PooledSession(pool, key, HTTP)), 5)
    await killer
    assert [t.name for t in listing.tools] == ["t"]
    assert len(opened) == 2 and pool.stats().reconnects == 1


def test_headers_whose_names_differ_by_case_never_collapse_into_one_session_key() -> None:
    """A service token in the connection and the caller's token set by an interceptor.

    Header names are case-insensitive (RFC 9110): ``{"Authorization": A,
    "authorization": B}`` is sent as one header, ``B`` (the later value), so its
    session is the session of a caller who sends ``B`` alone, and never the
    session of ``A``.
    """
    http = {"transport": "streamable_http", "url": "https://mcp.example/mcp"}
    with_service = {**http, "headers": {"Authorization": "Bearer A", "authorization": "Bearer B"}}
    caller_only = {**http, "headers": {"authorization": "Bearer B"}}
    service_only = {**http, "headers": {"Authorization": "Bearer A"}}
    first = session_key(with_service, server="docs", scope="c")
    assert first == session_key(caller_only, server="docs", scope="c")
    assert first != session_key(service_only, server="docs", scope="c")
    assert "Bearer" not in repr(first)
    # the same token under a name in another case is still the same session
    assert session_key(
        {**http, "headers": {"Authorization": "Bearer B"}}, server="docs", scope="c"
    ) == session_key(caller_only, server="docs", scope="c")


def test_the_mcp_package_exports_what_users_import() -> None:
    import langchain_toolsearch.mcp as mcp

    assert mcp.__all__ == [
        "MCPLibrary",
        "MCPPoolClosedError",
        "MCPPoolError",
        "MCPSessionPool",
        "MCPToolRoute",
        "PoolStats",
        "default_pool",
        "load_mcp_library",
        "load_mcp_tools",
        "multi_server_mcp_client",
        "set_default_pool",
    ]
    assert all(hasattr(mcp, name) for name in mcp.__all__)


def test_pool_stats_keep_their_positional_order_new_counts_come_last() -> None:
    from langchain_toolsearch.mcp import PoolStats

    stats = PoolStats(*range(13))
    assert (stats.unresponsive, stats.retired, stats.session_failures) == (7, 8, 11)
    assert stats.kept == 12
