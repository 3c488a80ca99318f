"""``ToolSearchNode`` in hand-built ``StateGraph`` objects: the node's own API
(``invoke``/``ainvoke``, ``tools_for``, ``bind_tools``, ``tool_node``) and the
graph-schema check that keeps ``load_tool`` from claiming loads the graph
would drop. Shared behaviours run through this form in the other test files.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import MessagesState
from langgraph.prebuilt import ToolNode

from langchain_toolsearch import ToolSearchNode, ToolSearchState
from langchain_toolsearch import _prompts as P
from tests.support.fakes import ai, call
from tests.support.library_fixtures import CALLS, library
from tests.support.toolsearch_harness import META, build, cfg, mode_param, tool_msgs


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression"""
    CALLS.append(("calculator", expression))
    return "4"


def _load_receipt(call_id: str, names: list[str]) -> list[Any]:
    return [
        HumanMessage("hi"),
        AIMessage("", tool_calls=[call("load_tool", {"tool_names": names}, call_id)]),
        ToolMessage(
            content="{}",
            artifact={
                "success": True,
                "message": "",
                "loaded": names,
                "not_found": [],
                "already_loaded": [],
            },
            tool_call_id=call_id,
            name="load_tool",
        ),
    ]


async def test_node_invoke_reports_loaded_tools_in_load_order() -> None:
    node = ToolSearchNode(tools=library(), storage="context")
    state = {"messages": _load_receipt("c1", ["send_email", "get_weather", "nope"])}
    written = node.invoke(state, cfg())
    assert list(written) == ["toolsearch_tools"]
    assert node.loaded_names(written) == ["send_email", "get_weather"]
    assert node.loaded_names(await node.ainvoke(state, cfg())) == ["send_email", "get_weather"]
    assert node.invoke({"messages": []}) == {"toolsearch_tools": []}
    # The entries are signed by the node that wrote them: another node reads nothing.
    assert ToolSearchNode(tools=library(), storage="context").loaded_names(written) == []

    memory = ToolSearchNode(tools=library())
    memory.loaded_tool_store.add(  # type: ignore[union-attr]
        "t9", ["github_get_me", "get_weather"]
    )
    assert memory.loaded_names(memory.invoke({"messages": []}, cfg("t9"))) == [
        "github_get_me",
        "get_weather",
    ]
    assert memory.invoke({"messages": []}, cfg("t8")) == {"toolsearch_tools": []}
    assert memory.name == "tool_search"


def test_tools_for_orders_meta_bound_then_loaded_and_ignores_unknown_names() -> None:
    node = ToolSearchNode(tools=library(), bound_tools=[calculator])
    signed = [node._signer.sign(n) for n in ("get_weather", "no_such_tool", "send_email")]
    state = {"messages": [], "toolsearch_tools": [signed[0], signed[1], 3, signed[2]]}
    assert [t.name for t in node.tools_for(state)] == [
        *META,
        "calculator",
        "get_weather",
        "send_email",
    ]
    # Names this node did not sign (a run's input, a resume's Command) bind nothing.
    unsigned = {"messages": [], "toolsearch_tools": ["get_weather", "send_email"]}
    assert [t.name for t in node.tools_for(unsigned)] == [*META, "calculator"]
    assert [t.name for t in node.tools_for({"messages": []})] == [*META, "calculator"]
    auto = ToolSearchNode(tools=library(), auto_load=True)
    assert [t.name for t in auto.tools_for({})] == ["search_tools"]


def test_tool_node_registers_meta_and_bound_tools_only() -> None:
    node = ToolSearchNode(tools=library(), bound_tools=[calculator])
    tn = node.tool_node(name="my_tools")
    assert isinstance(tn, ToolNode)
    assert tn.name == "my_tools"
    assert sorted(tn.tools_by_name) == sorted([*META, "calculator"])


@mode_param
async def test_bound_tools_run_through_tool_node(mode: str) -> None:
    steps = [ai(call("calculator", {"expression": "2+2"}, "c")), ai(content="ok")]
    h = build("node", steps, direct_tools=[calculator])
    out = await h.run("sum", cfg(), mode)
    assert [(m.tool_call_id, m.content) for m in tool_msgs(out)] == [("c", "4")]
    assert h.bound[0] == [*META, "calculator"]


