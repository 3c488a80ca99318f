"""The per-step memos and the same-step rule hold under hostile call ids and histories.

The history memo (receipts read once per message history), the step-calls memo
(an AI message's calls by identity), the same-step refusal (a tool loaded in a
step runs from the next model turn only, whatever the call ids, ``""`` included)
and the context a user's hook sees. No subprocess.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config

from langchain_toolsearch import _guard as guard
from langchain_toolsearch import _prompts as P
from langchain_toolsearch import types as ts_types
from langchain_toolsearch._library import ToolLibrary
from langchain_toolsearch.storage._context import receipts_in, receipts_of
from tests.support.fakes import ai, call
from tests.support.library_fixtures import CALLS
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param, tool_msgs


def _raw(name: str, args: dict[str, Any], call_id: str | None) -> dict[str, Any]:
    """A tool call whose id may be ``""`` or ``None`` (``fakes.call`` always makes one)."""
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


# -- the same-step rule, whatever the call ids ---------------------------------------------------


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "store"])
@pytest.mark.parametrize("auto_load", [False, True])
@pytest.mark.parametrize(
    ("loader_id", "call_id"),
    [("", "same"), ("l1", ""), ("l1", None), ("", ""), ("l1", "l1")],
    ids=["empty-loader-id", "empty-call-id", "no-call-id", "both-empty", "same-id"],
)
async def test_a_tool_loaded_in_the_same_step_does_not_run_whatever_the_call_ids(
    form: str,
    mode: str,
    storage: str,
    auto_load: bool,
    loader_id: str,
    call_id: str | None,
) -> None:
    """Broke: a ``load_tool`` (or a loading search) with id ``""``, or a direct call with no
    id, let the tool run in the step that loaded it (sync: the load lands first)."""
    loader = (
        _raw("search_tools", {"query": "weather forecast"}, loader_id)
        if auto_load
        else _raw("load_tool", {"tool_name": "get_weather"}, loader_id)
    )
    steps = [
        AIMessage("", tool_calls=[loader, _raw("get_weather", {"city": "Oslo"}, call_id)]),
        ai(call("get_weather", {"city": "Rome"}, "next")),
        ai(content="ok"),
    ]
    h = build(form, steps, storage=storage, auto_load=auto_load)
    out = await h.run("weather", cfg(), mode)
    answers = tool_msgs(out, "get_weather")
    assert [m.status for m in answers] == ["error", "success"]
    # a sibling search's hits cannot be known before it lands: refused either way
    if auto_load:
        assert answers[0].text.startswith((P.TOOL_LOADED_THIS_STEP, P.TOOL_NOT_LOADED_AUTO))
    else:  # a sibling load_tool's request decides, whatever the timing
        assert answers[0].text == P.TOOL_LOADED_THIS_STEP
    assert CALLS == [("get_weather", "Rome")]  # Oslo never ran


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "store", "context"])
@pytest.mark.parametrize(
    "shape",
    ["get_weather, get_time", '["get_time", "get_weather"]', " get_weather "],
    ids=["comma-list", "json-string", "padded"],
)
async def test_lenient_load_shapes_still_refuse_the_tool_in_the_same_step(
    form: str, mode: str, storage: str, shape: str
) -> None:
    """Held: every name form ``load_tool`` accepts counts as this step's request."""
    steps = [
        ai(
            call("load_tool", {"tool_name": shape}, "l1"),
            call("get_weather", {"city": "Oslo"}, "same"),
        ),
        ai(call("get_weather", {"city": "Rome"}, "next")),
        ai(content="ok"),
    ]
    h = build(form, steps, storage=storage)
    out = await h.run("weather", cfg(), mode)
    status = {m.tool_call_id: (m.status, m.text) for m in tool_msgs(out, "get_weather")}
    assert status == {
        "same": ("error", P.TOOL_LOADED_THIS_STEP),
        "next": ("success", "Sunny in Rome"),
    }
    assert CALLS == [("get_weather", "Rome")]


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "store"])
async def test_a_loader_id_reused_from_an_earlier_step_does_not_free_a_same_step_load(
    form: str, mode: str, storage: str
) -> None:
    """Held: the loading call's id was used in an earlier step too; the step of the
    direct call is its own message, so its load is still this step's."""
    steps = [
        ai(call("search_tools", {"query": "weather"}, "call_0")),
        ai(
            call("load_tool", {"tool_name": "get_weather"}, "call_0"),
            call("get_weather", {"city": "Oslo"}, "call_1"),
        ),
        ai(call("get_weather", {"city": "Rome"}, "call_0")),
        ai(content="ok"),
    ]
    h = build(form, steps, storage=storage)
    out = await h.run("weather", cfg(), mode)
    answers = tool_msgs(out, "get_weather")
    assert [(m.status, m.text) for m in answers] == [
        ("error", P.TOOL_LOADED_THIS_STEP),
        ("success", "Sunny in Rome"),
    ]
    assert CALLS == [("get_weather", "Rome")]


