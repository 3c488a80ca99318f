"""Async runs search through ``search.arank``: an index whose search is async only
(as ``StoreToolIndex`` over ``AsyncPostgresStore``) works as ``index=`` with
``include_resolved_tools=True``, for the static index, the per-request index (built
with the factory's ``abuild``) and the public ``asearch``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver

from langchain_toolsearch import BM25ToolIndex, ToolSearchMiddleware
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.search import ScoredTool, ToolDocument
from tests.support.fakes import ScriptedChatModel, ai, call, search_load_call_steps
from tests.support.library_fixtures import library
from tests.support.toolsearch_harness import build, cfg, tool_msgs


def on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class AsyncOnlyIndex:
    """Ranks with BM25, but only through ``arank``: ``rank`` raises, as a sync call
    to an async store does on its event loop."""

    def __init__(self, documents: Sequence[ToolDocument]) -> None:
        self._inner = BM25ToolIndex.build(documents)
        self.queries: list[str] = []

    def rank(self, query: str) -> Iterator[ScoredTool]:
        raise RuntimeError("sync rank on an async-only index")

    async def arank(self, query: str) -> AsyncIterator[ScoredTool]:
        self.queries.append(query)
        for hit in self._inner.rank(query):
            yield hit

    def __len__(self) -> int:
        return len(self._inner)


class AsyncOnlyFactory:
    """``index=`` factory: sync builds only off the event loop (construction), ``abuild`` in runs."""

    def __init__(self) -> None:
        self.built: list[AsyncOnlyIndex] = []
        self.abuilds = 0

    def __call__(self, documents: Sequence[ToolDocument]) -> AsyncOnlyIndex:
        if on_event_loop():
            raise RuntimeError("sync build on the event loop")
        self.built.append(AsyncOnlyIndex(documents))
        return self.built[-1]

    async def abuild(self, documents: Sequence[ToolDocument]) -> AsyncOnlyIndex:
        self.abuilds += 1
        self.built.append(AsyncOnlyIndex(documents))
        return self.built[-1]


@tool
def crm_lookup(customer: str) -> str:
    """Look up a customer record in the CRM by customer name."""
    return f"record of {customer}"


def resolve(config: RunnableConfig) -> list[BaseTool]:
    return [crm_lookup]


def test_async_agent_runs_search_an_async_only_index_and_its_per_request_index() -> None:
    factory = AsyncOnlyFactory()
    mw = ToolSearchMiddleware(
        tools=library(), index=factory, include_resolved_tools=True, resolve_tools=resolve
    )
    static = factory.built[0]
    model = ScriptedChatModel(
        steps=[
            ai(call("search_tools", {"query": "weather"}, "s1")),
            ai(call("search_tools", {"query": "crm customer record"}, "s2")),
            ai(call("load_tool", {"tool_names": ["crm_lookup", "get_weather"]}, "l")),
            ai(call("crm_lookup", {"customer": "Ada"}, "c")),
            ai(content="done"),
        ]
    )
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    config: RunnableConfig = {"configurable": {"thread_id": "t-async-only"}}

    async def go() -> tuple[dict[str, Any], list[Any]]:
        out = await agent.ainvoke({"messages": [("user", "go")]}, config)
        return out, await mw.asearch("crm customer", config)

    out, public = asyncio.run(go())
    msgs = {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}
    assert msgs["s1"].artifact["results"][0]["name"] == "get_weather"
    assert msgs["s2"].artifact["results"][0]["name"] == "crm_lookup"
    assert msgs["l"].artifact["loaded"] == ["crm_lookup", "get_weather"]
    assert msgs["c"].content == "record of Ada"
    assert public[0].name == "crm_lookup"
    assert "weather" in static.queries and "crm customer" in static.queries
    assert factory.abuilds >= 1  # the per-request index: abuild on the loop, never __call__
    assert any("crm customer record" in i.queries for i in factory.built[1:])
    assert model.bound[-1] == ["search_tools", "load_tool", "crm_lookup", "get_weather"]


async def test_async_node_runs_search_an_async_only_index() -> None:
    steps = search_load_call_steps(
        "weather", "get_weather", {"city": "Oslo"}, answer="ok", ids=("s", "l", "w")
    )
    index = AsyncOnlyIndex(ToolLibrary(library()).documents())
    h = build("node", steps, index=index, include_resolved_tools=True, resolve_tools=resolve)
    out = await h.run("go", cfg("t-node-async-only"), "async")
    msgs = {m.tool_call_id: m for m in tool_msgs(out)}
    assert msgs["s"].artifact["results"][0]["name"] == "get_weather"
    assert msgs["w"].content == "Sunny in Oslo"
    assert index.queries[0] == "weather"
    public = await h.ts.asearch("crm customer")
    assert public[0].name == "crm_lookup"
