"""SPEC section 6: the filter hook, in every phase, both forms, sync and async
runs, sync and async hooks; it fails closed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch import ToolSearchFilterArgs, ToolSearchMiddleware
from langchain_toolsearch._access import ToolPolicy
from langchain_toolsearch._effects import HOOK_THREADS, Effect, adrive, drive
from tests.support.fakes import ai, by_id, call, search_load_call_steps
from tests.support.library_fixtures import CALLS, calculator, get_weather, library
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs

HOOK_KINDS = pytest.mark.parametrize("hook_kind", ["sync", "async"])


def make_hook(kind: str, decide: Callable[[ToolSearchFilterArgs], bool]) -> Any:
    """A sync or async filter hook around ``decide``."""
    if kind == "sync":
        return decide

    async def hook(args: ToolSearchFilterArgs) -> bool:
        await asyncio.sleep(0)
        return decide(args)

    return hook


@form_param
@mode_param
@HOOK_KINDS
async def test_filter_runs_in_all_three_phases_with_the_run_config(
    form: str, mode: str, hook_kind: str
) -> None:
    seen: list[tuple[str, str, Any]] = []

    def decide(args: ToolSearchFilterArgs) -> bool:
        seen.append((args.phase, args.tool_name, args.config))
        assert args.tool.name == args.tool_name
        return True

    steps = search_load_call_steps(
        "weather in a city", "get_weather", {"city": "Kyiv"}, answer="ok", ids=("s", "l", "w")
    )
    h = build(form, steps, filter=make_hook(hook_kind, decide))
    await h.run("go", cfg(user_id="u7", plan="pro"), mode)
    assert CALLS == [("get_weather", "Kyiv")]
    phases = [(p, n) for p, n, _ in seen]
    assert ("search", "get_weather") in phases
    assert ("load", "get_weather") in phases
    assert ("active", "get_weather") in phases
    assert {p for p, _ in phases} == {"search", "load", "active"}
    for _, _, config in seen:  # the run's RunnableConfig, configurable values included
        assert config["configurable"]["user_id"] == "u7"
        assert config["configurable"]["plan"] == "pro"
        assert config["configurable"]["thread_id"] == "t1"


@form_param
@mode_param
@HOOK_KINDS
@pytest.mark.parametrize("phase", ["search", "load", "active"])
async def test_a_raising_filter_denies(form: str, mode: str, hook_kind: str, phase: str) -> None:
    def decide(args: ToolSearchFilterArgs) -> bool:
        if args.phase == phase and args.tool_name == "get_weather":
            raise RuntimeError("policy service down")
        return True

    steps = search_load_call_steps(
        "weather", "get_weather", {"city": "Oslo"}, answer="ok", ids=("s", "l", "w")
    )
    h = build(form, steps, filter=make_hook(hook_kind, decide))
    out = await h.run("go", cfg(), mode)
    msgs = by_id(out)
    listed = [r["name"] for r in msgs["s"].artifact["results"]]
    assert ("get_weather" in listed) is (phase != "search")
    load = msgs["l"].artifact
    if phase in ("load", "active"):  # a tool this request cannot use is not loaded
        assert load["not_found"] == ["get_weather"] and load["success"] is False
    else:
        assert load["loaded"] == ["get_weather"]
    # whichever phase failed, the tool never ran
    if phase == "search":
        assert CALLS == [("get_weather", "Oslo")]  # search-phase denial only hides the hit
    else:
        assert CALLS == []
        assert msgs["w"].status == "error" and "search_tools" in msgs["w"].content
        assert all("get_weather" not in bound for bound in h.bound)


@pytest.mark.parametrize("answer", [None, 1, "yes", [True]])
@mode_param
async def test_only_true_allows(answer: Any, mode: str) -> None:
    h = build(
        "agent",
        [ai(call("load_tool", {"tool_name": "get_weather"}, "l")), ai(content="ok")],
        filter=lambda args: answer,
    )
    out = await h.run("go", cfg(), mode)
    assert by_id(out)["l"].artifact["not_found"] == ["get_weather"]
    assert h.ts.search("weather") == []


@form_param
@mode_param
@HOOK_KINDS
async def test_active_denial_hides_without_unloading(form: str, mode: str, hook_kind: str) -> None:
    def decide(args: ToolSearchFilterArgs) -> bool:
        hide = args.config.get("configurable", {}).get("hide", False)
        return not (args.phase == "active" and hide)

    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
        ai(content="loaded"),
        ai(call("get_weather", {"city": "Riga"}, "hidden")),
        ai(content="refused"),
        ai(call("get_weather", {"city": "Riga"}, "back")),
        ai(content="ran"),
    ]
    h = build(form, steps, filter=make_hook(hook_kind, decide))
    await h.run("load it", cfg(hide=False), mode)
    out = await h.run("use it", cfg(hide=True), mode)
    assert by_id(out)["hidden"].status == "error"
    assert CALLS == []
    assert h.bound[2] == META and h.bound[3] == META  # hidden for this request
    out = await h.run("use it again", cfg(hide=False), mode)
    assert by_id(out)["back"].status == "success"
    assert CALLS == [("get_weather", "Riga")]
    assert h.bound[4] == [*META, "get_weather"]  # bound again without a new load_tool
    assert [m.tool_call_id for m in tool_msgs(out) if m.name == "load_tool"] == ["l"]


@form_param
@mode_param
async def test_tools_bound_directly_are_not_filtered(form: str, mode: str) -> None:
    asked: list[str] = []

    def deny_all(args: ToolSearchFilterArgs) -> bool:
        asked.append(args.tool_name)
        return False

    steps = [ai(call("calculator", {"expression": "2+2"}, "c")), ai(content="ok")]
    h = build(form, steps, direct_tools=[calculator], filter=deny_all)
    out = await h.run("go", cfg(), mode)
    assert by_id(out)["c"].status == "success"
    assert CALLS == [("calculator", "2+2")]
    assert h.bound[0] == [*META, "calculator"]
    assert "calculator" not in asked


@HOOK_KINDS
async def test_denied_hits_do_not_use_up_top_k(hook_kind: str) -> None:
    github = ["github_get_me", "github_list_repos", "github_create_issue"]
    plain = ToolSearchMiddleware(tools=library(), top_k=2)
    top = [h.name for h in plain.search("github profile repositories issue")]
    assert len(top) == 2 and set(top) <= set(github)

    hook = make_hook(hook_kind, lambda args: args.tool_name not in top)
    mw = ToolSearchMiddleware(tools=library(), top_k=2, filter=hook)
    for hits in (
        mw.search("github profile repositories issue"),
        await mw.asearch("github profile repositories issue"),
    ):
        names = [h.name for h in hits]
        assert len(names) == 2
        assert not set(names) & set(top)
        assert names[0] in github


# -- the policy object ----------------------------------------------------------------------------


def _args(name: str = "get_weather", phase: str = "search") -> ToolSearchFilterArgs:
    return ToolSearchFilterArgs(tool_name=name, tool=get_weather, config={}, phase=phase)  # type: ignore[arg-type]


async def test_policy_check_sync_async_and_failures() -> None:
    async def async_yes(args: ToolSearchFilterArgs) -> bool:
        return True

    async def async_boom(args: ToolSearchFilterArgs) -> bool:
        raise ValueError("boom")

    def sync_boom(args: ToolSearchFilterArgs) -> bool:
        raise KeyError("x")

    assert ToolPolicy(None).check(_args()) is True and not ToolPolicy(None).enabled
    assert ToolPolicy(async_yes).check(_args()) is True  # async hook from sync code
    assert await ToolPolicy(async_yes).acheck(_args()) is True
    assert await ToolPolicy(lambda a: True).acheck(_args()) is True  # sync hook from async code
    for hook in (async_boom, sync_boom):
        assert ToolPolicy(hook).check(_args()) is False
        assert await ToolPolicy(hook).acheck(_args()) is False
    with pytest.raises(TypeError, match="filter must be a callable"):
        ToolPolicy("nope")  # type: ignore[arg-type]


async def test_policy_batches_answer_in_order() -> None:
    async def slow_even(args: ToolSearchFilterArgs) -> bool:
        n = int(args.tool_name.split("_")[1])
        await asyncio.sleep(0.001 * (10 - n))  # later ones finish first
        return n % 2 == 0

    policy = ToolPolicy(slow_even)
    batch = [_args(f"t_{i}") for i in range(10)]
    expected = [i % 2 == 0 for i in range(10)]
    assert policy.check_many(batch) == expected
    assert await policy.acheck_many(batch) == expected

    def ask(cases: list[ToolSearchFilterArgs]) -> Effect[list[bool]]:
        return Effect(partial(policy.check_many, cases), partial(policy.acheck_many, cases))

    def computation() -> Any:
        first = yield ask(batch[:3])
        second = yield ask(batch[3:5])
        return first + second

    assert drive(computation()) == expected[:5]
    assert await adrive(computation()) == expected[:5]


# -- a filter hiding most of a library is asked once per tool, in few batches --------------


def _alike(count: int) -> list[BaseTool]:
    """``count`` tools every "ledger entry" query matches, scored by how often they say it."""
    return [
        StructuredTool.from_function(
            func=lambda text="": text,
            name=f"ledger_{i:04d}",
            description="Ledger entry tool. " + "ledger entry " * (1 + i % 7),
        )
        for i in range(count)
    ]


class _Counting:
    """A filter allowing ``allowed`` names; counts the questions per (tool, phase)."""

    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed
        self.asked: dict[tuple[str, str], int] = {}

    def __call__(self, args: ToolSearchFilterArgs) -> bool:
        key = (args.tool_name, args.phase)
        self.asked[key] = self.asked.get(key, 0) + 1
        return args.tool_name in self.allowed


@pytest.mark.parametrize("auto_load", [False, True])
def test_each_tool_is_asked_of_the_filter_once_per_search_whatever_the_needs(
    auto_load: bool,
) -> None:
    tools = _alike(120)
    allowed = {t.name for t in tools[-4:]}
    hook = _Counting(allowed)
    mw = ToolSearchMiddleware(tools=tools, top_k=5, filter=hook, auto_load=auto_load)
    needs = ["ledger entry", "ledger", "entry", "ledger entry tool", "tool ledger"]
    hits = mw.search(needs, cfg("t-count"))
    assert {h.name for h in hits} == allowed
    # 5 needs over the same 120 tools asked each of them 5 times before
    assert max(hook.asked.values()) == 1
    assert len(hook.asked) <= 120 * (2 if auto_load else 1)


@mode_param
async def test_a_filter_hiding_most_tools_is_asked_in_few_batches(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = _alike(400)
    allowed = {t.name for t in tools[-3:]}
    batches: list[int] = []
    sync_many, async_many = ToolPolicy.check_many, ToolPolicy.acheck_many

    def check_many(self: ToolPolicy, batch: Any) -> list[bool]:
        batches.append(len(batch))
        return sync_many(self, batch)

    async def acheck_many(self: ToolPolicy, batch: Any, ctx: Any = None) -> list[bool]:
        batches.append(len(batch))
        return await async_many(self, batch, ctx)

    if mode == "sync":  # the sync path runs acheck_many on a helper loop: count one of them
        monkeypatch.setattr(ToolPolicy, "check_many", check_many)
    else:
        monkeypatch.setattr(ToolPolicy, "acheck_many", acheck_many)
    mw = ToolSearchMiddleware(tools=tools, top_k=5, filter=lambda a: a.tool_name in allowed)
    config = cfg("t-batches")
    if mode == "sync":
        hits = mw.search("ledger entry", config)
    else:
        hits = await mw.asearch("ledger entry", config)
    assert {h.name for h in hits} == allowed
    assert batches[0] == 5  # the first batch is what top_k asks for
    assert sum(batches) <= 2 * 400
    assert len(batches) <= 10  # it was one batch of 5 per 5 hits: 80 round trips
    # one batch is one wave of the filter's threads: no case waits out filter_timeout queued
    assert max(batches) <= HOOK_THREADS


# -- an answer after filter_timeout denies (the filter fails closed) ------------------------


@HOOK_KINDS
async def test_a_true_answered_after_the_timeout_denies(hook_kind: str) -> None:
    """A hook that says True only after ``filter_timeout`` has the tool refused, sync and async."""
    import time

    def late_yes(args: ToolSearchFilterArgs) -> bool:
        time.sleep(0.4)  # blocks past the timeout, then allows
        return True

    async def async_late_yes(args: ToolSearchFilterArgs) -> bool:
        time.sleep(0.4)  # blocking inside async code: no timer can interrupt it
        return True

    hook = late_yes if hook_kind == "sync" else async_late_yes
    policy = ToolPolicy(hook, timeout=0.1)
    assert policy.check(_args()) is False
    assert await policy.acheck(_args()) is False
    assert policy.check_many([_args("t_1"), _args("t_2")]) == [False, False]
    assert await policy.acheck_many([_args("t_1"), _args("t_2")]) == [False, False]
    assert ToolPolicy(hook, timeout=5).check(_args()) is True  # in time, the same hook allows