@form_param
@mode_param
@pytest.mark.parametrize("storage", ["in-memory", "store"])
async def test_a_meta_call_reusing_an_earlier_loaders_id_does_not_refuse_a_loaded_tool(
    form: str, mode: str, storage: str
) -> None:
    """Broke: models that number calls per step (``call_0`` first every time) saw a tool
    loaded steps ago refused as "loaded in this same step" in every step that also searched
    or loaded something else: any meta call of the step counted as its loader."""
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "call_0")),
        ai(
            call("search_tools", {"query": "time"}, "call_0"),
            call("get_weather", {"city": "Oslo"}, "call_1"),
        ),
        ai(
            call("load_tool", {"tool_name": "get_time"}, "call_0"),
            call("get_weather", {"city": "Rome"}, "call_1"),
        ),
        ai(content="ok"),
    ]
    h = build(form, steps, storage=storage)
    out = await h.run("weather", cfg(), mode)
    answers = tool_msgs(out, "get_weather")
    assert [(m.status, m.text) for m in answers] == [
        ("success", "Sunny in Oslo"),
        ("success", "Sunny in Rome"),
    ]
    assert CALLS == [("get_weather", "Oslo"), ("get_weather", "Rome")]


def test_a_call_without_an_id_finds_its_own_step() -> None:
    load = _raw("load_tool", {"tool_name": "get_weather"}, "l1")
    direct = _raw("get_weather", {"city": "Oslo"}, None)
    message = AIMessage("", tool_calls=[load, direct])
    state = {"messages": [HumanMessage("go"), message]}
    step = guard.StepCalls.of(state, message.tool_calls[1])
    assert step.loads_of("get_weather", ToolLibrary([])) == {"l1"}


# -- the history memo: shared message objects, lists changed in place, ids reused -----------------


def _history(tool: str, call_id: str) -> list[Any]:
    """A genuine ``load_tool`` receipt for ``tool``."""
    artifact = {"success": True, "loaded": [tool], "already_loaded": [], "not_found": []}
    return [
        HumanMessage("go"),
        AIMessage("", tool_calls=[call("load_tool", {"tool_name": tool}, call_id)]),
        ToolMessage(content="loaded", artifact=artifact, tool_call_id=call_id, name="load_tool"),
    ]


def test_a_shared_last_message_does_not_share_another_callers_receipts() -> None:
    """Held: B's history ends with A's receipt object but lacks A's call: no load for B,
    whichever of them is read first."""
    for a_first in (True, False):
        a = _history("get_weather", "l1")
        b = [HumanMessage("hi"), a[-1]]  # the very receipt object, without its call
        order = [(a, ["get_weather"]), (b, [])]
        for messages, expected in order if a_first else order[::-1]:
            assert receipts_of({"messages": messages}) == expected
        assert receipts_of({"messages": b}) == []


def test_a_history_changed_in_place_is_read_again() -> None:
    messages = _history("get_weather", "l1")
    state = {"messages": messages}
    assert receipts_of(state) == ["get_weather"]
    call_message = messages[1]
    messages[1] = AIMessage("", tool_calls=[call("get_time", {}, "l1")])  # same length
    assert receipts_of(state) == []  # the receipt now answers a call of another tool
    messages[1] = call_message
    assert receipts_of(state) == ["get_weather"]
    del messages[1]
    assert receipts_of(state) == []
    messages.insert(0, call_message)
    assert receipts_of(state) == ["get_weather"]


def test_a_new_history_at_a_reused_address_is_read_afresh() -> None:
    """Held: histories dropped and rebuilt (ids of the dead reused) never get a stale read."""
    for i in range(300):
        granted = i % 2 == 0
        messages = _history("get_weather", f"l{i}")
        if not granted:
            messages[1] = AIMessage("", tool_calls=[call("get_time", {}, f"l{i}")])
        assert receipts_of({"messages": messages}) == (["get_weather"] if granted else [])
        del messages
        gc.collect() if i % 50 == 0 else None


def test_threads_sharing_message_objects_each_get_their_own_histories_receipts() -> None:
    """Held: many threads, histories that share the receipt object and differ before it."""
    base = _history("get_weather", "l1")
    variants = [
        base,
        [HumanMessage("x"), base[-1]],
        [base[1], HumanMessage("y"), base[-1]],
        [HumanMessage("z"), AIMessage("", tool_calls=[call("get_time", {}, "l1")]), base[-1]],
    ]
    expected = [receipts_in(v) for v in variants]
    assert expected == [["get_weather"], [], ["get_weather"], []]
    wrong: list[Any] = []
    barrier = threading.Barrier(8)

    def worker(k: int) -> None:
        barrier.wait()
        for j in range(400):
            i = (k + j) % len(variants)
            fresh = list(variants[i]) if j % 3 == 0 else variants[i]  # a copy too
            got = receipts_of({"messages": fresh})
            if got != expected[i]:
                wrong.append((i, got))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


