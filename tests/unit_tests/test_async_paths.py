"""Async and production: filters and resolvers never run on the event loop,
async filters of one search run concurrently in sync paths too, ``filter_timeout`` and
``resolve_timeout`` fail closed / go on, a resolver's bad tools are dropped alone, and a
sync filter or resolver hanging past its timeout keeps no thread of the application's
default executor."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import logging
import os
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool

from langchain_toolsearch import ToolSearchFilterArgs, ToolSearchMiddleware
from langchain_toolsearch import _effects as _async
from langchain_toolsearch._effects import detached_timeout, run_sync
from tests.support.fakes import ai, call
from tests.support.library_fixtures import library
from tests.support.toolsearch_harness import build, cfg, form_param, mode_param, tool_msgs


def running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@form_param
async def test_sync_filters_and_resolvers_never_run_on_the_event_loop(form: str) -> None:
    loops: list[Any] = []

    def sync_filter(args: ToolSearchFilterArgs) -> bool:
        loops.append(running_loop())
        return True

    def sync_resolver(config: RunnableConfig) -> list[BaseTool]:
        loops.append(running_loop())
        return []

    steps = [
        ai(call("search_tools", {"query": "weather"})),
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(call("get_weather", {"city": "Oslo"})),
        ai(content="ok"),
    ]
    h = build(
        form, steps, filter=sync_filter, include_resolved_tools=True, resolve_tools=sync_resolver
    )
    out = await h.run("go", cfg(), "async")
    assert tool_msgs(out)[-1].text.startswith("Sunny")
    assert loops and all(loop is None for loop in loops)


def test_async_filters_of_one_search_run_concurrently_from_sync_code() -> None:
    started: list[str] = []
    both = asyncio.Event()

    async def barrier(args: ToolSearchFilterArgs) -> bool:
        started.append(args.tool_name)
        if len(started) >= 2:
            both.set()
        await both.wait()  # sequential checks would never get past the first
        return True

    mw = ToolSearchMiddleware(tools=library(), filter=barrier, top_k=2, filter_timeout=30)
    hits = mw.search("github issue repository")
    assert len(hits) == 2


@mode_param
async def test_a_filter_past_its_timeout_denies_and_is_logged_once(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    release = threading.Event()

    def stuck(args: ToolSearchFilterArgs) -> bool:
        if args.tool_name == "get_weather":
            release.wait(30)
        return True

    mw = ToolSearchMiddleware(tools=library(), filter=stuck, filter_timeout=0.2)
    try:
        with caplog.at_level(logging.DEBUG):
            for _ in range(2):
                hits = mw.search("weather") if mode == "sync" else await mw.asearch("weather")
                assert "get_weather" not in [h.name for h in hits]
    finally:
        release.set()
    warnings = [r for r in caplog.records if "no answer within" in r.getMessage()]
    assert [r.levelno for r in warnings] == [logging.WARNING, logging.DEBUG]


@mode_param
async def test_a_resolver_past_its_timeout_is_skipped_and_the_run_goes_on(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    release = threading.Event()

    def stuck(config: RunnableConfig) -> list[BaseTool]:
        release.wait(30)
        return []

    mw = ToolSearchMiddleware(
        tools=library(), include_resolved_tools=True, resolve_tools=stuck, resolve_timeout=0.2
    )
    try:
        with caplog.at_level(logging.WARNING):
            hits = mw.search("weather") if mode == "sync" else await mw.asearch("weather")
    finally:
        release.set()
    assert hits[0].name == "get_weather"
    assert "timed out" in caplog.text


def named(name: str, description: str = "A per-request tool") -> BaseTool:
    return StructuredTool(
        name=name, description=description, args_schema={"type": "object"}, func=lambda: name
    )


def bad_set(config: RunnableConfig) -> list[BaseTool]:
    from tests.unit_tests.test_model_arguments import broken_tool

    return [
        named("ticket_open", "Open a support ticket"),
        named("ticket_open", "Open a support ticket again"),  # duplicate
        named("search_tools"),  # reserved
        named("get_weather"),  # a static library name
        named("bad\udcffname"),  # not valid UTF-8
        broken_tool(),  # LangChain cannot convert its schema
    ]


@mode_param
async def test_a_bad_resolver_set_loses_only_the_bad_tools(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    mw = ToolSearchMiddleware(tools=library(), include_resolved_tools=True, resolve_tools=bad_set)
    with caplog.at_level(logging.WARNING):
        hits = (
            mw.search("support ticket", cfg())
            if mode == "sync"
            else await mw.asearch("support ticket", cfg())
        )
    assert [h.name for h in hits] == ["ticket_open"]
    for why in ("same name", "reserved", "static library", "UTF-8", "cannot be converted"):
        assert why in caplog.text, why


@mode_param
async def test_an_async_filter_that_blocks_denies_even_if_it_answers_true_later(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """``filter_timeout`` bounds an ``async def`` filter that never awaits: its late True denies."""
    import time

    async def blocks(args: ToolSearchFilterArgs) -> bool:
        if args.tool_name == "get_weather":
            time.sleep(0.6)  # a blocking call inside async code
        return True

    mw = ToolSearchMiddleware(tools=library(), filter=blocks, filter_timeout=0.1)
    # DEBUG: a cause already logged at WARNING by an earlier test is logged at DEBUG after
    with caplog.at_level(logging.DEBUG, logger="langchain_toolsearch"):
        hits = mw.search("weather") if mode == "sync" else await mw.asearch("weather")
    assert "get_weather" not in [h.name for h in hits]
    assert "no answer within" in caplog.text


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_blocking_filter_never_stalls_the_callers_event_loop(kind: str) -> None:
    """The caller's loop keeps running while a filter blocks far past its timeout."""
    import time

    def sync_blocks(args: ToolSearchFilterArgs) -> bool:
        time.sleep(1.5)
        return True

    async def async_blocks(args: ToolSearchFilterArgs) -> bool:
        time.sleep(1.5)
        return True

    hook = sync_blocks if kind == "sync" else async_blocks
    mw = ToolSearchMiddleware(tools=library(), filter=hook, filter_timeout=0.1, top_k=1)
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    hits = await mw.asearch("weather")
    done.set()
    await task
    assert hits == []  # every case timed out: denied
    assert gaps and max(gaps) < 1.0  # the 1.5 s block never held this loop


