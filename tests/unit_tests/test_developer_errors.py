"""Developer mistakes a new user makes: each raises (or warns) saying what to change.

Storage and ``ttl`` options, a LangGraph store passed as ``storage``, the state
helpers naming their own operation, thread ids, functions LangChain cannot
convert, ``load_mcp_library`` on a non-client, plain-text ``--help``, a
hand-built graph whose state schema drops the node's update,
``get_loaded_tools`` in ``storage="store"`` mode without a store
(:class:`StoreMissingError`, as ``get_state_stats``), tools handed over the way
LangChain's tool middleware takes them (in ``create_agent(tools=...)``, as
names, as dicts, one tool alone, no ``tools=`` at all: accepted with
``include_resolved_tools=True`` or refused with a ``ToolSearchError`` naming the
fix), and a run without a thread id, which logs once that its loads end with it.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.graph import MessagesState
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchError, ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch.errors import (
    StoreMissingError,
    ToolSearchConfigError,
    ToolSearchTypeError,
)
from langchain_toolsearch.mcp import load_mcp_library
from langchain_toolsearch.node import SCHEMA_WARNING
from langchain_toolsearch.storage._memory import InMemoryLoadedToolStore
from tests.support.fakes import ScriptedChatModel, ai, call, search_load_call_steps
from tests.support.library_fixtures import CALLS, get_weather, library, send_email
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param, tool_msgs

CLASSES = pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])


# -- ttl applies to storage="in-memory" only ---------------------------------------------


@CLASSES
@pytest.mark.parametrize(
    "storage", ["store", "context", InMemoryLoadedToolStore(ttl=0, start_timer=False)]
)
def test_ttl_with_a_storage_other_than_in_memory_raises(cls: type, storage: Any) -> None:
    with pytest.raises(
        ToolSearchConfigError, match=r'ttl applies to storage="in-memory" only'
    ) as e:
        cls(tools=library(), storage=storage, ttl=10)
    assert isinstance(e.value, ValueError)
    if storage == "store":
        assert "ttl_config" in str(e.value)


@CLASSES
def test_ttl_defaults_to_an_hour_in_memory_and_an_explicit_ttl_is_used(cls: type) -> None:
    assert cls(tools=library()).loaded_tool_store.ttl == 3600.0
    assert cls(tools=library(), ttl=10).loaded_tool_store.ttl == 10.0
    assert cls(tools=library(), storage="store").options.ttl is None  # no ttl given: accepted


# -- a LangGraph store is not a storage mode ---------------------------------------------


@CLASSES
def test_a_langgraph_store_as_storage_says_to_pass_store(cls: type) -> None:
    with pytest.raises(ToolSearchConfigError, match=r'pass storage="store", store=') as e:
        cls(tools=library(), storage=InMemoryStore())
    assert "InMemoryStore" in str(e.value) and "object at" not in str(e.value)


# -- state helpers name their own operation ----------------------------------------------


@CLASSES
async def test_store_mode_helpers_without_store_name_their_operation(cls: type) -> None:
    ts = cls(tools=library(), storage="store")
    ops = {
        "get_state_stats": ts.get_state_stats,
        "clear_state": lambda: ts.clear_state("t1"),
        "clear_all_state": ts.clear_all_state,
        "aget_state_stats": ts.aget_state_stats,
        "aclear_state": lambda: ts.aclear_state("t1"),
        "aclear_all_state": ts.aclear_all_state,
    }
    for name, op in ops.items():
        with pytest.raises(ToolSearchConfigError) as e:
            result = op()
            if inspect.isawaitable(result):
                await result
        assert str(e.value).startswith(f'{name} with storage="store" needs the store: pass store=')
    assert ts.cleanup_now() == 0  # nothing in memory to sweep: no error


# -- thread ids are strings --------------------------------------------------------------


@CLASSES
@pytest.mark.parametrize("thread_id", [None, 7, b"t1", ""])
async def test_clear_state_needs_a_thread_id_string(cls: type, thread_id: Any) -> None:
    ts = cls(tools=library())
    ts.loaded_tool_store.add("t1", ["get_weather"])
    with pytest.raises(ToolSearchTypeError, match="clear_state expects a thread id string"):
        ts.clear_state(thread_id)
    with pytest.raises(TypeError, match="aclear_state expects a thread id string"):
        await ts.aclear_state(thread_id)
    assert ts.loaded_tool_store.get("t1") == ["get_weather"]  # nothing was cleared
    ts.clear_state("t1")
    assert ts.loaded_tool_store.get("t1") == []


# -- which library entry LangChain could not convert -------------------------------------


def no_doc(x: int) -> int:
    return x


@CLASSES
def test_a_function_langchain_cannot_convert_is_named(cls: type) -> None:
    with pytest.raises(ToolSearchConfigError, match=r"tools\[0\] \(function '<lambda>'\)") as e:
        cls(tools=[lambda x: x])
    assert "docstring" in str(e.value)
    assert isinstance(e.value.__cause__, ValueError)  # LangChain's error, chained
    with pytest.raises(ToolSearchConfigError, match=r"tools\['mine'\] \(function 'no_doc'\)"):
        cls(tools={"mine": no_doc})


# -- load_mcp_library on something that is not a client -------------------------------------


@pytest.mark.parametrize("client", [None, {"time": {"command": "x"}}])
def test_load_mcp_tools_on_a_non_client_raises_type_error(client: Any) -> None:
    with pytest.raises(ToolSearchTypeError, match="expects a langchain_mcp_adapters Multi"):
        asyncio.run(load_mcp_library(client))


# -- a hand-built graph whose state schema drops the node's update ------------------------


@mode_param
async def test_a_schema_without_toolsearch_tools_is_warned_once_per_node(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
        ai(call("get_weather", {"city": "Oslo"}, "w")),
        ai(content="ok"),
    ]
    h = build("node", steps * 2, state_schema=MessagesState)
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch.node"):
        out = await h.run("go", cfg("t-schema"), mode)
        await h.run("again", cfg("t-schema-2"), mode)
    msgs = {m.tool_call_id: m for m in tool_msgs(out)}
    assert msgs["l"].status == "success"  # the thread's store keeps the load ...
    assert h.bound[1] == ["search_tools", "load_tool"]  # ... but the schema drops the binding
    warned = [r for r in caplog.records if r.getMessage() == SCHEMA_WARNING]
    assert len(warned) == 1 and warned[0].levelno == logging.WARNING
    assert "ToolSearchState" in SCHEMA_WARNING and "input_schema=ToolSearchInput" in SCHEMA_WARNING


@mode_param
async def test_a_graph_on_tool_search_state_is_not_warned(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(call("get_weather", {"city": "Oslo"})),
        ai(content="ok"),
    ]
    h = build("node", steps)
    with caplog.at_level(logging.WARNING, logger="langchain_toolsearch.node"):
        await h.run("go", cfg("t-ok"), mode)
        h.ts.tools_for({"messages": []})  # a plain dict outside a run: no warning
    assert CALLS == [("get_weather", "Oslo")]
    assert not [r for r in caplog.records if r.getMessage() == SCHEMA_WARNING]


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

RUN_ONLY = "langchain_toolsearch.storage._strategy"


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