# -- a user's hooks still see their caller's context ------------------------------------------------


class _Tracer(BaseCallbackHandler):
    """A caller's own callback handler (what LangSmith tracing hangs on)."""

    def __init__(self, user: str) -> None:
        self.user = user


def _seen_by(where: str, own: str) -> tuple[str, str, str]:
    """``(hook, user its arguments name, user of get_config() and of its tracer)``."""
    conf = get_config()
    user = conf["configurable"]["user"]
    handlers = getattr(conf.get("callbacks"), "inheritable_handlers", None) or []
    traced = [h.user for h in handlers if isinstance(h, _Tracer)]
    return where, own, user if traced == [user] else f"callbacks {traced}"


def _noting_hooks(kind: str, seen: list[tuple[str, str, str]]) -> dict[str, Any]:
    """Tool-search options: a filter and a resolver (sync or async) noting what they see."""
    lock = threading.Lock()

    def note(where: str, config: RunnableConfig) -> None:
        found = _seen_by(where, config["configurable"]["user"])
        with lock:
            seen.append(found)

    def sync_filter(args: ts_types.ToolSearchFilterArgs) -> bool:
        note("filter", args.config)
        return True

    async def async_filter(args: ts_types.ToolSearchFilterArgs) -> bool:
        await asyncio.sleep(0)
        note("filter", args.config)
        return True

    def sync_resolver(config: RunnableConfig) -> list[Any]:
        note("resolver", config)
        return []

    async def async_resolver(config: RunnableConfig) -> list[Any]:
        await asyncio.sleep(0)
        note("resolver", config)
        return []

    sync = kind == "sync"
    return {
        "filter": sync_filter if sync else async_filter,
        "include_resolved_tools": True,
        "resolve_tools": sync_resolver if sync else async_resolver,
    }


def _load_then_call() -> list[AIMessage]:
    return [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(call("get_weather", {"city": "Oslo"})),
        ai(content="ok"),
    ]


@form_param
@mode_param
@pytest.mark.parametrize("hooks", ["sync", "async"])
async def test_filters_and_resolvers_see_their_own_callers_config_in_tool_steps(
    form: str, mode: str, hooks: str
) -> None:
    """Held: detached timers / the bridge loop in empty contexts did not cut the caller's
    ``get_config()`` (nor its callbacks) off a filter or a resolver, two callers interleaved."""
    seen: list[tuple[str, str, str]] = []
    runs = [build(form, _load_then_call(), **_noting_hooks(hooks, seen)) for _ in range(2)]
    configs = [cfg("ta", user="alice"), cfg("tb", user="bob")]
    for conf in configs:
        conf["callbacks"] = [_Tracer(conf["configurable"]["user"])]
    payload = {"messages": [HumanMessage("w")]}
    if mode == "sync":
        outs: list[Any] = [None, None]

        def run(i: int) -> None:
            outs[i] = runs[i].graph.invoke(payload, configs[i])

        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        pairs = zip(runs, configs, strict=True)
        outs = list(await asyncio.gather(*(r.graph.ainvoke(payload, c) for r, c in pairs)))
    for out in outs:
        assert [m.status for m in tool_msgs(out, "get_weather")] == ["success"]
    assert {w for w, _, _ in seen} == {"filter", "resolver"}
    assert {u for _, u, _ in seen} == {"alice", "bob"}
    assert [s for s in seen if s[1] != s[2]] == []  # get_config() is always the caller's


@form_param
@pytest.mark.parametrize("hooks", ["sync", "async"])
def test_hooks_see_the_callers_config_when_a_sync_run_is_made_inside_a_running_loop(
    form: str, hooks: str
) -> None:
    """Held: ``invoke`` from code already on an event loop (a notebook cell) takes the
    bridge loop for every hook; each hook still sees the caller's ``get_config()``."""
    seen: list[tuple[str, str, str]] = []
    h = build(form, _load_then_call(), **_noting_hooks(hooks, seen))

    async def cell() -> Any:
        config = cfg("t", user="carol")
        config["callbacks"] = [_Tracer("carol")]
        return h.graph.invoke({"messages": [HumanMessage("w")]}, config)

    out = asyncio.run(cell())
    assert [m.status for m in tool_msgs(out, "get_weather")] == ["success"]
    assert set(seen) == {("filter", "carol", "carol"), ("resolver", "carol", "carol")}
