"""The TTL at scale: 100,000 in-memory threads shrink back after the TTL.

An integration test because it takes seconds; the TTL behaviour itself is
pinned in tests/unit_tests/test_load_guarantees.py.
"""

from __future__ import annotations

import sys

from langchain_toolsearch.storage import InMemoryLoadedToolStore
from langchain_toolsearch.types import StateStats
from tests.support.engine_helpers import load_outcome
from tests.support.fakes import ai
from tests.support.toolsearch_harness import build, cfg


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_100k_threads_shrink_back_after_the_ttl() -> None:
    clock = Clock()
    h = build("agent", [ai(content="hi")], clock=clock, ttl=60)
    store = h.ts.loaded_tool_store
    assert isinstance(store, InMemoryLoadedToolStore)
    empty_table = sys.getsizeof(store._threads)
    for i in range(100_000):  # each thread loads one tool through the load_tool logic
        outcome, _ = load_outcome(h.ts, {"tool_name": "get_weather"}, cfg(f"th-{i}"))
        assert outcome.loaded == ["get_weather"]
    assert h.ts.get_state_stats().thread_count == 100_000
    assert sys.getsizeof(store._threads) > 1_000_000
    clock.now += 61
    await h.run("hello", cfg("fresh-thread"), "async")  # the next access sweeps
    assert h.ts.get_state_stats() == StateStats(thread_count=0, oldest_access_time=None)
    assert sys.getsizeof(store._threads) <= empty_table  # the table's memory is given back

    for i in range(100_000):
        store.add(f"th-{i}", ["get_weather"])
    clock.now += 61
    assert h.ts.cleanup_now() == 100_000  # or the sweep (timer / cleanup_now)
    assert h.ts.get_state_stats().thread_count == 0
    assert sys.getsizeof(store._threads) <= empty_table
