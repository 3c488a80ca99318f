"""Safe wiring of a hand-built ``ToolSearchNode`` graph.

The documented wiring (``search.tool_node()``, its edge back to the
tool-search node) runs; every unsafe one stops the run with a
``ToolSearchWiringError`` that names the fix, at the first step where it
shows and before a second unguarded tool call can run:

* a ``ToolNode`` without the execution guard (``ToolNode(library_tools)``,
  the most natural LangGraph wiring): its meta tools refuse to run, and an
  answer it gave to a library tool stops the run at the next step;
* a guarded ``ToolNode`` that also lists library tools: refused before any of
  its calls runs, whatever name the model sends (exact names included);
* a tools edge back to the model node: the model step after a tool step
  raises instead of silently leaving loaded tools unbound.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import BaseTool, StructuredTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from langchain_toolsearch import (
    ToolSearchFilterArgs,
    ToolSearchInput,
    ToolSearchNode,
    ToolSearchState,
)
from langchain_toolsearch._shell import GUARD_MARK
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchWiringError
from tests.support.fakes import ScriptedChatModel, ai, call
from tests.support.toolsearch_harness import cfg, mode_param

RAN: list[str] = []


def _tool(name: str, description: str) -> BaseTool:
    def run(target: str) -> str:
        RAN.append(name)
        return f"{name} did {target}"

    return StructuredTool.from_function(run, name=name, description=description)


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression"""
    RAN.append("calculator")
    return "4"


def _library() -> list[BaseTool]:
    return [
        _tool("get_weather", "Weather forecast for a city"),
        _tool("hidden_tool", "A tool nobody loaded"),
        _tool("coding.start", "Start a coding session"),
        _tool("admin-delete", "Delete a user account (admin only)"),
    ]


def _no_admin(args: ToolSearchFilterArgs) -> bool:
    return not args.tool_name.startswith("admin")


def _search(**options: Any) -> ToolSearchNode:
    RAN.clear()
    options.setdefault("tools", _library())
    return ToolSearchNode(filter=_no_admin, **options)


def _graph(
    search: ToolSearchNode,
    model: ScriptedChatModel,
    tools: ToolNode,
    *,
    tools_edge: str = "tool_search",
    saver: Any = None,
    interrupt_after: list[str] | None = None,
    interrupt_before: list[str] | None = None,
) -> Any:
    def call_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = model.bind_tools(search.tools_for(state))
        return {"messages": [bound.invoke([SystemMessage("hi"), *state["messages"]])]}

    async def acall_model(state: dict[str, Any]) -> dict[str, Any]:
        bound = model.bind_tools(await search.atools_for(state))
        return {"messages": [await bound.ainvoke([SystemMessage("hi"), *state["messages"]])]}

    builder = StateGraph(ToolSearchState, input_schema=ToolSearchInput)
    builder.add_node("tool_search", search)
    builder.add_node("model", RunnableLambda(call_model, afunc=acall_model))
    builder.add_node("tools", tools)
    builder.add_edge(START, "tool_search")
    builder.add_edge("tool_search", "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", tools_edge)
    return builder.compile(
        checkpointer=saver or InMemorySaver(),
        interrupt_after=interrupt_after,
        interrupt_before=interrupt_before,
    )


async def _run(graph: Any, mode: str, thread: str = "t1", payload: Any = "go") -> Any:
    """Run ``graph`` on a user message (``payload=None``: resume the thread)."""
    if isinstance(payload, str):
        payload = {"messages": [HumanMessage(payload)]}
    if mode == "sync":
        return graph.invoke(payload, cfg(thread))
    return await graph.ainvoke(payload, cfg(thread))


def _guards(search: ToolSearchNode) -> dict[str, Any]:
    return {"wrap_tool_call": search.wrap_tool_call, "awrap_tool_call": search.awrap_tool_call}


# -- the documented wiring ---------------------------------------------------------------


