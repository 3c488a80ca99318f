"""A tool step reuses its run's model-step read of the thread's loads, and only its own run's."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.storage import BaseStoreLoadedToolStore
from langchain_toolsearch.storage._store import TOOL_STEP, RunReads
from langchain_toolsearch.testing import Answer, Call, ScriptedToolSearchModel


@tool
def weather(city: str) -> str:
    """Weather of a city."""
    return f"sunny in {city}"


def _middleware() -> ToolSearchMiddleware:
    return ToolSearchMiddleware(tools=[weather], storage="store")


def _agent(middleware: ToolSearchMiddleware, store: InMemoryStore) -> Any:
    steps = [Call("weather", {"city": "Paris"}, unbound=True), Answer("done")]
    model = ScriptedToolSearchModel(steps=steps)
    return create_agent(model, tools=[], middleware=[middleware], store=store)


async def _lockstep(runs: list[Any]) -> list[list[ToolMessage]]:
    """Step the runs' streams in turn (one node update each), to their ends."""
    found: list[list[ToolMessage]] = [[] for _ in runs]
    live = dict(enumerate(runs))
    while live:
        for i, stream in list(live.items()):
            try:
                update = await anext(stream)
            except StopAsyncIteration:
                del live[i]
                continue
            for part in update.values():
                for message in (part or {}).get("messages", []):
                    if isinstance(message, ToolMessage):
                        found[i].append(message)
    return found


@pytest.mark.parametrize("first", ["loaded", "not loaded"])
@pytest.mark.parametrize("apart", ["threads", "stores"])
def test_two_callers_interleaved_step_by_step(first: str, apart: str) -> None:
    middleware = _middleware()
    store = InMemoryStore()
    other = InMemoryStore() if apart == "stores" else store
    thread_a, thread_b = ("a", "b") if apart == "threads" else ("t", "t")
    BaseStoreLoadedToolStore(store).add(thread_a, ["weather"])  # only caller A's
    agent_a, agent_b = _agent(middleware, store), _agent(middleware, other)

    def stream(agent: Any, thread: str) -> Any:
        config: Any = {"configurable": {"thread_id": thread}}
        return agent.astream({"messages": [("user", "w?")]}, config, stream_mode="updates")

    runs = [stream(agent_a, thread_a), stream(agent_b, thread_b)]
    if first == "not loaded":
        runs.reverse()
    found = asyncio.run(_lockstep(runs))
    if first == "not loaded":
        found.reverse()
    (ran,), (refused,) = found
    assert ran.text == "sunny in Paris" and ran.status != "error"
    assert refused.status == "error" and "sunny" not in refused.text
    gc.collect()
    reads = middleware._engine.storage._reads  # type: ignore[attr-defined]
    assert not reads._runs._done  # dropped with the runs


def test_a_load_in_the_tool_step_is_seen_by_the_next_read() -> None:
    middleware = _middleware()
    steps = [
        Call("load_tool", {"tool_name": "weather"}),
        Call("weather", {"city": "Rome"}),
        Answer("done"),
    ]
    model = ScriptedToolSearchModel(steps=steps)
    agent = create_agent(model, tools=[], middleware=[middleware], store=InMemoryStore())
    out = asyncio.run(
        agent.ainvoke({"messages": [("user", "w?")]}, {"configurable": {"thread_id": "n"}})
    )
    answers = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert answers[-1].text == "sunny in Rome"


def test_outside_a_run_every_read_asks_the_store() -> None:
    reads, asked = RunReads(), []

    def get() -> list[str]:
        asked.append(1)
        return ["weather"]

    token = TOOL_STEP.set(True)
    try:
        for _ in range(3):
            assert reads.read({"configurable": {"thread_id": "t"}}, object(), "t", get) == [
                "weather"
            ]
    finally:
        TOOL_STEP.reset(token)
    assert len(asked) == 3
