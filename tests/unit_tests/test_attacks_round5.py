"""Round 5 attacks on the request path's new shared state (no subprocess).

Each test is an attack that was tried; the ones that broke the promise (a
tool runs only for the caller that loaded it; nothing of one request lives on
a shared instance) are pinned here with their fix.
"""

from __future__ import annotations

from typing import Any, TypedDict

import pytest
from langchain.agents import create_agent
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.graph import START, StateGraph

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search


def user_tool(user: str) -> BaseTool:
    def run(city: str) -> str:
        return f"records of {user}"

    return StructuredTool.from_function(run, name="crm_lookup", description="crm lookup")


class Parent(TypedDict):
    out: list[str]


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_nested_runs_of_two_callers_in_one_parent_step_never_share_a_resolution(
    mode: str,
) -> None:
    """A parent node runs the agent for alice then bob, streamed with ``subgraphs=True``.

    LangGraph then gives both nested runs the parent's stream writer and
    control: keyed on those alone, bob's run got alice's resolved tools.
    """
    calls: list[str] = []

    def resolve(config: RunnableConfig) -> list[BaseTool]:
        user = config["configurable"]["user"]
        calls.append(user)
        return [user_tool(user)]

    mw = ToolSearchMiddleware(tools=[], include_resolved_tools=True, resolve_tools=resolve)
    steps = [
        Search("crm lookup"),
        Load("crm_lookup"),
        Call("crm_lookup", {"city": "Oslo"}),
        Answer(),
    ]
    agent = create_agent(ScriptedToolSearchModel(steps=steps), tools=[], middleware=[mw])
    payload = {"messages": [{"role": "user", "content": "crm?"}]}

    def node(state: Parent) -> dict[str, Any]:
        outs = []
        for user in ("alice", "bob"):
            result = agent.invoke(payload, {"configurable": {"user": user}})
            outs.append(result["messages"][-2].text)
        return {"out": outs}

    async def anode(state: Parent) -> dict[str, Any]:
        outs = []
        for user in ("alice", "bob"):
            result = await agent.ainvoke(payload, {"configurable": {"user": user}})
            outs.append(result["messages"][-2].text)
        return {"out": outs}

    graph = StateGraph(Parent)
    graph.add_node("n", node if mode == "sync" else anode)
    graph.add_edge(START, "n")
    parent = graph.compile()
    chunks: list[Any] = []
    if mode == "sync":
        chunks = list(parent.stream({"out": []}, subgraphs=True, stream_mode="values"))
    else:
        chunks = [
            c async for c in parent.astream({"out": []}, subgraphs=True, stream_mode="values")
        ]
    assert chunks[-1] == ((), {"out": ["records of alice", "records of bob"]})
    assert calls == ["alice", "bob"]  # still once per (nested) run
