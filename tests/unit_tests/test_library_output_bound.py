"""``max_tool_output_chars`` (opt-in) bounds library tools' answers in a real
``create_agent`` run (middleware) and in a hand-built graph (node), sync and async;
meta tools' answers and runs without the option are untouched."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch.errors import ToolSearchConfigError
from langchain_toolsearch.testing import ScriptedToolSearchModel

SIZE = 50_000


@tool
def dump_logs(service: str) -> str:
    """Dump the full server logs of a service."""
    return "L" * SIZE


def run(bound: int | None, *, asynchronous: bool = False) -> list[ToolMessage]:
    middleware = ToolSearchMiddleware(tools=[dump_logs], max_tool_output_chars=bound)
    model = ScriptedToolSearchModel.search_load_call(
        query="server logs", tool="dump_logs", args={"service": "api"}, answer="done"
    )
    agent = create_agent(model, tools=[], middleware=[middleware])
    payload: Any = {"messages": [{"role": "user", "content": "logs?"}]}
    if asynchronous:
        import asyncio

        result = asyncio.run(agent.ainvoke(payload))
    else:
        result = agent.invoke(payload)
    return [m for m in result["messages"] if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_library_tools_answer_is_cut_at_the_bound_with_a_marker(asynchronous: bool) -> None:
    search, load, call = run(1_000, asynchronous=asynchronous)
    assert call.name == "dump_logs" and call.text.count("L") == 1_000
    assert f"first 1,000 of {SIZE:,} characters are shown" in call.text
    assert "output truncated" not in search.text + load.text  # meta tools untouched


def test_without_the_option_the_answer_is_whole() -> None:
    *_, call = run(None)
    assert call.text == "L" * SIZE


@pytest.mark.parametrize("bad", [0, -1, 10.5, True])
def test_a_bad_bound_is_refused_at_construction(bad: Any) -> None:
    with pytest.raises(ToolSearchConfigError, match="max_tool_output_chars must be an int >= 1"):
        ToolSearchMiddleware(tools=[dump_logs], max_tool_output_chars=bad)


def test_the_node_bounds_its_tool_nodes_answers_too() -> None:
    from langchain_core.messages import HumanMessage, SystemMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from langchain_toolsearch import ToolSearchNode, ToolSearchState
    from tests.support.node_graph import wire_node_graph

    model = ScriptedToolSearchModel.search_load_call(
        query="server logs", tool="dump_logs", args={"service": "api"}, answer="done"
    )
    search = ToolSearchNode(tools=[dump_logs], max_tool_output_chars=500)

    def call_model(state: ToolSearchState) -> dict[str, Any]:
        bound = model.bind_tools(search.tools_for(state))
        messages = [SystemMessage(search.system_prompt_hint), *state["messages"]]
        return {"messages": [bound.invoke(messages)]}

    graph = wire_node_graph(search, call_model, saver=InMemorySaver())
    out = graph.invoke({"messages": [HumanMessage("logs?")]}, {"configurable": {"thread_id": "n"}})
    (call,) = [m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "dump_logs"]
    assert call.text.count("L") == 500 and "output truncated" in call.text
