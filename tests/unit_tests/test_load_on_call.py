"""``load_on_call=True``: a call of an allowed library tool that is not loaded loads it for
the next step and is answered with its parameters; the call itself never runs. A tool the
filter denies, or that is not in the library, gets the usual refusal. Real
``create_agent`` and ``ToolSearchNode`` graphs, sync and async, callers interleaved.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from langchain_toolsearch import ToolSearchMiddleware
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._support import counts
from langchain_toolsearch.errors import ToolSearchConfigError
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import CALLS, library, plan_filter
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param

STORAGES = pytest.mark.parametrize("storage", ["in-memory", "store"])


def _delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}


@form_param
@mode_param
@STORAGES
async def test_a_call_before_load_loads_the_tool_and_never_runs(
    form: str, mode: str, storage: str
) -> None:
    steps = [
        ai(call("get_weather", {"city": "Oslo"}, "early")),
        ai(call("get_weather", {"city": "Oslo"}, "again")),
        ai(content="done"),
    ]
    h = build(form, steps, load_on_call=True, storage=storage)
    before = counts()
    out = await h.run("weather in Oslo?", cfg(), mode)
    early = by_id(out)["early"]
    assert early.status == "error"
    assert early.content.startswith(
        P.TOOL_LOADED_ON_CALL.split("{parameters}")[0].format(name="get_weather")
    )
    assert "call it again" in early.content and "call_tool" not in early.content
    schema = json.loads(early.content.split("(JSON schema): ", 1)[1])
    assert list(schema["properties"]) == ["city"]
    assert h.bound[0] == META and h.bound[1] == [*META, "get_weather"]
    assert by_id(out)["again"].status == "success"
    assert CALLS == [("get_weather", "Oslo")]  # once: the second call, not the first
    moved = _delta(before, counts())
    assert moved["toolsearch.call.refused{reason=not_loaded}"] == 1
    assert moved["toolsearch.load.calls{via=call}"] == 1


@form_param
@mode_param
@pytest.mark.parametrize("direct", [True, False], ids=["direct", "call_tool"])
async def test_stable_mode_says_to_call_it_with_call_tool(
    form: str, mode: str, direct: bool
) -> None:
    """Nothing new is bound in stable mode: the answer names ``call_tool``, not a call again."""
    via = {"tool_name": "get_weather", "arguments": {"city": "Oslo"}}
    early = (
        call("get_weather", {"city": "Oslo"}, "early")
        if direct
        else call("call_tool", via, "early")
    )
    steps = [ai(early), ai(call("call_tool", via, "again")), ai(content="done")]
    h = build(form, steps, load_on_call=True, mode="stable")
    out = await h.run("weather in Oslo?", cfg(), mode)
    answer = by_id(out)["early"]
    head = P.TOOL_LOADED_ON_CALL_STABLE.split("{parameters}")[0].format(name="get_weather")
    assert answer.status == "error" and answer.content.startswith(head)
    assert 'call_tool(tool_name="get_weather"' in answer.content
    assert "call it again" not in answer.content
    assert list(json.loads(answer.content.split("(JSON schema): ", 1)[1])["properties"]) == ["city"]
    assert h.bound[0] == h.bound[1] == h.bound[2]  # the stable tools only
    assert by_id(out)["again"].status == "success" and CALLS == [("get_weather", "Oslo")]


@form_param
@mode_param
async def test_without_the_option_the_call_is_refused_as_before(form: str, mode: str) -> None:
    h = build(form, [ai(call("get_weather", {"city": "Oslo"}, "early")), ai(content="done")])
    out = await h.run("weather?", cfg(), mode)
    assert by_id(out)["early"].content == P.TOOL_NOT_LOADED
    assert h.bound[1] == META and CALLS == []


@form_param
@mode_param
@STORAGES
async def test_one_callers_recovery_never_loads_for_another(
    form: str, mode: str, storage: str
) -> None:
    """Interleaved step by step: pro's recovery; free (filter denies) gets the plain refusal."""
    steps = [
        ai(call("admin_delete_user", {"id": "pro"}, "p1")),  # pro: model step
        ai(call("admin_delete_user", {"id": "free"}, "f1")),  # free: model step
        ai(call("admin_delete_user", {"id": "pro"}, "p2")),  # pro: after its recovery
        ai(call("get_weather", {"city": "Lima"}, "f2")),  # free: after its refusal
        ai(content="pro done"),
        ai(content="free done"),
    ]
    h = build(
        form,
        steps,
        load_on_call=True,
        filter=plan_filter,
        storage=storage,
        interrupt_before=["tools"],
    )
    pro, free = cfg("tp", plan="pro"), cfg("tf", plan="free")
    await h.run("delete", pro, mode)
    await h.run("delete", free, mode)
    out_pro = await h.run(None, pro, mode)  # pro's tool step: recovered, then its model step
    out_free = await h.run(None, free, mode)
    assert (
        by_id(out_pro)["p1"].status == "error" and "admin_delete_user" in by_id(out_pro)["p1"].text
    )
    assert by_id(out_free)["f1"].content == P.TOOL_NOT_LOADED  # no hint the tool exists
    assert h.bound[2] == [*META, "admin_delete_user"]  # pro's next step
    assert h.bound[3] == META  # free's next step
    out_pro = await h.run(None, pro, mode)
    out_free = await h.run(None, free, mode)
    assert by_id(out_pro)["p2"].status == "success"
    assert "get_weather was not loaded" in by_id(out_free)["f2"].text  # free's own recovery
    assert CALLS == [("admin_delete_user", "pro")]
    assert h.ts.get_loaded_tools(free, store=h.graph_store) == ["get_weather"]


