"""What the model is told when it goes wrong: no loops, no self-suggestions, no dead ends.
Each case is one where a model would otherwise go round in circles.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import tools_condition

from langchain_toolsearch import ToolSearchFilterArgs, ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._library import ToolLibrary
from tests.support.fakes import ScriptedChatModel, ai, call
from tests.support.library_fixtures import library

CFG: RunnableConfig = {"configurable": {"thread_id": "t1"}}


def run(mw: ToolSearchMiddleware, *steps: Any, config: RunnableConfig = CFG) -> list[ToolMessage]:
    model = ScriptedChatModel(steps=[*steps, ai(content="done")])
    agent = create_agent(model, tools=[], middleware=[mw], checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [("user", "go")]}, config)
    return [m for m in out["messages"] if isinstance(m, ToolMessage)]


def test_a_name_denied_at_load_is_not_suggested_back() -> None:
    def no_admin_loads(args: ToolSearchFilterArgs) -> bool:
        return args.phase == "search" or not args.tool_name.startswith("admin_")

    mw = ToolSearchMiddleware(tools=library(), filter=no_admin_loads)
    (receipt,) = run(mw, ai(call("load_tool", {"tool_name": "admin_delete_user"})))
    assert receipt.artifact["not_found"] == ["admin_delete_user"]
    assert "Did you mean" not in receipt.text
    assert receipt.status == "error"  # nothing loaded is an error for the model


def test_auto_load_errors_never_mention_load_tool() -> None:
    mw = ToolSearchMiddleware(tools=library(), auto_load=True)
    (refused,) = run(mw, ai(call("get_weather", {"city": "Oslo"})))
    assert refused.status == "error"
    assert refused.text == P.TOOL_NOT_LOADED_AUTO
    assert "load_tool" not in refused.text


def test_a_tool_called_in_the_step_that_loads_it_is_told_to_call_again() -> None:
    mw = ToolSearchMiddleware(tools=library())
    load, same_step, later = run(
        mw,
        ai(call("load_tool", {"tool_name": "get_weather"}), call("get_weather", {"city": "Oslo"})),
        ai(call("get_weather", {"city": "Oslo"})),
    )
    assert load.artifact["loaded"] == ["get_weather"]
    assert same_step.text == P.TOOL_LOADED_THIS_STEP
    assert later.text == "Sunny in Oslo"


def test_a_tool_denied_in_phase_active_is_not_reported_as_loaded() -> None:
    def never_active(args: ToolSearchFilterArgs) -> bool:
        return args.phase != "active" or args.tool_name != "send_email"

    mw = ToolSearchMiddleware(tools=library(), filter=never_active)
    (receipt,) = run(mw, ai(call("load_tool", {"tool_names": ["send_email", "get_weather"]})))
    assert receipt.artifact["loaded"] == ["get_weather"]
    assert receipt.artifact["not_found"] == ["send_email"]


def test_typos_and_case_get_suggestions() -> None:
    lib = ToolLibrary(library())
    assert lib.suggest("get-Weather") == ["get_weather"]
    assert lib.suggest("sendEmail") == ["send_email"]
    assert lib.suggest("get_wether") == ["get_weather"]
    assert lib.suggest("zzzz") == []
    mw = ToolSearchMiddleware(tools=library())
    (receipt,) = run(mw, ai(call("load_tool", {"tool_name": "get_wether"})))
    assert "Did you mean: get_weather?" in receipt.text


def test_a_graph_without_the_package_state_keys_still_loads_with_a_thread_id() -> None:
    search = ToolSearchNode(tools=library())
    model = ScriptedChatModel(
        steps=[
            ai(call("load_tool", {"tool_name": "get_weather"})),
            ai(call("get_weather", {"city": "Oslo"})),
            ai(content="done"),
        ]
    )

    def call_model(state: MessagesState) -> dict[str, Any]:
        tools = search.tools_for(
            {"toolsearch_tools": search.invoke(state, CFG)["toolsearch_tools"]}
        )
        return {"messages": [model.bind_tools(tools).invoke(state["messages"])]}

    builder = StateGraph(MessagesState)  # no toolsearch_* keys
    builder.add_node("model", call_model)
    builder.add_node("tools", search.tool_node())
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    graph = builder.compile(checkpointer=InMemorySaver())
    out = graph.invoke({"messages": [("user", "go")]}, CFG)
    texts = [m.text for m in out["messages"] if isinstance(m, ToolMessage)]
    assert texts[-1] == "Sunny in Oslo"


def test_a_failing_resolver_is_logged_and_the_static_library_still_works(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(config: RunnableConfig) -> list[BaseTool]:
        raise ConnectionError("crm is down (api_key=sk-live-0123456789)")

    mw = ToolSearchMiddleware(tools=library(), include_resolved_tools=True, resolve_tools=broken)
    with caplog.at_level(logging.WARNING):
        search, _load, weather = run(
            mw,
            ai(call("search_tools", {"query": "weather"})),
            ai(call("load_tool", {"tool_name": "get_weather"})),
            ai(call("get_weather", {"city": "Oslo"})),
        )
    assert "get_weather" in search.text
    assert weather.text == "Sunny in Oslo"
    assert "ConnectionError" in caplog.text and "'broken'" in caplog.text
    assert "crm is down" in caplog.text  # the cause, by name and message ...
    assert "sk-live" not in caplog.text  # ... never a secret
    assert "tool source" in caplog.text and caplog.text.count("crm is down") == 1
    assert "unavailable right now" in search.text  # the model hears why tools may be missing

    def wrong(config: RunnableConfig) -> list[Any]:
        return ["not a tool"]

    bad = ToolSearchMiddleware(tools=library(), include_resolved_tools=True, resolve_tools=wrong)
    with pytest.raises(TypeError, match="got items of type str"):
        bad.search("weather", CFG)
