"""`langchain_toolsearch.testing.ScriptedToolSearchModel` in a real `create_agent` and a graph."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode, ToolSearchState
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search
from tests.support.example_tools import get_weather, send_email
from tests.support.node_graph import wire_node_graph


@tool
def list_files(folder: str) -> str:
    """List the files in a folder."""
    return "a.txt b.txt"


LIBRARY: list[BaseTool] = [get_weather, send_email, list_files]
META = ["search_tools", "load_tool"]


def _tool_messages(messages: list[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def test_is_a_real_chat_model() -> None:
    model = ScriptedToolSearchModel.search_load_call(query="q", tool="t")
    assert isinstance(model, BaseChatModel)
    bound = model.bind_tools([get_weather], tool_choice="auto")
    assert getattr(bound, "bound", None) is model  # a RunnableBinding, as a provider's
    assert model.bound == [["get_weather"]]


def test_search_load_call_in_create_agent() -> None:
    model = ScriptedToolSearchModel.search_load_call(
        query="weather", tool="get_weather", args={"city": "Paris"}
    )
    agent = create_agent(
        model,
        tools=[],
        middleware=[ToolSearchMiddleware(tools=LIBRARY)],
        checkpointer=InMemorySaver(),
    )
    out = agent.invoke(
        {"messages": [HumanMessage("Weather in Paris?")]}, {"configurable": {"thread_id": "a"}}
    )
    tools = _tool_messages(out["messages"])
    assert [m.name for m in tools] == ["search_tools", "load_tool", "get_weather"]
    assert tools[0].artifact["results"][0]["name"] == "get_weather"
    assert tools[1].artifact["loaded"] == ["get_weather"]
    assert tools[2].content == "sunny in Paris" and tools[2].status == "success"
    assert out["messages"][-1].text == "get_weather returned: sunny in Paris"
    # four model calls; the tool is bound from the step after its load on
    assert model.bound == [META, META, [*META, "get_weather"], [*META, "get_weather"]]


async def test_async_agent_and_one_model_for_many_threads() -> None:
    model = ScriptedToolSearchModel.search_load_call(
        query="weather", tool="get_weather", args={"city": "Oslo"}, answer="It is sunny."
    )
    agent = create_agent(
        model,
        tools=[],
        middleware=[ToolSearchMiddleware(tools=LIBRARY)],
        checkpointer=InMemorySaver(),
    )
    for thread in ("t1", "t2"):
        out = await agent.ainvoke(
            {"messages": [HumanMessage("Weather?")]}, {"configurable": {"thread_id": thread}}
        )
        assert out["messages"][-1].text == "It is sunny."
        assert _tool_messages(out["messages"])[-1].content == "sunny in Oslo"
    # a second turn on t1 replays the script from its start; the tool is already loaded
    out = await agent.ainvoke(
        {"messages": [HumanMessage("And again?")]}, {"configurable": {"thread_id": "t1"}}
    )
    assert model.bound[-4] == [*META, "get_weather"]
    assert _tool_messages(out["messages"])[-1].content == "sunny in Oslo"


def test_general_steps_several_loads_a_refused_call_and_a_custom_step() -> None:
    def custom(messages: list[BaseMessage]) -> AIMessage:
        return AIMessage(content=f"saw {len(messages)} messages")

    model = ScriptedToolSearchModel(
        steps=[
            Search("email"),
            Load("send_email", "list_files"),
            Call("get_weather", {"city": "Rome"}, unbound=True),  # never loaded: refused
            Call("send_email", {"to": "ada", "body": "hi"}),
            custom,
        ]
    )
    agent = create_agent(
        model,
        tools=[],
        middleware=[ToolSearchMiddleware(tools=LIBRARY)],
        checkpointer=InMemorySaver(),
    )
    out = agent.invoke({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "g"}})
    tools = _tool_messages(out["messages"])
    assert tools[1].artifact["loaded"] == ["send_email", "list_files"]
    assert tools[2].name == "get_weather" and tools[2].status == "error"
    assert tools[3].content == "sent to ada"
    assert out["messages"][-1].text == f"saw {len(model.seen[-1])} messages"
    assert model.bound[2] == [*META, "send_email", "list_files"]


def test_search_with_several_queries_sends_queries() -> None:
    model = ScriptedToolSearchModel(steps=[Search("weather", "list files"), Answer("ok")])
    agent = create_agent(model, tools=[], middleware=[ToolSearchMiddleware(tools=LIBRARY)])
    out = agent.invoke({"messages": [HumanMessage("go")]})
    call = out["messages"][1].tool_calls[0]
    assert call["args"] == {"queries": ["weather", "list files"]}
    hits = json.loads(_tool_messages(out["messages"])[0].text)["results"]
    assert [(h["name"], h["query"]) for h in hits][:2] == [
        ("get_weather", "weather"),
        ("list_files", "list files"),
    ]
    one = ScriptedToolSearchModel(steps=[Search("weather")]).step_for([HumanMessage("go")])
    assert one.tool_calls[0]["args"] == {"query": "weather"}
    assert Search("a", "b").query == "a"
    with pytest.raises(ValueError, match="at least one query"):
        Search()


def test_after_the_script_it_answers_and_steps_validate() -> None:
    model = ScriptedToolSearchModel(steps=[Answer("hello")])
    assert model.invoke([HumanMessage("hi")]).text == "hello"
    assert model.invoke([HumanMessage("hi"), AIMessage("hello")]).text == "Done."
    assert len(model.seen) == 2
    with pytest.raises(ValueError, match="at least one tool name"):
        Load()


def test_a_step_it_cannot_play_is_refused_at_construction() -> None:
    # Not mid-run as "'str' object is not callable" from inside the agent's model node.
    with pytest.raises(TypeError, match=r"steps\[1\] is not a script step \(got str"):
        ScriptedToolSearchModel(steps=[Search("weather"), "load get_weather"])
    with pytest.raises(TypeError, match=r"scripts\['hi'\]\[0\] is not a script step"):
        ScriptedToolSearchModel(scripts={"hi": [3]})
    with pytest.raises(TypeError, match=r"steps\[0\]: Call\('get_weather', \.\.\.\) needs args"):
        ScriptedToolSearchModel(steps=[Call("get_weather", "Paris")])  # type: ignore[arg-type]

    def custom(messages: list[BaseMessage]) -> AIMessage:
        return AIMessage(f"{len(messages)} messages")

    steps = [Search("w"), Load("a", "b"), Call("a", {}), Answer(), AIMessage("x"), custom]
    assert ScriptedToolSearchModel(steps=steps).step_for([HumanMessage("hi")]).tool_calls


def test_node_form_in_a_hand_built_graph() -> None:
    model = ScriptedToolSearchModel.search_load_call(
        query="files in a folder", tool="list_files", args={"folder": "/tmp"}
    )
    search = ToolSearchNode(tools=LIBRARY)

    def call_model(state: ToolSearchState) -> dict[str, Any]:
        bound = model.bind_tools(search.tools_for(state))
        messages = [SystemMessage(search.system_prompt_hint), *state["messages"]]
        return {"messages": [bound.invoke(messages)]}

    graph = wire_node_graph(search, call_model, saver=InMemorySaver())
    out = graph.invoke(
        {"messages": [HumanMessage("What is in /tmp?")]}, {"configurable": {"thread_id": "n"}}
    )
    assert _tool_messages(out["messages"])[-1].content == "a.txt b.txt"
    assert out["messages"][-1].text == "list_files returned: a.txt b.txt"
    assert model.bound[-1] == [*META, "list_files"]


def test_scripts_by_user_message() -> None:
    model = ScriptedToolSearchModel(
        steps=[Answer("default")],
        scripts={"a": [Answer("for a")], "b": [Search("x")]},
    )
    assert model.invoke([HumanMessage("a")]).text == "for a"
    assert model.step_for([HumanMessage("b")]).tool_calls[0]["args"] == {"query": "x"}
    assert model.invoke([HumanMessage("other")]).text == "default"
    # the latest user message decides, whatever came before
    assert model.invoke([HumanMessage("b"), AIMessage("x"), HumanMessage("a")]).text == "for a"


# -- as strict as a provider ---------------------------------------------------------------------


def test_a_call_of_a_tool_not_bound_fails_the_run_naming_the_bound_tools() -> None:
    from langgraph.graph import MessagesState

    from langchain_toolsearch.testing import UnboundToolCallError

    # MessagesState drops toolsearch_tools: the loaded tool is never bound, so a
    # provider's model could not call it (this passed before with only a WARNING)
    model = ScriptedToolSearchModel.search_load_call(
        query="files", tool="list_files", args={"folder": "/tmp"}
    )
    search = ToolSearchNode(tools=LIBRARY)

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [search.bind_tools(model, state).invoke(state["messages"])]}

    graph = wire_node_graph(search, call_model, saver=InMemorySaver(), state_schema=MessagesState)
    with pytest.raises(
        UnboundToolCallError,
        match=r"calls \['list_files'\].*bound for this step "
        r"are \['search_tools', 'load_tool'\]",
    ):
        graph.invoke({"messages": [HumanMessage("ls")]}, {"configurable": {"thread_id": "m"}})


def test_unbound_model_calls_nothing_and_a_deliberate_unbound_call_is_played() -> None:
    from langchain_toolsearch.testing import UnboundToolCallError

    model = ScriptedToolSearchModel(steps=[Search("weather")])
    with pytest.raises(UnboundToolCallError, match=r"are \[\]"):
        model.invoke([HumanMessage("go")])  # never bound: no tool to call
    strict = ScriptedToolSearchModel(steps=[Call("get_weather", {})])
    with pytest.raises(UnboundToolCallError, match="get_weather"):
        strict.bind_tools([send_email]).invoke([HumanMessage("go")])
    assert strict.bind_tools([get_weather]).invoke([HumanMessage("go")]).tool_calls
    lax = ScriptedToolSearchModel(steps=[Call("get_weather", {}, unbound=True)])
    assert lax.bind_tools([send_email]).invoke([HumanMessage("go")]).tool_calls
