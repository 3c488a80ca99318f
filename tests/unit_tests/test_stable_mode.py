"""``mode="stable"``: the bound tools never change; loaded tools run through ``call_tool``.

Through real ``create_agent`` and ``StateGraph`` graphs, sync and async, in every storage:
every model step binds the same bytes through a multi-load conversation; the loaded
tool's definition comes in ``load_tool``'s (or auto-load ``search_tools``') answer; a
``call_tool`` call runs the tool it names through the same guard as a bound call (loaded,
this caller's, allowed, not a meta tool), its arguments validated against the tool's
schema, injected arguments passed as when bound, the answer on ``call_tool``'s id.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt import InjectedState, InjectedStore, ToolRuntime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode
from langchain_toolsearch import _prompts as P
from langchain_toolsearch._support import counts
from langchain_toolsearch.errors import ToolSearchConfigError, ToolSearchWiringError
from tests.support.fakes import ai, by_id, call
from tests.support.library_fixtures import CALLS, get_weather, library, plan_filter
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param
from tests.unit_tests.test_started_calls import _run as crash_and_resume

STABLE = ["search_tools", "load_tool", "call_tool"]
STORAGES = pytest.mark.parametrize("storage", ["in-memory", "context", "store"])


def via(name: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
    """A ``call_tool`` call of ``name``."""
    return call("call_tool", {"tool_name": name, "arguments": arguments}, call_id)


def _multi_load() -> list[Any]:
    return [
        ai(call("search_tools", {"query": "weather in a city"}, "s")),
        ai(call("load_tool", {"tool_name": "get_weather"}, "la")),
        ai(via("get_weather", {"city": "Paris"}, "ca")),
        ai(call("load_tool", {"tool_name": "send_email"}, "lb")),
        ai(via("send_email", {"to": "ann@example.com", "body": "hi"}, "cb")),
        ai(content="done"),
    ]


# -- The bound tools never change -----------------------------------------------------------------


@form_param
@mode_param
@STORAGES
async def test_every_step_binds_the_same_bytes_through_loads(
    form: str, mode: str, storage: str
) -> None:
    h = build(form, _multi_load(), mode="stable", storage=storage)
    out = await h.run("weather, then mail it", cfg(), mode)
    assert CALLS == [("get_weather", "Paris"), ("send_email", "ann@example.com")]
    assert len(h.model.bound_json) == 6
    assert len(set(h.model.bound_json)) == 1  # byte-identical at every step
    assert h.bound[0] == STABLE
    replies = by_id(out)
    assert replies["ca"].content == "Sunny in Paris" and replies["ca"].status == "success"
    assert replies["cb"].content == "sent to ann@example.com"
    assert h.ts.get_loaded_tools(cfg(), out, store=h.graph_store) == ["get_weather", "send_email"]


@form_param
async def test_the_same_library_without_stable_binds_each_load(form: str) -> None:
    h = build(form, _multi_load()[:2])
    await h.run("weather", cfg())
    assert len(set(h.model.bound_json)) == 2  # what stable mode avoids


async def test_the_hint_says_how_loaded_tools_are_called() -> None:
    node = ToolSearchNode(tools=library(), mode="stable")
    assert node.system_prompt_hint == P.SYSTEM_HINT_TWO_STEP + P.SYSTEM_HINT_STABLE
    assert [t.name for t in node.meta_tools] == STABLE
    auto = ToolSearchNode(tools=library(), mode="stable", auto_load=True)
    assert [t.name for t in auto.meta_tools] == ["search_tools", "call_tool"]


# -- The definition reaches the model in the answers --------------------------------------------


def _parameters(t: BaseTool) -> Any:
    return convert_to_openai_tool(t)["function"]["parameters"]


@form_param
async def test_load_tool_answers_the_loaded_tools_definitions(form: str) -> None:
    h = build(form, _multi_load()[:2], mode="stable")
    out = await h.run("weather", cfg())
    receipt = by_id(out)["la"]
    body = json.loads(str(receipt.content))
    assert body == receipt.artifact
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": "Get current weather for a city",
            "parameters": _parameters(get_weather),
        }
    ]


@form_param
async def test_auto_load_search_answers_the_definitions(form: str) -> None:
    steps = [
        ai(call("search_tools", {"query": "weather in a city"}, "s")),
        ai(via("get_weather", {"city": "Oslo"}, "c")),
        ai(content="done"),
    ]
    h = build(form, steps, mode="stable", auto_load=True, top_k=1)
    out = await h.run("weather", cfg())
    body = by_id(out)["s"].artifact
    assert [d["name"] for d in body["tools"]] == body["activation"]["loaded"] == ["get_weather"]
    assert CALLS == [("get_weather", "Oslo")]
    assert len(set(h.model.bound_json)) == 1


def test_a_definition_shows_cleaned_text_and_no_injected_argument() -> None:
    @tool
    def report(topic: str, runtime: ToolRuntime) -> str:
        """Report\u200b on a topic\x1b[31m"""
        return topic

    mw = ToolSearchMiddleware(tools=[report], mode="stable")
    from langchain_toolsearch._effects import drive
    from langchain_toolsearch._modes import definitions

    scope = drive(mw._engine.scopes.scope({}, {}))
    (found,) = drive(definitions(mw._engine.access, scope, ["report"]))
    assert found["description"] == "Report on a topic"
    assert list(found["parameters"]["properties"]) == ["topic"]


# -- call_tool runs through the guard -----------------------------------------------------------


@form_param
@mode_param
@STORAGES
async def test_a_call_before_load_never_runs(form: str, mode: str, storage: str) -> None:
    steps = [ai(via("admin_delete_user", {"id": "42"}, "x")), ai(content="ok")]
    h = build(form, steps, mode="stable", storage=storage)
    before = counts().get("toolsearch.call.refused{reason=not_loaded}", 0)
    out = await h.run("delete 42", cfg(), mode)
    reply = by_id(out)["x"]
    assert CALLS == [] and reply.status == "error"
    assert reply.content == P.TOOL_NOT_LOADED
    assert counts()["toolsearch.call.refused{reason=not_loaded}"] == before + 1


@form_param
@mode_param
async def test_a_tool_another_thread_loaded_never_runs(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "admin_delete_user"})),
        ai(content="loaded on t1"),
        ai(via("admin_delete_user", {"id": "1"}, "t2-call")),
        ai(content="t2 done"),
    ]
    h = build(form, steps, mode="stable")
    await h.run("load it", cfg("t1"), mode)
    out = await h.run("delete", cfg("t2"), mode)
    assert by_id(out)["t2-call"].status == "error" and CALLS == []


@form_param
@mode_param
async def test_two_threads_interleaved_step_by_step(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "a1")),  # t1
        ai(via("get_weather", {"city": "Oslo"}, "b1")),  # t2, never loaded there
        ai(via("get_weather", {"city": "Paris"}, "a2")),  # t1, after its load ran
        ai(content="t2 done"),
        ai(content="t1 done"),
    ]
    h = build(form, steps, mode="stable", interrupt_before=["tools"])
    t1, t2 = cfg("t1"), cfg("t2")
    await h.run("weather", t1, mode)  # stops before loading
    await h.run("weather", t2, mode)  # stops before its call
    await h.run(None, t1, mode)  # loads on t1; the model calls; stops
    out2 = await h.run(None, t2, mode)  # t2's call: refused
    out1 = await h.run(None, t1, mode)  # t1's call runs
    assert by_id(out2)["b1"].status == "error"
    assert by_id(out1)["a2"].content == "Sunny in Paris"
    assert CALLS == [("get_weather", "Paris")]
    assert len(set(h.model.bound_json)) == 1


@form_param
@mode_param
async def test_a_tool_loaded_in_the_same_step_waits(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l"), via("get_weather", {}, "c")),
        ai(content="ok"),
    ]
    h = build(form, steps, mode="stable")
    out = await h.run("weather", cfg(), mode)
    assert by_id(out)["c"].content == P.TOOL_LOADED_THIS_STEP and CALLS == []


@form_param
@mode_param
async def test_the_filter_decides_what_call_tool_runs(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "admin_delete_user"}, "l")),
        ai(content="loaded"),
        ai(via("admin_delete_user", {"id": "42"}, "x")),
        ai(content="ok"),
    ]
    h = build(form, steps, mode="stable", filter=plan_filter)
    await h.run("load it", cfg(plan="pro"), mode)
    out = await h.run("delete 42", cfg(plan="free"), mode)  # active phase: denied now
    assert by_id(out)["x"].status == "error" and CALLS == []


@form_param
@mode_param
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("call_tool", {"tool_name": "get_weather", "arguments": {"city": "Paris"}}),
        ("load_tool", {"tool_name": "admin_delete_user"}),
        ("search_tools", {"query": "delete"}),
    ],
)
async def test_call_tool_never_names_a_meta_tool(
    form: str, mode: str, name: str, arguments: dict[str, Any]
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
        ai(via(name, arguments, "x")),
        ai(content="ok"),
    ]
    h = build(form, steps, mode="stable")
    before = counts().get("toolsearch.call.refused{reason=meta_tool}", 0)
    out = await h.run("weather", cfg(), mode)
    reply = by_id(out)["x"]
    assert reply.content == P.CALL_TOOL_META and reply.name == "call_tool"
    assert CALLS == []
    assert h.ts.get_loaded_tools(cfg(), out) == ["get_weather"]
    assert counts()["toolsearch.call.refused{reason=meta_tool}"] == before + 1


@form_param
@mode_param
async def test_a_tool_outside_the_library_never_runs(form: str, mode: str) -> None:
    @tool
    def direct_ping() -> str:
        """Ping"""
        CALLS.append(("direct_ping", None))
        return "pong"

    steps = [ai(via("direct_ping", {}, "x")), ai(content="ok")]
    h = build(form, steps, mode="stable", direct_tools=[direct_ping])
    out = await h.run("ping", cfg(), mode)
    assert by_id(out)["x"].status == "error" and CALLS == []


@form_param
@mode_param
async def test_an_agent_tool_searched_per_request_runs_once_loaded(form: str, mode: str) -> None:
    @tool
    def agent_ping(text: str) -> str:
        """Ping with a text"""
        CALLS.append(("agent_ping", text))
        return f"pong {text}"

    steps = [
        ai(via("agent_ping", {"text": "early"}, "x")),
        ai(call("load_tool", {"tool_name": "agent_ping"}, "l")),
        ai(via("agent_ping", {"text": "hi"}, "y")),
        ai(content="ok"),
    ]
    h = build(form, steps, mode="stable", direct_tools=[agent_ping], include_resolved_tools=True)
    out = await h.run("ping", cfg(), mode)
    assert by_id(out)["x"].status == "error"
    assert by_id(out)["y"].content == "pong hi" and CALLS == [("agent_ping", "hi")]
    assert len(set(h.model.bound_json)) == 1 and h.bound[0] == STABLE


@form_param
@mode_param
@pytest.mark.parametrize(
    "arguments",
    [
        {"tool_name": "get_weather", "arguments": {"city": 5}},  # wrong type
        {"tool_name": "get_weather", "arguments": {}},  # missing
        {"tool_name": "get_weather", "arguments": ["Paris"]},  # not an object
        {"tool_name": "get_weather", "arguments": "not json {"},
        {"tool_name": 7, "arguments": {"city": "Paris"}},
        {"tool_name": "get_weather", "arguments": {"city": "Paris"}, "extra": 1},
    ],
)
async def test_hostile_arguments_answer_an_error_and_the_run_goes_on(
    form: str, mode: str, arguments: dict[str, Any]
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
        ai(call("call_tool", arguments, "x")),
        ai(via("get_weather", '{"city": "Rome"}', "y")),  # JSON text is an object too
        ai(content="ok"),
    ]
    h = build(form, steps, mode="stable")
    out = await h.run("weather", cfg(), mode)
    replies = by_id(out)
    assert replies["x"].status == "error" and replies["x"].tool_call_id == "x"
    assert replies["y"].content == "Sunny in Rome"
    assert CALLS == [("get_weather", "Rome")]


@form_param
async def test_a_tool_without_parameters_takes_no_arguments(form: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "github_get_me"}, "l")),
        ai(call("call_tool", {"tool_name": "github_get_me"}, "x")),
        ai(via("github_get_me", None, "y")),
        ai(content="ok"),
    ]
    h = build(form, steps, mode="stable")
    out = await h.run("who am I", cfg())
    assert by_id(out)["x"].content == by_id(out)["y"].content == "octocat"
    assert CALLS == [("github_get_me", None), ("github_get_me", None)]


@form_param
async def test_output_is_bounded_as_for_a_bound_tool(form: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
        ai(via("get_weather", {"city": "Paris" * 20}, "x")),
        ai(content="ok"),
    ]
    h = build(form, steps, mode="stable", max_tool_output_chars=10)
    out = await h.run("weather", cfg())
    content = str(by_id(out)["x"].content)
    assert content.startswith("Sunny in P") and "[output truncated" in content


@form_param
async def test_the_working_set_counts_call_tool_uses(form: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(call("load_tool", {"tool_name": "send_email"})),
        ai(via("get_weather", {"city": "Oslo"})),  # used last: kept over send_email
        ai(call("load_tool", {"tool_name": "slack_post_message"})),
        ai(via("get_weather", {"city": "Rome"}, "x")),
        ai(content="ok"),
    ]
    h = build(form, steps, mode="stable", max_loaded=2)
    out = await h.run("weather", cfg())
    assert by_id(out)["x"].content == "Sunny in Rome"


# -- Injected arguments reach the real tool -------------------------------------------------------


SEEN: dict[str, Any] = {}


@tool
def inspect_run(topic: str, runtime: ToolRuntime) -> str:
    """Report what the run injects"""
    SEEN["runtime"] = (runtime.tool_call_id, (runtime.config.get("configurable") or {}))
    return f"runtime {topic}"


@tool
def count_messages(topic: str, state: Annotated[Any, InjectedState]) -> str:
    """Count the conversation's messages"""
    SEEN["state"] = len(state["messages"])
    return f"state {topic}"


@tool
def keep_note(text: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Keep a note in the store"""
    store.put(("notes",), "last", {"text": text})
    return f"noted {text}"


@tool
def acknowledge(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command[Any]:
    """Acknowledge with a command"""
    message = ToolMessage(f"ack {text}", tool_call_id=tool_call_id)
    return Command(update={"messages": [message]})


@form_param
@mode_param
async def test_injected_arguments_reach_the_tool(form: str, mode: str) -> None:
    names = ["inspect_run", "count_messages", "keep_note", "acknowledge"]
    steps = [
        ai(call("load_tool", {"tool_names": names}, "l")),
        ai(via("inspect_run", {"topic": "a"}, "c1"), via("count_messages", {"topic": "b"}, "c2")),
        ai(via("keep_note", {"text": "hello"}, "c3"), via("acknowledge", {"text": "x"}, "c4")),
        ai(content="ok"),
    ]
    store = InMemoryStore()
    tools = [inspect_run, count_messages, keep_note, acknowledge]
    h = build(form, steps, mode="stable", tools=tools, graph_store=store)
    out = await h.run("go", cfg("t9", user_id="u1"), mode)
    replies = by_id(out)
    body = replies["l"].artifact
    assert {d["name"]: list(d["parameters"]["properties"]) for d in body["tools"]} == {
        "inspect_run": ["topic"],
        "count_messages": ["topic"],
        "keep_note": ["text"],
        "acknowledge": ["text"],
    }
    assert [replies[i].content for i in ("c1", "c2", "c3", "c4")] == [
        "runtime a",
        "state b",
        "noted hello",
        "ack x",
    ]
    assert SEEN["runtime"][0] == "c1" and SEEN["runtime"][1]["user_id"] == "u1"
    assert SEEN["state"] >= 3
    item = store.get(("notes",), "last")
    assert item is not None and item.value == {"text": "hello"}


# -- Options and wiring ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"provider": "anthropic"}, "does not combine with mode='auto' or 'stable'"),
        ({"auto_max_tokens": 100}, "auto_max_tokens is the budget of mode='auto'"),
    ],
)
def test_stable_refuses_options_it_does_not_combine_with(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ToolSearchConfigError, match=message):
        ToolSearchMiddleware(tools=library(), mode="stable", **options)


def test_call_tool_is_a_reserved_name() -> None:
    @tool
    def call_tool(tool_name: str) -> str:
        """A tool named like the meta tool"""
        return tool_name

    assert "call_tool" in P.META_TOOL_NAMES
    with pytest.raises(ToolSearchConfigError, match="reserved"):
        ToolSearchMiddleware(tools=[call_tool])


def test_call_tool_outside_the_guard_refuses_to_run() -> None:
    node = ToolSearchNode(tools=library(), mode="stable")
    with pytest.raises(ToolSearchWiringError, match="without the execution guard"):
        node.meta_tools[-1].invoke({"tool_name": "get_weather", "arguments": {"city": "Paris"}})


@form_param
async def test_without_stable_mode_call_tool_is_an_unknown_tool(form: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(via("get_weather", {"city": "Paris"}, "x")),
        ai(content="ok"),
    ]
    model_steps = list(steps)
    model_steps[1].tool_calls[0]["name"] = "call_tool"
    h = build(form, model_steps)
    out = await h.run("weather", cfg())
    assert by_id(out)["x"].status == "error" and CALLS == []
    assert all("call_tool" not in names for names in h.bound)


@pytest.mark.parametrize("storage", ["store", "in-memory"])
def test_a_started_call_tool_call_is_not_run_twice(storage: str) -> None:
    runs, messages = crash_and_resume(False, storage, mode="stable")
    assert runs == [3]
    answer = [m for m in messages if m.type == "tool"][-1]
    assert answer.status == "error" and "outcome is unknown" in answer.content
    assert answer.tool_call_id == messages[-3].tool_calls[0]["id"]
    assert messages[-3].tool_calls[0]["name"] == "call_tool"


@form_param
async def test_a_pinned_tool_stays_bound_at_every_step(form: str) -> None:
    h = build(form, _multi_load(), mode="stable", pinned=["github_get_me"])
    await h.run("weather, then mail it", cfg())
    assert len(set(h.model.bound_json)) == 1  # pinned tools never change either
    assert h.bound[0] == [*STABLE, "github_get_me"]
