"""What a load promises, through real ``create_agent`` and ``StateGraph`` graphs, sync
and async: threads never share loaded tools, a load is never reported without being
stored, search hits are not loads, unloaded tools never run, the filter holds in every
phase and fails closed, loaded tools get the caller's config, messy load arguments load,
the TTL frees a thread, and repeat loads keep the bound bytes (prompt caching).
The MCP forms of these promises are in ``tests/integration_tests/test_mcp.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch import _prompts as P
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import CALLS, library, plan_filter
from tests.support.storage_helpers import load_receipt_history
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs

BOTH = [form_param, mode_param]
LIBRARY_NAMES = [t.name for t in library()]


def _receipt_history(call_args: dict[str, Any], loaded: list[str], *, artifact: bool) -> list[Any]:
    return load_receipt_history("weather in Paris?", call_args, loaded, artifact=artifact)


# -- Threads never share loaded tools ---------------------------------------------------------


@form_param
@mode_param
async def test_threads_never_share_loaded_tools(form: str, mode: str) -> None:
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
async def test_context_storage_threads_never_share(form: str, mode: str) -> None:
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


# -- A load is never reported without being stored --------------------------------------------


@form_param
@mode_param
@pytest.mark.parametrize(
    "config", [None, {"configurable": {}}, {"configurable": {"thread_id": ""}}]
)
async def test_a_threadless_load_holds_for_the_rest_of_the_run(
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
async def test_a_graph_that_cannot_store_the_load_does_not_claim_it(mode: str) -> None:
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
async def test_a_context_receipt_binds_on_the_next_step(
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
async def test_a_context_load_by_original_name_binds(form: str, mode: str) -> None:
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


# -- Search hits are not loads ----------------------------------------------------------------


@form_param
@mode_param
async def test_search_hits_are_not_loads(form: str, mode: str) -> None:
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
async def test_only_genuine_load_receipts_count(form: str, mode: str, forgery: str) -> None:
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


# -- Unloaded tools never run ------------------------------------------------------------------


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "context"])
@pytest.mark.parametrize("name", ["admin_delete_user", "delete_user"])
async def test_unloaded_tools_never_run(form: str, mode: str, storage: str, name: str) -> None:
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


# -- The filter holds in every phase and fails closed ----------------------------------------------


@form_param
@mode_param
async def test_the_filter_holds_in_search_load_and_active(form: str, mode: str) -> None:
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
async def test_a_forged_context_receipt_does_not_bind(form: str, mode: str, artifact: bool) -> None:
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
async def test_context_receipts_are_rechecked_in_the_load_phase(form: str, mode: str) -> None:
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
async def test_a_receipt_written_while_pro_does_not_bind_on_free(form: str, mode: str) -> None:
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
async def test_a_plan_downgrade_hides_an_in_memory_or_context_load(
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
async def test_a_raising_filter_denies(form: str, mode: str) -> None:
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


# -- Loaded tools get the caller's config -------------------------------------------------------


@form_param
@mode_param
async def test_a_loaded_tool_sees_the_callers_user_id(form: str, mode: str) -> None:
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


# -- Messy load arguments --------------------------------------------------------------------------


@form_param
@mode_param
async def test_messy_load_arguments(form: str, mode: str) -> None:
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
    # a partial load answers success: false, listing both
    assert a["loaded"] == ["get_weather"] and a["not_found"] == ["nope"] and a["success"] is False
    assert msgs["b"].status == "error" and msgs["b"].artifact["message"] == P.LOAD_EMPTY_LIST
    assert msgs["c"].artifact["loaded"] == ["send_email", "github_get_me"]
    assert msgs["d"].status == "error"
    assert msgs["d"].artifact is None  # a validation error, not a receipt
    assert "tool" in msgs["d"].content
    # a bare name in tool_names loads it (every shape of "one or more names" is taken)
    assert msgs["e"].artifact["loaded"] == ["slack_post_message"]
    loaded = ["get_weather", "send_email", "github_get_me", "slack_post_message"]
    assert h.bound[-1] == [*META, *loaded]
    assert msgs["f"].status == "success" and out["messages"][-1].content == "ok"


# -- TTL and memory ---------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@form_param
@mode_param
async def test_ttl_expires_a_thread_and_clear_state_resets_it(form: str, mode: str) -> None:
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


# the TTL at scale (100,000 threads): tests/integration_tests/test_ttl_scale.py


# -- Prompt-cache stable order ---------------------------------------------------------------------------


def _named(name: str, description: str) -> BaseTool:
    def run(x: str) -> str:
        return name

    return StructuredTool.from_function(run, name=name, description=description)


@form_param
@mode_param
async def test_a_repeat_load_keeps_the_bound_bytes(form: str, mode: str) -> None:
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


def _messages(h: Any) -> list[BaseMessage]:  # pragma: no cover - debugging helper
    return h.model.seen[-1]
