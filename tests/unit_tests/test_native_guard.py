"""The execution guard and the filter with ``provider="anthropic"``, in both forms and modes.

The scripted model of the harness (no HTTP; the bytes are in
``test_native_anthropic.py``) plays the cases the guard and filter tests
play for today's flow: a tool never referenced, a tool referenced in the
same step, another thread's load, a tool the filter denies now, a filter
that raises in each phase; each in every storage mode where it matters.
Every tool stays bound (deferred) at every step, and a tool runs only once
referenced for this caller and allowed now.
"""

from __future__ import annotations

from typing import Any

import pytest

from langchain_toolsearch import ToolSearchFilterArgs
from langchain_toolsearch import _prompts as P
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import CALLS, library
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param

STORAGES = pytest.mark.parametrize("storage", ["in-memory", "context", "store"])
EVERYTHING = ["search_tools", *(t.name for t in library())]


def native(form: str, steps: list[Any], **options: Any) -> Any:
    return build(form, steps, provider="anthropic", top_k=1, **options)


@form_param
@mode_param
@STORAGES
async def test_only_a_referenced_tool_runs_and_the_binding_never_changes(
    form: str, mode: str, storage: str
) -> None:
    steps = [
        ai(call("send_email", {"to": "a@b.c", "body": "x"}, "early")),  # deferred, not referenced
        ai(call("search_tools", {"query": "weather in a city"}, "s")),
        ai(call("get_weather", {"city": "Bern"}, "w")),
        ai(content="ok"),
    ]
    h = native(form, steps, storage=storage)
    out = await h.run("weather in Bern", cfg(), mode)
    msgs = by_id(out)
    assert msgs["early"].status == "error" and msgs["early"].content.startswith(
        P.TOOL_NOT_LOADED_AUTO
    )
    assert msgs["s"].content == [{"type": "tool_reference", "tool_name": "get_weather"}]
    assert msgs["w"].status == "success"
    assert CALLS == [("get_weather", "Bern")]
    assert h.bound == [EVERYTHING] * 4


@form_param
@mode_param
async def test_a_tool_referenced_in_the_same_step_waits_for_the_next(form: str, mode: str) -> None:
    steps = [
        ai(
            call("search_tools", {"query": "weather in a city"}, "s"),
            call("get_weather", {"city": "Oslo"}, "same"),
        ),
        ai(call("get_weather", {"city": "Oslo"}, "next")),
        ai(content="ok"),
    ]
    h = native(form, steps)
    msgs = by_id(await h.run("weather in Oslo", cfg(), mode))
    assert msgs["same"].status == "error"  # which text depends on whether the search ran first
    assert msgs["same"].content in (P.TOOL_LOADED_THIS_STEP, P.TOOL_NOT_LOADED_AUTO)
    assert msgs["next"].status == "success" and CALLS == [("get_weather", "Oslo")]


@form_param
@mode_param
@STORAGES
async def test_a_reference_on_one_thread_runs_nothing_on_another(
    form: str, mode: str, storage: str
) -> None:
    steps = [
        ai(call("search_tools", {"query": "weather in a city"}, "s")),
        ai(content="found"),
        ai(call("get_weather", {"city": "Rome"}, "other")),
        ai(content="refused"),
    ]
    h = native(form, steps, storage=storage)
    await h.run("find weather", cfg("t1"), mode)
    out = await h.run("weather in Rome", cfg("t2"), mode)
    assert by_id(out)["other"].status == "error"
    assert CALLS == []


@form_param
@mode_param
@STORAGES
async def test_a_tool_denied_now_is_unbound_and_refused_then_back(
    form: str, mode: str, storage: str
) -> None:
    def decide(args: ToolSearchFilterArgs) -> bool:
        hide = (args.config.get("configurable") or {}).get("hide", False)
        return not (args.phase == "active" and hide and args.tool_name == "get_weather")

    steps = [
        ai(call("search_tools", {"query": "weather in a city"}, "s")),
        ai(content="found"),
        ai(call("get_weather", {"city": "Riga"}, "hidden")),
        ai(content="refused"),
        ai(call("get_weather", {"city": "Riga"}, "back")),
        ai(content="ran"),
    ]
    h = native(form, steps, storage=storage, filter=decide)
    await h.run("find weather", cfg(hide=False), mode)
    out = await h.run("weather in Riga", cfg(hide=True), mode)
    assert by_id(out)["hidden"].status == "error" and CALLS == []
    assert h.bound[2] == h.bound[3] == [n for n in EVERYTHING if n != "get_weather"]
    out = await h.run("again", cfg(hide=False), mode)
    assert by_id(out)["back"].status == "success" and CALLS == [("get_weather", "Riga")]
    assert h.bound[4] == EVERYTHING  # back without a new search


@form_param
@mode_param
@pytest.mark.parametrize("phase", ["search", "load", "active"])
async def test_a_raising_filter_denies_in_every_phase(form: str, mode: str, phase: str) -> None:
    def decide(args: ToolSearchFilterArgs) -> bool:
        if args.phase == phase and args.tool_name == "get_weather":
            raise RuntimeError("policy service down")
        return True

    steps = [
        ai(call("search_tools", {"query": "weather in a city"}, "s")),
        ai(call("get_weather", {"city": "Kyiv"}, "w")),
        ai(content="ok"),
    ]
    h = native(form, steps, filter=decide)
    msgs = by_id(await h.run("weather in Kyiv", cfg(), mode))
    referenced = msgs["s"].content
    assert not (
        isinstance(referenced, list)
        and {"type": "tool_reference", "tool_name": "get_weather"} in referenced
    )
    assert msgs["w"].status == "error" and CALLS == []
    assert ("get_weather" in h.bound[0]) is (phase != "active")
