"""``mode="auto"``: a request whose tools fit the budget gets them all, with no meta tool.

Through real ``create_agent`` and a hand-built graph with ``ToolSearchNode``,
sync and async. The decision is per request (here: a filter by plan), logged
at DEBUG and counted in ``get_state_stats().auto_mode``; the guard runs a tool
bound whole only for the request that had it bound whole, even with two
callers interleaved on one instance.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from langchain_toolsearch import ToolSearchConfigError, ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._modes import DEFAULT_AUTO_MAX_TOKENS
from langchain_toolsearch._steps import schema_tokens
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel
from langchain_toolsearch.types import AutoModeStats
from tests.support.wset_graph import META, cfg, graph, library, run, system_text, tool_answers

FORMS = pytest.mark.parametrize("form", ["agent", "node"])
MODES = pytest.mark.parametrize("mode", ["sync", "async"])
SMALL = ["alpha", "bravo", "charlie"]


def _pro_only_charlie(args: Any) -> bool:
    """``charlie`` only for ``plan="pro"``: a free caller's set is two tools, a pro's three."""
    plan = (args.config.get("configurable") or {}).get("plan")
    return args.tool_name != "charlie" or plan == "pro"


@FORMS
@MODES
async def test_a_small_set_is_bound_whole_without_meta_tools_or_hint(form: str, mode: str) -> None:
    model = ScriptedToolSearchModel(steps=[Call("bravo", {"x": "1"}), Answer("done")])
    ts, g = graph(form, model, saver=InMemorySaver(), tools=library(SMALL), mode="auto")
    out = await run(g, "go", cfg(), mode)
    assert model.bound == [SMALL, SMALL]
    assert [m.content for m in tool_answers(out)] == ["bravo:1"]
    assert all(P.SYSTEM_HINT_TWO_STEP not in system_text(seen) for seen in model.seen)
    stats = ts.get_state_stats().auto_mode
    assert stats is not None and (stats.bind_all, stats.search) == (2, 0)
    assert (stats.last, stats.last_tools, stats.max_tokens) == (
        "bind_all",
        3,
        DEFAULT_AUTO_MAX_TOKENS,
    )
    assert stats.last_tokens == sum(schema_tokens(t) for t in library(SMALL))


@FORMS
@MODES
async def test_over_the_budget_the_request_searches(form: str, mode: str) -> None:
    steps = [Call("bravo", {"x": "1"}, unbound=True), Load("bravo"), Call("bravo", {"x": "2"})]
    model = ScriptedToolSearchModel(steps=[*steps, Answer("done")])
    ts, g = graph(
        form, model, saver=InMemorySaver(), tools=library(SMALL), mode="auto", auto_max_tools=2
    )
    out = await run(g, "go", cfg(), mode)
    assert model.bound == [META, META, [*META, "bravo"], [*META, "bravo"]]
    answers = tool_answers(out)
    assert answers[0].status == "error" and P.TOOL_NOT_LOADED in str(answers[0].content)
    assert answers[-1].content == "bravo:2"
    assert P.SYSTEM_HINT_TWO_STEP in system_text(model.seen[0])
    stats = ts.get_state_stats().auto_mode
    assert stats is not None and (stats.bind_all, stats.search) == (0, 4)
    assert (stats.last, stats.last_tools, stats.max_tools) == ("search", 3, 2)


@FORMS
@MODES
async def test_the_token_budget_decides(form: str, mode: str) -> None:
    tools = library(SMALL)
    total = sum(schema_tokens(t) for t in tools)
    for budget, bound in ((total, SMALL), (total - 1, META)):
        model = ScriptedToolSearchModel(steps=[Answer("done")])
        _, g = graph(form, model, tools=tools, mode="auto", auto_max_tokens=budget)
        await run(g, "go", cfg(), mode)
        assert model.bound == [bound]


@FORMS
@MODES
async def test_the_filter_decides_per_request_and_the_guard_follows(form: str, mode: str) -> None:
    # a free caller's set (alpha, bravo) fits auto_max_tools=2: bound whole; a pro
    # caller's (alpha, bravo, charlie) does not: it searches, and alpha is not loaded
    model = ScriptedToolSearchModel(
        scripts={
            "free": [Call("alpha", {"x": "free"}), Answer("done")],
            "pro": [Call("alpha", {"x": "pro"}, unbound=True), Answer("done")],
        }
    )
    ts, g = graph(
        form,
        model,
        saver=InMemorySaver(),
        tools=library(SMALL),
        mode="auto",
        auto_max_tools=2,
        filter=_pro_only_charlie,
        interrupt_before=["tools"],
    )
    free, pro = cfg("free", plan="free"), cfg("pro", plan="pro")
    # interleaved: both model steps first, then both tool steps, the other way round
    await run(g, "free", free, mode)
    await run(g, "pro", pro, mode)
    assert model.bound == [["alpha", "bravo"], META]
    pro_out = await run(g, None, pro, mode)
    free_out = await run(g, None, free, mode)
    pro_answer = tool_answers(pro_out)[0]
    assert pro_answer.status == "error" and P.TOOL_NOT_LOADED in str(pro_answer.content)
    assert tool_answers(free_out)[0].content == "alpha:free"
    stats = ts.get_state_stats().auto_mode
    assert stats is not None and (stats.bind_all, stats.search) == (2, 2)  # + the answers


@FORMS
@MODES
async def test_a_tool_the_filter_denies_is_neither_bound_nor_run(form: str, mode: str) -> None:
    model = ScriptedToolSearchModel(
        steps=[Call("charlie", {"x": "1"}, unbound=True), Answer("done")]
    )
    _, g = graph(
        form,
        model,
        saver=InMemorySaver(),
        tools=library(SMALL),
        mode="auto",
        filter=_pro_only_charlie,
    )
    out = await run(g, "go", cfg(plan="free"), mode)
    assert model.bound[0] == ["alpha", "bravo"]
    assert tool_answers(out)[0].status == "error"


@FORMS
def test_the_decision_is_logged_at_debug(form: str, caplog: pytest.LogCaptureFixture) -> None:
    model = ScriptedToolSearchModel(steps=[Answer("done")])
    _, g = graph(form, model, tools=library(SMALL), mode="auto")
    with caplog.at_level(logging.DEBUG, logger="langchain_toolsearch._modes"):
        g.invoke({"messages": [{"role": "user", "content": "go"}]}, cfg())
    records = [r for r in caplog.records if r.name == "langchain_toolsearch._modes"]
    assert records and records[0].levelno == logging.DEBUG
    assert "binds the request's tools whole (3 tools" in records[0].getMessage()


@pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
def test_search_mode_reports_no_auto_stats(cls: type) -> None:
    assert cls(tools=library()).get_state_stats().auto_mode is None
    assert AutoModeStats().last is None


@pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"mode": "bind"}, "mode must be 'search'"),
        ({"mode": "auto", "auto_max_tokens": 0}, "auto_max_tokens must be an int >= 1"),
        ({"mode": "auto", "auto_max_tools": 1.5}, "auto_max_tools must be an int >= 1"),
        ({"auto_max_tokens": 5000}, "pass mode='auto' too"),
        ({"auto_max_tools": 5}, "pass mode='auto' too"),
    ],
)
def test_options_are_checked_at_construction(
    cls: type, options: dict[str, Any], match: str
) -> None:
    with pytest.raises(ToolSearchConfigError, match=match):
        cls(tools=library(), **options)


def _resolver(config: Any) -> list[Any]:
    """One extra tool (``delta``) for callers with ``extra=True``."""
    extra = (config.get("configurable") or {}).get("extra")
    return library(["delta"]) if extra else []


@FORMS
@MODES
async def test_a_resolver_changes_the_set_per_request(form: str, mode: str) -> None:
    model = ScriptedToolSearchModel(
        scripts={
            "few": [Call("alpha", {"x": "few"}), Answer("done")],
            "many": [Call("delta", {"x": "many"}, unbound=True), Answer("done")],
        }
    )
    _, g = graph(
        form,
        model,
        saver=InMemorySaver(),
        tools=library(["alpha", "bravo"]),
        include_resolved_tools=True,
        resolve_tools=_resolver,
        mode="auto",
        auto_max_tools=2,
    )
    few = await run(g, "few", cfg("few"), mode)
    many = await run(g, "many", cfg("many", extra=True), mode)
    assert model.bound[0] == ["alpha", "bravo"]
    assert model.bound[2] == META  # alpha, bravo and the resolved delta: over the budget
    assert tool_answers(few)[0].content == "alpha:few"
    assert tool_answers(many)[0].status == "error"
