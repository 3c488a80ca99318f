"""Issue 21 point 6: the paper cuts a new user hits, each answered with what to do.

* ``get_loaded_tools`` in ``storage="store"`` mode without a store raises
  :class:`StoreMissingError` (as ``get_state_stats`` does) instead of ``[]``.
* Tools handed over the way LangChain's tool middleware takes them (in
  ``create_agent(tools=...)``, as names, as dicts, one tool alone, no
  ``tools=`` at all) are accepted (``include_resolved_tools=True``) or refused
  with a ``ToolSearchError`` naming the fix, never a bare ``TypeError``.
* A run without a thread id logs once that its loads end with it.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import (
    ToolSearchConfigError,
    ToolSearchError,
    ToolSearchMiddleware,
    ToolSearchNode,
)
from langchain_toolsearch.errors import StoreMissingError, ToolSearchTypeError
from tests.support.fakes import ScriptedChatModel, ai, call, search_load_call_steps
from tests.support.library_fixtures import CALLS, get_weather, library, send_email
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param

# -- get_loaded_tools in store mode without a store ------------------------------------------


@form_param
@mode_param
async def test_get_loaded_tools_without_a_store_raises_store_missing(form: str, mode: str) -> None:
    h = build(form, storage="store", graph_store=InMemoryStore())
    with pytest.raises(StoreMissingError, match=r"get_loaded_tools.*store="):
        if mode == "sync":
            h.ts.get_loaded_tools(cfg())
        else:
            await h.ts.aget_loaded_tools(cfg())
    with pytest.raises(StoreMissingError):  # the same answer get_state_stats gives
        h.ts.get_state_stats()


@mode_param
async def test_get_loaded_tools_reads_the_store_passed_to_it(mode: str) -> None:
    steps = [ai(call("load_tool", {"tool_name": "get_weather"}, "l")), ai(content="ok")]
    h = build("agent", steps, storage="store")
    await h.run("go", cfg(), mode)
    if mode == "sync":
        loaded = h.ts.get_loaded_tools(cfg(), store=h.graph_store)
    else:
        loaded = await h.ts.aget_loaded_tools(cfg(), store=h.graph_store)
    assert loaded == ["get_weather"]


async def test_get_loaded_tools_of_a_threadless_run_needs_no_store() -> None:
    steps = [ai(call("load_tool", {"tool_name": "get_weather"}, "l")), ai(content="ok")]
    h = build("node", steps, storage="store", checkpointer=False)
    out = await h.run("go", cfg(None))
    assert h.ts.get_loaded_tools({}, out) == ["get_weather"]  # in the run's state, no store


def test_store_missing_is_a_config_error_and_a_value_error() -> None:
    assert issubclass(StoreMissingError, ToolSearchConfigError)
    assert issubclass(StoreMissingError, ValueError)


# -- tools handed over the way LangChain's tool middleware takes them --------------------------


@pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
def test_no_tools_argument_says_where_the_tools_go(cls: type) -> None:
    with pytest.raises(ToolSearchConfigError, match=r"tools=\[\.\.\.\].*include_resolved_tools"):
        cls()
    searcher = cls(include_resolved_tools=True)  # the tools on the agent / node are searched
    assert len(searcher.library) == 0


@mode_param
async def test_agent_tools_are_searched_with_include_resolved_tools(mode: str) -> None:
    CALLS.clear()
    model = ScriptedChatModel(
        steps=search_load_call_steps(
            "weather", "get_weather", {"city": "Oslo"}, answer="done", ids=("s", "l", "w")
        )
    )
    agent = create_agent(
        model,
        tools=[get_weather, send_email],  # where LangChain's tool-selection middleware reads them
        middleware=[ToolSearchMiddleware(include_resolved_tools=True)],
    )
    payload: dict[str, Any] = {"messages": [HumanMessage("weather in Oslo")]}
    if mode == "sync":
        agent.invoke(payload)
    else:
        await agent.ainvoke(payload)
    assert CALLS == [("get_weather", "Oslo")]
    assert model.bound[0] == ["search_tools", "load_tool"]  # withheld until loaded
    assert model.bound[-1] == ["search_tools", "load_tool", "get_weather"]


@pytest.mark.parametrize(
    ("tools", "match"),
    [
        (["get_weather"], "not their names.*include_resolved_tools"),
        ([{"type": "function", "function": {"name": "x"}}], r"dict.*create_agent\(tools="),
        (get_weather, r"pass a list: tools=\[get_weather\]"),
        (None, "include_resolved_tools"),
    ],
    ids=["names", "dict", "one-tool", "none"],
)
def test_tools_in_other_shapes_get_a_tool_search_error(tools: Any, match: str) -> None:
    with pytest.raises(ToolSearchError, match=match) as info:
        ToolSearchMiddleware(tools=tools)
    assert isinstance(info.value, ToolSearchConfigError | ToolSearchTypeError)


def test_library_tools_also_given_to_create_agent_name_both_fixes() -> None:
    agent = create_agent(
        ScriptedChatModel(steps=[ai(content="hi")]),
        tools=[get_weather],
        middleware=[ToolSearchMiddleware(tools=library())],
    )
    with pytest.raises(ToolSearchConfigError, match=r"get_weather.*include_resolved_tools=True"):
        agent.invoke({"messages": [HumanMessage("hi")]})


# -- a run without a thread id loses its loads at the end: said once per run ---------------------

RUN_ONLY = "langchain_toolsearch.storage.strategy"


def _run_only_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == RUN_ONLY and "no thread id" in r.getMessage()]


@form_param
@mode_param
async def test_threadless_run_logs_once_that_its_loads_end_with_it(
    form: str, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l1")),
        ai(call("load_tool", {"tool_name": "send_email"}, "l2")),
        ai(content="ok"),
    ]
    h = build(form, steps, checkpointer=False)
    with caplog.at_level(logging.WARNING, logger=RUN_ONLY):
        await h.run("go", cfg(None), mode)
        first = _run_only_records(caplog)
        assert len(first) == 1  # two loads, one run: one line
        text = first[0].getMessage()
        assert "get_weather" in text
        assert "thread_id" in text and "checkpointer" in text
        h.model.cursor[0] = 0  # replay the script
        await h.run("again", cfg(None), mode)  # the next run starts empty: said again
        assert len(_run_only_records(caplog)) == 2


@form_param
async def test_run_with_a_thread_id_logs_nothing(
    form: str, caplog: pytest.LogCaptureFixture
) -> None:
    steps = [ai(call("load_tool", {"tool_name": "get_weather"}, "l1")), ai(content="ok")]
    h = build(form, steps)
    with caplog.at_level(logging.WARNING, logger=RUN_ONLY):
        await h.run("go", cfg("t-log"))
    assert _run_only_records(caplog) == []
