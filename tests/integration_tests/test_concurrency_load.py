"""50 concurrent runs on one thread, in every storage mode (moved out of the unit lane: slow).

* 50 concurrent ``ainvoke`` runs on one thread, each loading a different tool:
  ``"in-memory"`` and ``"store"`` lose none of them, with a TTL sweep running
  meanwhile for ``"in-memory"``.
* ``"context"``: the loads are the thread's messages, and concurrent runs on
  one thread race in the checkpointer itself (LangGraph does not serialize
  runs of a thread inside one process; each run continues from the checkpoint
  it started from, and the last writer's history is the thread's). Every run
  keeps its own load for the rest of the run; the thread afterwards holds the
  loads of the runs whose history survived. This is the documented limit
  (docs/storage.md); use ``"store"`` when runs of one thread overlap.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from langchain_toolsearch.storage import BaseStoreLoadedToolStore
from tests.support.storage_helpers import RuleChatModel, numbered_tools, receipt_of
from tests.support.toolsearch_harness import META, build, cfg, form_param


def _loaded_now(h: Any, thread: str, storage: str) -> list[str]:
    if storage == "in-memory":
        return h.ts.loaded_tool_store.get(thread)  # type: ignore[no-any-return]
    return BaseStoreLoadedToolStore(h.graph_store).get(thread)


class ThreadClock:
    """Epoch seconds; a thread may set ``local.offset`` to act in the past."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0
        self.local = threading.local()

    def __call__(self) -> float:
        return self.now + getattr(self.local, "offset", 0.0)


class Sweeper(threading.Thread):
    """Writes expired junk threads and runs ``cleanup_now`` in a loop until stopped."""

    def __init__(self, h: Any, clock: ThreadClock) -> None:
        super().__init__(daemon=True)
        self.h, self.clock = h, clock
        self.stop = threading.Event()
        self.rounds = self.evicted = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        store = self.h.ts.loaded_tool_store
        try:
            while not self.stop.is_set():
                self.clock.local.offset = -100.0  # written long ago: already expired
                for k in range(20):
                    store.add(f"junk-{self.rounds}-{k}", ["get_weather"])
                self.clock.local.offset = 0.0
                self.evicted += self.h.ts.cleanup_now()
                self.h.ts.get_state_stats()
                self.rounds += 1
        except BaseException as exc:  # surfaced by the test
            self.error = exc


@form_param
@pytest.mark.parametrize("storage", ["in-memory", "store"])
async def test_fifty_concurrent_runs_on_one_thread_lose_no_load(form: str, storage: str) -> None:
    tools = numbered_tools(50)
    names = [t.name for t in tools]
    model = RuleChatModel()
    clock = ThreadClock()
    options: dict[str, Any] = {"ttl": 1.0, "clock": clock} if storage == "in-memory" else {}
    h = build(form, model=model, storage=storage, tools=tools, **options)
    sweeper = Sweeper(h, clock) if storage == "in-memory" else None
    if sweeper is not None:
        sweeper.start()
    try:
        outs = await asyncio.gather(
            *(
                h.graph.ainvoke({"messages": [HumanMessage(f"load {n}")]}, cfg("shared"))
                for n in names
            )
        )
    finally:
        if sweeper is not None:
            sweeper.stop.set()
            sweeper.join(timeout=30)
    for name, out in zip(names, outs, strict=True):
        assert receipt_of(out["messages"])["loaded"] == [name]
        assert name in model.bound_for(f"load {name}")[-1]  # bound on its next step
    assert sorted(_loaded_now(h, "shared", storage)) == names
    await h.graph.ainvoke({"messages": [HumanMessage("hello")]}, cfg("shared"))
    after = model.bound_for("hello")[-1]
    assert after[:2] == META and sorted(after[2:]) == names
    if sweeper is not None:
        assert sweeper.error is None
        assert sweeper.rounds > 0 and sweeper.evicted > 0
        h.ts.cleanup_now()
        assert h.ts.get_state_stats().thread_count == 1  # only the live thread is left


@form_param
async def test_fifty_concurrent_context_runs_each_keep_their_own_load(form: str) -> None:
    tools = numbered_tools(50)
    names = [t.name for t in tools]
    model = RuleChatModel()
    h = build(form, model=model, storage="context", tools=tools)
    outs = await asyncio.gather(
        *(h.graph.ainvoke({"messages": [HumanMessage(f"load {n}")]}, cfg("shared")) for n in names)
    )
    for name, out in zip(names, outs, strict=True):
        assert receipt_of(out["messages"])["loaded"] == [name]  # the run's own messages
        assert name in model.bound_for(f"load {name}")[-1]
    # the thread's history is one run's branch: its loads are those receipts, no more
    await h.graph.ainvoke({"messages": [HumanMessage("hello")]}, cfg("shared"))
    after = model.bound_for("hello")[-1]
    state = h.graph.get_state(cfg("shared")).values["messages"]
    in_history = [
        n
        for n in names
        if any(getattr(m, "name", None) == "load_tool" and n in str(m.content) for m in state)
    ]
    assert after == [*META, *in_history] and 1 <= len(in_history) <= 50
