"""SPEC sections 3 and 11: what ``search_tools`` and ``load_tool`` answer, run
through both integration forms, sync and async.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.tools import StructuredTool

from langchain_toolsearch import _prompts as P
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import CALLS, library, plan_filter
from tests.support.toolsearch_harness import (
    META,
    build,
    cfg,
    form_param,
    mode_param,
    tool_msgs,
)

pytestmark = [form_param, mode_param]

LOAD_KEYS = ["success", "message", "loaded", "not_found", "already_loaded"]


# -- section 3: result shapes ---------------------------------------------------------------


async def test_search_result_shape_content_equals_artifact(form: str, mode: str) -> None:
    h = build(form, [ai(call("search_tools", {"query": "github"}, "s")), ai(content="ok")])
    out = await h.run("go", cfg(), mode)
    msg = by_id(out)["s"]
    assert msg.name == "search_tools" and msg.status == "success"
    body = json.loads(msg.content)
    assert body == msg.artifact
    assert list(body) == ["results", "message"]
    assert [list(r) for r in body["results"]] == [["name", "description", "score"]] * len(
        body["results"]
    )
    names = [r["name"] for r in body["results"]]
    assert names[:4] == sorted(names[:4], key=lambda n: (-_score(body, n), n))
    assert {"github_get_me", "github_list_repos", "github_create_issue"} <= set(names)
    assert all(0.0 < r["score"] <= 1.0 for r in body["results"])
    assert body["message"] == P.SEARCH_FOUND.format(
        count=len(names), followup=P.SEARCH_FOUND_FOLLOWUP_LOAD
    )


def _score(body: dict[str, Any], name: str) -> float:
    return next(r["score"] for r in body["results"] if r["name"] == name)


async def test_load_result_shape_content_equals_artifact(form: str, mode: str) -> None:
    h = build(form, [ai(call("load_tool", {"tool_name": "get_weather"}, "l")), ai(content="ok")])
    out = await h.run("go", cfg(), mode)
    msg = by_id(out)["l"]
    assert msg.name == "load_tool" and msg.status == "success"
    assert json.loads(msg.content) == msg.artifact
    assert list(msg.artifact) == LOAD_KEYS
    assert msg.artifact == {
        "success": True,
        "message": P.LOAD_LOADED.format(names="get_weather"),
        "loaded": ["get_weather"],
        "not_found": [],
        "already_loaded": [],
    }


async def test_descriptions_are_truncated_to_about_150_chars(form: str, mode: str) -> None:
    words = " ".join(f"word{i}" for i in range(80))

    def run(x: str) -> str:
        return x

    long_tool = StructuredTool.from_function(
        run, name="summarise_report", description=f"Summarise a quarterly report. {words}"
    )
    h = build(
        form,
        [ai(call("search_tools", {"query": "summarise quarterly report"}, "s")), ai(content="ok")],
        tools=[*library(), long_tool],
    )
    out = await h.run("go", cfg(), mode)
    hit = by_id(out)["s"].artifact["results"][0]
    assert hit["name"] == "summarise_report"
    assert hit["description"].startswith("Summarise a quarterly report. word0 word1")
    assert hit["description"].endswith("...")
    assert 100 <= len(hit["description"]) <= 153
    assert len(long_tool.description) > 500  # the full description is still bound once loaded


async def test_tool_name_and_tool_names_merge_in_order(form: str, mode: str) -> None:
    args = {"tool_name": "send_email", "tool_names": ["get_weather", "send_email", "get_weather"]}
    h = build(form, [ai(call("load_tool", args, "l")), ai(content="ok")])
    out = await h.run("go", cfg(), mode)
    body = by_id(out)["l"].artifact
    assert body["loaded"] == ["send_email", "get_weather"]
    assert body["not_found"] == [] and body["already_loaded"] == []
    assert h.bound[1] == [*META, "send_email", "get_weather"]


async def test_explicit_nulls_beside_a_value_are_accepted(form: str, mode: str) -> None:
    # The schemas show no null branch (fewer tokens per step); a model that
    # still sends the documented default null for the other argument is served.
    steps = [
        ai(call("search_tools", {"query": "weather", "queries": None}, "s")),
        ai(call("load_tool", {"tool_name": None, "tool_names": ["get_weather"]}, "l")),
        ai(content="ok"),
    ]
    h = build(form, steps)
    out = await h.run("go", cfg(), mode)
    got = by_id(out)
    assert got["s"].status == "success"
    assert "get_weather" in [r["name"] for r in got["s"].artifact["results"]]
    assert got["l"].status == "success" and got["l"].artifact["loaded"] == ["get_weather"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"tool_names": []}, P.LOAD_EMPTY_LIST),
        ({}, P.LOAD_NO_NAMES),
        ({"tool_name": None}, P.LOAD_NO_NAMES),
    ],
)
async def test_empty_or_missing_names_are_clear_errors(
    form: str, mode: str, args: dict[str, Any], message: str
) -> None:
    h = build(form, [ai(call("load_tool", args, "l")), ai(content="ok")])
    out = await h.run("go", cfg(), mode)
    msg = by_id(out)["l"]
    assert msg.status == "error"
    assert msg.artifact == {
        "success": False,
        "message": message,
        "loaded": [],
        "not_found": [],
        "already_loaded": [],
    }


async def test_not_found_gives_suggestions_and_a_search_hint(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "weather"}, "a")),  # contained in a name
        ai(call("load_tool", {"tool_name": "get_weather_now"}, "b")),  # contains a name
        ai(call("load_tool", {"tool_name": "github"}, "c")),
        ai(call("load_tool", {"tool_name": "zz"}, "d")),  # too short to suggest
        ai(content="ok"),
    ]
    h = build(form, steps)
    out = await h.run("go", cfg(), mode)
    got = {k: m.artifact for k, m in by_id(out).items()}
    assert got["a"]["message"] == (
        "Not found: weather. Did you mean: get_weather? Use search_tools to find tool names."
    )
    assert got["b"]["message"] == (
        "Not found: get_weather_now. Did you mean: get_weather? Use search_tools to find tool names."
    )
    assert got["c"]["message"] == (
        "Not found: github. Did you mean: github_add_comment_to_pending_review, "
        "github_create_issue, github_get_me, github_list_repos? "
        "Use search_tools to find tool names."
    )
    assert got["d"]["message"] == "Not found: zz. Use search_tools to find tool names."
    for body in got.values():
        assert body["success"] is False and body["loaded"] == []
    # nothing loaded: an error ToolMessage (SPEC 11: unknown names are bad model input)
    assert all(m.status == "error" for m in tool_msgs(out))
    assert h.bound[-1] == META


async def test_suggestions_never_list_a_denied_name(form: str, mode: str) -> None:
    steps = [ai(call("load_tool", {"tool_name": "delete_user"}, "a")), ai(content="ok")]
    open_ = build(form, steps)
    out = await open_.run("go", cfg(plan="free"), mode)
    assert "admin_delete_user" in by_id(out)["a"].artifact["message"]  # suggested when allowed

    h = build(form, steps, filter=plan_filter)
    out = await h.run("go", cfg(plan="free"), mode)
    body = by_id(out)["a"].artifact
    assert "admin" not in json.dumps(body)
    assert body["message"] == "Not found: delete_user. Use search_tools to find tool names."


async def test_already_loaded_is_success(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "a")),
        ai(call("load_tool", {"tool_names": ["get_weather", "send_email"]}, "b")),
        ai(call("load_tool", {"tool_name": "get_weather"}, "c")),
        ai(content="ok"),
    ]
    h = build(form, steps)
    out = await h.run("go", cfg(), mode)
    got = {k: m.artifact for k, m in by_id(out).items()}
    assert got["b"]["loaded"] == ["send_email"] and got["b"]["already_loaded"] == ["get_weather"]
    assert got["b"]["message"] == (
        "Loaded: send_email. They are callable from your next step. Already loaded: get_weather."
    )
    assert got["c"] == {
        "success": True,
        "message": "Already loaded: get_weather.",
        "loaded": [],
        "not_found": [],
        "already_loaded": ["get_weather"],
    }


async def test_denied_name_is_reported_exactly_like_a_missing_one(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "admin_delete_user"}, "denied")),
        ai(call("load_tool", {"tool_name": "qqq_unknown_xyz"}, "missing")),
        ai(content="ok"),
    ]
    h = build(form, steps, filter=plan_filter)
    out = await h.run("go", cfg(plan="free"), mode)
    msgs = by_id(out)
    denied, missing = msgs["denied"], msgs["missing"]
    assert denied.status == missing.status
    assert denied.content.replace("admin_delete_user", "NAME") == missing.content.replace(
        "qqq_unknown_xyz", "NAME"
    )
    assert denied.artifact["not_found"] == ["admin_delete_user"]
    assert h.bound[-1] == META


# -- section 11: bad model input ------------------------------------------------------------------


async def test_bad_arguments_get_error_messages_and_keep_loads(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "ok1")),
        ai(
            call("load_tool", {"tool_name": 5}, "b1"),
            call("load_tool", {"tool_names": "[1, 2]"}, "b2"),
            call("load_tool", {"tool_names": [1, 2]}, "b3"),
            call("load_tool", {"tool": "x"}, "b4"),
            call("search_tools", {"query": 7}, "b5"),
            call("search_tools", {"q": "weather"}, "b6"),
            call("search_tools", {"query": "weather", "limit": 3}, "b7"),
            call("search_tools", {}, "b8"),
        ),
        ai(call("load_tool", {"tool_names": [f"name_{i}" for i in range(1000)]}, "b9")),
        ai(call("get_weather", {"city": "Quito"}, "run")),
        ai(content="ok"),
    ]
    h = build(form, steps)
    out = await h.run("go", cfg(), mode)
    msgs = by_id(out)
    for key in ("b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9"):
        assert msgs[key].status == "error", key
        assert msgs[key].content, key
    assert "tool_name" in msgs["b1"].content
    assert "unexpected argument(s) ['tool']" in msgs["b4"].content
    assert "unexpected argument(s) ['q']" in msgs["b6"].content
    assert "unexpected argument(s) ['limit']" in msgs["b7"].content
    assert msgs["b9"].artifact["message"] == P.LOAD_TOO_MANY.format(count=1000, limit=64)
    assert len(msgs["b9"].content) < 500
    # nothing loaded was lost and the run went on
    assert all(bound[-1] == "get_weather" for bound in h.bound[1:])
    assert msgs["run"].status == "success"
    assert CALLS == [("get_weather", "Quito")]


async def test_huge_query_is_cut_and_the_run_goes_on(form: str, mode: str) -> None:
    huge = "weather " + "x" * 100_000
    steps = [
        ai(call("search_tools", {"query": huge}, "s")),
        ai(call("search_tools", {"query": "   "}, "e")),
        ai(call("search_tools", {"query": "qwzxv plmokn"}, "g")),
        ai(call("search_tools", {"query": "the of and to"}, "w")),
        ai(content="ok"),
    ]
    h = build(form, steps)
    out = await h.run("go", cfg(), mode)
    msgs = by_id(out)
    assert len(msgs["s"].content) < 2_000
    assert P.SEARCH_QUERY_TOO_LONG.format(limit=2000) in msgs["s"].artifact["message"]
    assert [r["name"] for r in msgs["s"].artifact["results"]][:1] == ["get_weather"]
    assert msgs["e"].status == "error"
    assert msgs["e"].artifact == {"results": [], "message": P.SEARCH_EMPTY_QUERY}
    words = P.SEARCH_WORDS_UNMATCHED.format(words="qwzxv, plmokn")
    for key, query, unmatched in (("g", "qwzxv plmokn", words), ("w", "the of and to", "")):
        assert msgs[key].status == "success"
        assert msgs[key].artifact == {
            "results": [],
            "message": P.SEARCH_NO_RESULTS.format(query=query) + unmatched,
        }
    assert out["messages"][-1].content == "ok"


# -- direct calls of tools that cannot run: the suggestions load_tool gives ------------------------


async def test_a_misspelled_direct_call_gets_the_suggestions_load_tool_gives(
    form: str, mode: str
) -> None:
    steps = [
        ai(call("get_wether", {"city": "Oslo"}, "direct")),
        ai(call("load_tool", {"tool_name": "get_wether"}, "load")),
        ai(content="ok"),
    ]
    h = build(form, steps)
    out = await h.run("go", cfg(), mode)
    msgs = by_id(out)
    direct = msgs["direct"]
    assert direct.status == "error"
    assert direct.content == P.TOOL_NOT_LOADED + P.TOOL_SUGGEST.format(names="get_weather")
    assert "Did you mean: get_weather?" in msgs["load"].artifact["message"]  # the same name
    assert not CALLS or ("get_weather", "Oslo") not in CALLS


async def test_a_direct_call_never_suggests_a_hidden_tool(form: str, mode: str) -> None:
    steps = [
        ai(call("delete_user", {"id": "u1"}, "misspelled")),
        ai(call("admin_delete_user", {"id": "u1"}, "hidden")),
        ai(call("qqq_unknown_xyz", {}, "unknown")),
        ai(content="ok"),
    ]
    open_ = build(form, steps)
    out = await open_.run("go", cfg(plan="free"), mode)
    assert "admin_delete_user" in by_id(out)["misspelled"].content  # suggested when allowed

    h = build(form, steps, filter=plan_filter)
    out = await h.run("go", cfg(plan="free"), mode)
    msgs = by_id(out)
    assert "admin_delete_user" not in msgs["misspelled"].content
    # a hidden tool is answered exactly like an unknown one: no suggestion names it
    assert msgs["hidden"].content == msgs["unknown"].content == P.TOOL_NOT_LOADED
    assert all(m.status == "error" for m in msgs.values())
