"""``search_tools`` with several needs (``queries``), and already-loaded tools marked and
ranked behind new ones, through both integration forms, sync and async.
"""

from __future__ import annotations

import json

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._steps import LOADED_MARGIN, MAX_QUERIES
from langchain_toolsearch.testing import Answer, ScriptedToolSearchModel
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import library, plan_filter
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param


def _names(msg: ToolMessage) -> list[str]:
    return [r["name"] for r in msg.artifact["results"]]


def _pairs(msg: ToolMessage) -> list[tuple[str, str]]:
    return [(r["name"], r["query"]) for r in msg.artifact["results"]]


# -- several needs ---------------------------------------------------------------------------


@form_param
@mode_param
async def test_each_need_gets_its_share_and_each_hit_says_its_query(form: str, mode: str) -> None:
    queries = ["weather in a city", "send an email", "list github repositories of a user"]
    h = build(form, [ai(call("search_tools", {"queries": queries}, "s")), ai(content="ok")])
    out = await h.run("go", cfg(), mode)
    msg = by_id(out)["s"]
    assert msg.status == "success"
    assert json.loads(msg.content) == msg.artifact
    assert list(msg.artifact) == ["results", "message"]
    for result in msg.artifact["results"]:
        assert list(result) == ["name", "description", "score", "query"]
    pairs = _pairs(msg)
    # round robin: each need's best hit first, in the order of the needs
    assert pairs[:3] == [
        ("get_weather", "weather in a city"),
        ("send_email", "send an email"),
        ("github_list_repos", "list github repositories of a user"),
    ]
    assert len(pairs) == 5  # top_k shared by the needs
    assert len(set(_names(msg))) == len(pairs)  # each tool once
    assert msg.artifact["message"] == P.SEARCH_FOUND_NEEDS.format(
        count=5, needs=3, followup=P.SEARCH_FOUND_FOLLOWUP_LOAD
    )


def test_top_k_is_shared_and_each_need_gets_at_least_its_best_hit() -> None:
    mw = ToolSearchMiddleware(tools=library(), top_k=2)
    two = mw.search(["github", "weather email slack"])
    assert [r.query for r in two] == ["github", "weather email slack"]
    one = ToolSearchMiddleware(tools=library(), top_k=1)
    three = one.search(["github issue", "weather", "slack message"])
    assert [(r.name, r.query) for r in three] == [
        ("github_create_issue", "github issue"),
        ("get_weather", "weather"),
        ("slack_post_message", "slack message"),
    ]


def test_a_tool_found_for_two_needs_is_shown_once_for_the_first() -> None:
    mw = ToolSearchMiddleware(tools=library(), top_k=4)
    hits = mw.search(["create github issue", "github issue"])
    names = [r.name for r in hits]
    assert names[0] == "github_create_issue" and hits[0].query == "create github issue"
    assert names.count("github_create_issue") == 1
    assert hits[1].query == "github issue" and hits[1].name != "github_create_issue"


def test_one_query_keeps_the_plain_shape() -> None:
    mw = ToolSearchMiddleware(tools=library())
    for query in ("weather", ["weather"], ["weather", "weather", " "]):
        hits = mw.search(query)
        assert hits and all(r.query is None for r in hits), query
        assert list(hits[0].to_dict()) == ["name", "description", "score"]


@form_param
@mode_param
async def test_lenient_shapes_of_one_or_more_queries(form: str, mode: str) -> None:
    steps = [
        ai(
            call("search_tools", {"query": ["weather", "send email"]}, "list_in_query"),
            call("search_tools", {"query": '["weather", "send email"]'}, "json_in_query"),
            call("search_tools", {"queries": "weather"}, "string_in_queries"),
            call("search_tools", {"queries": '["weather", "send email"]'}, "json_in_queries"),
            call("search_tools", {"query": "weather", "queries": ["send email"]}, "both"),
            call("search_tools", {"query": "[urgent] weather"}, "bracket"),
            call("search_tools", {"query": "weather, then email"}, "commas"),
        ),
        ai(content="ok"),
    ]
    h = build(form, steps)
    msgs = by_id(await h.run("go", cfg(), mode))
    two = [("get_weather", "weather"), ("send_email", "send email")]
    for key in ("list_in_query", "json_in_query", "json_in_queries", "both"):
        assert msgs[key].status == "success", key
        assert _pairs(msgs[key])[:2] == two, key
    assert _names(msgs["string_in_queries"])[:1] == ["get_weather"]
    assert "query" not in msgs["string_in_queries"].artifact["results"][0]
    # a string that is not a JSON list is one query; commas never split a need
    assert _names(msgs["bracket"])[:1] == ["get_weather"]
    assert "query" not in msgs["commas"].artifact["results"][0]


