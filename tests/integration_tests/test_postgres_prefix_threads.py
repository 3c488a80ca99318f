"""``storage="store"`` on PostgresStore with thread ids that are prefixes of each other.

langgraph-checkpoint-postgres 3.0.0-3.1.x looped forever searching a namespace whose
thread id is a prefix of another's (``"1"`` vs ``"10"``); pyproject's floor is 3.2.
Each thread must see exactly its own loads, in both forms, sync and async; loaded-tool
items take the store's TTL. The
per-test timeout (pytest-timeout) turns a regression into a failure, not a hang.
"""

from __future__ import annotations

import uuid

import pytest
from langchain_core.messages import HumanMessage

from tests.support.postgres import astore_and_saver, store_and_saver
from tests.support.storage_helpers import receipt_of, store_harness
from tests.support.toolsearch_harness import META, cfg

LOADS = {"1": "get_weather", "10": "send_email", "100": "github_get_me"}


def _ids() -> dict[str, str]:
    """Thread ids ``p1``, ``p10``, ``p100`` under a fresh prefix: each a prefix of the next."""
    prefix = f"t{uuid.uuid4().hex[:6]}-"
    return {suffix: prefix + suffix for suffix in LOADS}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("form", ["agent", "node"])
def test_prefix_thread_ids_keep_their_own_loads(pg_dsn: str, form: str) -> None:
    ids = _ids()
    with store_and_saver(pg_dsn) as (store, saver):
        h = store_harness(form, store, saver)
        model = h.model
        for suffix, tool in LOADS.items():
            out = h.graph.invoke({"messages": [HumanMessage(f"load {tool}")]}, cfg(ids[suffix]))
            assert receipt_of(out["messages"])["loaded"] == [tool]
        for suffix, tool in LOADS.items():
            probe = f"hello {suffix}"
            h.graph.invoke({"messages": [HumanMessage(probe)]}, cfg(ids[suffix]))
            assert model.bound_for(probe)[-1] == [*META, tool], suffix
        for suffix, tool in LOADS.items():
            items = store.search(("toolsearch", "loaded", ids[suffix]), limit=100)
            assert sorted(i.key for i in items) == [tool], suffix


@pytest.mark.timeout(120)
async def test_prefix_thread_ids_on_async_postgres_store(pg_dsn: str) -> None:
    ids = _ids()
    async with astore_and_saver(pg_dsn) as (store, saver):
        h = store_harness("agent", store, saver)
        model = h.model
        for suffix, tool in LOADS.items():
            await h.graph.ainvoke({"messages": [HumanMessage(f"load {tool}")]}, cfg(ids[suffix]))
        for suffix, tool in LOADS.items():
            probe = f"again {suffix}"
            await h.graph.ainvoke({"messages": [HumanMessage(probe)]}, cfg(ids[suffix]))
            assert model.bound_for(probe)[-1] == [*META, tool], suffix


@pytest.mark.timeout(120)
def test_loaded_tool_items_take_the_store_ttl(pg_dsn: str) -> None:
    """docs/storage.md: a PostgresStore's ``ttl`` config gives loaded-tool items an expiry."""
    import psycopg

    thread = _ids()["1"]
    ttl = {"default_ttl": 60.0, "refresh_on_read": True}  # minutes
    with store_and_saver(pg_dsn, ttl=ttl) as (store, saver):
        h = store_harness("agent", store, saver)
        h.graph.invoke({"messages": [HumanMessage("load get_weather")]}, cfg(thread))
    with psycopg.connect(pg_dsn) as conn:
        rows = conn.execute(
            "SELECT key, expires_at - updated_at FROM store WHERE prefix = %s",
            (f"toolsearch.loaded.{thread}",),
        ).fetchall()
    assert [key for key, _ in rows] == ["get_weather"]
    ((_, lifetime),) = rows
    assert lifetime is not None and 59 * 60 <= lifetime.total_seconds() <= 61 * 60