class _Held:
    """Stands for a request's run (config, runtime, per-request tools) in its context."""


_HELD: contextvars.ContextVar[_Held | None] = contextvars.ContextVar("held", default=None)


@pytest.mark.parametrize("exits", ["in time", "by timeout"])
async def test_a_finished_timeout_keeps_nothing_of_the_requests_context(exits: str) -> None:
    # asyncio keeps a cancelled timer queued until its deadline, with its context
    held = [_Held()]
    gone = weakref.ref(held[0])

    async def request() -> str:
        _HELD.set(held.pop())
        try:
            async with detached_timeout(0.01 if exits == "by timeout" else 60):
                await asyncio.sleep(0 if exits == "in time" else 5)
        except TimeoutError:
            return "timed out"
        return "done"

    # another timer due first keeps ours off the head of the loop's timer queue
    other = asyncio.get_running_loop().call_later(30, lambda: None)
    try:
        outcome = await asyncio.create_task(request(), context=contextvars.Context())
        assert outcome == ("timed out" if exits == "by timeout" else "done")
        await asyncio.sleep(0)
        gc.collect()
        assert gone() is None
    finally:
        other.cancel()


def test_the_bridge_loop_keeps_nothing_of_the_caller_that_started_it() -> None:
    held = [_Held()]
    gone = weakref.ref(held[0])

    def caller() -> None:
        _HELD.set(held.pop())
        _async._loop = None  # as if this caller were the process's first sync path
        assert run_sync(asyncio.sleep(0, "ok")) == "ok"

    before = _async._loop
    try:
        contextvars.Context().run(caller)
        gc.collect()
        assert gone() is None
    finally:
        made, _async._loop = _async._loop, before
        if made is not None and made is not before:
            made.call_soon_threadsafe(made.stop)


# -- hanging sync hooks keep none of the application's threads ---------------------------

DEFAULT_EXECUTOR_THREADS = min(32, (os.cpu_count() or 1) + 4)
"""``asyncio``'s default executor size (``ThreadPoolExecutor``'s default)."""


async def hang_then_check_the_app(hang: Callable[[], Awaitable[object]], times: int) -> None:
    """Hang ``times`` hooks, then the application's own ``to_thread`` must still run."""
    await asyncio.gather(*(hang() for _ in range(times)))
    assert await asyncio.wait_for(asyncio.to_thread(lambda: "free"), timeout=20) == "free"


async def test_a_hanging_sync_filter_never_holds_the_applications_threads() -> None:
    release = threading.Event()

    def hangs_on_github(args: ToolSearchFilterArgs) -> bool:
        if args.tool_name.startswith("github_"):
            release.wait()
        return True

    mw = ToolSearchMiddleware(tools=library(), filter=hangs_on_github, filter_timeout=0.05)
    try:  # each search of "github" hangs the filter on the four github_* tools
        await hang_then_check_the_app(lambda: mw.asearch("github"), DEFAULT_EXECUTOR_THREADS)
        assert [r.name for r in await mw.asearch("weather")] == ["get_weather"]
    finally:
        release.set()


async def test_a_hanging_sync_resolver_never_holds_the_applications_threads() -> None:
    release = threading.Event()

    def hangs(config: RunnableConfig) -> list[BaseTool]:
        release.wait()
        return []

    mw = ToolSearchMiddleware(
        tools=library(), include_resolved_tools=True, resolve_tools=hangs, resolve_timeout=0.05
    )
    try:
        await hang_then_check_the_app(lambda: mw.asearch("weather"), DEFAULT_EXECUTOR_THREADS + 1)
    finally:
        release.set()