@form_param
@mode_param
async def test_bad_forms_too_many_and_empty_are_error_messages(form: str, mode: str) -> None:
    nine = [f"need {i}" for i in range(MAX_QUERIES + 1)]
    steps = [
        ai(
            call("search_tools", {"queries": [1, 2]}, "numbers"),
            call("search_tools", {"query": {"a": 1}}, "mapping"),
            call("search_tools", {"queries": nine}, "nine"),
            call("search_tools", {"queries": []}, "empty"),
            call("search_tools", {"queries": ["  ", ""]}, "blank"),
            call("search_tools", {"queries": ["weather " + "x" * 5000, "email"]}, "long"),
        ),
        ai(call("search_tools", {"queries": ["weather"]}, "after")),
        ai(content="ok"),
    ]
    h = build(form, steps)
    out = await h.run("go", cfg(), mode)
    msgs = by_id(out)
    for key in ("numbers", "mapping"):
        assert msgs[key].status == "error", key
        assert msgs[key].content == P.SEARCH_BAD_FORM, key
    assert msgs["nine"].status == "error"
    assert msgs["nine"].artifact == {
        "results": [],
        "message": P.SEARCH_TOO_MANY.format(count=MAX_QUERIES + 1, limit=MAX_QUERIES),
    }
    for key in ("empty", "blank"):
        assert msgs[key].status == "error"
        assert msgs[key].artifact == {"results": [], "message": P.SEARCH_EMPTY_QUERY}
    long = msgs["long"]
    assert long.status == "success" and len(long.content) < 3000
    assert P.SEARCH_QUERY_TOO_LONG.format(limit=2000) in long.artifact["message"]
    assert [r["query"][:7] for r in long.artifact["results"][:2]] == ["weather", "email"]
    assert msgs["after"].status == "success"  # the run went on
    assert out["messages"][-1].content == "ok"


def test_a_need_with_nothing_allowed_says_so_and_names_no_hidden_tool() -> None:
    mw = ToolSearchMiddleware(tools=library(), filter=plan_filter)
    steps = [
        ai(call("search_tools", {"queries": ["delete user account", "weather"]}, "s")),
        ai(content="ok"),
    ]
    h = build("agent", steps, filter=plan_filter)
    out = h.graph.invoke({"messages": [HumanMessage("go")]}, cfg(plan="free"))
    msg = by_id(out)["s"]
    assert "admin_delete_user" not in msg.content
    assert ("get_weather", "weather") in _pairs(msg)
    hits = mw.search(["delete user account", "weather"], cfg(plan="pro"))
    assert ("admin_delete_user", "delete user account") in [(r.name, r.query) for r in hits]


def test_unmatched_need_is_named_in_the_message() -> None:
    h = build("agent", [ai(call("search_tools", {"queries": ["weather", "qwzx plmk"]}, "s"))])
    msg = by_id(h.graph.invoke({"messages": [HumanMessage("go")]}, cfg()))["s"]
    assert _pairs(msg) == [("get_weather", "weather")]
    unmatched = P.SEARCH_NEEDS_UNMATCHED.format(queries="qwzx plmk")
    words = P.SEARCH_WORDS_UNMATCHED.format(words="qwzx, plmk")
    assert msg.artifact["message"].endswith(unmatched + words)


# -- already-loaded tools ------------------------------------------------------------------------


def _twins() -> list[BaseTool]:
    """Two tools any forecast query scores alike, and one far weaker match."""

    def make(name: str, description: str) -> BaseTool:
        return StructuredTool.from_function(
            func=lambda city: city, name=name, description=description
        )

    return [
        make("forecast_daily", "Weather forecast for a city, day by day"),
        make("forecast_hourly", "Weather forecast for a city, hour by hour"),
        make("city_guide", "Sights and museums of a city"),
    ]


@pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
def test_loaded_tools_are_marked_and_rank_behind_new_ones_of_similar_score(cls: type) -> None:
    ts = cls(tools=_twins(), top_k=2)
    config = cfg("t-loaded")
    before = ts.search("weather forecast", config)
    assert [r.name for r in before] == ["forecast_daily", "forecast_hourly"]
    assert abs(before[0].score - before[1].score) < LOADED_MARGIN
    assert not any(r.loaded for r in before)
    ts.loaded_tool_store.add("t-loaded", ["forecast_daily"])
    after = ts.search("weather forecast", config)
    assert [(r.name, r.loaded) for r in after] == [
        ("forecast_hourly", False),
        ("forecast_daily", True),
    ]
    assert after[1].to_dict()["loaded"] is True
    assert "loaded" not in after[0].to_dict()
    assert after[1].score == before[0].score  # the shown score is the tool's own
    # another thread has loaded nothing: its ranking is untouched
    assert [r.name for r in ts.search("weather forecast", cfg("t-other"))] == [
        "forecast_daily",
        "forecast_hourly",
    ]


def test_a_loaded_tool_far_ahead_stays_first() -> None:
    mw = ToolSearchMiddleware(tools=_twins(), top_k=3)
    config = cfg("t-far")
    assert mw.loaded_tool_store is not None
    mw.loaded_tool_store.add("t-far", ["city_guide"])
    hits = mw.search("museums sights city guide", config)
    assert hits[0].name == "city_guide" and hits[0].loaded
    assert hits[0].score - max(r.score for r in hits[1:]) > LOADED_MARGIN


@form_param
@mode_param
async def test_a_repeated_search_surfaces_something_new(form: str, mode: str) -> None:
    steps = [
        ai(call("search_tools", {"query": "weather forecast"}, "first")),
        ai(call("load_tool", {"tool_name": "forecast_daily"}, "load")),
        ai(call("search_tools", {"query": "weather forecast"}, "again")),
        ai(content="ok"),
    ]
    h = build(form, steps, tools=_twins(), top_k=1)
    msgs = by_id(await h.run("go", cfg(), mode))
    assert _names(msgs["first"]) == ["forecast_daily"]
    assert msgs["again"].artifact["results"] == [
        {
            "name": "forecast_hourly",
            "description": "Weather forecast for a city, hour by hour",
            "score": msgs["again"].artifact["results"][0]["score"],
        }
    ]


def test_marks_in_a_real_agent_with_the_scripted_model() -> None:
    """create_agent + ScriptedToolSearchModel: a search after a load marks the loaded hit."""
    model = ScriptedToolSearchModel(
        steps=[
            ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
            ai(call("search_tools", {"queries": ["weather", "send email"]}, "s")),
            Answer("done"),
        ]
    )
    agent = create_agent(
        model,
        tools=[],
        middleware=[ToolSearchMiddleware(tools=library())],
        checkpointer=InMemorySaver(),
    )
    out = agent.invoke({"messages": [HumanMessage("go")]}, cfg("t-agent"))
    msg = by_id(out)["s"]
    assert msg.artifact["results"][0] == {
        "name": "get_weather",
        "description": "Get current weather for a city",
        "score": msg.artifact["results"][0]["score"],
        "query": "weather",
        "loaded": True,
    }
    assert msg.artifact["message"].endswith(P.SEARCH_SOME_LOADED)
    assert model.bound[-1] == ["search_tools", "load_tool", "get_weather"]


# -- duplicate needs ----------------------------------------------------------------------------


@form_param
@mode_param
async def test_needs_equal_as_searched_are_one_need(form: str, mode: str) -> None:
    long_a = "weather in a city " * 120 + "tail one"  # 2,168 characters: cut at 2,000
    long_b = "weather in a city " * 120 + "tail two"
    steps = [
        ai(
            call("search_tools", {"queries": [long_a, long_b]}, "cut"),
            call("search_tools", {"queries": ["send  an\temail", "send an email"]}, "spaces"),
        ),
        ai(content="ok"),
    ]
    h = build(form, steps, top_k=2)
    msgs = by_id(await h.run("go", cfg(), mode))
    cut = msgs["cut"].artifact
    # one need (it was two identical searches, the second shown another tool for "it")
    assert [r["name"] for r in cut["results"]][:1] == ["get_weather"]
    assert "query" not in cut["results"][0] and len(cut["results"]) <= 2
    spaces = msgs["spaces"].artifact
    assert [r["name"] for r in spaces["results"]][:1] == ["send_email"]
    assert "query" not in spaces["results"][0]