@mode_param
@pytest.mark.parametrize("thread", [None])
async def test_graph_without_the_node_keys_refuses_to_claim_a_load(
    mode: str, thread: str | None
) -> None:
    # plain MessagesState drops toolsearch_* writes: a run without a thread id keeps its
    # loads there, so the load would never bind (with a thread id the store keeps them:
    # tests/unit_tests/test_model_guidance.py)
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
        ai(call("get_weather", {"city": "Oslo"}, "w")),
        ai(content="ok"),
    ]
    h = build("node", steps, state_schema=MessagesState, checkpointer=thread is not None)
    out = await h.run("go", cfg(thread), mode)
    msgs = {m.tool_call_id: m for m in tool_msgs(out)}
    assert msgs["l"].status == "error"
    assert msgs["l"].artifact["success"] is False
    assert msgs["l"].artifact["loaded"] == []
    assert msgs["l"].artifact["message"] == P.LOAD_NOT_PERSISTED
    assert msgs["w"].status == "error"
    assert CALLS == []
    assert h.ts.get_state_stats().thread_count == 0


@mode_param
async def test_custom_state_schema_built_on_tool_search_state(mode: str) -> None:
    class State(ToolSearchState):
        counter: int

    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(call("get_weather", {"city": "Oslo"})),
        ai(content="ok"),
    ]
    h = build("node", steps, state_schema=State, checkpointer=False)
    out = await h.run({"messages": [HumanMessage("go")], "counter": 1}, None, mode)
    assert h.ts.get_loaded_tools({}, out) == ["get_weather"]  # entries are signed
    assert h.ts.loaded_names(out) == ["get_weather"]
    assert CALLS == [("get_weather", "Oslo")]


@mode_param
async def test_auto_load_in_a_graph_without_the_node_keys_loads_nothing(mode: str) -> None:
    steps = [ai(call("search_tools", {"query": "weather"}, "s")), ai(content="ok")]
    h = build("node", steps, state_schema=MessagesState, checkpointer=False, auto_load=True)
    out = await h.run("go", None, mode)
    body = {m.tool_call_id: m for m in tool_msgs(out)}["s"].artifact
    assert body["results"][0]["name"] == "get_weather"  # the search itself still answers
    assert body["activation"]["loaded"] == []
    assert body["message"].endswith(" " + P.LOAD_NOT_PERSISTED)
    assert h.bound == [["search_tools"], ["search_tools"]]


def test_own_tool_node_over_meta_and_bound_tools_runs_search_load_call() -> None:
    # docs/usage.md: "Your own ToolNode works too, over the meta tools and the bound tools"
    from langchain_core.messages import SystemMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.prebuilt import tools_condition

    from langchain_toolsearch import ToolSearchInput
    from langchain_toolsearch.testing import ScriptedToolSearchModel

    search = ToolSearchNode(tools=library(), bound_tools=[calculator])
    llm = ScriptedToolSearchModel.search_load_call(
        query="weather", tool="get_weather", args={"city": "Oslo"}
    )

    def call_model(state: ToolSearchState) -> dict[str, Any]:
        bound = llm.bind_tools(search.tools_for(state))
        return {"messages": [bound.invoke([SystemMessage("hi"), *state["messages"]])]}

    def graph(tools: ToolNode) -> Any:
        builder = StateGraph(ToolSearchState, input_schema=ToolSearchInput)
        builder.add_node("tool_search", search)
        builder.add_node("model", call_model)
        builder.add_node("tools", tools)
        builder.add_edge(START, "tool_search")
        builder.add_edge("tool_search", "model")
        builder.add_conditional_edges("model", tools_condition)
        builder.add_edge("tools", "tool_search")
        return builder.compile(checkpointer=InMemorySaver())

    wrappers: dict[str, Any] = {
        "wrap_tool_call": search.wrap_tool_call,
        "awrap_tool_call": search.awrap_tool_call,
    }
    own = ToolNode([*search.meta_tools, *search.bound_tools], **wrappers)
    out = graph(own).invoke({"messages": [("user", "weather")]}, cfg("own"))
    assert [m.status for m in tool_msgs(out)] == ["success", "success", "success"]
    assert out["messages"][-1].content == "get_weather returned: Sunny in Oslo"
    assert llm.bound[-1] == [*META, "calculator", "get_weather"]

    # a library tool listed on the node: the developer error the page warns about
    # (tests/unit_tests/test_wiring.py pins every unsafe wiring)
    listed = ToolNode([*search.meta_tools, library()[0]], **wrappers)
    with pytest.raises(ValueError, match=r"lists library tools \['get_weather'\]"):
        graph(listed).invoke({"messages": [("user", "weather")]}, cfg("listed"))
