"""SPEC sections 2 and 8 through real ``create_agent`` runs (and, where the
behaviour is shared, the hand-built ``StateGraph`` form too): options and
their validation, ``search``/``asearch``, the system hint, binding order,
collisions, the execution guard, injection into loaded tools, one
ToolMessage per tool call and provider-safe names.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, ToolException, tool
from langgraph.prebuilt import InjectedState, ToolRuntime

from langchain_toolsearch import ToolSearchMiddleware, ToolSearchNode, ToolSearchResult
from langchain_toolsearch import _prompts as P
from tests.support.fakes import ai, call
from tests.support.library_fixtures import (
    CALLS,
    calculator,
    get_weather,
    library,
    send_email,
)
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs

CLASSES = pytest.mark.parametrize("cls", [ToolSearchMiddleware, ToolSearchNode])
SAFE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


# -- section 2: options -------------------------------------------------------------------


@CLASSES
def test_options_are_keyword_only(cls: type) -> None:
    with pytest.raises(TypeError):
        cls(library())
    with pytest.raises(TypeError):
        cls(library(), 5)


@CLASSES
@pytest.mark.parametrize(
    ("options", "error", "says"),
    [
        ({"top_k": 0}, ValueError, r"top_k must be an int >= 1, got 0"),
        ({"top_k": True}, ValueError, r"top_k must be an int >= 1"),
        ({"top_k": 2.5}, ValueError, r"top_k must be an int >= 1"),
        ({"min_score": 1.5}, ValueError, r"min_score must be a number in \[0, 1\), got 1.5"),
        ({"min_score": -0.1}, ValueError, r"min_score must be a number in \[0, 1\)"),
        ({"storage": "redis"}, ValueError, r"unknown storage 'redis'; use one of 'in-memory'"),
        (
            {"ttl": -1},
            ValueError,
            r"ttl must be a number of seconds >= 0 or a timedelta \(0 disables expiry\), got -1",
        ),
        ({"ttl": float("nan")}, ValueError, r"ttl must be a number of seconds >= 0"),
        ({"auto_load": "yes"}, ValueError, r"auto_load must be True or False"),
        ({"filter": "admin_*"}, TypeError, r"filter must be a callable"),
        ({"filter": 3}, TypeError, r"filter must be a callable"),
    ],
)
def test_bad_option_values_raise_with_what_to_change(
    cls: type, options: dict[str, Any], error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        cls(tools=library(), **options)


@CLASSES
def test_duplicate_library_names_raise(cls: type) -> None:
    with pytest.raises(ValueError, match=r"two library tools are named 'get_weather'.*rename one"):
        cls(tools=[get_weather, send_email, get_weather])


@CLASSES
@pytest.mark.parametrize("reserved", ["search_tools", "load_tool"])
def test_library_tool_with_a_meta_name_raises(cls: type, reserved: str) -> None:
    clash = StructuredTool.from_function(lambda q: q, name=reserved, description="mine")
    with pytest.raises(ValueError, match=rf"named '{reserved}', which is reserved.*rename it"):
        cls(tools=[get_weather, clash])


@CLASSES
def test_library_entries_must_be_tools(cls: type) -> None:
    with pytest.raises(TypeError, match=r"tools\[1\] is a int; pass LangChain tools"):
        cls(tools=[get_weather, 42])
    with pytest.raises(TypeError, match=r"tools must be a sequence of tools or a mapping"):
        cls(tools="get_weather")


@CLASSES
def test_valid_edge_values_are_accepted(cls: type) -> None:
    ts = cls(tools=library(), top_k=1, min_score=0.99, storage="context", filter=None)
    assert ts.options.top_k == 1
    assert ts.options.min_score == 0.99
    assert ts.options.storage == "context"
    assert ts.loaded_tool_store is None  # context keeps nothing
    forever = cls(tools=library(), ttl=0)
    assert forever.loaded_tool_store.ttl == 0


@CLASSES
async def test_search_and_asearch(cls: type) -> None:
    seen: list[Any] = []

    async def deny_email(args: Any) -> bool:
        seen.append((args.phase, args.tool_name, args.config))
        return args.tool_name != "send_email"

    ts = cls(tools=library(), top_k=3)
    hits = ts.search("send an email")
    assert hits and all(isinstance(h, ToolSearchResult) for h in hits)
    assert hits[0].name == "send_email"
    assert hits == await ts.asearch("send an email")
    assert ts.search("") == [] and await ts.asearch("   ") == []

    filtered = cls(tools=library(), top_k=3, filter=deny_email)
    config: RunnableConfig = {"configurable": {"user_id": "u9"}}
    query = "send an email or post a message"
    assert [h.name for h in ts.search(query)][:2] == ["send_email", "slack_post_message"]
    for found in (filtered.search(query, config), await filtered.asearch(query, config)):
        assert next(h.name for h in found) == "slack_post_message"
        assert "send_email" not in [h.name for h in found]
    assert {s[0] for s in seen} == {"search"}
    assert all(s[2] == config for s in seen)
    filtered.search("send an email")  # no config -> {}
    assert seen[-1][2] == {}


# -- section 3: the system hint -------------------------------------------------------------


@mode_param
@pytest.mark.parametrize("auto_load", [False, True])
async def test_system_hint_is_in_the_system_message_the_model_sees(
    mode: str, auto_load: bool
) -> None:
    h = build("agent", [ai(content="hi")], system_prompt="You are terse.", auto_load=auto_load)
    await h.run("hello", cfg(), mode)
    system = h.model.seen[0][0]
    assert isinstance(system, SystemMessage)
    hint = P.SYSTEM_HINT_ONE_STEP if auto_load else P.SYSTEM_HINT_TWO_STEP
    assert system.content == f"You are terse.\n\n{hint}"
    assert h.ts.system_prompt_hint == hint

    bare = build("agent", [ai(content="hi")], auto_load=auto_load)
    await bare.run("hello", cfg(), mode)
    assert bare.model.seen[0][0].content == hint


async def test_system_hint_can_be_switched_off() -> None:
    h = build("agent", [ai(content="hi")], system_prompt="You are terse.", system_hint=False)
    await h.run("hello", cfg())
    assert h.model.seen[0][0].content == "You are terse."


# -- section 8: binding order -----------------------------------------------------------------


@form_param
@mode_param
async def test_binding_order_meta_direct_then_loaded_in_load_order(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "send_email"})),
        ai(call("load_tool", {"tool_names": ["get_weather", "send_email"]})),
        ai(call("load_tool", {"tool_name": "admin_delete_user"})),
        ai(call("calculator", {"expression": "2+2"})),
        ai(content="done"),
    ]
    h = build(form, steps, direct_tools=[calculator])
    await h.run("go", cfg(), mode)
    assert h.bound == [
        [*META, "calculator"],
        [*META, "calculator", "send_email"],
        [*META, "calculator", "send_email", "get_weather"],
        [*META, "calculator", "send_email", "get_weather", "admin_delete_user"],
        [*META, "calculator", "send_email", "get_weather", "admin_delete_user"],
    ]
    # loads only append: every bound list is a prefix of the next one
    for before, after in zip(h.bound, h.bound[1:], strict=False):
        assert after[: len(before)] == before
    assert ("calculator", "2+2") in CALLS  # direct tools run untouched


async def test_direct_tool_colliding_with_library_raises_in_agent() -> None:
    h = build("agent", [ai(content="x")], direct_tools=[get_weather])
    with pytest.raises(ValueError, match=r"\['get_weather'\] are both bound directly.*remove it"):
        await h.run("go", cfg())
    h2 = build("agent", [ai(content="x")], direct_tools=[get_weather])
    with pytest.raises(ValueError, match=r"both bound directly"):
        await h2.run("go", cfg(), "async")


def test_direct_tool_colliding_with_library_raises_in_node() -> None:
    with pytest.raises(ValueError, match=r"\['get_weather'\] are both bound directly"):
        ToolSearchNode(tools=library(), bound_tools=[get_weather])


@form_param
def test_direct_tool_named_like_a_meta_tool_raises(form: str) -> None:
    mine = StructuredTool.from_function(lambda query: query, name="search_tools", description="x")
    if form == "node":
        with pytest.raises(ValueError, match=r"reserved for the tool-search meta tools"):
            ToolSearchNode(tools=library(), bound_tools=[mine])
        return
    with pytest.raises(ValueError):  # create_agent or the middleware refuses it
        h = build(form, [ai(content="x")], direct_tools=[mine])
        h.graph.invoke({"messages": [("user", "go")]}, cfg())


# -- section 8: the execution guard -----------------------------------------------------------------


def _hidden_names_in(text: str) -> list[str]:
    names = [t.name for t in library()]
    return [n for n in names if n in text]


@form_param
@mode_param
async def test_unloaded_tool_never_runs_even_if_named(form: str, mode: str) -> None:
    steps = [ai(call("send_email", {"to": "a@b.c", "body": "hi"}, "c1")), ai(content="ok")]
    h = build(form, steps)
    out = await h.run("mail bob", cfg(), mode)
    assert CALLS == []
    [msg] = tool_msgs(out)
    assert msg.tool_call_id == "c1" and msg.status == "error"
    assert msg.content == P.TOOL_NOT_LOADED
    assert "search_tools" in msg.content
    assert _hidden_names_in(msg.content) == []


@form_param
@mode_param
async def test_old_call_in_checkpoint_for_unloaded_tool_is_refused(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(call("get_weather", {"city": "Oslo"}, "old")),
        ai(content="ok"),
    ]
    h = build(form, steps, interrupt_before=["tools"])
    config = cfg()
    await h.run("weather", config, mode)  # paused before the load runs
    await h.run(None, config, mode)  # load runs; paused before get_weather runs
    state = h.graph.get_state(config)
    assert state.next == ("tools",)
    assert state.values["messages"][-1].tool_calls[0]["name"] == "get_weather"
    h.ts.clear_state("t1")  # the load is gone, the call stays in the checkpoint
    out = await h.run(None, config, mode)
    assert CALLS == []
    refused = [m for m in tool_msgs(out) if m.tool_call_id == "old"]
    assert len(refused) == 1 and refused[0].status == "error"
    assert "search_tools" in refused[0].content


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "context"])
@pytest.mark.parametrize("auto_load", [False, True])
async def test_a_tool_loaded_in_the_same_step_does_not_run_yet(
    form: str, mode: str, storage: str, auto_load: bool
) -> None:
    # sibling calls run concurrently: the outcome must not depend on timing
    def loader(call_id: str) -> dict[str, Any]:
        if auto_load:
            return call("search_tools", {"query": "weather"}, call_id)
        return call("load_tool", {"tool_name": "get_weather"}, call_id)

    steps = [
        ai(loader("l1"), call("get_weather", {"city": "Oslo"}, "same")),
        ai(call("get_weather", {"city": "Oslo"}, "next"), loader("l2")),
        ai(loader("l3"), call("get_weather", {"city": "Rome"}, "again")),
        ai(content="ok"),
    ]
    for _ in range(3):
        h = build(form, steps, storage=storage, auto_load=auto_load, top_k=1)
        out = await h.run("weather", cfg(), mode)
        status = {m.tool_call_id: m.status for m in tool_msgs(out)}
        assert status == {
            "l1": "success",
            "same": "error",
            "next": "success",
            "l2": "success",
            "l3": "success",
            "again": "success",
        }
        assert CALLS == [("get_weather", "Oslo"), ("get_weather", "Rome")]


@form_param
@mode_param
async def test_every_tool_call_gets_exactly_one_tool_message(form: str, mode: str) -> None:
    steps = [
        ai(
            call("search_tools", {"query": "weather"}, "a"),
            call("load_tool", {"tool_name": 5}, "b"),
            call("admin_delete_user", {"id": "42"}, "c"),
        ),
        ai(call("load_tool", {"tool_name": "get_weather"}, "d"), call("made_up", {}, "e")),
        ai(call("get_weather", {"city": "Rome"}, "f"), call("get_weather", {"town": 1}, "g")),
        ai(content="ok"),
    ]
    h = build(form, steps)
    out = await h.run("go", cfg(), mode)
    msgs = tool_msgs(out)
    assert sorted(m.tool_call_id for m in msgs) == ["a", "b", "c", "d", "e", "f", "g"]
    status = {m.tool_call_id: m.status for m in msgs}
    assert status == {
        "a": "success",
        "b": "error",
        "c": "error",
        "d": "success",
        "e": "error",
        "f": "success",
        "g": "error",
    }
    assert CALLS == [("get_weather", "Rome")]
    for m in msgs:
        assert m.content  # never an empty answer


def _silent_failure(x: str) -> str:
    raise ToolException("")


SILENT = StructuredTool.from_function(
    _silent_failure,
    name="flaky_tool",
    description="Fails without a message",
    handle_tool_error=True,
)


@form_param
@mode_param
async def test_a_loaded_tool_failing_without_text_gets_a_non_empty_error(
    form: str, mode: str
) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "flaky_tool"})),
        ai(call("flaky_tool", {"x": "1"}, "f")),
        ai(content="ok"),
    ]
    h = build(form, steps, tools=[*library(), SILENT])
    out = await h.run("go", cfg(), mode)
    [msg] = [m for m in tool_msgs(out) if m.tool_call_id == "f"]
    assert msg.status == "error"
    assert msg.content == P.TOOL_FAILED_NO_TEXT.format(name="flaky_tool")


def _bare_error_tool(text: str) -> BaseTool:
    def fails(x: str) -> str:
        raise ToolException(text)

    return StructuredTool.from_function(
        fails, name="bare_error_tool", description="Fails with a bare word", handle_tool_error=True
    )


@form_param
@mode_param
@pytest.mark.parametrize("text", ["Error", "Error.", " Error: "])
async def test_a_loaded_tool_failing_with_a_bare_error_word_gets_the_packages_text(
    form: str, mode: str, text: str
) -> None:
    """An error text that is only the word ``Error`` tells the model nothing: it is replaced."""
    steps = [
        ai(call("load_tool", {"tool_name": "bare_error_tool"})),
        ai(call("bare_error_tool", {"x": "1"}, "f")),
        ai(content="ok"),
    ]
    h = build(form, steps, tools=[*library(), _bare_error_tool(text)])
    out = await h.run("go", cfg(), mode)
    [msg] = [m for m in tool_msgs(out) if m.tool_call_id == "f"]
    assert msg.status == "error"
    assert msg.content == P.TOOL_FAILED_NO_TEXT.format(name="bare_error_tool")


# -- section 8: loaded tools get config, InjectedState and ToolRuntime -------------------------------


@tool
def read_config(config: RunnableConfig) -> str:
    """Report the user id found in the run configuration"""
    return f"user={(config.get('configurable') or {}).get('user_id')}"


@tool
def read_state(question: str, state: Annotated[dict[str, Any], InjectedState]) -> str:
    """Count the messages in the graph state"""
    return f"messages={len(state['messages'])} first={state['messages'][0].content}"


@tool
def read_state_field(messages: Annotated[list[Any], InjectedState("messages")]) -> str:
    """Count the messages through an injected state field"""
    return f"field={len(messages)}"


@tool
def read_runtime(runtime: ToolRuntime) -> str:
    """Report the tool call id, thread id and message count from the tool runtime"""
    thread = runtime.config["configurable"]["thread_id"]
    return f"call={runtime.tool_call_id} thread={thread} n={len(runtime.state['messages'])}"


INJECTING: list[BaseTool] = [read_config, read_state, read_state_field, read_runtime]


@form_param
@mode_param
async def test_loaded_tools_get_config_state_and_runtime(form: str, mode: str) -> None:
    names = [t.name for t in INJECTING]
    steps = [
        ai(call("load_tool", {"tool_names": names})),
        ai(
            call("read_config", {}, "r1"),
            call("read_state", {"question": "q"}, "r2"),
            call("read_state_field", {}, "r3"),
            call("read_runtime", {}, "r4"),
        ),
        ai(content="ok"),
    ]
    h = build(form, steps, tools=[*library(), *INJECTING])
    out = await h.run("who am i", cfg(user_id="u1"), mode)
    got = {m.tool_call_id: m.content for m in tool_msgs(out)}
    assert got["r1"] == "user=u1"
    assert got["r2"] == "messages=4 first=who am i"
    assert got["r3"] == "field=4"
    assert got["r4"] == "call=r4 thread=t1 n=4"
    # the injected parameters are not part of the bound schema
    schemas = {s["function"]["name"]: s for s in json.loads(h.model.bound_json[1])}
    assert schemas["read_config"]["function"]["parameters"]["properties"] == {}
    assert list(schemas["read_state"]["function"]["parameters"]["properties"]) == ["question"]
    assert schemas["read_runtime"]["function"]["parameters"]["properties"] == {}


# -- section 8: provider-safe names ----------------------------------------------------------------------


def _named(name: str, description: str) -> StructuredTool:
    def run(city: str) -> str:
        CALLS.append((name, city))
        return f"{name}:{city}"

    return StructuredTool.from_function(run, name=name, description=description)


LONG = "very_long_tool_name_" * 5  # 100 characters


def unsafe_library() -> list[BaseTool]:
    return [
        _named("weather.get", "Get the weather forecast for a city"),
        _named("my tool", "Translate text between languages"),
        _named("天気", "天気予報を取得する"),
        _named(LONG, "Look up the population of a city"),
        get_weather,
    ]


@form_param
@mode_param
@pytest.mark.parametrize(
    ("original", "query"),
    [
        ("weather.get", "weather.get"),
        ("my tool", "my tool"),
        ("天気", "天気"),
        (LONG, LONG),
    ],
)
async def test_provider_safe_names_search_load_call(
    form: str, mode: str, original: str, query: str
) -> None:
    steps = [
        ai(call("search_tools", {"query": query}, "s")),
        ai(call("load_tool", {"tool_name": original}, "l")),
        lambda _msgs: ai(call(safe, {"city": "Kyoto"}, "x")),
        ai(content="ok"),
    ]
    h = build(form, steps, tools=unsafe_library())
    names = h.ts.library.names
    assert len(set(names)) == len(names)
    assert all(SAFE.match(n) for n in names)
    safe = h.ts.library.resolve(original)
    assert safe is not None and safe != original
    assert ToolSearchMiddleware(tools=unsafe_library()).library.resolve(original) == safe
    out = await h.run("go", cfg(), mode)
    msgs = {m.tool_call_id: m for m in tool_msgs(out)}
    hits = msgs["s"].artifact["results"]
    assert hits[0]["name"] == safe
    assert msgs["l"].artifact["loaded"] == [safe]
    assert msgs["x"].status == "success" and msgs["x"].content == f"{original}:Kyoto"
    assert [(original, "Kyoto")] == CALLS
    assert all(SAFE.match(n) for bound in h.bound for n in bound)
    assert h.bound[-1] == [*META, safe]


# -- the middleware object itself -------------------------------------------------------------------------


def test_middleware_exposes_meta_tools_and_state_schema() -> None:
    mw = ToolSearchMiddleware(tools=library())
    assert [t.name for t in mw.tools] == META
    assert mw.name == "ToolSearchMiddleware"
    assert "toolsearch_loaded" in mw.state_schema.__annotations__
    assert [t.name for t in ToolSearchMiddleware(tools=library(), auto_load=True).tools] == [
        "search_tools"
    ]


async def test_agent_without_checkpointer_still_runs_loaded_tools() -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(call("get_weather", {"city": "Lima"})),
        ai(content="ok"),
    ]
    h = build("agent", steps, checkpointer=False)
    out = await h.run("go", None, "async")
    assert CALLS == [("get_weather", "Lima")]
    assert isinstance(out["messages"][-1], AIMessage)
    assert isinstance(tool_msgs(out)[-1], ToolMessage)


@mode_param
async def test_provider_dict_tools_and_block_system_prompts(mode: str) -> None:
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from tests.support.fakes import ScriptedChatModel

    web = {
        "type": "function",
        "function": {
            "name": "web_search",
            "description": "Search the web",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        },
    }
    model = ScriptedChatModel(
        steps=[ai(call("load_tool", {"tool_name": "get_weather"})), ai(content="ok")]
    )
    agent = create_agent(
        model,
        tools=[web],
        middleware=[ToolSearchMiddleware(tools=library())],
        checkpointer=InMemorySaver(),
        system_prompt=SystemMessage(content=[{"type": "text", "text": "Be brief."}]),
    )
    payload = {"messages": [("user", "hi")]}
    if mode == "sync":
        agent.invoke(payload, cfg())
    else:
        await agent.ainvoke(payload, cfg())
    assert model.bound == [[*META, "web_search"], [*META, "web_search", "get_weather"]]
    assert model.seen[0][0].content == [
        {"type": "text", "text": "Be brief."},
        {"type": "text", "text": P.SYSTEM_HINT_TWO_STEP},
    ]
