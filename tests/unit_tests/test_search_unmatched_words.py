"""A ``search_tools`` answer names the query words that matched no tool the request may
see, so the model rephrases them: at most five, each at most 40 characters; stopwords,
request words, short words and typos the search read right are never named; a denied
tool's words count as matching nothing, and the answer is the same as without the denied
tools (a word is named only when no allowed tool holds it, the filter asked a bounded number
of times). Learning on, the learned index's own index is read. Rankings are those of the index.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._steps import _UNMATCHED_ASKS, UNMATCHED_SHOWN
from langchain_toolsearch.search import HashingEmbeddings
from langchain_toolsearch.types import Learning, ToolSearchFilterArgs
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import get_weather, library, plan_filter, secret_tools
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param
from tests.unit_tests import test_learning as learned

_WORDS = re.compile(re.escape(P.SEARCH_WORDS_UNMATCHED).replace(r"\{words\}", "(.*)"))


def _unmatched(message: str) -> list[str]:
    found = _WORDS.search(message)
    return found.group(1).split(", ") if found else []


def _message(mw: ToolSearchMiddleware, query: str, config: Any = None) -> str:
    from langchain_toolsearch._effects import drive

    scope = drive(mw._engine.scopes.scope(config or {}, {"messages": [HumanMessage("q")]}))
    body, _, _ = drive(mw._engine.search_step(scope, {"query": query}, "c"))
    return str(body["message"])


@form_param
@mode_param
async def test_the_answer_names_the_words_no_tool_holds(form: str, mode: str) -> None:
    steps = [ai(call("search_tools", {"query": "send an email via zorblax, please!"}, "s"))]
    h = build(form, steps)
    msg = by_id(await h.run("go", cfg(), mode))["s"].artifact
    assert msg["results"][0]["name"] == "send_email"
    assert msg["message"].endswith(P.SEARCH_WORDS_UNMATCHED.format(words="via, zorblax"))


@pytest.mark.parametrize(
    "query",
    [
        "send email",  # every word held
        "who am i",  # stopwords only
        "could you help me get the wether",  # request words; a typo read as "weather"
        "go to NY",  # short words
        "weather \x1b[2J\u202e",  # a word of hidden characters only: nothing to show
    ],
)
def test_held_stop_short_and_misspelled_words_are_never_named(query: str) -> None:
    assert _unmatched(_message(ToolSearchMiddleware(tools=library()), query)) == []


def test_a_denied_tools_words_match_nothing() -> None:
    mw = ToolSearchMiddleware(tools=library(), filter=plan_filter)
    query = "delete user account permanently"
    assert _unmatched(_message(mw, query, cfg(plan="free"))) == ["delete", "account", "permanently"]
    assert _unmatched(_message(mw, query, cfg(plan="pro"))) == []


def _tool(name: str, description: str) -> BaseTool:
    return StructuredTool.from_function(lambda: "ok", name=name, description=description)


def _not_admin(args: ToolSearchFilterArgs) -> bool:
    return not args.tool_name.startswith("admin_")


def test_the_answer_is_the_same_without_the_denied_tools() -> None:
    denied = [_tool(f"admin_report_{i}", "Generate an admin report.") for i in range(6)]
    allowed = [
        _tool("export_report", "Export a report as a PDF file."),
        _tool("get_weather", "Current weather for a city."),
        _tool("weather_alerts", "Severe weather alerts for a city."),
    ]
    hidden = ToolSearchMiddleware(tools=[*denied, *allowed], top_k=2, filter=_not_admin)
    without = ToolSearchMiddleware(tools=allowed, top_k=2)
    for query in ("weather report", "weather report zorblax", "admin weather"):
        assert _message(hidden, query) == _message(without, query), query
    assert _unmatched(_message(hidden, "weather report zorblax")) == ["zorblax"]


def test_the_filter_is_asked_a_bounded_number_of_times_for_the_words() -> None:
    asked: list[str] = []

    def counting(args: ToolSearchFilterArgs) -> bool:
        asked.append(args.tool_name)
        return _not_admin(args)

    words = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
        "kilo",
        "lima",
        "mike",
    ]
    tools = [_tool(f"admin_{w}_{i}", f"Admin {w} console.") for w in words for i in range(5)]
    # min_score: the ranking keeps no hit and asks nothing; every question is the words'
    mw = ToolSearchMiddleware(tools=[*tools, get_weather], filter=counting, min_score=0.5)
    named = _unmatched(_message(mw, " ".join(words)))
    assert 0 < len(asked) <= _UNMATCHED_ASKS
    assert named == words[:UNMATCHED_SHOWN]  # the words settled within the bound


def test_learning_reads_the_index_it_wraps() -> None:
    mw = ToolSearchMiddleware(tools=learned.library(), learning=Learning(scope=learned.tenant))
    learned.run_turn(mw, learned.turn(), learned.cfg("t1"))
    assert learned.names(mw, learned.LIKE_GAP)[0] == learned.TOOL  # evidence in scope "a"
    plain = ToolSearchMiddleware(tools=learned.library())
    query = "send an email via zorblax"
    named = _unmatched(_message(mw, query, learned.cfg("x")))
    assert named == _unmatched(_message(plain, query)) and "zorblax" in named


def test_a_requests_own_tools_and_the_hybrid_index_count() -> None:
    own = ToolSearchMiddleware(
        tools=library(), include_resolved_tools=True, resolve_tools=secret_tools
    )
    assert _unmatched(_message(own, "read my secret note", cfg(user="ann"))) == []
    hybrid = ToolSearchMiddleware(tools=library(), embeddings=HashingEmbeddings())
    assert _unmatched(_message(hybrid, "weather zorblax")) == ["zorblax"]


def test_the_words_named_and_the_filter_calls_are_bounded() -> None:
    asked: list[str] = []

    def counting(args: ToolSearchFilterArgs) -> bool:
        asked.append(args.tool_name)
        return True

    mw = ToolSearchMiddleware(tools=library(), filter=counting)
    words = [f"zq{i}" + "x" * 60 for i in range(300)]
    named = _unmatched(_message(mw, " ".join(["github", *words])))
    assert len(named) == UNMATCHED_SHOWN and all(len(w) == 40 for w in named)
    assert len(asked) <= 16 * 4 + len(library())


def test_rankings_are_the_indexs() -> None:
    mw = ToolSearchMiddleware(tools=library())
    query = "post a slack message zorblax"
    assert [h.name for h in mw.search(query)] == [h.name for h in mw.index.rank(query)][:5]