@mode_param
async def test_documented_wiring_runs_and_marks_every_answer(mode: str) -> None:
    search = _search(bound_tools=[calculator])
    model = ScriptedChatModel(
        steps=[
            ai(call("search_tools", {"query": "weather"}, "s")),
            ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
            ai(
                call("get_weather", {"target": "Oslo"}, "w"),
                call("calculator", {"expression": "2+2"}, "c"),
            ),
            ai(call("hidden_tool", {"target": "x"}, "h")),
            ai(content="ok"),
        ]
    )
    out = await _run(_graph(search, model, search.tool_node()), mode)
    answers = {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}
    assert [answers[i].status for i in "slwch"] == ["success"] * 4 + ["error"]
    assert all(m.response_metadata[GUARD_MARK] is True for m in answers.values())
    assert sorted(RAN) == ["calculator", "get_weather"]  # the unloaded hidden_tool never ran
    assert model.bound[-1] == ["search_tools", "load_tool", "calculator", "get_weather"]


@mode_param
async def test_a_fresh_instance_resumes_a_documented_graph_after_a_tool_step(mode: str) -> None:
    # the marks are not tied to the instance: a restarted process resumes without a false alarm
    saver = InMemorySaver()
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
        ai(call("get_weather", {"target": "Oslo"}, "w")),
        ai(content="ok"),
    ]
    first = _search(storage="context")
    model = ScriptedChatModel(steps=steps)
    graph = _graph(first, model, first.tool_node(), saver=saver, interrupt_after=["tools"])
    await _run(graph, mode)
    assert RAN == []  # paused after the load step
    second = _search(storage="context")  # a new process: new instance, same checkpointer
    out = await _run(_graph(second, model, second.tool_node(), saver=saver), mode, payload=None)
    assert RAN == ["get_weather"]
    assert out["messages"][-1].content == "ok"


@mode_param
@pytest.mark.parametrize("storage", ["context", "store"])
async def test_a_fresh_instance_resumed_at_the_model_binds_what_the_thread_loaded(
    mode: str, storage: str
) -> None:
    # the old instance's signed entries cannot be verified: the loads are read where they live
    from langgraph.store.memory import InMemoryStore

    saver, store = InMemorySaver(), InMemoryStore()
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
        ai(call("get_weather", {"target": "Oslo"}, "w")),
        ai(content="ok"),
    ]
    first = (
        _search(storage=storage, store=store) if storage == "store" else _search(storage=storage)
    )
    model = ScriptedChatModel(steps=steps)
    paused = _graph(first, model, first.tool_node(), saver=saver, interrupt_before=["model"])
    await _run(paused, mode)  # the first model step
    await _run(paused, mode, payload=None)  # load, then the tool-search node; paused again
    second = (
        _search(storage=storage, store=store) if storage == "store" else _search(storage=storage)
    )
    out = await _run(_graph(second, model, second.tool_node(), saver=saver), mode, payload=None)
    assert model.bound[1] == ["search_tools", "load_tool", "get_weather"]
    assert RAN == ["get_weather"]
    assert out["messages"][-1].content == "ok"


@mode_param
async def test_tool_answers_in_a_runs_input_are_not_taken_for_an_unguarded_node(
    mode: str,
) -> None:
    # a client that holds the history sends earlier tool answers (not marked by the guard)
    search = _search(storage="context")
    model = ScriptedChatModel(steps=[ai(content="ok")])
    history = [
        HumanMessage("earlier"),
        ai(call("hidden_tool", {"target": "x"}, "old")),
        ToolMessage("done elsewhere", tool_call_id="old", name="hidden_tool"),
    ]
    out = await _run(_graph(search, model, search.tool_node()), mode, payload={"messages": history})
    assert out["messages"][-1].content == "ok"
    assert RAN == []


# -- a tools node without the guard -----------------------------------------------------


@mode_param
@pytest.mark.parametrize("name", ["hidden_tool", "coding.start", "admin-delete"])
@pytest.mark.parametrize("listed", ["library only", "meta and library"])
async def test_an_unguarded_tool_node_stops_the_run_after_its_first_answer(
    mode: str, name: str, listed: str
) -> None:
    # ToolNode(library_tools): LangGraph runs the first call before the package is asked;
    # the tool-search node sees the unguarded answer next and stops the run there
    search = _search()
    tools = _library() if listed == "library only" else [*search.meta_tools, *_library()]
    model = ScriptedChatModel(
        steps=[
            ai(call(name, {"target": "x"}, "first")),
            ai(call("hidden_tool", {"target": "y"}, "second")),
            ai(content="ok"),
        ]
    )
    with pytest.raises(ToolSearchWiringError, match=r"search\.tool_node\(\)") as raised:
        await _run(_graph(search, model, ToolNode(tools)), mode)
    assert [name] == RAN  # the second call never ran
    assert name in str(raised.value)
    assert len(model.bound) == 1  # the model was not asked again


