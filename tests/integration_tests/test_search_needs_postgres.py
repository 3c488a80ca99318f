"""Several needs per search and loaded marks on a real PostgreSQL checkpointer and store.

A thread loads a tool and searches several needs; another replica (a new
middleware or node over the same database, as after a restart) continues the
thread: its search still marks the loaded tool and ranks it behind a new one
of similar score, and the receipts (with ``query`` and ``loaded``) survive
the checkpointer round trip.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.testing import Answer, Load, ScriptedToolSearchModel, Search
from tests.support.postgres import astore_and_saver, store_and_saver

pytest.importorskip("langgraph.store.postgres", reason="needs langgraph-checkpoint-postgres")


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


def _agent(model: ScriptedToolSearchModel, store: Any, saver: Any, storage: str) -> Any:
    mw = ToolSearchMiddleware(tools=_twins(), top_k=3, storage=storage)
    return create_agent(model, tools=[], middleware=[mw], checkpointer=saver, store=store)


def _searches(messages: list[Any]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage) and m.name == "search_tools"]


@pytest.mark.parametrize("storage", ["store", "context"])
def test_marks_survive_a_new_replica_on_postgres(pg_dsn: str, storage: str) -> None:
    thread = {"configurable": {"thread_id": f"needs-{uuid.uuid4().hex[:8]}"}}
    needs = ["weather forecast", "send an email"]
    with store_and_saver(pg_dsn) as (store, saver):
        first = ScriptedToolSearchModel(steps=[Load("forecast_daily"), Answer("loaded")])
        _agent(first, store, saver, storage).invoke({"messages": [HumanMessage("a")]}, thread)
    with store_and_saver(pg_dsn) as (store, saver):  # a new replica, new connections
        second = ScriptedToolSearchModel(steps=[Search(*needs), Answer("done")])
        out = _agent(second, store, saver, storage).invoke(
            {"messages": [HumanMessage("b")]}, thread
        )
    (msg,) = _searches(out["messages"])
    results = msg.artifact["results"]
    assert [(r["name"], r["query"], r.get("loaded", False)) for r in results][:3] == [
        ("forecast_hourly", "weather forecast", False),
        ("send_email", "send an email", False),
        ("forecast_daily", "weather forecast", True),
    ]


async def test_async_postgres_marks_and_needs(pg_dsn: str) -> None:
    thread = {"configurable": {"thread_id": f"needs-{uuid.uuid4().hex[:8]}"}}
    async with astore_and_saver(pg_dsn) as (store, saver):
        model = ScriptedToolSearchModel(
            steps=[
                Load("forecast_hourly"),
                Search("weather forecast", "send an email"),
                Answer("done"),
            ]
        )
        agent = _agent(model, store, saver, "store")
        await agent.ainvoke({"messages": [HumanMessage("go")]}, thread)
        state = await agent.aget_state(thread)
    (msg,) = _searches(state.values["messages"])  # read back from the checkpointer
    assert [(r["name"], r.get("loaded", False)) for r in msg.artifact["results"]][:2] == [
        ("forecast_daily", False),
        ("send_email", False),
    ]
    assert ("forecast_hourly", True) in [
        (r["name"], r.get("loaded", False)) for r in msg.artifact["results"]
    ]
