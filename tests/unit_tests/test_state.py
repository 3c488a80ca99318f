"""SPEC section 5, in-memory storage: per thread, per run without a thread id,
TTL with an injected clock, the timer sweep, and the public state helpers
(``clear_state``, ``clear_all_state``, ``get_state_stats``, ``cleanup_now``).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from langchain_toolsearch import LoadedToolStore
from langchain_toolsearch.storage import InMemoryLoadedToolStore
from langchain_toolsearch.types import StateStats
from tests.support.fakes import ai, call
from tests.support.library_fixtures import CALLS
from tests.support.toolsearch_harness import META, build, cfg, form_param, mode_param, tool_msgs


class Clock:
    """An injectable epoch-seconds clock."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# -- the store ------------------------------------------------------------------------------


def test_store_keeps_load_order_per_thread() -> None:
    store = InMemoryLoadedToolStore(start_timer=False)
    assert isinstance(store, LoadedToolStore)
    assert store.add("t1", ["b", "a", "b"]) == ["b", "a"]
    assert store.add("t1", ["c", "a"]) == ["c"]
    assert store.get("t1") == ["b", "a", "c"]
    assert store.get("t2") == []
    store.add("t2", ["z"])
    assert store.get("t1") == ["b", "a", "c"] and store.get("t2") == ["z"]
    store.clear("t1")
    assert store.get("t1") == [] and store.get("t2") == ["z"]
    store.clear("never-seen")  # no error
    store.clear_all()
    assert store.stats() == StateStats(thread_count=0, oldest_access_time=None)


def test_store_ttl_expires_idle_threads_and_access_refreshes() -> None:
    clock = Clock()
    store = InMemoryLoadedToolStore(ttl=60, clock=clock, start_timer=False)
    store.add("t1", ["a"])
    store.add("t2", ["b"])
    assert store.stats() == StateStats(thread_count=2, oldest_access_time=clock.now)
    clock.advance(50)
    assert store.get("t1") == ["a"]  # refreshes t1
    clock.advance(11)  # t2 idle 61 s, t1 idle 11 s
    assert store.stats().oldest_access_time == clock.now - 61
    assert store.get("t2") == []
    assert store.get("t1") == ["a"]
    clock.advance(60)  # exactly the ttl: still alive
    assert store.get("t1") == ["a"]
    clock.advance(60.001)
    assert store.get("t1") == []


def test_store_cleanup_now_counts_evictions() -> None:
    clock = Clock()
    store = InMemoryLoadedToolStore(ttl=10, clock=clock, start_timer=False)
    for i in range(5):
        store.add(f"t{i}", ["x"])
        clock.advance(1)
    assert store.cleanup_now() == 0
    clock.advance(7)  # t0, t1 idle > 10 s
    assert store.cleanup_now() == 2
    assert store.stats().thread_count == 3
    clock.advance(100)
    assert store.cleanup_now() == 3
    assert store.stats() == StateStats(thread_count=0, oldest_access_time=None)


def test_store_ttl_zero_never_expires() -> None:
    clock = Clock()
    store = InMemoryLoadedToolStore(ttl=0, clock=clock)
    store.add("t1", ["a"])
    clock.advance(10**9)
    assert store.cleanup_now() == 0
    assert store.get("t1") == ["a"]


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("ttl", [-1, "60", True])
def test_store_rejects_bad_ttl(ttl: Any) -> None:
    with pytest.raises(ValueError, match="ttl must be a number of seconds >= 0"):
        InMemoryLoadedToolStore(ttl=ttl)


def test_store_sweeps_on_access_back_to_zero() -> None:
    clock = Clock()
    store = InMemoryLoadedToolStore(ttl=60, clock=clock, start_timer=False)
    for i in range(20_000):
        store.add(f"t{i}", ["a"])
    assert store.stats().thread_count == 20_000
    clock.advance(61)
    assert store.get("someone-else") == []  # any access sweeps
    assert store.stats().thread_count == 0


def test_store_timer_sweeps_without_any_access() -> None:
    store = InMemoryLoadedToolStore(ttl=0.05, sweep_interval=0.02)
    store.add("t1", ["a"])
    deadline = time.monotonic() + 3
    while store.stats().thread_count and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store.stats().thread_count == 0
    store.close()


# -- through the agent and the node ------------------------------------------------------------


LOAD_AND_USE = [
    ai(call("load_tool", {"tool_name": "get_weather"}, "l")),
    ai(call("get_weather", {"city": "Oslo"}, "w1")),
    ai(content="ok"),
]


