"""Fixtures of the integration lane: a fresh PostgreSQL database, an MCP session pool."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from langchain_toolsearch.mcp import MCPSessionPool
from tests.support.postgres import fresh_database


@pytest.fixture(scope="module")
def pg_dsn() -> Iterator[str]:
    """DSN of a new database with ``PostgresStore`` and ``PostgresSaver`` tables, dropped after."""
    pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore

    with fresh_database("test", "the PostgresStore tests") as url:
        with PostgresStore.from_conn_string(url) as store:
            store.setup()
        with PostgresSaver.from_conn_string(url) as saver:
            saver.setup()
        yield url


@pytest.fixture
def pool() -> Iterator[MCPSessionPool]:
    """A private `MCPSessionPool` (8 sessions, 60 s idle and tool-list TTL), closed after."""
    with MCPSessionPool(max_sessions=8, idle_timeout=60, tools_ttl=60) as made:
        yield made