@form_param
@mode_param
async def test_a_sibling_call_of_the_same_step_never_runs(form: str, mode: str) -> None:
    steps = [
        AIMessage(
            "",
            tool_calls=[
                call("send_email", {"to": "a", "body": "x"}, "one"),
                call("send_email", {"to": "b", "body": "y"}, "two"),
            ],
        ),
        ai(content="done"),
    ]
    h = build(form, steps, load_on_call=True)
    out = await h.run("mail", cfg(), mode)
    assert by_id(out)["one"].status == by_id(out)["two"].status == "error"
    assert CALLS == []


@form_param
@mode_param
async def test_a_recovered_tool_stays_in_a_full_working_set(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "send_email"})),
        ai(call("get_weather", {"city": "Oslo"}, "early")),
        ai(call("get_weather", {"city": "Oslo"}, "again")),
        ai(content="done"),
    ]
    h = build(form, steps, load_on_call=True, max_loaded=1)
    out = await h.run("go", cfg(), mode)
    assert h.bound[2] == [*META, "get_weather"]
    assert by_id(out)["again"].status == "success"


@form_param
@mode_param
@pytest.mark.parametrize(("config", "name"), [(cfg(), "no_such_tool"), (None, "get_weather")])
async def test_unknown_tools_and_threadless_runs_get_the_usual_refusal(
    form: str, mode: str, config: Any, name: str
) -> None:
    steps = [ai(call(name, {"city": "Oslo"}, "x")), ai(content="done")]
    h = build(form, steps, load_on_call=True, checkpointer=config is not None)
    out = await h.run("go", config, mode)
    assert by_id(out)["x"].content.startswith(P.TOOL_NOT_LOADED)
    assert CALLS == [] and h.bound[1] == META


def test_load_on_call_needs_a_storage_that_keeps_loads() -> None:
    with pytest.raises(ToolSearchConfigError, match='storage="context"'):
        ToolSearchMiddleware(tools=library(), load_on_call=True, storage="context")
    with pytest.raises(ToolSearchConfigError, match="load_on_call must be True or False"):
        ToolSearchMiddleware(tools=library(), load_on_call="yes")  # type: ignore[arg-type]
