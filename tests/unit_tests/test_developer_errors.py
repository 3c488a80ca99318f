"""Developer mistakes from a new user's trial: each raises (or warns) saying what to change.

Storage and ``ttl`` options, a LangGraph store passed as ``storage``, the state
helpers naming their own operation, thread ids, functions LangChain cannot
convert, ``load_mcp_library`` on a non-client, plain-text ``--help``, and a
hand-built graph whose state schema drops the node's update.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import logging
from typing import Any

import pytest
from langgraph.graph import MessagesState
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch.cli import build_parser
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from langchain_toolsearch.mcp import load_mcp_library
from langchain_toolsearch.node import SCHEMA_WARNING
from langchain_toolsearch.storage import InMemoryLoadedToolStore
from tests.support.fakes import ai, call
from tests.support.library_fixtures import CALLS, library
from tests.support.toolsearch_harness import build, cfg, mode_param, tool_msgs

CLASSES = pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])


# -- B: ttl applies to storage="in-memory" only ---------------------------------------------


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


# -- C: a LangGraph store is not a storage mode ---------------------------------------------


@CLASSES
def test_a_langgraph_store_as_storage_says_to_pass_store(cls: type) -> None:
    with pytest.raises(ToolSearchConfigError, match=r'pass storage="store", store=') as e:
        cls(tools=library(), storage=InMemoryStore())
    assert "InMemoryStore" in str(e.value) and "object at" not in str(e.value)


# -- D: state helpers name their own operation ----------------------------------------------


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


# -- I: thread ids are strings --------------------------------------------------------------


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


# -- E: which library entry LangChain could not convert -------------------------------------


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


# -- F: load_mcp_library on something that is not a client -------------------------------------


@pytest.mark.parametrize("client", [None, {"time": {"command": "x"}}])
def test_load_mcp_tools_on_a_non_client_raises_type_error(client: Any) -> None:
    with pytest.raises(ToolSearchTypeError, match="expects a langchain_mcp_adapters Multi"):
        asyncio.run(load_mcp_library(client))


# -- G: --help is plain text ----------------------------------------------------------------


def test_command_line_help_is_plain_text() -> None:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    texts = [parser.format_help()]
    for command in sub.choices.values():
        texts.append(command.format_help())
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                texts.extend(p.format_help() for p in action.choices.values())
    assert len(texts) > 10  # config's subcommands are included
    assert all("``" not in t and ":class:" not in t and ":meth:" not in t for t in texts)
    assert "toolsearch config: edit and inspect" in sub.choices["config"].format_help()


# -- A: a hand-built graph whose state schema drops the node's update ------------------------


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
