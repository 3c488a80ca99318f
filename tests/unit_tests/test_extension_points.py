"""The public extension points work (storage=, tools=, loaded-tool and state
helpers, result and filter fields) and the exception tree holds."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.store.memory import InMemoryStore

from langchain_toolsearch import (
    ToolLibrary,
    ToolSearchConfigError,
    ToolSearchError,
    ToolSearchFilterArgs,
    ToolSearchMiddleware,
    ToolSearchNode,
)
from langchain_toolsearch.errors import StoreMissingError, ToolSearchTypeError
from langchain_toolsearch.storage import InMemoryLoadedToolStore
from tests.support.fakes import ai, call
from tests.support.library_fixtures import library
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs

LOAD = [ai(call("load_tool", {"tool_name": "get_weather"})), ai(content="ok")]


@form_param
@mode_param
async def test_storage_takes_a_loaded_tool_store_instance(form: str, mode: str) -> None:
    mine = InMemoryLoadedToolStore(ttl=0)
    h = build(form, LOAD, storage=mine)
    await h.run("load", cfg(), mode)
    assert mine.get("t1") == ["get_weather"]
    assert h.ts.loaded_tool_store is mine
    assert h.bound[1] == [*META, "get_weather"]
    assert h.ts.get_state_stats().thread_count == 1


@form_param
@mode_param
async def test_tools_takes_a_tool_library(form: str, mode: str) -> None:
    lib = ToolLibrary(library())
    h = build(form, LOAD, tools=lib)
    await h.run("load", cfg(), mode)
    assert h.ts.library is lib
    assert h.bound[1] == [*META, "get_weather"]


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "store", "context"])
async def test_get_loaded_tools_and_aclear_state(form: str, mode: str, storage: str) -> None:
    options: dict[str, Any] = {"storage": storage}
    if storage == "store":
        options["store"] = InMemoryStore()
    h = build(form, LOAD, **options)
    out = await h.run("load", cfg(), mode)
    state = out if storage == "context" else None
    if mode == "sync":
        loaded = h.ts.get_loaded_tools(cfg(), state)
    else:
        loaded = await h.ts.aget_loaded_tools(cfg(), state)
    assert loaded == ["get_weather"]
    assert h.ts.get_loaded_tools(cfg("other"), {}) == []
    await h.ts.aclear_state("t1")
    expected = ["get_weather"] if storage == "context" else []  # context: trim messages
    assert h.ts.get_loaded_tools(cfg(), state) == expected


@mode_param
async def test_state_stats_report_the_store_in_store_mode(mode: str) -> None:
    store = InMemoryStore()
    h = build("agent", LOAD, storage="store", store=store)
    await h.run("load", cfg("s1"), mode)
    h.model.cursor[0] = 0
    await h.run("load", cfg("s2"), mode)
    stats = h.ts.get_state_stats()
    assert stats.thread_count == 2 and stats.storage == "store"
    without = ToolSearchMiddleware(tools=library(), storage="store")  # the graph's store
    with pytest.raises(ToolSearchConfigError, match="pass store="):
        without.get_state_stats()


def test_results_carry_the_original_name_the_model_never_sees() -> None:
    from langchain_core.tools import StructuredTool

    dotted = StructuredTool.from_function(
        lambda city: city, name="weather.get", description="Get the weather forecast"
    )
    mw = ToolSearchMiddleware(tools=[dotted])
    (hit,) = mw.search("weather forecast")
    assert hit.original_name == "weather.get" and hit.name != "weather.get"
    assert "original_name" not in hit.to_dict()


@form_param
@mode_param
async def test_the_filter_receives_the_run_context(form: str, mode: str) -> None:
    seen: list[Any] = []

    def spy(args: ToolSearchFilterArgs) -> bool:
        seen.append(args.context)
        return True

    h = build(form, LOAD, filter=spy)
    payload = {"messages": [HumanMessage("load")]}
    context = {"plan": "pro"}
    if mode == "sync":
        h.graph.invoke(payload, cfg(), context=context)
    else:
        await h.graph.ainvoke(payload, cfg(), context=context)
    assert seen and all(c == {"plan": "pro"} for c in seen)


def test_the_exception_tree() -> None:
    assert issubclass(ToolSearchConfigError, ToolSearchError)
    assert issubclass(ToolSearchConfigError, ValueError)
    assert issubclass(ToolSearchTypeError, TypeError)
    assert issubclass(StoreMissingError, ToolSearchConfigError)
    for cls in (ToolSearchMiddleware, ToolSearchNode):
        with pytest.raises(ToolSearchConfigError, match="top_k"):
            cls(tools=library(), top_k=0)
        with pytest.raises(ToolSearchTypeError, match="filter must be a callable"):
            cls(tools=library(), filter="yes")  # type: ignore[arg-type]
        with pytest.raises(ToolSearchConfigError, match="filter_timeout"):
            cls(tools=library(), filter_timeout=0)
        with pytest.raises(ToolSearchConfigError, match="resolve_timeout"):
            cls(tools=library(), resolve_timeout=-1)
        with pytest.raises(ToolSearchConfigError, match="LoadedToolStore instance"):
            cls(tools=library(), storage=object())  # type: ignore[arg-type]


@mode_param
async def test_a_missing_store_raises_store_missing_error(mode: str) -> None:
    h = build("agent", LOAD, storage="store", graph_store=False)
    with pytest.raises(StoreMissingError, match="compile it with one"):
        await h.run("load", cfg(), mode)


def test_filter_errors_are_logged_once_by_name_and_message_without_secrets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def boom(args: ToolSearchFilterArgs) -> bool:
        raise RuntimeError("policy db unreachable, password=hunter2hunter2")

    mw = ToolSearchMiddleware(tools=library(), filter=boom)
    with caplog.at_level(logging.WARNING):
        assert mw.search("weather") == []
        assert mw.search("email") == []
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1  # once per distinct cause, however many tools and searches
    assert "RuntimeError" in caplog.text and "'boom'" in caplog.text
    assert "policy db unreachable" in caplog.text and "hunter2" not in caplog.text
    (failure,) = mw.get_state_stats().source_failures
    assert (failure.source, failure.kind, failure.error) == ("boom", "filter", "RuntimeError")
    assert failure.count > 1 and "hunter2" not in failure.message


@form_param
@mode_param
async def test_a_mapping_key_loads_the_tool_under_its_own_name(form: str, mode: str) -> None:
    """Bound and called by its own name; the key is an alias."""
    tools = {"forecast": library()[0], **{t.name: t for t in library()[1:]}}
    steps = [
        ai(call("load_tool", {"tool_name": "forecast"})),
        ai(call("get_weather", {"city": "Oslo"})),
        ai(content="ok"),
    ]
    h = build(form, steps, tools=tools, storage="context")
    out = await h.run("go", cfg(), mode)
    assert h.bound[1] == [*META, "get_weather"]
    assert tool_msgs(out)[-1].text.startswith("Sunny")
    assert h.ts.search("weather forecast")[0].original_name == "forecast"