@mode_param
async def test_an_unguarded_tool_node_with_the_edge_to_the_model_also_stops(mode: str) -> None:
    search = _search()
    model = ScriptedChatModel(
        steps=[ai(call("hidden_tool", {"target": "x"})), ai(call("hidden_tool", {"target": "y"}))]
    )
    graph = _graph(search, model, ToolNode(_library()), tools_edge="model")
    with pytest.raises(ToolSearchWiringError, match="without the execution guard"):
        await _run(graph, mode)
    assert RAN == ["hidden_tool"]


@mode_param
@pytest.mark.parametrize("meta", ["search_tools", "load_tool"])
async def test_meta_tools_refuse_to_run_in_an_unguarded_tool_node(mode: str, meta: str) -> None:
    search = _search()
    args = {"query": "weather"} if meta == "search_tools" else {"tool_name": "get_weather"}
    model = ScriptedChatModel(steps=[ai(call(meta, args)), ai(content="ok")])
    with pytest.raises(ToolSearchWiringError, match=f"{meta} ran in a tools node without"):
        await _run(_graph(search, model, ToolNode(search.meta_tools)), mode)
    assert search.get_loaded_tools(cfg()) == []  # nothing was loaded either


@mode_param
async def test_unguarded_answers_to_tools_outside_the_search_are_not_its_business(
    mode: str,
) -> None:
    # a tools node of the application's own tools (bound_tools): nothing to guard
    search = _search(bound_tools=[calculator])
    model = ScriptedChatModel(
        steps=[ai(call("calculator", {"expression": "2+2"})), ai(content="ok")]
    )
    out = await _run(_graph(search, model, ToolNode([calculator])), mode)
    assert RAN == ["calculator"]
    assert out["messages"][-1].content == "ok"


# -- a guarded tools node that lists library tools -----------------------------------


@mode_param
@pytest.mark.parametrize("name", ["hidden_tool", "coding.start", "admin-delete", "search_tools"])
async def test_a_guarded_tool_node_listing_library_tools_runs_nothing(mode: str, name: str) -> None:
    search = _search(bound_tools=[calculator])
    listed = ToolNode([*search.meta_tools, calculator, *_library()], **_guards(search))
    args = {"query": "weather"} if name == "search_tools" else {"target": "x"}
    model = ScriptedChatModel(steps=[ai(call(name, args)), ai(content="ok")])
    with pytest.raises(ToolSearchWiringError, match="lists library tools") as raised:
        await _run(_graph(search, model, listed), mode)
    assert RAN == []
    assert "search.tool_node()" in str(raised.value)
    assert isinstance(raised.value, ToolSearchConfigError)  # and a ValueError


@mode_param
async def test_handled_tool_errors_do_not_hide_a_listed_library_tool(mode: str) -> None:
    # handle_tool_errors=True turns the wrapper's error into a ToolMessage: the
    # tool-search node still stops the run before the model goes on
    search = _search()
    listed = ToolNode(_library(), handle_tool_errors=True, **_guards(search))
    model = ScriptedChatModel(
        steps=[ai(call("hidden_tool", {"target": "x"})), ai(call("get_weather", {"target": "y"}))]
    )
    with pytest.raises(ToolSearchWiringError, match="without the execution guard"):
        await _run(_graph(search, model, listed), mode)
    assert RAN == []


# -- a tools edge that skips the tool-search node --------------------------------------


@mode_param
async def test_a_tools_edge_back_to_the_model_raises_at_the_next_model_step(mode: str) -> None:
    search = _search()
    model = ScriptedChatModel(
        steps=[
            ai(call("load_tool", {"tool_name": "get_weather"})),
            ai(call("get_weather", {"target": "Oslo"})),
            ai(content="ok"),
        ]
    )
    graph = _graph(search, model, search.tool_node(), tools_edge="model")
    with pytest.raises(ToolSearchWiringError, match=r"add_edge\('tools', 'tool_search'\)"):
        await _run(graph, mode)
    assert RAN == []
    assert len(model.bound) == 1  # the step that would have bound too little never ran
