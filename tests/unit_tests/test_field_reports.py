"""The field reports (shared/cases/field-reports.md), one test (or group) per
case, run through real ``create_agent`` and ``StateGraph`` graphs, sync and
async. C12-C14 are MCP cases (tests/integration_tests/test_mcp.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch import _prompts as P
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import CALLS, library, plan_filter
from tests.support.storage_helpers import load_receipt_history
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs

BOTH = [form_param, mode_param]
LIBRARY_NAMES = [t.name for t in library()]


def _receipt_history(call_args: dict[str, Any], loaded: list[str], *, artifact: bool) -> list[Any]:
    return load_receipt_history("weather in Paris?", call_args, loaded, artifact=artifact)


# -- C1 Threads never share loaded tools ---------------------------------------------------------


@form_param
@mode_param
async def test_c1_threads_never_share_loaded_tools(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "admin_delete_user"})),
        ai(content="loaded on t1"),
        ai(call("admin_delete_user", {"id": "1"}, "t2-call")),
        ai(content="t2 done"),
        ai(call("admin_delete_user", {"id": "2"}, "anon-call")),
        ai(content="anonymous done"),
    ]
    h = build(form, steps, checkpointer=False)
    await h.run("load it", cfg("t1"), mode)
    assert h.bound[1] == [*META, "admin_delete_user"]
    out_t2 = await h.run("hello", cfg("t2"), mode)
    assert h.bound[2] == META
    out_anon = await h.run("hello", None, mode)
    assert h.bound[4] == META
    assert by_id(out_t2)["t2-call"].status == "error"
    assert by_id(out_anon)["anon-call"].status == "error"
    assert CALLS == []


@form_param
@mode_param
async def test_c1_context_storage_threads_never_share(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "admin_delete_user"})),
        ai(content="loaded on t1"),
        ai(content="t2"),
        ai(content="t1 again"),
    ]
    h = build(form, steps, storage="context")
    await h.run("load it", cfg("t1"), mode)
    await h.run("hello", cfg("t2"), mode)
    await h.run("hello", cfg("t1"), mode)
    assert h.bound == [META, [*META, "admin_delete_user"], META, [*META, "admin_delete_user"]]


# -- C2 A load is never reported without being stored --------------------------------------------


@form_param
@mode_param
@pytest.mark.parametrize(
    "config", [None, {"configurable": {}}, {"configurable": {"thread_id": ""}}]
)
async def test_c2a_no_thread_id_load_holds_for_the_rest_of_the_run(
    form: str, mode: str, config: Any
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
        ai(call("search_tools", {"query": "email"}, "s")),
        ai(call("get_weather", {"city": "Paris"}, "w")),
        ai(content="ok"),
    ]
    h = build(form, steps, checkpointer=False)
    out = await h.run("weather", config, mode)
    msgs = by_id(out)
    assert msgs["l"].artifact["success"] is True
    assert h.bound[1:] == [[*META, "get_weather"]] * 3  # held for every later step
    assert msgs["w"].status == "success"
    assert CALLS == [("get_weather", "Paris")]


@mode_param
async def test_c2a_graph_that_cannot_store_the_load_does_not_claim_it(mode: str) -> None:
    from langgraph.graph import MessagesState

    steps = [ai(call("load_tool", {"tool_name": "get_weather"}, "l")), ai(content="ok")]
    h = build("node", steps, state_schema=MessagesState, checkpointer=False)
    out = await h.run("weather", None, mode)
    receipt = by_id(out)["l"].artifact
    assert receipt["success"] is False and receipt["loaded"] == []
    assert h.bound[1] == META


@form_param
@mode_param
@pytest.mark.parametrize("artifact", [True, False])
@pytest.mark.parametrize(
    "args", [{"tool_name": "get_weather"}, {"tool_names": ["get_weather"]}], ids=["one", "list"]
)
async def test_c2b_context_receipt_binds_on_the_next_step(
    form: str, mode: str, artifact: bool, args: dict[str, Any]
) -> None:
    steps = [ai(call("get_weather", {"city": "Paris"}, "w")), ai(content="sunny")]
    h = build(form, steps, storage="context")
    history = _receipt_history(args, ["get_weather"], artifact=artifact)
    out = await h.run(history, cfg(), mode)
    assert h.bound[0] == [*META, "get_weather"]
    assert by_id(out)["w"].status == "success"
    assert CALLS == [("get_weather", "Paris")]


@form_param
@mode_param
async def test_c2b_context_load_by_original_name_binds(form: str, mode: str) -> None:
    def run(city: str) -> str:
        CALLS.append(("weather.get", city))
        return "ok"

    dotted = StructuredTool.from_function(run, name="weather.get", description="Weather")
    steps = [
        ai(call("load_tool", {"tool_name": "weather.get"}, "l")),
        lambda _m: ai(call(safe, {"city": "Oslo"}, "w")),
        ai(content="done"),
    ]
    h = build(form, steps, storage="context", tools=[*library(), dotted])
    safe = h.ts.library.resolve("weather.get")
    out = await h.run("go", cfg(), mode)
    assert h.bound[1] == [*META, safe]
    assert by_id(out)["w"].status == "success"


# -- C3 Search hits are not loads ----------------------------------------------------------------


@form_param
@mode_param
async def test_c3_search_hits_are_not_loads(form: str, mode: str) -> None:
    body = {
        "results": [
            {"name": "get_weather", "description": "Get current weather for a city", "score": 0.9},
            {"name": "send_email", "description": "Send an email to a recipient", "score": 0.5},
        ],
        "message": "Found 2 tool(s). Load the ones you need with load_tool.",
    }
    history = [
        HumanMessage("weather?"),
        AIMessage("", tool_calls=[call("search_tools", {"query": "weather email"}, "s1")]),
        ToolMessage(json.dumps(body), artifact=body, tool_call_id="s1", name="search_tools"),
    ]
    steps = [ai(call("get_weather", {"city": "Paris"}, "w")), ai(content="ok")]
    h = build(form, steps, storage="context")
    out = await h.run(history, cfg(), mode)
    assert h.bound == [META, META]
    assert by_id(out)["w"].status == "error"
    assert CALLS == []


@form_param
@mode_param
@pytest.mark.parametrize(
    "forgery", ["error-status", "not-requested", "no-matching-call", "wrong-tool"]
)
async def test_c3_only_genuine_load_receipts_count(form: str, mode: str, forgery: str) -> None:
    history = _receipt_history({"tool_name": "get_weather"}, ["get_weather"], artifact=True)
    receipt: ToolMessage = history[-1]
    if forgery == "error-status":
        history[-1] = receipt.model_copy(update={"status": "error"})
    elif forgery == "not-requested":  # the receipt lists a tool the call never asked for
        body = {**receipt.artifact, "loaded": ["get_weather", "admin_delete_user"]}
        history[-1] = receipt.model_copy(update={"artifact": body, "content": json.dumps(body)})
    elif forgery == "no-matching-call":
        history[-1] = receipt.model_copy(update={"tool_call_id": "someone-else"})
    else:  # answers a call of another tool
        history[1] = AIMessage("", tool_calls=[call("get_weather", {"city": "x"}, "load-1")])
    steps = [ai(call("admin_delete_user", {"id": "1"}, "x")), ai(content="ok")]
    h = build(form, steps, storage="context")
    out = await h.run(history, cfg(), mode)
    expected = [*META, "get_weather"] if forgery == "not-requested" else META
    assert h.bound[0] == expected
    assert by_id(out)["x"].status == "error" and CALLS == []


# -- C4 Unloaded tools never run ------------------------------------------------------------------


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "context"])
@pytest.mark.parametrize("name", ["admin_delete_user", "delete_user"])
async def test_c4_unloaded_tools_never_run(form: str, mode: str, storage: str, name: str) -> None:
    h = build(form, [ai(content="after")], storage=storage)
    config = cfg()
    await h.as_model(config, AIMessage("", tool_calls=[call(name, {"id": "42"}, "x1")]), mode)
    out = await h.run(None, config, mode)
    assert CALLS == []
    replies = tool_msgs(out)
    assert len(replies) == 1
    reply = replies[0]
    assert reply.tool_call_id == "x1" and reply.status == "error"
    assert "search_tools" in reply.content
    if name == "admin_delete_user":  # a real tool, not loaded: no name, not even its own
        assert [n for n in LIBRARY_NAMES if n in reply.content] == []
        assert reply.content == P.TOOL_NOT_LOADED
    else:  # a made-up name gets load_tool's suggestions (nothing is hidden here)
        suggestion = P.TOOL_SUGGEST.format(names="admin_delete_user")
        assert reply.content == P.TOOL_NOT_LOADED + suggestion


# -- C5 The filter holds in every phase and fails closed ----------------------------------------------


@form_param
@mode_param
async def test_c5_filter_in_search_load_and_active(form: str, mode: str) -> None:
    steps = [
        ai(call("search_tools", {"query": "delete user account"}, "s")),
        ai(call("load_tool", {"tool_name": "admin_delete_user"}, "l")),
        ai(call("load_tool", {"tool_name": "no_such_tool_here"}, "m")),
        ai(call("admin_delete_user", {"id": "42"}, "x")),
        ai(content="ok"),
    ]
    h = build(form, steps, filter=plan_filter, top_k=3)
    out = await h.run("delete user 42", cfg(plan="free"), mode)
    msgs = by_id(out)
    hits = [r["name"] for r in msgs["s"].artifact["results"]]
    assert "admin_delete_user" not in hits
    assert len(hits) == 3  # top_k still filled from allowed tools
    denied, missing = msgs["l"], msgs["m"]
    assert denied.content.replace("admin_delete_user", "N") == missing.content.replace(
        "no_such_tool_here", "N"
    )
    assert denied.status == missing.status
    assert msgs["x"].status == "error" and CALLS == []
    assert all("admin_delete_user" not in b for b in h.bound)


@form_param
@mode_param
@pytest.mark.parametrize("artifact", [True, False])
async def test_c5_forged_context_receipt_does_not_bind(
    form: str, mode: str, artifact: bool
) -> None:
    steps = [ai(call("admin_delete_user", {"id": "42"}, "x")), ai(content="ok")]
    h = build(form, steps, filter=plan_filter, storage="context")
    history = _receipt_history(
        {"tool_name": "admin_delete_user"}, ["admin_delete_user"], artifact=artifact
    )
    out = await h.run(history, cfg(plan="free"), mode)
    assert h.bound[0] == META
    assert by_id(out)["x"].status == "error" and CALLS == []


@form_param
@mode_param
async def test_c5_context_receipts_are_rechecked_in_the_load_phase(form: str, mode: str) -> None:
    def no_loading_admin(args: Any) -> bool:  # "active" alone would allow it
        return not (args.phase == "load" and args.tool_name.startswith("admin_"))

    steps = [ai(call("admin_delete_user", {"id": "42"}, "x")), ai(content="ok")]
    h = build(form, steps, filter=no_loading_admin, storage="context")
    history = _receipt_history(
        {"tool_name": "admin_delete_user"}, ["admin_delete_user"], artifact=True
    )
    out = await h.run(history, cfg(), mode)
    assert h.bound[0] == META
    assert by_id(out)["x"].status == "error" and CALLS == []


@form_param
@mode_param
async def test_c5_receipt_written_while_pro_does_not_bind_on_free(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "admin_delete_user"}, "l")),
        ai(content="loaded"),
        ai(call("admin_delete_user", {"id": "42"}, "x")),
        ai(content="refused"),
        ai(call("admin_delete_user", {"id": "43"}, "y")),
        ai(content="ran"),
    ]
    h = build(form, steps, filter=plan_filter, storage="context")
    await h.run("load", cfg(plan="pro"), mode)
    assert h.bound[1] == [*META, "admin_delete_user"]
    out = await h.run("delete", cfg(plan="free"), mode)
    assert h.bound[2] == META and h.bound[3] == META
    assert by_id(out)["x"].status == "error" and CALLS == []
    out = await h.run("delete", cfg(plan="pro"), mode)  # the receipt is still there
    assert by_id(out)["y"].status == "success"
    assert CALLS == [("admin_delete_user", "43")]


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "context"])
async def test_c5_plan_downgrade_hides_an_in_memory_or_context_load(
    form: str, mode: str, storage: str
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "admin_delete_user"})),
        ai(content="loaded"),
        ai(call("admin_delete_user", {"id": "42"}, "x")),
        ai(content="refused"),
    ]
    h = build(form, steps, filter=plan_filter, storage=storage)
    await h.run("load", cfg(plan="pro"), mode)
    out = await h.run("delete", cfg(plan="free"), mode)
    assert by_id(out)["x"].status == "error" and CALLS == []


@form_param
@mode_param
async def test_c5_a_raising_filter_denies(form: str, mode: str) -> None:
    def broken(args: Any) -> bool:
        if args.tool_name.startswith("admin_"):
            raise RuntimeError("billing service unreachable")
        return True

    steps = [
        ai(call("search_tools", {"query": "delete user account"}, "s")),
        ai(call("load_tool", {"tool_name": "admin_delete_user"}, "l")),
        ai(call("admin_delete_user", {"id": "42"}, "x")),
        ai(content="ok"),
    ]
    h = build(form, steps, filter=broken, storage="in-memory")
    out = await h.run("go", cfg(plan="pro"), mode)
    msgs = by_id(out)
    assert "admin_delete_user" not in [r["name"] for r in msgs["s"].artifact["results"]]
    assert msgs["l"].artifact["not_found"] == ["admin_delete_user"]
    assert msgs["x"].status == "error" and CALLS == []


# -- C6 Loaded tools get the caller's config -------------------------------------------------------


@form_param
@mode_param
async def test_c6_loaded_tool_sees_the_callers_user_id(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "whoami"})),
        ai(call("whoami", {}, "w1")),
        ai(content="you are u1"),
        ai(call("whoami", {}, "w2")),
        ai(content="you are u2"),
    ]
    h = build(form, steps)
    out = await h.run("who am i", cfg("t1", user_id="u1"), mode)
    assert by_id(out)["w1"].content == "user=u1"
    out = await h.run("and now?", cfg("t1", user_id="u2"), mode)
    assert by_id(out)["w2"].content == "user=u2"
    assert CALLS == [("whoami", "u1"), ("whoami", "u2")]


# -- C7 Messy load arguments --------------------------------------------------------------------------


@form_param
@mode_param
async def test_c7_messy_load_arguments(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_names": ["get_weather", "get_weather", "nope"]}, "a")),
        ai(call("load_tool", {"tool_names": []}, "b")),
        ai(call("load_tool", {"tool_name": "send_email", "tool_names": ["github_get_me"]}, "c")),
        ai(call("load_tool", {"tool": "x"}, "d")),
        ai(call("load_tool", {"tool_names": "slack_post_message"}, "e")),
        ai(call("get_weather", {"city": "Kyoto"}, "f")),
        ai(content="ok"),
    ]
    h = build(form, steps)
    out = await h.run("go", cfg(), mode)
    msgs = by_id(out)
    a = msgs["a"].artifact
    # a partial load answers success: false, listing both (issue 10, peer conformance)
    assert a["loaded"] == ["get_weather"] and a["not_found"] == ["nope"] and a["success"] is False
    assert msgs["b"].status == "error" and msgs["b"].artifact["message"] == P.LOAD_EMPTY_LIST
    assert msgs["c"].artifact["loaded"] == ["send_email", "github_get_me"]
    assert msgs["d"].status == "error"
    assert msgs["d"].artifact is None  # a validation error, not a receipt
    assert "tool" in msgs["d"].content
    # a bare name in tool_names loads it (issue 21: every shape of "one or more names")
    assert msgs["e"].artifact["loaded"] == ["slack_post_message"]
    loaded = ["get_weather", "send_email", "github_get_me", "slack_post_message"]
    assert h.bound[-1] == [*META, *loaded]
    assert msgs["f"].status == "success" and out["messages"][-1].content == "ok"


# -- C8 TTL and memory ---------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@form_param
@mode_param
async def test_c8_ttl_expires_a_thread_and_clear_state_resets_it(form: str, mode: str) -> None:
    clock = Clock()
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(content="loaded"),
        ai(call("get_weather", {"city": "Oslo"}, "late")),
        ai(content="expired"),
        ai(call("load_tool", {"tool_name": "send_email"})),
        ai(content="loaded again"),
        ai(content="cleared"),
    ]
    h = build(form, steps, clock=clock, ttl=60)
    await h.run("load", cfg(), mode)
    clock.now += 61
    out = await h.run("use", cfg(), mode)
    assert h.bound[2] == META
    assert by_id(out)["late"].status == "error" and CALLS == []
    await h.run("load", cfg(), mode)
    assert h.bound[5] == [*META, "send_email"]
    h.ts.clear_state("t1")
    await h.run("again", cfg(), mode)
    assert h.bound[6] == META


# C8 at scale (100,000 threads): tests/integration_tests/test_ttl_scale.py


# -- C9 Prompt-cache stable order ---------------------------------------------------------------------------


def _named(name: str, description: str) -> BaseTool:
    def run(x: str) -> str:
        return name

    return StructuredTool.from_function(run, name=name, description=description)


@form_param
@mode_param
async def test_c9_repeat_load_keeps_the_bound_bytes(form: str, mode: str) -> None:
    tools = [_named("zeta_tool", "Zeta things"), _named("alpha_tool", "Alpha things"), *library()]
    steps = [
        ai(call("load_tool", {"tool_name": "zeta_tool"})),
        ai(call("load_tool", {"tool_name": "alpha_tool"})),
        ai(call("load_tool", {"tool_name": "zeta_tool"})),
        ai(content="ok"),
    ]
    h = build(form, steps, tools=tools)
    await h.run("go", cfg(), mode)
    assert h.bound[1] == [*META, "zeta_tool"]
    assert h.bound[2] == [*META, "zeta_tool", "alpha_tool"]
    assert h.bound[3] == [*META, "zeta_tool", "alpha_tool"]
    assert h.model.bound_json[3] == h.model.bound_json[2]  # byte-identical after the repeat
    assert h.model.bound_json[2].startswith(h.model.bound_json[1][:-1])  # loads only append


# -- C10 Small catalogs score correctly ---------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 4])
def test_c10_small_catalogs_rank_the_matching_tool_first(size: int) -> None:
    others = [t for t in library() if t.name != "get_weather"][: size - 1]
    for catalog in ([*others, library()[0]], [library()[0], *others]):
        mw = ToolSearchMiddleware(tools=catalog, top_k=5)
        hits = mw.search("weather")
        assert hits[0].name == "get_weather"
        assert hits[0].score > 0 and hits[0].raw_score > 0
        assert all(h.score >= 0 and h.raw_score >= 0 for h in hits)


def test_c10_three_github_tools_all_returned() -> None:
    gh = [
        t
        for t in library()
        if t.name in ("github_get_me", "github_list_repos", "github_create_issue")
    ]
    mw = ToolSearchMiddleware(tools=gh, top_k=5)
    assert sorted(h.name for h in mw.search("github")) == sorted(t.name for t in gh)


# -- C11 Tool-name tokens ----------------------------------------------------------------------------------


GITHUB = {
    "github_get_me": "Get the authenticated user's GitHub profile",
    "github_list_repos": "List repositories of a GitHub user or organisation",
    "github_create_issue": "Create an issue in a GitHub repository",
    "github_get_issue": "Get details of a specific issue in a GitHub repository",
    "github_list_issues": "List issues in a GitHub repository",
    "github_update_issue": "Update an existing issue in a GitHub repository",
    "github_add_comment_to_pending_review": (
        "Add a review comment to the requester's latest pending pull request review"
    ),
    "github_create_pull_request": "Create a new pull request in a GitHub repository",
    "github_merge_pull_request": "Merge a pull request in a GitHub repository",
    "github_list_commits": "Get list of commits of a branch in a GitHub repository",
    "github_search_code": "Search for code across GitHub repositories",
    "github_get_file_contents": "Get the contents of a file or directory from a GitHub repository",
}
C11_OTHERS = {
    "addPerson_mcp_pipedrive": "Add a person to Pipedrive",
    "addActivity_mcp_pipedrive": "Add an activity to Pipedrive",
    "bitable_v1_appTableRecord_search": "Query rows of a multidimensional sheet",
    "mcp__plugin_x__ask_codex": "Delegate a question to another assistant",
}


def _c11() -> ToolSearchMiddleware:
    tools = [_named(n, d) for n, d in {**C11_OTHERS, **GITHUB}.items()]
    return ToolSearchMiddleware(tools=tools, top_k=5)


def test_c11_identifier_tokens() -> None:
    mw = _c11()

    def top(query: str) -> list[str]:
        return [h.name for h in mw.search(query)]

    assert len(GITHUB) == 12
    assert top("addPerson")[0] == "addPerson_mcp_pipedrive"
    assert "bitable_v1_appTableRecord_search" in top("table record")
    assert top("ask_codex")[0] == "mcp__plugin_x__ask_codex"
    assert "github_get_me" in top("github profile")
    get_me = top("get me")
    assert get_me[0] == "github_get_me"
    assert "github_add_comment_to_pending_review" not in get_me
    assert all(len(top(q)) <= 5 for q in ("github", "get", "issue"))
    for name in [*GITHUB, *C11_OTHERS]:  # an exact tool name always ranks first
        hits = mw.search(name)
        assert hits[0].name == name, name
        assert hits[0].score >= 0.9


def test_c11_text_variants_of_a_name_rank_it_first() -> None:
    mw = _c11()
    for query in ("github get me", "GitHub-Get-Me", "add person", "appTableRecord"):
        assert mw.search(query), query
    assert mw.search("github get me")[0].name == "github_get_me"
    assert mw.search("add person")[0].name == "addPerson_mcp_pipedrive"
    assert mw.search("appTableRecord")[0].name == "bitable_v1_appTableRecord_search"


def _messages(h: Any) -> list[BaseMessage]:  # pragma: no cover - debugging helper
    return h.model.seen[-1]