@form_param
@mode_param
async def test_loads_are_per_thread_and_stats_track_them(form: str, mode: str) -> None:
    clock = Clock()
    steps = [
        *LOAD_AND_USE,
        ai(call("get_weather", {"city": "Oslo"}, "w2")),
        ai(content="refused"),
        ai(call("get_weather", {"city": "Oslo"}, "w3")),
        ai(content="ran again"),
    ]
    h = build(form, steps, clock=clock)
    assert h.ts.get_state_stats() == StateStats(thread_count=0, oldest_access_time=None)
    await h.run("load", cfg("t1"), mode)
    stats = h.ts.get_state_stats()
    assert stats.thread_count == 1 and stats.oldest_access_time == clock.now

    out = await h.run("other thread", cfg("t2"), mode)
    assert h.bound[3] == META
    assert [m.status for m in tool_msgs(out) if m.tool_call_id == "w2"] == ["error"]

    clock.advance(5)
    out = await h.run("same thread", cfg("t1"), mode)
    assert h.bound[5] == [*META, "get_weather"]
    assert [m.status for m in tool_msgs(out) if m.tool_call_id == "w3"] == ["success"]
    assert CALLS == [("get_weather", "Oslo"), ("get_weather", "Oslo")]
    assert h.ts.get_state_stats().oldest_access_time == clock.now


@form_param
@mode_param
async def test_clear_state_and_clear_all_state(form: str, mode: str) -> None:
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(content="a"),
        ai(call("load_tool", {"tool_name": "send_email"})),
        ai(content="b"),
        ai(content="c"),
        ai(content="d"),
        ai(content="e"),
    ]
    h = build(form, steps)
    await h.run("x", cfg("t1"), mode)
    await h.run("x", cfg("t2"), mode)
    assert h.ts.get_state_stats().thread_count == 2
    h.ts.clear_state("t1")
    assert h.ts.get_state_stats().thread_count == 1
    await h.run("x", cfg("t1"), mode)
    await h.run("x", cfg("t2"), mode)
    assert h.bound[4] == META  # t1 starts empty
    assert h.bound[5] == [*META, "send_email"]  # t2 kept its load
    h.ts.clear_all_state()
    assert h.ts.get_state_stats().thread_count == 0
    await h.run("x", cfg("t2"), mode)
    assert h.bound[6] == META


@form_param
@mode_param
async def test_ttl_expiry_and_cleanup_now_through_the_public_api(form: str, mode: str) -> None:
    clock = Clock()
    steps = [
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(content="a"),
        ai(call("load_tool", {"tool_name": "get_weather"})),
        ai(content="b"),
    ]
    h = build(form, steps, clock=clock, ttl=60)
    await h.run("x", cfg("t1"), mode)
    await h.run("x", cfg("t2"), mode)
    clock.advance(30)
    assert h.ts.cleanup_now() == 0
    clock.advance(31)
    assert h.ts.cleanup_now() == 2
    assert h.ts.get_state_stats() == StateStats(thread_count=0, oldest_access_time=None)


@form_param
@mode_param
async def test_run_without_thread_id_keeps_loads_for_that_run_only(form: str, mode: str) -> None:
    steps = [
        *LOAD_AND_USE,
        ai(call("get_weather", {"city": "Oslo"}, "w2")),
        ai(content="refused"),
    ]
    h = build(form, steps, checkpointer=False)
    out = await h.run("first run", None, mode)
    assert [m.status for m in tool_msgs(out) if m.tool_call_id == "w1"] == ["success"]
    assert h.bound[1] == [*META, "get_weather"]
    out = await h.run("second run", None, mode)
    assert h.bound[3] == META  # nothing shared between runs without a thread id
    assert [m.status for m in tool_msgs(out) if m.tool_call_id == "w2"] == ["error"]
    assert CALLS == [("get_weather", "Oslo")]
    assert h.ts.get_state_stats().thread_count == 0  # nothing leaked into the shared store


@form_param
async def test_concurrent_runs_without_thread_id_do_not_share(form: str) -> None:
    import asyncio

    def step(messages: list[Any]) -> Any:
        human = next(m for m in messages if m.type == "human").content
        n_ai = sum(1 for m in messages if m.type == "ai")
        if human == "loader" and n_ai == 0:
            return ai(call("load_tool", {"tool_name": "get_weather"}))
        return ai(content="done")

    h = build(form, [step] * 8, checkpointer=False)
    await asyncio.gather(h.run("loader", None, "async"), h.run("other", None, "async"))
    bound_with_weather = [b for b in h.bound if "get_weather" in b]
    assert len(bound_with_weather) == 1  # only the loader's second model call
