"""Pinned tools (``pinned=[...]``): bound from the first step before loaded tools, never
evicted nor counted by the working set, still filtered for every caller; the option's
mistakes raise at construction. Real ``create_agent`` and ``ToolSearchNode`` graphs,
sync and async. Trusted MCP servers' pins are in ``tests/integration_tests``.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch._modes import DEFER_KEY
from langchain_toolsearch._steps import schema_tokens
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchTypeError
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import CALLS, get_weather, library, plan_filter
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param


@form_param
@mode_param
async def test_a_pinned_tool_is_bound_first_and_runs_without_a_load(form: str, mode: str) -> None:
    steps = [
        ai(call("get_weather", {"city": "Oslo"}, "w")),
        ai(call("load_tool", {"tool_names": ["send_email", "get_weather"]}, "l")),
        ai(content="done"),
    ]
    h = build(form, steps, pinned=["get_weather"])
    out = await h.run("weather?", cfg(), mode)
    assert h.bound[0] == [*META, "get_weather"]
    assert h.bound[2] == [*META, "get_weather", "send_email"]  # pinned before loaded
    assert by_id(out)["w"].status == "success" and CALLS == [("get_weather", "Oslo")]
    receipt = by_id(out)["l"].artifact
    assert receipt["loaded"] == ["send_email"] and receipt["already_loaded"] == ["get_weather"]
    assert h.ts.get_loaded_tools(cfg()) == ["get_weather", "send_email"]


@form_param
@mode_param
async def test_pinned_tools_are_never_evicted_nor_counted(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "send_email"})),
        ai(call("load_tool", {"tool_name": "slack_post_message"})),
        ai(call("get_weather", {"city": "Rome"}, "w")),
        ai(content="done"),
    ]
    h = build(form, steps, pinned=[get_weather], max_loaded=1)
    out = await h.run("go", cfg(), mode)
    assert h.bound[1] == [*META, "get_weather", "send_email"]  # one loaded tool besides
    assert h.bound[2] == [*META, "get_weather", "slack_post_message"]
    assert by_id(out)["w"].status == "success"


@form_param
@mode_param
async def test_a_pinned_tool_the_filter_denies_is_not_bound_and_never_runs(
    form: str, mode: str
) -> None:
    """Two callers interleaved: the pinned tool binds and runs for the allowed one only."""
    steps = [
        ai(call("admin_delete_user", {"id": "free"}, "f1")),  # free: model step
        ai(call("admin_delete_user", {"id": "pro"}, "p1")),  # pro: model step
        ai(content="free done"),
        ai(content="pro done"),
    ]
    h = build(
        form, steps, pinned=["admin_delete_user"], filter=plan_filter, interrupt_before=["tools"]
    )
    free, pro = cfg("tf", plan="free"), cfg("tp", plan="pro")
    await h.run("delete", free, mode)
    await h.run("delete", pro, mode)
    out_free = await h.run(None, free, mode)  # free's tool step runs after pro's model step
    out_pro = await h.run(None, pro, mode)
    assert h.bound[0] == META and h.bound[1] == [*META, "admin_delete_user"]
    assert by_id(out_free)["f1"].status == "error"
    assert "admin_delete_user" not in str(by_id(out_free)["f1"].content)
    assert by_id(out_pro)["p1"].status == "success"
    assert CALLS == [("admin_delete_user", "pro")]


def test_pinned_tools_bind_as_they_are_in_native_mode() -> None:
    pytest.importorskip("langchain_anthropic")
    mw = ToolSearchMiddleware(tools=library(), provider="anthropic", pinned=["get_weather"])
    scope = mw._engine.scopes.build({}, {"messages": [HumanMessage("hi")]})
    from langchain_toolsearch._effects import drive

    step = drive(mw._engine.model_step(scope, mw.meta_tools))
    extras = {t.name: (t.extras or {}).get(DEFER_KEY) for t in step.tools if hasattr(t, "extras")}
    assert extras["get_weather"] is None and extras["send_email"] is True


@pytest.mark.parametrize(
    ("pinned", "error", "says"),
    [
        (["get_wether"], ToolSearchConfigError, "did you mean 'get_weather'"),
        (["search_tools"], ToolSearchConfigError, "a meta tool is always bound"),
        ("get_weather", ToolSearchTypeError, "pinned=['get_weather']"),
        ([42], ToolSearchTypeError, "list of library tool names or tools"),
    ],
)
def test_pinned_mistakes_raise_at_construction(pinned: object, error: type, says: str) -> None:
    with pytest.raises(error, match=says.replace("[", r"\[").replace("]", r"\]")):
        ToolSearchMiddleware(tools=library(), pinned=pinned)  # type: ignore[arg-type]


def test_pins_over_their_token_budget_raise() -> None:
    cost = schema_tokens(get_weather)
    ToolSearchMiddleware(tools=library(), pinned=["get_weather"], pinned_max_tokens=cost)
    with pytest.raises(ToolSearchConfigError, match="pin fewer tools or raise pinned_max_tokens"):
        ToolSearchMiddleware(tools=library(), pinned=["get_weather"], pinned_max_tokens=cost - 1)
    with pytest.raises(ToolSearchConfigError, match="pinned_max_tokens"):
        ToolSearchMiddleware(tools=library(), pinned_max_tokens=0)
