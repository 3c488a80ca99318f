"""``storage="store"`` on a real PostgreSQL server (``PostgresStore`` + ``PostgresSaver``).

The server comes from ``TOOLSEARCH_TEST_POSTGRES_DSN`` (``make test`` exports it
after ``scripts/start_postgres.sh start --private``); without it the test run
starts a private server of its own (see :mod:`tests.support.postgres`, nothing
installed). Where no server can
be started they skip with the reason, unless ``TOOLSEARCH_REQUIRE_POSTGRES=1``
(set by ``.ci/run``) turns that into a failure. Each session works in a fresh
database that is dropped afterwards.

Replicas are real processes (:mod:`tests.support.toolsearch_worker`): two of them
serve one thread at the same time and see each other's loads, and a process
SIGKILLed right after a load was acknowledged loses nothing.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from tests.support.library_fixtures import library
from tests.support.postgres import astore_and_saver, store_and_saver
from tests.support.storage_helpers import RuleChatModel, receipt_of, store_harness
from tests.support.toolsearch_harness import META, build, cfg
from tests.support.worker_client import Worker

psycopg = pytest.importorskip("psycopg", reason="needs psycopg (pip install -e '.[dev]')")
pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")

from langgraph.store.postgres import AsyncPostgresStore, PostgresStore  # noqa: E402


def _thread() -> str:
    return f"pg-{uuid.uuid4().hex[:8]}"


def _stored(dsn: str, thread: str) -> list[str]:
    with PostgresStore.from_conn_string(dsn) as store:
        items = store.search(("toolsearch", "loaded", thread), limit=100)
    return [i.key for i in sorted(items, key=lambda i: (i.value["seq"], i.key))]


# -- in process ---------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["agent", "node"])
def test_postgres_store_sync_loads_bind_and_persist(pg_dsn: str, form: str) -> None:
    thread = _thread()
    with store_and_saver(pg_dsn) as (store, saver):
        h = store_harness(form, store, saver)
        model = h.model
        out = h.graph.invoke(
            {"messages": [HumanMessage("load get_weather,send_email")]}, cfg(thread)
        )
        assert receipt_of(out["messages"])["loaded"] == ["get_weather", "send_email"]
        assert model.bound_for("load get_weather,send_email")[-1] == [
            *META,
            "get_weather",
            "send_email",
        ]
    assert _stored(pg_dsn, thread) == ["get_weather", "send_email"]


async def test_async_postgres_store_and_saver(pg_dsn: str) -> None:
    thread = _thread()
    async with astore_and_saver(pg_dsn) as (store, saver):
        h = store_harness("agent", store, saver)
        await h.graph.ainvoke({"messages": [HumanMessage("load github_get_me")]}, cfg(thread))
        # a second replica (another graph, same store and checkpointer) sees the load
        h2 = store_harness("node", store, saver)
        other = h2.model
        await h2.graph.ainvoke({"messages": [HumanMessage("hello")]}, cfg(thread))
        assert other.bound_for("hello") == [[*META, "github_get_me"]]
    assert _stored(pg_dsn, thread) == ["github_get_me"]


async def test_concurrent_async_runs_on_one_thread_lose_no_load(pg_dsn: str) -> None:
    thread = _thread()
    names = [t.name for t in library()][:8]
    async with AsyncPostgresStore.from_conn_string(pg_dsn) as store:
        model = RuleChatModel()
        h = build("agent", model=model, storage="store", graph_store=store, checkpointer=False)
        outs = await asyncio.gather(
            *(
                h.graph.ainvoke({"messages": [HumanMessage(f"load {n}")]}, cfg(thread))
                for n in names
            )
        )
    assert [receipt_of(o["messages"])["loaded"] for o in outs] == [[n] for n in names]
    assert sorted(_stored(pg_dsn, thread)) == sorted(names)


# -- separate processes ------------------------------------------------------------------------------


def test_two_processes_serving_one_thread_see_each_others_loads(pg_dsn: str) -> None:
    thread = _thread()
    url = f"postgres:{pg_dsn}"
    a = Worker("--store", url, "--saver", url)
    b = Worker("--store", url, "--saver", url, "--async", "--form", "node")
    try:
        first = a.ask(thread=thread, say="load get_weather")
        assert first["bound"] == [META, [*META, "get_weather"]]
        seen_by_b = b.ask(thread=thread, say="hello")
        assert seen_by_b["bound"] == [[*META, "get_weather"]]
        b.ask(thread=thread, say="load send_email")
        seen_by_a = a.ask(thread=thread, say="hello")
        assert seen_by_a["bound"] == [[*META, "get_weather", "send_email"]]
        ran = b.ask(thread=thread, say='call get_weather {"city": "Lyon"}')
        assert ran["tools"] == [["get_weather", "success", "Sunny in Lyon"]]
    finally:
        a.close()
        b.close()


def test_a_process_killed_right_after_an_acknowledged_load_loses_nothing(pg_dsn: str) -> None:
    thread = _thread()
    url = f"postgres:{pg_dsn}"
    doomed = Worker("--store", url, "--saver", url, "--hang-after-load")
    try:
        doomed.send(thread=thread, say="load github_create_issue")
        ack: dict[str, Any] = doomed.read()["ack"]
        assert ack["success"] is True and ack["loaded"] == ["github_create_issue"]
        doomed.kill()  # SIGKILL in the model step right after the acknowledgement
    finally:
        doomed.close()
    assert _stored(pg_dsn, thread) == ["github_create_issue"]
    fresh = Worker("--store", url, "--saver", url, "--async")
    try:
        answer = fresh.ask(thread=thread, say="hello")
        assert answer["bound"] == [[*META, "github_create_issue"]]
    finally:
        fresh.close()


# -- both store classes, both forms -----------------------------------------------------------


@pytest.mark.parametrize("form", ["agent", "node"])
@pytest.mark.parametrize("kind", ["PostgresStore", "AsyncPostgresStore"])
async def test_store_mode_on_both_postgres_store_classes(pg_dsn: str, form: str, kind: str) -> None:
    """Async runs, prefix thread ids ("1" vs "10"), and the async helpers, on each store class."""
    run = uuid.uuid4().hex[:6]
    short, long = f"{run}1", f"{run}10"  # one thread id a prefix of the other
    if kind == "PostgresStore":
        with PostgresStore.from_conn_string(pg_dsn) as sync_store:
            await _exercise(form, sync_store, short, long)
    else:
        async with AsyncPostgresStore.from_conn_string(pg_dsn) as async_store:
            await _exercise(form, async_store, short, long)
    assert _stored(pg_dsn, short) == []
    assert _stored(pg_dsn, long) == ["send_email"]


async def _exercise(form: str, store: Any, short: str, long: str) -> None:
    model = RuleChatModel()
    h = build(form, model=model, storage="store", store=store, graph_store=store)
    await h.graph.ainvoke({"messages": [HumanMessage("load get_weather")]}, cfg(short))
    await h.graph.ainvoke({"messages": [HumanMessage("load send_email")]}, cfg(long))
    await h.graph.ainvoke({"messages": [HumanMessage("hello")]}, cfg(short))
    assert model.bound_for("hello")[-1] == [*META, "get_weather"]
    assert await h.ts.aget_loaded_tools(cfg(short)) == ["get_weather"]
    assert await h.ts.aget_loaded_tools(cfg(long)) == ["send_email"]
    stats = await h.ts.aget_state_stats()
    assert stats.storage == "store" and stats.thread_count >= 2
    await h.ts.aclear_state(short)
    assert await h.ts.aget_loaded_tools(cfg(short)) == []
    assert await h.ts.aget_loaded_tools(cfg(long)) == ["send_email"]
