"""Several needs per search and loaded marks on a real PostgreSQL checkpointer and store.

A thread loads a tool; another replica (a new middleware or node over the
same database, new connections, as after a restart) continues the thread and
searches several needs: the loaded tool is still marked and ranks behind a
new one of similar score, and the receipts (with ``query`` and ``loaded``)
read back from the checkpointer. Both forms, sync and async.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from tests.support.fakes import ai, call
from tests.support.postgres import astore_and_saver, store_and_saver
from tests.support.toolsearch_harness import build, cfg, form_param

pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")

NEEDS = ["weather forecast", "send an email"]
EXPECTED = [  # round robin; the loaded twin behind the new one, marked
    ("forecast_hourly", "weather forecast", False),
    ("send_email", "send an email", False),
    ("forecast_daily", "weather forecast", True),
]


def _twins() -> list[BaseTool]:
    def make(name: str, description: str) -> BaseTool:
        return StructuredTool.from_function(
            func=lambda city="": city, name=name, description=description
        )

    return [
        make("forecast_daily", "Weather forecast for a city, day by day"),
        make("forecast_hourly", "Weather forecast for a city, hour by hour"),
        make("send_email", "Send an email to a recipient"),
    ]


def _replica(form: str, steps: list[Any], store: Any, saver: Any, storage: str) -> Any:
    return build(
        form, steps, tools=_twins(), top_k=3, storage=storage, graph_store=store, saver=saver
    )


def _search_of(messages: list[Any]) -> list[tuple[str, str, bool]]:
    (msg,) = [m for m in messages if isinstance(m, ToolMessage) and m.name == "search_tools"]
    return [(r["name"], r["query"], r.get("loaded", False)) for r in msg.artifact["results"]]


LOAD = [ai(call("load_tool", {"tool_name": "forecast_daily"}, "l")), ai(content="loaded")]
SEARCH = [ai(call("search_tools", {"queries": NEEDS}, "s")), ai(content="done")]


@form_param
@pytest.mark.parametrize("storage", ["store", "context"])
async def test_marks_survive_a_new_replica_sync(pg_dsn: str, form: str, storage: str) -> None:
    thread = cfg(f"needs-{uuid.uuid4().hex[:8]}")
    with store_and_saver(pg_dsn) as (store, saver):
        await _replica(form, LOAD, store, saver, storage).run("a", thread, "sync")
    with store_and_saver(pg_dsn) as (store, saver):  # a new replica, new connections
        h = _replica(form, SEARCH, store, saver, storage)
        await h.run("b", thread, "sync")
        state = h.graph.get_state(thread)  # read back from the checkpointer
    assert _search_of(state.values["messages"]) == EXPECTED


@form_param
async def test_marks_survive_a_new_replica_async(pg_dsn: str, form: str) -> None:
    thread = cfg(f"needs-{uuid.uuid4().hex[:8]}")
    async with astore_and_saver(pg_dsn) as (store, saver):
        await _replica(form, LOAD, store, saver, "store").run("a", thread, "async")
    async with astore_and_saver(pg_dsn) as (store, saver):
        h = _replica(form, SEARCH, store, saver, "store")
        await h.run("b", thread, "async")
        state = await h.graph.aget_state(thread)
    assert _search_of(state.values["messages"]) == EXPECTED
